"""One channel-layer message per move, handed out by each server process to its own
sockets (game/live/fanout.py, issue #22): every socket gets its own share and no other
seat's, a process is in a room's group exactly while it has a socket there, and two
processes keep the version order and the resume of a gap.

On the in-memory layer, or on Redis pub/sub when REDIS_URL is set. Two processes are
two `Fanout`s on the one layer, each with its own channel and sockets."""

from __future__ import annotations

import asyncio
import contextvars
import time
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from play_helpers import LIVE_HANDS, started_live_table
from socket_helpers import next_state, open_socket, quiet

from game.live import fanout
from game.live.consumers import RoomConsumer
from game.live.groups import fanout_group
from game.services import play

pytestmark = pytest.mark.django_db(transaction=True)

HANDS = LIVE_HANDS
# bob (seat 1) is on turn: draw, pass, then carol (seat 2): draw, pass.
MOVES = [(1, {"type": "draw"}), (1, {"type": "pass"}), (2, {"type": "draw"}),
         (2, {"type": "pass"})]


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""


started_table = started_live_table


def hands_of(game) -> list[list[str]]:
    game.refresh_from_db()
    engine = play.Engine.from_dict(game.state)
    return [engine.hand(seat) for seat in range(4)]


# -- counting the layer's work -----------------------------------------------------------------

_inside = contextvars.ContextVar("inside_layer", default=False)


class LayerSpy:
    """Every channel-layer call made by our code (a layer's own inner calls, such as the
    in-memory group_send's sends, are not counted): (method, group or channel, message)."""

    def __init__(self, monkeypatch) -> None:
        self.calls: list[tuple[str, str, Any]] = []
        classes: list[type] = [InMemoryChannelLayer]
        try:
            from channels_redis.pubsub import RedisPubSubLoopLayer

            classes.append(RedisPubSubLoopLayer)
        except ImportError:
            pass
        for cls in classes:
            for method in ("send", "group_send", "group_add", "group_discard"):
                monkeypatch.setattr(cls, method, self.wrapped(getattr(cls, method), method))

    def wrapped(self, original, method: str):
        spy = self

        async def counted(layer, name, *args):
            if _inside.get():
                return await original(layer, name, *args)
            spy.calls.append((method, name, args[0] if args else None))
            token = _inside.set(True)
            try:
                return await original(layer, name, *args)
            finally:
                _inside.reset(token)

        return counted

    def sent(self) -> list[tuple[str, str, Any]]:
        """The messages sent, but presence frames: the sockets' arrivals announce
        themselves up to a debounce window later (game/live/presence.py), whenever."""
        return [c for c in self.calls if c[0] in ("send", "group_send")
                and (c[2] or {}).get("type") != "presence"]

    def of(self, method: str, group: str) -> int:
        return sum(1 for m, name, _ in self.calls if m == method and name == group)


# -- a move on real sockets ----------------------------------------------------------------------


async def test_a_move_is_one_layer_message_and_each_socket_gets_only_its_own_share(
    alice, bob, carol, dave, mallory, monkeypatch
):
    """Four players (bob with two sockets) and a watcher: one channel-layer message for
    the move; each seat's sockets get that seat's hand and no other's, the watcher the
    watchers' view, which has no hand at all."""
    room, game = await sync_to_async(started_table)(alice, bob, carol, dave)
    seated = [alice, bob, carol, dave]
    sockets = [(user, seat, await open_socket(user, room.pk)) for seat, user in enumerate(seated)]
    sockets.append((bob, 1, await open_socket(bob, room.pk)))
    sockets.append((mallory, None, await open_socket(mallory, room.pk)))
    for _, _, socket in sockets:
        await next_state(socket)
    await quiet(*(socket for _, _, socket in sockets))  # presence settled before counting
    spy = LayerSpy(monkeypatch)
    await sockets[1][2].send_json_to({"type": "action", "action": {"type": "draw"}})
    states = [(user, seat, (await next_state(socket, timeout=5))[1])
              for user, seat, socket in sockets]
    hands = await sync_to_async(hands_of)(game)
    for user, seat, state in states:
        assert state["version"] == 1 and state["seat"] == seat, user.username
        assert state["events"][0]["type"] == "draw"
        if seat is None:
            assert "hand" not in state["view"]
        else:
            assert state["view"]["hand"] == hands[seat]
        # No card of another seat's hand appears anywhere in the frame (the hands are
        # disjoint but for R9, the card drawn, which only its drawer is told of).
        own = set(hands[seat]) if seat is not None else set()
        others = {card for s in range(4) if s != seat for card in hands[s]} - own - {"R9"}
        assert not [card for card in others if f"'{card}'" in str(state)], user.username
        drawn = [e for e in state["events"] if e["type"] == "drawn"]
        assert (drawn != []) == (seat == 1), "only the drawer learns the card drawn"
    sent = spy.sent()
    assert [(method, group) for method, group, _ in sent] == [
        ("group_send", fanout_group(room.pk))
    ], "one channel-layer message for the whole move"
    assert sent[0][2]["type"] == fanout.MOVE
    for _, _, socket in sockets:
        await socket.disconnect()


