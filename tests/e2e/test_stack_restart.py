"""Issue #30, restarts that lose nothing, against a real daphne (`python -m
dobon_site.server`), PostgreSQL and Redis: SIGTERM with sockets open and a move in
flight (held on its game's row lock by the test). The daphne stops listening at once,
turns away a websocket asked for on an HTTP connection opened before with 1012,
finishes the move and pushes it to every socket, closes every socket with 1012, counts
them out of Redis and exits within DOBON_SHUTDOWN_SECONDS; when the move never ends, it
still exits within that time."""

from __future__ import annotations

import asyncio
import base64
import http.client
import secrets
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis
from stack_helpers import (
    WsPlayer,
    current_database_url,
    post_start,
    require_stack,
    session_cookie,
    stack,
)
from test_stack import choose, room_of

from game.models import Game

pytestmark = [pytest.mark.stack, pytest.mark.django_db(transaction=True)]

RESTART = 1012


class Recorder(WsPlayer):
    """A WsPlayer that keeps the close code the server sent."""

    code: int | None = None

    async def _read(self) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            await super()._read()
        except ConnectionClosed:
            pass
        self.code = self.ws.close_code


def hold_game_row(game_id: int) -> psycopg.Connection[Any]:
    """A transaction holding the game's row lock: a move of that game waits for it."""
    conn = psycopg.connect(current_database_url())
    conn.execute("SELECT id FROM game_game WHERE id = %s FOR UPDATE", (game_id,))
    return conn


