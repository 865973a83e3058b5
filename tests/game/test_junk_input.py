"""Junk from a client gets its documented code and changes nothing; an accepted action is
stored, logged and published normalised (issue #31, items 3 and 4).

Both games, over a browser socket (session cookie) and a program socket (API token): the
same consumer, so each test runs for each pair. PostgreSQL is where junk used to hurt
(`NaN` or a NUL character in a JSON column is refused by the database): run these with
DATABASE_URL set, as the project's CI does.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from bot_helpers import new_key, open_token_socket
from django.test import Client
from play_helpers import make_room, position, started
from socket_helpers import next_frame, next_state, open_socket

from game.models import Game, GameEvent
from game.services import fixed_setups, play

pytestmark = pytest.mark.django_db(transaction=True)

UNO_HANDS = [["G1", "G2", "B4"], ["R5", "B7", "G4"], ["Y9", "Y8", "B9"]]


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""
    settings.DOBON_TEST_SETUPS_ALLOWED = True


def uno_table(alice: Any, bob: Any, carol: Any) -> Game:
    """Dobon UNO, bob (engine seat 1) on turn; a draw is legal for him."""
    room = make_room(alice, bob, carol)
    engine = position(UNO_HANDS, deck=["R9"] * 20, first_player=1, timeout=60, now=time.time())
    return started(room, alice, engine)


def trump_table(alice: Any, bob: Any, carol: Any) -> Game:
    """Trump au, bob (engine seat 1) on turn; a draw is legal for him."""
    room = make_room(alice, bob, carol, game_kind="trump_dobon", trump_preset="au",
                     timeout_seconds=60, seat_count=3)
    setup = fixed_setups.FixedSetup(
        hands=[["D10", "S3", "H7"], ["C4", "H6"], ["S5", "C5"]], first_card="D6",
        deck=["S9", "D1", "C3", "H13", "S11", "H12"], first_player=1,
    )
    return fixed_setups.start_fixed_game(room, alice, setup, now=time.time())


TABLES = {"dobon_uno": uno_table, "trump_dobon": trump_table}


@pytest.fixture(params=["dobon_uno", "trump_dobon"])
def table(request, alice, bob, carol) -> Game:
    return TABLES[request.param](alice, bob, carol)


@pytest.fixture(params=["browser", "program"])
def bob_socket(request, table, bob):
    """bob's socket into the table's room, and the table."""

    async def opened():
        if request.param == "browser":
            socket = await open_socket(bob, table.room_id)
        else:
            key = await sync_to_async(new_key)(bob)
            socket = await open_token_socket(key, table.room_id)
        await next_state(socket)
        # A program socket marks the seat (a room frame follows): read until quiet.
        while not await socket.receive_nothing(0.3):
            await socket.receive_json_from(1)
        return socket

    return opened


def game_row(game_id: int) -> tuple[int, int]:
    game = Game.objects.get(pk=game_id)
    return game.version, game.event_count


async def refused_with(socket: Any, text: str) -> str:
    await socket.send_to(text_data=text)
    frame = await next_frame(socket)
    assert frame["type"] == "error", frame
    return frame["code"]


async def still_serves(socket: Any, game: Game) -> None:
    """The socket answers a plain sync with the unchanged table."""
    await socket.send_json_to({"type": "sync"})
    _, state = await next_state(socket)
    assert (state["game"], state["version"]) == (game.pk, game.version)


# -- item 3: junk gets its documented code, never a traceback --------------------------------


ODD_TYPES = [
    '{"type": "action", "action": {"type": ["draw"]}}',
    '{"type": "action", "action": {"type": {"draw": 1}}, "version": 0}',
    '{"type": "action", "action": {"type": [], "cards": ["G4"]}}',
]


async def test_an_action_type_that_is_a_list_or_an_object_answers_bad_action(
    table, bob_socket, caplog
):
    """An unhashable `type` used to reach a set's `in` test: server_error and a traceback."""
    socket = await bob_socket()
    before = await sync_to_async(game_row)(table.pk)
    with caplog.at_level(logging.WARNING):
        for text in ODD_TYPES:
            assert await refused_with(socket, text) == "bad_action", text
        # A message whose own `type` is a list is no known type.
        assert await refused_with(socket, '{"type": ["action"], "action": {}}') == "unknown_type"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert await sync_to_async(game_row)(table.pk) == before
    await still_serves(socket, table)
    await socket.disconnect()


NUMBERS = [
    '{"type": "action", "action": {"type": "draw", "note": NaN}}',
    '{"type": "action", "action": {"type": "draw", "note": [Infinity]}}',
    '{"type": "action", "action": {"type": "draw", "note": {"x": -Infinity}}}',
    '{"type": "action", "action": {"type": "draw", "note": 1e400}}',
    '{"type": "action", "action": {"type": "draw", "note": 18446744073709551616}}',
    '{"type": "action", "action": {"type": "draw", "note": -9223372036854775809}}',
    '{"type": "action", "action": {"type": "draw"}, "version": 9223372036854775808}',
    '{"type": "action", "action": {"type": "bid", "amount": 99999999999999999999999}}',
    '{"type": "sync", "game": 1, "version": NaN}',
]