async def test_without_the_fanout_a_move_is_a_message_per_seated_user_and_one_for_watchers(
    alice, bob, carol, dave, settings, monkeypatch
):
    """DOBON_PROCESS_FANOUT=false: as before, so the benchmark can compare."""
    settings.DOBON_PROCESS_FANOUT = False
    room, game = await sync_to_async(started_table)(alice, bob, carol, dave)
    sockets = [await open_socket(user, room.pk) for user in (alice, bob, carol, dave)]
    for socket in sockets:
        await next_state(socket)
    await quiet(*sockets)
    spy = LayerSpy(monkeypatch)
    await sockets[1].send_json_to({"type": "action", "action": {"type": "draw"}})
    for seat, socket in enumerate(sockets):
        _, state = await next_state(socket, timeout=5)
        assert state["version"] == 1 and state["seat"] == seat
    assert sorted(group for _, group, _ in spy.sent()) == sorted(
        [play.user_group(u.pk) for u in (alice, bob, carol, dave)] + [play.watch_group(room.pk)]
    )
    assert spy.of("group_add", fanout_group(room.pk)) == 0
    for socket in sockets:
        await socket.disconnect()


async def test_a_user_with_sockets_in_two_rooms_gets_each_rooms_moves_only_there(
    alice, bob, carol, dave
):
    room, game = await sync_to_async(started_table)(alice, bob, carol, dave)
    other, _ = await sync_to_async(started_table)(carol, bob)
    here = await open_socket(bob, room.pk)
    there = await open_socket(bob, other.pk)
    _, before = await next_state(there)
    await next_state(here)
    mover = await open_socket(bob, room.pk)
    await next_state(mover)
    await mover.send_json_to({"type": "action", "action": {"type": "draw"}})
    _, moved = await next_state(here, timeout=5)
    assert moved["game"] == game.pk and moved["version"] == 1 and moved["seat"] == 1
    await quiet(there)  # the other room's socket heard nothing of it
    for socket in (here, there, mover):
        await socket.disconnect()


async def test_the_process_is_in_a_rooms_group_from_its_first_socket_to_its_last(
    alice, bob, carol, dave, monkeypatch
):
    room, _ = await sync_to_async(started_table)(alice, bob, carol, dave)
    spy = LayerSpy(monkeypatch)
    group = fanout_group(room.pk)
    first = await open_socket(alice, room.pk)
    await next_state(first)
    second = await open_socket(bob, room.pk)
    await next_state(second)
    assert (spy.of("group_add", group), spy.of("group_discard", group)) == (1, 0)
    await first.disconnect()
    assert spy.of("group_discard", group) == 0, "a socket of the room is still here"
    await second.disconnect()
    await asyncio.sleep(0.05)  # the consumer's disconnect runs after the close
    assert (spy.of("group_add", group), spy.of("group_discard", group)) == (1, 1)
    process = fanout.here(get_channel_layer())
    assert process.subscribed == set() and process.channel is None


# -- two processes on one layer --------------------------------------------------------------------


class FakeSocket:
    """What the fan-out needs of a socket: its room and user, and a place for pushes."""

    def __init__(self, room_id: int, user_id: int | None) -> None:
        self.room_id, self.user_id = room_id, user_id
        self.pushes: list[dict[str, Any]] = []

    async def take_push(self, push: dict[str, Any]) -> None:
        self.pushes.append(push)