def kept_alive_http(port: int) -> socket.socket:
    """An HTTP connection that has had one request answered and stays open."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/", headers={"Connection": "keep-alive"})
    conn.getresponse().read()
    assert conn.sock is not None
    return conn.sock


def upgrade_on(sock: socket.socket, port: int, room_id: int, cookie: str) -> int:
    """Ask for a websocket on an open connection; the close code of the first frame."""
    key = base64.b64encode(secrets.token_bytes(16)).decode()
    sock.sendall((f"GET /ws/rooms/{room_id}/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                  f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  f"Sec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1:{port}\r\n"
                  f"Cookie: {cookie}\r\n\r\n").encode())
    data = b""
    while b"\r\n\r\n" not in data:
        data += received(sock)
    head, _, rest = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101"), head
    while True:  # frames until the close frame (opcode 8): its first two bytes are the code
        while len(rest) < 2 or len(rest) < 2 + (rest[1] & 0x7F):
            rest += received(sock)
        opcode, length = rest[0] & 0x0F, rest[1] & 0x7F
        payload, rest = rest[2:2 + length], rest[2 + length:]
        if opcode == 8:
            return int.from_bytes(payload[:2], "big")


def received(sock: socket.socket) -> bytes:
    data = sock.recv(4096)
    assert data, "the server closed the connection without a close frame"
    return data


def refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except ConnectionRefusedError:
        return True
    return False


def counted_sockets(redis_url: str, user_ids: list[int]) -> int:
    client = redis.Redis.from_url(redis_url)
    return sum(client.zcard(f"dobon:ws:user:{uid}") for uid in user_ids)


def test_sigterm_finishes_the_move_in_flight_then_closes_every_socket_with_1012(
    tmp_path: Path, alice, bob, carol, dave
):
    require_stack()
    rooms = [room_of(alice, bob), room_of(carol, dave)]
    people = {"alice": alice, "bob": bob, "carol": carol, "dave": dave}
    cookies = {name: session_cookie(user) for name, user in people.items()}
    seated = {rooms[0].pk: ["alice", "bob"], rooms[1].pk: ["carol", "dave"]}

    async def scenario(port: int, process: subprocess.Popen[bytes], redis_url: str) -> None:
        # Two sockets per person (a second tab): eight sockets in two rooms.
        players = [Recorder(f"{name}-{tab}", port, room_id, cookies[name])
                   for room_id, names in seated.items() for name in names for tab in (1, 2)]
        for p in players:
            await p.connect()
        for room_id, names in seated.items():
            assert await asyncio.to_thread(post_start, port, room_id, cookies[names[0]]) == 302
        for p in players:
            await p.wait_for(lambda s: s["version"] == 0)
        games = {g.room_id: g.pk for g in await asyncio.to_thread(list, Game.objects.all())}
        http_sock = await asyncio.to_thread(kept_alive_http, port)

        # A move of the first room waits on its game's row lock; one of the second room
        # is sent right before the signal.
        lock = await asyncio.to_thread(hold_game_row, games[rooms[0].pk])
        for room_id in seated:
            mover = next(p for p in players if p.room_id == room_id
                         and choose(p.states[-1]["view"]))
            await mover.send({"type": "action", "action": choose(mover.states[-1]["view"])})
        await asyncio.sleep(0.3)  # the moves are read, the first one blocked
        signalled = time.monotonic()
        process.send_signal(signal.SIGTERM)

        # Draining (the move still waits): no new connection, and a websocket asked for
        # on the connection opened before is closed with 1012.
        end = time.monotonic() + 3
        while not refused(port):
            assert time.monotonic() < end, "still listening after SIGTERM"
            await asyncio.sleep(0.02)
        code = await asyncio.to_thread(upgrade_on, http_sock, port, rooms[0].pk, cookies["alice"])
        assert code == RESTART
        assert process.poll() is None and all(p.code is None for p in players)
        # A supervisor repeating itself changes nothing (dobon_site/server.py).
        process.send_signal(signal.SIGTERM)
        await asyncio.sleep(1.0)
        assert process.poll() is None, "exited before the move in flight was done"
        await asyncio.to_thread(lock.commit)  # the move goes on
        await asyncio.to_thread(lock.close)

        exit_code = await asyncio.to_thread(process.wait, 15)
        took = time.monotonic() - signalled
        for p in players:
            if p.reader:
                await asyncio.wait_for(asyncio.shield(p.reader), 5)
        final = {g.room_id: g.version for g in await asyncio.to_thread(list, Game.objects.all())}
        assert final == {rooms[0].pk: 1, rooms[1].pk: 1}
        for p in players:
            assert p.code == RESTART, (p.name, p.code)
            assert p.states[-1]["version"] == final[p.room_id], (p.name, p.states[-1]["version"])
        assert exit_code == 0 and took < 10, (exit_code, took)
        users = [u.pk for u in people.values()]
        assert await asyncio.to_thread(counted_sockets, redis_url, users) == 0

    with stack(tmp_path) as running:
        port = running.daphne()
        asyncio.run(scenario(port, running.daphne_process(port), running.env["REDIS_URL"]))


def test_a_drain_that_hangs_still_exits_within_dobon_shutdown_seconds(
    tmp_path: Path, alice, bob
):
    """The move in flight never gets its row lock: the sockets still get 1012 and the
    process is gone DOBON_SHUTDOWN_SECONDS after the signal."""
    require_stack()
    room = room_of(alice, bob)
    cookies = {"alice": session_cookie(alice), "bob": session_cookie(bob)}

    async def scenario(port: int, process: subprocess.Popen[bytes]) -> None:
        players = [Recorder(name, port, room.pk, cookie) for name, cookie in cookies.items()]
        for p in players:
            await p.connect()
        assert await asyncio.to_thread(post_start, port, room.pk, cookies["alice"]) == 302
        for p in players:
            await p.wait_for(lambda s: s["version"] == 0)
        game = await asyncio.to_thread(Game.objects.get, room=room)
        lock = await asyncio.to_thread(hold_game_row, game.pk)
        try:
            mover = next(p for p in players if choose(p.states[-1]["view"]))
            await mover.send({"type": "action", "action": choose(mover.states[-1]["view"])})
            await asyncio.sleep(0.3)
            signalled = time.monotonic()
            process.send_signal(signal.SIGTERM)
            await asyncio.to_thread(process.wait, 10)
            took = time.monotonic() - signalled
        finally:
            await asyncio.to_thread(lock.close)
        assert took < 3 + 0.75, took
        for p in players:
            if p.reader:
                await asyncio.wait_for(asyncio.shield(p.reader), 5)
            assert p.code == RESTART, (p.name, p.code)

    with stack(tmp_path, DOBON_SHUTDOWN_SECONDS="3") as running:
        port = running.daphne()
        asyncio.run(scenario(port, running.daphne_process(port)))

