"""Issue #30, restarts that lose no move: a client whose socket closed (1012 in a rolling
restart, a dropped connection) while its game ended resumes with `sync` (game, version)
and gets that game's end first, its catch-up frame, then the room's current table
(docs/protocol.md, "Client → server"). Real sockets through the ASGI application, real
PostgreSQL and Redis when the environment names them."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from play_helpers import NOW, make_room, position, set_position
from socket_helpers import next_state, open_socket, quiet

from game.models import Game
from game.services import play

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""


@pytest.fixture
def table(alice, bob, carol, dave):
    """A public room: alice (owner), bob, carol and dave play; mallory may watch."""
    return make_room(alice, bob, carol, dave)


# carol plays first. Each of carol, dave and alice draws a Y7 (told only to the drawer)
# and passes; then bob goes out with R5 on the R3 (§R8 agari): nobody holds an R5 to cut
# in with, and no hand sums to 5 for a dobon, so the game finishes at version 7.
HANDS = [["G1", "G2"], ["R5"], ["Y9", "Y8"], ["G9", "G8"]]
LAST_VERSION = 7


def start_game(room: Any, owner: Any) -> Game:
    game = play.start_game(room, owner, now=NOW)
    set_position(game, position(HANDS, deck=["Y7"] * 20, first_player=2, timeout=60,
                                now=time.time()))
    return game


def play_to_the_end(game: Game, alice: Any, bob: Any, carol: Any, dave: Any) -> None:
    for user in (carol, dave, alice):
        play.perform_action(game, user, {"type": "draw"})
        play.perform_action(game, user, {"type": "pass"})
    play.perform_action(game, bob, {"type": "play", "cards": ["R5"]})


async def connected(user: Any, room_id: int) -> WebsocketCommunicator:
    socket = await open_socket(user, room_id)
    await next_state(socket)  # the table sent on connect
    return socket


async def live_frames(socket: WebsocketCommunicator, count: int) -> list[dict[str, Any]]:
    return [(await next_state(socket))[1] for _ in range(count)]


async def test_R8_a_player_back_after_its_game_ended_gets_the_end_then_the_next_game(
    table, alice, bob, carol, dave, mallory
):
    """alice's socket closes at version 0; the game ends (version 7) and the next one
    starts before she is back. Her resuming sync gets game 1's catch-up — the events
    after version 0 her seat may see, exactly what the live pushes carried, and the final
    table with the settlement — and then game 2's table. A watcher gets the watchers'
    share of the same."""
    game = await sync_to_async(start_game)(table, alice)
    live_alice, live_mallory = await connected(alice, table.pk), await connected(mallory, table.pk)
    for user in (alice, mallory):  # sockets that saw version 0, then closed
        await (await connected(user, table.pk)).disconnect()
    await sync_to_async(play_to_the_end)(game, alice, bob, carol, dave)
    game2 = await sync_to_async(play.start_game)(table, alice, now=NOW + 100)
    pushed = {"alice": await live_frames(live_alice, LAST_VERSION + 1),
              "mallory": await live_frames(live_mallory, LAST_VERSION + 1)}
    for frames in pushed.values():
        assert [(f["game"], f["version"]) for f in frames] == [
            *((game.pk, v) for v in range(1, LAST_VERSION + 1)), (game2.pk, 0)]

    for user, seat in ((alice, 0), (mallory, None)):
        socket = await open_socket(user, table.pk)
        _, first = await next_state(socket)
        assert first["game"] == game2.pk  # the connect's table: no resume position yet
        await socket.send_json_to({"type": "sync", "game": game.pk, "version": 0})
        _, catch_up = await next_state(socket)
        _, current = await next_state(socket)
        await quiet(socket)
        live = pushed[user.username][:LAST_VERSION]
        assert (catch_up["game"], catch_up["version"], catch_up["from_version"]) == (
            game.pk, LAST_VERSION, 0)
        assert catch_up["status"] == "finished" and catch_up["seat"] == seat
        assert catch_up["events"] == [e for f in live for e in f["events"]]
        assert catch_up["view"] == live[-1]["view"]  # the final table, as pushed live
        assert catch_up["view"]["result"]["winners"] == [1]
        assert catch_up["room"]["last_result"]["game"] == game.pk
        assert (current["game"], current["version"], current["events"]) == (game2.pk, 0, [])
        assert current["status"] == "running" and current["seat"] == seat
        await socket.disconnect()
        drawn = [e for e in catch_up["events"] if e["type"] == "drawn"]
        if seat == 0:  # a hidden card: alice's own draw only, never carol's or dave's
            assert [(e["to"], e["cards"]) for e in drawn] == [(0, ["Y7"])]
        else:
            assert drawn == [] and '"drawn"' not in json.dumps(catch_up)
        assert [e["type"] for e in catch_up["events"]].count("draw") == 3
    for socket in (live_alice, live_mallory):
        await socket.disconnect()


async def test_a_player_back_after_its_game_ended_with_no_next_game_gets_the_end_then_no_game(
    table, alice, bob, carol, dave
):
    game = await sync_to_async(start_game)(table, alice)
    await (await connected(bob, table.pk)).disconnect()
    await sync_to_async(play_to_the_end)(game, alice, bob, carol, dave)
    socket = await connected(bob, table.pk)
    await socket.send_json_to({"type": "sync", "game": game.pk, "version": 5})
    _, catch_up = await next_state(socket)
    _, current = await next_state(socket)
    assert (catch_up["game"], catch_up["from_version"], catch_up["version"]) == (game.pk, 5, 7)
    assert [e["type"] for e in catch_up["events"]][-2:] == ["agari", "finished"]
    assert all(e["to"] in (None, 1) for e in catch_up["events"])
    assert current["game"] is None and current["view"] is None
    await socket.disconnect()


async def test_an_aborted_game_catches_up_with_its_abort_and_no_view(table, alice, bob):
    game = await sync_to_async(start_game)(table, alice)
    await sync_to_async(play.abort_game)(game, alice)
    socket = await connected(bob, table.pk)
    await socket.send_json_to({"type": "sync", "game": game.pk, "version": 0})
    _, catch_up = await next_state(socket)
    _, current = await next_state(socket)
    assert catch_up["status"] == "aborted" and catch_up["view"] is None
    assert [e["type"] for e in catch_up["events"]] == ["aborted"]
    assert (catch_up["from_version"], catch_up["version"]) == (0, 1)
    assert current["game"] is None
    await socket.disconnect()


async def test_a_sync_naming_another_rooms_ended_game_gets_nothing_of_it(
    table, alice, bob, carol, dave, mallory
):
    """Game ids are guessable: a sync naming a game of a room this socket is not in (here
    a private room of others) must not catch up on it."""
    other = await sync_to_async(make_room)(alice, bob, carol, dave, is_public=False)
    elsewhere = await sync_to_async(start_game)(other, alice)
    await sync_to_async(play_to_the_end)(elsewhere, alice, bob, carol, dave)
    socket = await connected(mallory, table.pk)
    await socket.send_json_to({"type": "sync", "game": elsewhere.pk, "version": 0})
    _, answer = await next_state(socket)
    await quiet(socket)  # one frame, this room's own table
    assert (answer["game"], answer["events"], answer["room"]["last_result"]) == (None, [], None)
    await socket.disconnect()


async def test_a_sync_at_or_beyond_an_ended_games_last_version_gets_no_catch_up(
    table, alice, bob, carol, dave
):
    game = await sync_to_async(start_game)(table, alice)
    await sync_to_async(play_to_the_end)(game, alice, bob, carol, dave)
    socket = await connected(alice, table.pk)
    for version in (LAST_VERSION, LAST_VERSION + 5):
        await socket.send_json_to({"type": "sync", "game": game.pk, "version": version})
        _, answer = await next_state(socket)
        await quiet(socket)
        assert answer["game"] is None and answer["events"] == []
    await socket.disconnect()