def fake_move(room_id: int, version: int, seats: dict[int, int]) -> list[play.Push]:
    """A move's pushes as build_pushes makes them: `seats` maps user id → seat."""
    base = {"room": room_id, "game": 7, "number": 1, "version": version,
            "from_version": version - 1, "status": "running", "players": [],
            "room_info": None, "match": None, "game_kind": "dobon_uno", "preset": None}
    pushes: list[play.Push] = [
        (play.user_group(user), {**base, "type": "game.private", "seat": seat, "user": user,
                                 "view": {"hand": [f"secret-{seat}"]}, "events": []})
        for user, seat in seats.items()
    ]
    pushes.append((play.watch_group(room_id), {**base, "type": "game.public", "seat": None,
                                               "view": {}, "events": [],
                                               "seated": list(seats)}))
    return pushes


async def eventually(check, seconds: float = 3.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "not delivered in time"
        await asyncio.sleep(0.01)


async def test_only_processes_with_a_socket_in_the_room_receive_its_moves(monkeypatch):
    layer = get_channel_layer()
    one, two = fanout.Fanout(layer), fanout.Fanout(layer)
    handed = {one: 0, two: 0}
    for process in (one, two):
        original = process.hand_out

        async def counting(move, process=process, original=original):
            handed[process] += 1
            await original(move)

        monkeypatch.setattr(process, "hand_out", counting)
    seated, watcher, elsewhere = FakeSocket(901, 1), FakeSocket(901, 3), FakeSocket(902, 1)
    await one.join(seated)
    await one.join(watcher)
    await two.join(elsewhere)
    for group, message in fanout.packed(fake_move(901, 1, {1: 0, 2: 1})):
        await layer.group_send(group, message)  # as a worker sends it: no origin
    await eventually(lambda: seated.pushes and watcher.pushes)
    await asyncio.sleep(0.2)
    assert [p["seat"] for p in seated.pushes] == [0] and seated.pushes[0]["view"]["hand"] == [
        "secret-0"]
    assert [p["seat"] for p in watcher.pushes] == [None] and "secret" not in str(watcher.pushes)
    assert elsewhere.pushes == [] and handed[two] == 0, "room 902's process heard nothing"
    # The last socket gone, the process leaves the group: nothing reaches it any more.
    await one.leave(seated)
    await one.leave(watcher)
    assert one.subscribed == set() and one.channel is None
    for group, message in fanout.packed(fake_move(901, 2, {1: 0, 2: 1})):
        await layer.group_send(group, message)
    await asyncio.sleep(0.2)
    assert handed[one] == 1 and len(seated.pushes) == 1
    await two.leave(elsewhere)


async def test_the_committing_process_serves_its_sockets_itself_and_skips_its_copy():
    layer = get_channel_layer()
    one, two = fanout.Fanout(layer), fanout.Fanout(layer)
    mine, theirs = FakeSocket(903, 1), FakeSocket(903, 2)
    await one.join(mine)
    await two.join(theirs)
    move = fanout.packed(fake_move(903, 1, {1: 0, 2: 1}))[0][1]
    await one.publish(move)
    assert [p["seat"] for p in mine.pushes] == [0], "served at once, without the layer"
    await eventually(lambda: theirs.pushes)
    await asyncio.sleep(0.2)  # its own copy comes back meanwhile, and is skipped
    assert [p["seat"] for p in mine.pushes] == [0]
    assert [p["seat"] for p in theirs.pushes] == [1]
    await one.leave(mine)
    await two.leave(theirs)


async def test_a_move_travels_sealed_and_only_the_processes_that_hand_it_out_open_it(
    monkeypatch,
):
    """On the layer a move is a short envelope and one JSON body of its pushes; the
    committing process drops its own copy without opening it, the other opens it once
    and each socket still gets its own share (issue #22: encoding and decoding the
    nested pushes was a large part of a server's CPU per move)."""
    layer = get_channel_layer()
    one, two = fanout.Fanout(layer), fanout.Fanout(layer)
    mine, theirs = FakeSocket(905, 1), FakeSocket(905, 2)
    await one.join(mine)
    await two.join(theirs)
    sent: list[dict[str, Any]] = []
    original_send = layer.group_send

    async def recording(group, message):
        sent.append(message)
        await original_send(group, message)

    monkeypatch.setattr(layer, "group_send", recording)
    openings: list[dict[str, Any]] = []
    original_opened = fanout.opened

    def counted(message):
        openings.append(message)
        return original_opened(message)

    monkeypatch.setattr(fanout, "opened", counted)
    move = fanout.packed(fake_move(905, 1, {1: 0, 2: 1}))[0][1]
    await one.publish(move)
    await eventually(lambda: theirs.pushes)
    await asyncio.sleep(0.2)  # the sender's own copy comes back meanwhile
    assert len(sent) == 1 and sorted(sent[0]) == ["body", "origin", "room", "type"]
    assert isinstance(sent[0]["body"], bytes) and b"secret-1" in sent[0]["body"]
    assert len(openings) == 1, "opened by the other process only"
    assert [p["seat"] for p in mine.pushes] == [0] and [p["seat"] for p in theirs.pushes] == [1]
    assert theirs.pushes[0]["view"] == {"hand": ["secret-1"]}
    await one.leave(mine)
    await two.leave(theirs)


def test_a_sealed_move_opens_as_it_was_sent():
    move = fanout.packed(fake_move(906, 3, {1: 0, 2: 1}))[0][1]
    assert fanout.opened(fanout.sealed(move)) == move
    assert fanout.opened(fanout.sealed(move, "abc")) == {**move, "origin": "abc"}
    assert fanout.opened(move) is move, "an unsealed move (older code) is already open"


def committed_unsent(game_id: int, user, action) -> list[play.Push]:
    """The move committed, its pushes kept instead of sent (as a socket's move is)."""
    with play.deferred_pushes() as pushes:
        play.perform_action(game_id, user, action)
    return pushes


async def test_two_processes_keep_the_version_order_and_a_gap_is_resumed(
    alice, bob, carol, dave, mallory, monkeypatch
):
    """Sockets of one room on two processes; version 2 (committed on the second) overtakes
    version 1 (on the first): every socket still shows 1 then 2, its own share of each.
    Version 4 without 3 goes out after the reorder wait showing the gap, and a resuming
    sync from 2 brings the events of 3 and 4."""
    monkeypatch.setattr(RoomConsumer, "reorder_wait", 1.0)
    room, game = await sync_to_async(started_table)(alice, bob, carol, dave)
    layer = get_channel_layer()
    processes = {"one": fanout.Fanout(layer), "two": fanout.Fanout(layer)}
    serving = {"now": "one"}
    monkeypatch.setattr(RoomConsumer, "process_fanout",
                        staticmethod(lambda layer: processes[serving["now"]]))
    sockets = {}
    for name, user, process in (("alice", alice, "one"), ("bob", bob, "two"),
                                ("mallory", mallory, "one"), ("carol", carol, "two")):
        serving["now"] = process
        sockets[name] = await open_socket(user, room.pk)
        await next_state(sockets[name])
    await quiet(*sockets.values())
    moves = []
    for seat, action in MOVES:
        pushes = await sync_to_async(committed_unsent)(game.pk, (alice, bob, carol, dave)[seat],
                                                       action)
        moves.append(fanout.packed(pushes)[0][1])
    assert [m["public"]["version"] for m in moves] == [1, 2, 3, 4]
    await processes["two"].publish(moves[1])
    await processes["one"].publish(moves[0])
    seats = {"alice": 0, "bob": 1, "mallory": None, "carol": 2}
    for name, socket in sockets.items():
        got = [(await next_state(socket, timeout=5))[1] for _ in range(2)]
        assert [s["version"] for s in got] == [1, 2], name
        assert {s["seat"] for s in got} == {seats[name]}, name
        assert ("hand" in got[0]["view"]) == (seats[name] is not None)
    await processes["one"].publish(moves[3])  # 3 never comes
    for name, socket in sockets.items():
        _, state = await next_state(socket, timeout=5)
        assert (state["version"], state["from_version"]) == (4, 3), name
    await sockets["carol"].send_json_to({"type": "sync", "game": game.pk, "version": 2})
    _, resumed = await next_state(sockets["carol"], timeout=5)
    assert (resumed["version"], resumed["from_version"]) == (4, 2)
    assert [e["type"] for e in resumed["events"] if e["type"] in ("draw", "pass")] == [
        "draw", "pass"]
    assert "hand" in resumed["view"] and resumed["seat"] == 2
    for socket in sockets.values():
        await socket.disconnect()
    for process in processes.values():
        assert process.subscribed == set()


async def test_a_malformed_move_does_not_end_the_processes_fanout():
    layer = get_channel_layer()
    process = fanout.Fanout(layer)
    socket = FakeSocket(904, 1)
    await process.join(socket)
    await layer.group_send(fanout_group(904), {"type": fanout.MOVE, "room": 904})  # no pushes
    for group, message in fanout.packed(fake_move(904, 1, {1: 0})):
        await layer.group_send(group, message)
    await eventually(lambda: socket.pushes)
    assert [p["version"] for p in socket.pushes] == [1]
    await process.leave(socket)


async def test_a_move_pushed_from_synchronous_code_is_one_message_too(
    alice, bob, carol, dave, mallory, monkeypatch
):
    """As a Celery worker or beat pushes (game/live/sender.py): one message, and the
    process serving the sockets hands it out."""
    room, game = await sync_to_async(started_table)(alice, bob, carol, dave)
    player, watcher = await open_socket(carol, room.pk), await open_socket(mallory, room.pk)
    for socket in (player, watcher):
        await next_state(socket)
    await quiet(player, watcher)
    spy = LayerSpy(monkeypatch)
    await sync_to_async(play.perform_action)(game.pk, bob, {"type": "draw"})
    _, seen_by_player = await next_state(player, timeout=5)
    _, seen_by_watcher = await next_state(watcher, timeout=5)
    assert (seen_by_player["seat"], seen_by_watcher["seat"]) == (2, None)
    assert "hand" in seen_by_player["view"] and "hand" not in seen_by_watcher["view"]
    assert [(m, group) for m, group, _ in spy.sent()] == [("group_send", fanout_group(room.pk))]
    for socket in (player, watcher):
        await socket.disconnect()


async def test_pushes_from_a_process_on_the_old_code_are_still_understood(
    alice, bob, carol, dave, mallory
):
    """During a rolling restart an old process sends a seat's push to its user's group
    and the watchers' push to the watchers' group: each socket takes its own."""
    room, game = await sync_to_async(started_table)(alice, bob, carol, dave)
    player, watcher = await open_socket(carol, room.pk), await open_socket(mallory, room.pk)
    for socket in (player, watcher):
        await next_state(socket)
    await quiet(player, watcher)
    layer = get_channel_layer()
    for group, message in fake_move(room.pk, 1, {carol.pk: 2}):
        await layer.group_send(group, {**message, "game": game.pk})
    _, seen_by_player = await next_state(player, timeout=5)
    _, seen_by_watcher = await next_state(watcher, timeout=5)
    assert seen_by_player["seat"] == 2 and seen_by_player["view"]["hand"] == ["secret-2"]
    assert seen_by_watcher["seat"] is None and "secret" not in str(seen_by_watcher)
    await quiet(player, watcher)  # the player does not get the watchers' copy as well
    for socket in (player, watcher):
        await socket.disconnect()


async def test_a_finished_game_and_the_next_game_of_a_match_reach_a_socket_in_order(
    monkeypatch,
):
    """The move that ends a match game and the next game's start are sent in one batch
    (play.send_pushes). Handed out concurrently, the new game could overtake the end of
    the old one, and `deliver` drops a push older than what the socket has: the players
    never saw the settlement (four programs' match on the stack stalled that way)."""
    layer = get_channel_layer()
    process = fanout.here(layer)
    socket = FakeSocket(904, 1)
    await process.join(socket)
    ending = fake_move(904, 5, {1: 0})
    for _, message in ending:
        message["status"] = "finished"
    starting = [(group, {**message, "game": 8, "version": 0, "from_version": -1})
                for group, message in fake_move(904, 0, {1: 0})]
    original = layer.group_send  # (the Redis layer is a proxy: patch this instance)

    async def slow_for_the_end(group, message):
        if message.get("type") == fanout.MOVE and message["private"][0]["game"] == 7:
            await asyncio.sleep(0.1)  # the old game's message is slower to leave
        await original(group, message)

    monkeypatch.setattr(layer, "group_send", slow_for_the_end)
    await play.send_pushes(ending + starting)
    assert [(p["game"], p["version"]) for p in socket.pushes] == [(7, 5), (8, 0)]
    await process.leave(socket)
