"""Abuse against a real daphne (run as README says, `python -m dobon_site.server`): a
client that never reads is dropped, oversized messages get close codes, half-sent HTTP
requests time out, and the other players go on meanwhile."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from stack_helpers import WsPlayer, require_stack, session_cookie, stack

from game.models import Membership, Room

pytestmark = [pytest.mark.stack, pytest.mark.django_db(transaction=True)]


def room_of(owner: Any, *others: Any) -> Room:
    room = Room.objects.create(name="abuse", owner=owner, timeout_seconds=60)
    for index, person in enumerate([owner, *others]):
        Membership.objects.create(room=room, user=person, seat_index=index)
    return room


def masked_text_frame(text: str) -> bytes:
    """A client → server websocket text frame (clients must mask; the mask is zero)."""
    payload = text.encode()
    assert len(payload) < 126
    return bytes([0x81, 0x80 | len(payload)]) + b"\0\0\0\0" + payload


def open_raw_websocket(port: int, room_id: int, cookie: str) -> socket.socket:
    """A websocket opened by hand with a 4 KiB receive buffer, so that not reading
    fills the kernel's buffers quickly and the rest piles up in the server."""
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    raw.sendall(
        (f"GET /ws/rooms/{room_id}/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
         f"Origin: http://127.0.0.1:{port}\r\nCookie: {cookie}\r\nUpgrade: websocket\r\n"
         f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
         "Sec-WebSocket-Version: 13\r\n\r\n").encode()
    )
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += raw.recv(1)  # byte by byte: leave every frame after the handshake unread
    assert answer.startswith(b"HTTP/1.1 101"), answer
    return raw


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_a_client_that_never_reads_is_dropped_and_the_others_go_on(tmp_path, alice, bob):
    require_stack()
    room = room_of(alice, bob)
    cookies = {"alice": session_cookie(alice), "bob": session_cookie(bob)}
    limits = {"DOBON_WS_MAX_SEND_BUFFER": "65536", "DOBON_WS_MAX_MESSAGES_PER_SECOND": "5000"}
    with stack(tmp_path, **limits) as running:
        port = running.daphne()
        daphne_pid = running.processes[-1].pid
        raw = open_raw_websocket(port, room.pk, cookies["bob"])
        before = rss_kib(daphne_pid)
        log = tmp_path / f"daphne-{port}.log"
        sent = 0
        end = time.monotonic() + 90
        dropped = False
        while not dropped and time.monotonic() < end:
            try:  # each message is answered with a frame: a table or an error
                for _ in range(100):
                    raw.sendall(masked_text_frame(json.dumps({"type": "hello"})))
                raw.sendall(masked_text_frame(json.dumps({"type": "sync"})))
                sent += 101
            except OSError:  # the server reset the connection
                dropped = True
            time.sleep(0.1)  # paced, so the server reads what is sent (it reads slower)
            dropped = dropped or "does not read" in log.read_text(errors="replace")
        assert dropped, f"still connected after {sent} messages"
        grown = rss_kib(daphne_pid) - before
        assert grown < 20_000, f"daphne grew by {grown} KiB"

        async def others_still_play() -> None:
            player = WsPlayer("alice", port, room.pk, cookies["alice"])
            await player.connect()
            state = await player.wait_for(lambda s: s["room"]["id"] == room.pk)
            assert state["view"] is None
            await player.close()

        asyncio.run(others_still_play())
        raw.close()


def test_oversized_messages_get_an_answer_or_a_close_code(tmp_path, alice):
    require_stack()
    room = room_of(alice)
    cookie = session_cookie(alice)

    async def scenario(port: int) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed

        url = f"ws://127.0.0.1:{port}/ws/rooms/{room.pk}/"
        origin = f"http://127.0.0.1:{port}"
        async with connect(url, origin=origin, additional_headers={"Cookie": cookie}) as ws:
            await ws.send(json.dumps({"type": "sync", "pad": "x" * 10_000}))  # over 4 KiB
            while (message := json.loads(await ws.recv()))["type"] != "error":
                pass
            assert message["code"] == "too_large"
            await ws.send("x" * 70_000)  # over daphne's 64 KiB: close 1009, not a drop
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    await ws.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009

    with stack(tmp_path) as running:
        asyncio.run(scenario(running.daphne()))


def test_aborted_anonymous_handshakes_log_no_traceback(tmp_path, alice, bob):
    """Issue 20: each aborted anonymous handshake logged 2 tracebacks (300 attempts,
    14,700 log lines)."""
    require_stack()
    room = room_of(alice, bob)
    with stack(tmp_path) as running:
        port = running.daphne()
        for _ in range(20):
            raw = socket.create_connection(("127.0.0.1", port))
            key = base64.b64encode(os.urandom(16)).decode()
            raw.sendall(
                (f"GET /ws/rooms/{room.pk}/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                 f"Origin: http://127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                 f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                 "Sec-WebSocket-Version: 13\r\n\r\n").encode()
            )
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            raw.close()  # a reset, before the server's answer
        time.sleep(3)
        # The site still answers, and nothing was logged as a crash.
        assert urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10).status == 200
        log = (tmp_path / f"daphne-{port}.log").read_text(errors="replace")
        assert "Traceback" not in log, log[-3000:]


def test_a_trickled_http_request_is_closed_at_its_deadline(tmp_path):
    """Issue 20: one header line every 10 s kept 300 of 300 connections open at 80 s (the
    idle timeout restarts with every byte)."""
    require_stack()
    with stack(tmp_path, DOBON_HTTP_REQUEST_SECONDS="2") as running:
        port = running.daphne()
        slow = socket.create_connection(("127.0.0.1", port))
        slow.settimeout(0.5)
        started = time.monotonic()
        slow.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        closed = False
        for n in range(40):  # a line every 0.5 s for up to 20 s: never idle 30 s
            try:
                if slow.recv(1024) == b"":
                    closed = True
                    break
            except TimeoutError:
                pass
            except ConnectionResetError:
                closed = True
                break
            try:
                slow.sendall(b"X-Slow-%d: 1\r\n" % n)
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
        assert closed, "the trickling connection is still open"
        assert time.monotonic() - started < 8
        slow.close()


def test_a_half_sent_http_request_is_timed_out(tmp_path):
    require_stack()
    with stack(tmp_path, DOBON_HTTP_IDLE_SECONDS="2") as running:
        port = running.daphne()
        half = socket.create_connection(("127.0.0.1", port))
        half.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the blank line
        half.settimeout(15)
        started = time.monotonic()
        assert half.recv(1024) == b"", "the server closes the connection"
        assert time.monotonic() - started < 15
        half.close()