async def test_nan_infinity_and_integers_beyond_64_bits_answer_bad_json(
    table, bob_socket, caplog
):
    """The parser used to accept them; PostgreSQL then refused the row (a traceback), or
    the lean path stored `NaN` as null. Now the message is unreadable: `bad_json`."""
    socket = await bob_socket()
    before = await sync_to_async(game_row)(table.pk)
    with caplog.at_level(logging.WARNING):
        for text in NUMBERS:
            assert await refused_with(socket, text) == "bad_json", text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert await sync_to_async(game_row)(table.pk) == before
    await still_serves(socket, table)
    # The largest 64-bit integer is still a number like any other (here: a stale version).
    text = '{"type": "action", "action": {"type": "draw"}, "version": 9223372036854775807}'
    assert await refused_with(socket, text) == "stale"
    await socket.disconnect()


def test_the_service_refuses_junk_that_did_not_come_through_the_socket(table, bob):
    """Callers other than the socket (the shell, a future API) meet the same checks:
    `bad_action` for an odd type, `malformed_action` for a number no JSON column holds."""
    for action in ({"type": ["draw"]}, {"type": {"x": 1}}):
        with pytest.raises(play.PlayError) as refused:
            play.perform_action(table, bob, action)
        assert refused.value.code == "bad_action"
    for junk in (float("nan"), float("inf"), 2**64, [-(2**63) - 1]):
        with pytest.raises(play.PlayError) as refused:
            play.perform_action(table, bob, {"type": "draw", "note": junk})
        assert refused.value.code == "malformed_action"
    assert game_row(table.pk) == (table.version, table.event_count)



# -- item 4: only the normalised action is stored, logged and published ----------------------


BULK = "x" * 3000


async def test_extra_keys_are_accepted_but_only_the_normalised_action_is_stored(
    table, bob_socket
):
    """§T20.3 / engine-conventions: keys an action does not use are ignored. They used to
    be stored in `GameEvent.step` and served in `/games/<id>.json` to every reader (3 KB
    of anybody's text, or a NUL character PostgreSQL refuses)."""
    socket = await bob_socket()
    action = {"type": "draw", "note": BULK, "nul": "\u0000", "cards": ["G4"], "color": "R",
              "suit": "S", "amount": 5}
    await socket.send_json_to({"type": "action", "action": action, "version": table.version})
    _, state = await next_state(socket)
    assert state["version"] == table.version + 1
    await socket.disconnect()
    step = await sync_to_async(stored_step)(table.pk, table.version + 1)
    assert step["action"] == {"type": "draw"}


def stored_step(game_id: int, version: int) -> dict[str, Any]:
    return GameEvent.objects.get(game_id=game_id, version=version, step__isnull=False).step


def test_a_play_keeps_exactly_the_fields_its_game_reads(alice, bob, carol):
    """Dobon UNO's play keeps `cards`; trump's keeps `cards`, `suit` and `last_one`; the
    other game's fields and strangers go (and the game log shows what was kept)."""
    uno = uno_table(alice, bob, carol)
    play.perform_action(uno, bob, {"type": "play", "cards": ["R5"], "suit": "S",
                                   "last_one": False, "note": BULK})
    assert stored_step(uno.pk, 1)["action"] == {"type": "play", "cards": ["R5"]}
    play.abort_game(Game.objects.get(pk=uno.pk), alice)

    trump = trump_table(alice, bob, carol)
    play.perform_action(trump, bob, {"type": "play", "cards": ["H6"], "last_one": False,
                                     "color": "R", "note": BULK})
    assert stored_step(trump.pk, 1)["action"] == {
        "type": "play", "cards": ["H6"], "last_one": False}
    play.abort_game(Game.objects.get(pk=trump.pk), alice)

    client = Client()
    client.force_login(alice)
    for game in (uno, trump):
        log = client.get(f"/games/{game.pk}.json")
        assert log.status_code == 200
        assert BULK not in log.content.decode()

def test_the_json_values_doctests_hold() -> None:
    import doctest

    from game import json_values

    failed, tried = doctest.testmod(json_values)
    assert tried and not failed


# -- issue #31 item 8: an error frame names the action it refuses ---------------------------


async def test_an_error_frame_names_the_action_type_and_version_it_refuses(table, bob_socket):
    """Answers can overtake one another: a client with several moves in flight matches
    each refusal by `action` and `version` (null when it sent none valid)."""
    socket = await bob_socket()
    await socket.send_json_to({"type": "action", "action": {"type": "dobon"}, "version": 0})
    refused = await next_frame(socket)
    assert (refused["type"], refused["action"], refused["version"]) == ("error", "dobon", 0)
    await socket.send_json_to({"type": "action", "action": {"type": "draw"}, "version": 7})
    stale = await next_frame(socket)
    assert (stale["code"], stale["action"], stale["version"]) == ("stale", "draw", 7)
    await socket.send_json_to({"type": "action", "action": {"type": ["draw"]}})
    odd = await next_frame(socket)
    assert (odd["code"], odd["action"], odd["version"]) == ("bad_action", None, None)
    await socket.disconnect()
