"""The documents a bot author reads are what the server sends (issue #35): every fenced
JSON example of docs/protocol.md and docs/bots-api.md (```json example=NAME) is checked,
key by key and type by type, against frames of real games played through the ASGI
application's websocket (WebsocketCommunicator); the bots-api exchange's messages to the
server are sent as written and must be accepted.

Example notation (docs/protocol.md "state"): `{...}` is any object, `"...": "..."` says
more keys follow (otherwise the keys are exactly the server's), `"…"` in a list stands
for more elements; each other list element must match one element the server sent.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from play_helpers import NOW, make_room
from socket_helpers import next_frame, next_state, open_socket

from game.models import Game, Membership
from game.rules.registry import load
from game.rules.trump import Game as TrumpGame
from game.services import clock, play

pytestmark = pytest.mark.django_db(transaction=True)

DOCS = Path(settings.BASE_DIR) / "docs"
FENCE = re.compile(r"^```json example=(\S+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
ANY = "\x00any object"
OPEN = "..."
MORE = ("…", "...")


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""
    settings.DOBON_CPU_DELAY_PERCENT = 0


# -- the examples as the documents write them ---------------------------------------------


def examples(name: str) -> dict[str, str]:
    text = (DOCS / name).read_text(encoding="utf-8")
    assert text.count("```json") == len(FENCE.findall(text)), f"{name}: an unnamed json block"
    return {key: body for key, body in FENCE.findall(text)}


def parsed(body: str) -> Any:
    """An example with its placeholders made JSON: `{...}` → ANY, `[...]` → [MORE]."""
    body = body.replace("{...}", json.dumps({ANY: True})).replace("[...]", '["…"]')
    return json.loads(body)


def messages(body: str) -> list[tuple[str, Any]]:
    """An exchange written as `← {…}` (server to client) and `→ {…}` lines."""
    found: list[tuple[str, str]] = []
    for line in body.splitlines():
        if line.startswith(("←", "→")):
            found.append((line[0], line[1:].strip()))
        else:
            found[-1] = (found[-1][0], found[-1][1] + " " + line.strip())
    return [(arrow, parsed(text)) for arrow, text in found]


# -- shapes -------------------------------------------------------------------------------


def mismatches(example: Any, real: Any, path: str = "$") -> list[str]:
    if isinstance(example, dict) and ANY in example:
        return [] if isinstance(real, dict) else [f"{path}: an object, not {real!r}"]
    if isinstance(example, dict):
        if not isinstance(real, dict):
            return [f"{path}: an object, not {real!r}"]
        keys = set(example) - {OPEN}
        problems = [f"{path}.{k}: not sent" for k in sorted(keys - set(real))]
        if OPEN not in example:
            problems += [f"{path}.{k}: sent but not in the example"
                         for k in sorted(set(real) - keys)]
        for key in sorted(keys & set(real)):
            problems += mismatches(example[key], real[key], f"{path}.{key}")
        return problems
    if isinstance(example, list):
        if not isinstance(real, list):
            return [f"{path}: a list, not {real!r}"]
        problems = []
        for i, element in enumerate(e for e in example if e not in MORE):
            if not any(not mismatches(element, r) for r in real):
                best = min((mismatches(element, r, f"{path}[{i}]") for r in real),
                           key=len, default=[f"{path}[{i}]: the server sent no element"])
                problems += best
        return problems
    if example is None:
        return [] if real is None else [f"{path}: null, not {real!r}"]
    kinds = {bool: (bool,), int: (int, float), float: (int, float), str: (str,)}
    wanted = kinds[type(example)]
    if not isinstance(real, wanted) or (isinstance(real, bool) and type(example) is not bool):
        return [f"{path}: {type(example).__name__} in the example, {real!r} sent"]
    return []


def test_the_shape_check_catches_what_it_should() -> None:
    assert mismatches(parsed('{"a": 1, "b": [{"c": "x"}, "…"]}'),
                      {"a": 2.5, "b": [{"c": "y"}, {"d": 1}]}) == []
    assert mismatches({"a": 1}, {"a": 1, "b": 2}) == ["$.b: sent but not in the example"]
    assert mismatches({"a": 1, OPEN: OPEN}, {"a": 1, "b": 2}) == []
    assert mismatches({"a": 1}, {"a": "1"}) == ["$.a: int in the example, '1' sent"]
    assert mismatches({"a": [{"b": 1}]}, {"a": []}) == ["$.a[0]: the server sent no element"]
    assert mismatches({"a": None}, {"a": 0}) == ["$.a: null, not 0"]
    assert mismatches({"a": True}, {"a": 1}) != []


# -- real games -----------------------------------------------------------------------------


def _finish(game: Game, now: float) -> float:
    """Play a game to its end by its clock and the CPUs (timeouts: draw and pass)."""
    for _ in range(3000):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            return now
        deadline = load(game.game_kind, game.state).next_deadline
        now = max(now, deadline or now) + 0.01
        clock.expire_due_games(now=now)
    raise AssertionError("the game did not end")


def _dobon_uno_room(alice: Any, bob: Any) -> Any:
    """alice (room seat 0), a CPU (2), bob (3); seat 1 empty; one game already finished."""
    room = make_room(alice, bob, seats=[0, 3])
    Membership.objects.create(room=room, cpu_level="normal", seat_index=2)
    _finish(play.start_game(room, alice, now=NOW), NOW)
    room.refresh_from_db()
    return room


async def test_protocol_state_and_room_examples_are_what_a_player_gets(alice, bob):
    room = await sync_to_async(_dobon_uno_room)(alice, bob)
    socket = await open_socket(alice, room.pk)
    await next_state(socket)
    await sync_to_async(play.start_game)(room, alice, now=time.time())
    _, frame = await next_state(socket)  # the start's push: room panel and events
    assert frame["events"] and frame["room"]["last_result"]["result"] is not None
    shown = examples("protocol.md")
    assert mismatches(parsed(shown["state"]), frame) == []
    assert mismatches(parsed(shown["room"]), frame["room"]) == []
    await socket.disconnect()


def _trump_table(owner: Any, others: list[Any], preset: str, setup: dict[str, Any]) -> Game:
    room = make_room(owner, *others, game_kind="trump_dobon", trump_preset=preset)
    game = play.start_game(room, owner, now=NOW)
    engine = TrumpGame.from_setup(preset=preset, timeout=60, now=time.time(), **setup)
    game.state = engine.to_dict()
    game.initial_state = game.state
    game.next_deadline = play.to_datetime(engine.next_deadline)
    game.save(update_fields=["state", "initial_state", "next_deadline"])
    return game


async def test_protocol_trump_example_is_what_an_au_player_gets(alice, bob, carol):
    setup = {"hands": [["H2", "D9", "C13"], ["S5", "D3"], ["C3", "H7"]], "first_card": "S2",
             "deck": ["C5", "C6", "C7", "C8", "S9"], "first_player": 0}
    game = await sync_to_async(_trump_table)(alice, [bob, carol], "au", setup)
    socket = await open_socket(alice, game.room_id)
    _, frame = await next_state(socket)
    assert frame["view"]["turn"] == 0
    assert mismatches(parsed(examples("protocol.md")["trump-au-state"]), frame) == []
    await socket.disconnect()


async def test_bots_api_standard_exchange_is_what_the_server_does(alice, bob, carol):
    """The exchange of docs/bots-api.md 6a, sent as written: the auction, then a play."""
    setup = {"hands": [["S3", "H11", "D8", "C2", "JK"], ["S5", "D3", "C4"], ["C3", "H7", "D5"]],
             "first_card": "H9", "deck": ["C5", "C6", "C7", "C8", "S9", "S10"]}
    game = await sync_to_async(_trump_table)(alice, [bob, carol], "standard", setup)
    exchange = messages(examples("bots-api.md")["standard-exchange"])
    assert [arrow for arrow, _ in exchange] == ["←", "→", "←", "→"]
    socket = await open_socket(alice, game.room_id)

    _, frame = await next_state(socket)
    assert mismatches(exchange[0][1], frame) == []
    bid = exchange[1][1]
    assert bid["version"] == frame["version"]  # the example's version is the deal's
    await socket.send_json_to(bid)
    got, frame = await next_state(socket, timeout=10)  # alice's bid applied: version 1
    assert [m for m in got if m["type"] == "error"] == [] and frame["version"] == 1
    for person in (bob, carol):
        await sync_to_async(play.perform_action)(
            game, person, {"type": "bid", "amount": 1}, now=time.time())
    while frame["view"]["phase"] != "turn":
        _, frame = await next_state(socket, timeout=10)
    assert frame["view"]["turn"] == frame["seat"]  # the bid of 4 won the auction
    assert mismatches(exchange[2][1], frame) == []

    move = exchange[3][1]
    assert move["version"] == frame["version"]  # three bids: versions 1-3
    assert move["action"] in frame["view"]["legal_actions"]
    await socket.send_json_to(move)
    got, frame = await next_state(socket, timeout=10)
    assert [m for m in got if m["type"] == "error"] == []
    assert any(e["type"] == "play" and e["cards"] == move["action"]["cards"]
               for e in frame["events"])
    await socket.disconnect()


async def test_an_action_refused_as_stale_answers_an_error_frame(alice, bob, carol):
    """The examples' `error` shape: {"type", "code", "message"}, and for a refused action
    "action" and "version" (docs/protocol.md, "error")."""
    setup = {"hands": [["S3", "H11", "D8", "C2"], ["S5", "D3", "C4"], ["C3", "H7", "D5"]],
             "first_card": "H9", "deck": ["C5", "C6", "C7", "C8", "S9", "S10"],
             "first_player": 0}
    # au: sealed bids are judged against the auction whatever version they name (#31),
    # so a plain move decided on a version the game has not reached is the stale one.
    game = await sync_to_async(_trump_table)(alice, [bob, carol], "au", setup)
    socket = await open_socket(alice, game.room_id)
    await next_state(socket)
    await socket.send_json_to({"type": "action", "action": {"type": "draw"}, "version": 99})
    error = await next_frame(socket)
    # An error refusing an action names it (#31): its type and the version it was sent with.
    assert mismatches({"type": "error", "code": "stale", "message": "m", "action": "draw",
                       "version": 99}, error) == []
    assert (error["action"], error["version"]) == ("draw", 99)
    await socket.disconnect()
