"""No socket can stall the others: floods, socket caps, oversized and deeply nested
messages, and one abusive user next to a player who only wants to move.

Time is injected (the `clock` fixture) wherever a limit counts time, so these tests do
not depend on the machine's speed."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import psycopg
import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import connection
from play_helpers import make_room, position, started
from socket_helpers import closed_with, next_frame, next_state, open_socket, presence_of, quiet

from game.live.presence import Entry, registry
from game.models import Game

pytestmark = pytest.mark.django_db(transaction=True)

HANDS = [["G1", "G2", "B4"], ["R5", "B7", "G4"], ["Y9", "Y8", "B9"]]


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""


@pytest.fixture
def room(alice, bob, carol):
    return make_room(alice, bob, carol)


def start(room: Any, owner: Any) -> Game:
    """A running game at a known position: bob (seat 1) is on turn."""
    return started(room, owner, position(HANDS, first_player=1, timeout=60, now=time.time()))


async def close_code_after_frames(socket: WebsocketCommunicator) -> tuple[list, int]:
    """Every frame until the server closes the socket, and the close code."""
    frames = []
    while True:
        output = await socket.receive_output(3)
        if output["type"] == "websocket.close":
            return frames, output["code"]
        frames.append(json.loads(output["text"]))


# -- messages ----------------------------------------------------------------------------------


async def test_deeply_nested_json_answers_bad_json_and_the_socket_stays(room, bob):
    """`"[" * 999 + "]" * 999` is under the size limit but beyond the parser's recursion
    limit (a RecursionError, not a ValueError): it is unreadable, not a server error."""
    socket = await open_socket(bob, room.pk)
    await next_state(socket)
    for text in ("[" * 999 + "]" * 999, '{"a":' * 300 + "[" * 700 + "]" * 700 + "}" * 300):
        assert len(text.encode()) <= settings.DOBON_WS_MAX_MESSAGE_BYTES
        await socket.send_to(text_data=text)
        error = await next_frame(socket)
        assert error["type"] == "error" and error["code"] == "bad_json"
    await socket.send_json_to({"type": "sync"})
    _, state = await next_state(socket)
    assert state["room"]["id"] == room.pk
    await socket.disconnect()


async def test_oversized_messages_answer_too_large_then_close_4413(room, bob, settings):
    settings.DOBON_WS_MAX_OVERSIZE_IN_A_ROW = 3
    socket = await open_socket(bob, room.pk)
    await next_state(socket)
    big = json.dumps({"type": "sync", "pad": "x" * settings.DOBON_WS_MAX_MESSAGE_BYTES})
    await socket.send_to(text_data=big)
    assert (await next_frame(socket))["code"] == "too_large"
    await socket.send_json_to({"type": "hello"})  # a small one in between resets the count
    assert (await next_frame(socket))["code"] == "unknown_type"
    for _ in range(3):
        await socket.send_to(bytes_data=b"x" * (settings.DOBON_WS_MAX_MESSAGE_BYTES + 1))
    frames, code = await close_code_after_frames(socket)
    assert [f.get("code") for f in frames if f["type"] == "error"] == ["too_large"] * 2
    assert code == 4413
    await socket.disconnect()


# -- floods ------------------------------------------------------------------------------------


async def test_a_sustained_flood_closes_the_socket_4429(room, bob, clock, settings):
    """Twice the limit, every half second: refused from the second round on, and closed
    at the first refusal that comes DOBON_WS_FLOOD_SECONDS after the first one."""
    settings.DOBON_WS_FLOOD_SECONDS = 5
    limit = settings.DOBON_WS_MAX_MESSAGES_PER_SECOND
    socket = await open_socket(bob, room.pk)
    await next_state(socket)
    hello = json.dumps({"type": "hello"})
    refused = []
    for _ in range(11):  # 0 s to 5.0 s: every message is answered, the socket stays
        for _ in range(limit):
            await socket.send_to(text_data=hello)
        codes = [(await next_frame(socket))["code"] for _ in range(limit)]
        refused.append(codes.count("rate_limited"))
        clock.advance(0.5)
    assert refused == [0] + [limit // 2] * 10
    for _ in range(limit):  # at 5.5 s, five seconds after the first refusal
        await socket.send_to(text_data=hello)
    frames, code = await close_code_after_frames(socket)
    assert [f["code"] for f in frames] == ["unknown_type"] * (limit // 2)
    assert code == 4429
    await socket.disconnect()


async def test_a_short_burst_is_forgiven_once_the_client_slows_down(room, bob, clock):
    limit = settings.DOBON_WS_MAX_MESSAGES_PER_SECOND
    socket = await open_socket(bob, room.pk)
    await next_state(socket)
    hello = json.dumps({"type": "hello"})
    for _ in range(limit + 1):
        await socket.send_to(text_data=hello)
    codes = [(await next_frame(socket))["code"] for _ in range(limit + 1)]
    assert codes[-1] == "rate_limited"
    for _ in range(2 * settings.DOBON_WS_FLOOD_SECONDS):  # then within the limit
        clock.advance(1.0)
        for _ in range(limit // 2):
            await socket.send_to(text_data=hello)
        codes = [(await next_frame(socket))["code"] for _ in range(limit // 2)]
        assert codes == ["unknown_type"] * (limit // 2)
    await quiet(socket)
    await socket.disconnect()


async def test_only_one_sync_per_socket_is_in_flight(room, alice, bob, postgres_only):
    """Syncs sent while one is being answered are dropped: the answer covers them."""
    await sync_to_async(start)(room, alice)
    socket = await open_socket(bob, room.pk)
    await next_state(socket)
    with tables_locked("game_room"):  # every sync now waits in the database
        for _ in range(10):
            await socket.send_json_to({"type": "sync"})
        await asyncio.sleep(0.3)  # let them all arrive; none can be answered yet
        await quiet(socket)
        # Messages are still read and counted as they arrive, the stuck sync aside.
        await socket.send_json_to({"type": "hello"})
        assert (await next_frame(socket))["code"] == "unknown_type"
    _, state = await next_state(socket, timeout=10)
    assert state["version"] == 0
    await quiet(socket)
    await socket.disconnect()


# -- sockets per user -------------------------------------------------------------------------


async def test_a_user_over_the_socket_cap_is_closed_4409(room, bob, carol, settings):
    settings.DOBON_WS_MAX_SOCKETS_PER_USER = 3
    sockets = [await open_socket(bob, room.pk) for _ in range(3)]
    for socket in sockets:
        await next_state(socket)
    extra = await open_socket(bob, room.pk)
    assert await closed_with(extra) == 4409
    other = await open_socket(carol, room.pk)  # the cap is per user
    await next_state(other)
    await sockets[0].disconnect()
    again = await open_socket(bob, room.pk)
    _, state = await next_state(again)
    assert state["room"]["id"] == room.pk
    for socket in (*sockets[1:], again, other):
        await socket.disconnect()


async def test_a_dead_socket_stops_counting_after_its_ttl(room, alice, bob, settings):
    """A socket whose process died (its entry no longer refreshed) leaves the presence
    list and frees its place under the cap once its entry expires."""
    settings.DOBON_WS_MAX_SOCKETS_PER_USER = 1
    reg = registry()
    now = [time.time()]
    reg.clock = lambda: now[0]
    ghost = Entry("specific.elsewhere!dead", bob.pk, "bob", room.pk)
    assert await reg.store.admit(ghost, 1, now[0], reg.ttl)  # another process's socket
    watcher = await open_socket(alice, room.pk)
    await next_state(watcher)
    assert await presence_of(watcher) == ["alice", "bob"]
    refused = await open_socket(bob, room.pk)
    assert await closed_with(refused) == 4409
    now[0] += reg.ttl + 1
    from game.live.consumers import send_presence

    assert await reg.refresh_once(send_presence) == {room.pk}
    assert await presence_of(watcher) == ["alice"]
    back = await open_socket(bob, room.pk)
    await next_state(back)
    assert await presence_of(back) == ["alice", "bob"]
    for socket in (watcher, back):
        await socket.disconnect()


# -- one abusive user next to a player --------------------------------------------------------


class tables_locked:
    """Hold an ACCESS EXCLUSIVE lock on tables from another PostgreSQL session: every
    query that reads them waits until the block ends. The room row is read by every
    connect and sync, never by a move that does not end the game."""

    def __init__(self, *tables: str) -> None:
        self.tables = tables

    def __enter__(self) -> tables_locked:
        s = connection.settings_dict
        self.conn = psycopg.connect(
            dbname=s["NAME"], user=s.get("USER") or "postgres", password=s.get("PASSWORD"),
            host=s.get("HOST") or "127.0.0.1", port=s.get("PORT") or 5432,
        )
        self.conn.execute(f"LOCK TABLE {', '.join(self.tables)} IN ACCESS EXCLUSIVE MODE")
        return self

    def __exit__(self, *exc: Any) -> None:
        self.conn.rollback()
        self.conn.close()


async def test_an_abusive_user_does_not_delay_another_users_move(
    room, alice, bob, mallory, settings, postgres_only
):
    """mallory opens more sockets than allowed and floods syncs while every one of them
    is stuck in the database; bob's move still reaches alice and bob.

    Deterministic: the syncs cannot finish before the lock is released, so with moves
    queued behind them (one shared database thread, as before) bob's move would not
    arrive at all; the bound is "does not wait for mallory's work", not a speed."""
    settings.DOBON_WS_MAX_SOCKETS_PER_USER = 4
    # The per-user cap is the one refused here: mallory watches, and since issue #31 a
    # watching account holds 3 sockets per room (test_watcher_places covers that cap).
    settings.DOBON_WS_MAX_WATCHER_SOCKETS_PER_ACCOUNT = 8
    game = await sync_to_async(start)(room, alice)
    players = [await open_socket(u, room.pk) for u in (alice, bob)]
    for socket in players:
        await next_state(socket)
    abusive = [await open_socket(mallory, room.pk) for _ in range(4)]
    for socket in abusive:
        await next_state(socket)
    refused = [await open_socket(mallory, room.pk) for _ in range(3)]
    assert [await closed_with(s) for s in refused] == [4409] * 3
    with tables_locked("game_room"):
        for _ in range(15):
            for socket in abusive:
                await socket.send_json_to({"type": "sync"})
        await players[1].send_json_to({"type": "action", "action": {"type": "draw"}})
        for socket in players:
            _, state = await next_state(socket, timeout=10)
            assert state["version"] == 1 and [e["type"] for e in state["events"]][0] == "draw"
        await quiet(*abusive)  # their syncs, and the move's push held behind them, wait
    for socket in abusive:  # one answer each (at version 1); the push it covers is dropped
        _, state = await next_state(socket, timeout=10)
        assert state["version"] == 1
    await quiet(*abusive, *players)
    assert (await Game.objects.aget(pk=game.pk)).version == 1
    for socket in (*players, *abusive):
        await socket.disconnect()


def test_bounding_the_buffer_of_a_client_gone_during_the_handshake_raises_nothing():
    """Issue 20: each aborted handshake logged 2 tracebacks: Twisted had dropped the
    socket (`getHandle` raised AttributeError) before the consumer bounded its buffer."""
    import socket

    from game.live import transport

    class Gone:
        def getHandle(self):  # noqa: N802 (Twisted's name)
            raise AttributeError("'Server' object has no attribute 'socket'")

    class Closed:
        def __init__(self) -> None:
            self.sock = socket.socket()
            self.sock.close()

        def getHandle(self):  # noqa: N802
            return self.sock

    transport.bound_kernel_buffer(Gone(), 4096)
    transport.bound_kernel_buffer(Closed(), 4096)
