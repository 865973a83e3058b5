"""Websocket clients for the consumer tests: real sockets through the ASGI application
(session cookies, Origin), and readers that skip the presence frames people cause."""

from __future__ import annotations

import asyncio
from typing import Any

from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from dobon_site.asgi import application


class FakeClock:
    """The sockets' rate-limit clock, moved by the test instead of by waiting."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def session_cookie(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


async def open_socket(
    user: Any, room_id: int, language: str | None = None, address: str | None = None,
    session: str | None = None,
) -> WebsocketCommunicator:
    """`address`: the client's address (the test communicator has none: not grouped).
    `session`: the session cookie's value (default: a new session of `user`)."""
    cookies = []
    if user is not None:
        session = session or await sync_to_async(session_cookie)(user)
        cookies.append(f"{settings.SESSION_COOKIE_NAME}={session}")
    if language:
        cookies.append(f"{settings.LANGUAGE_COOKIE_NAME}={language}")
    headers = [(b"origin", b"http://testserver")]
    if cookies:
        headers.append((b"cookie", "; ".join(cookies).encode()))
    socket = WebsocketCommunicator(application, f"/ws/rooms/{room_id}/", headers=headers)
    if address is not None:  # read when the application first runs, at connect
        socket.scope["client"] = [address, 50000]
    connected, _ = await socket.connect(timeout=5)  # a busy machine is slow, not wrong
    assert connected
    return socket


async def next_frame(socket: WebsocketCommunicator, timeout: float = 3) -> dict[str, Any]:
    """The next frame that is not a `presence` (those come whenever people connect)."""
    while True:
        message = await socket.receive_json_from(timeout)
        if message["type"] != "presence":
            return message


async def next_state(socket: WebsocketCommunicator, timeout: float = 3) -> tuple[list, dict]:
    """Every frame but presence up to and including the next `state` message."""
    got: list[dict[str, Any]] = []
    while True:
        message = await next_frame(socket, timeout)
        got.append(message)
        if message["type"] == "state":
            return got, message


async def closed_with(socket: WebsocketCommunicator) -> int:
    message = await socket.receive_output(3)
    assert message["type"] == "websocket.close"
    return message["code"]


async def quiet(*sockets: WebsocketCommunicator) -> None:
    """Nothing but presence frames arrives on any of `sockets`."""
    for socket in sockets:
        while not await socket.receive_nothing(0.2):
            message = await socket.receive_json_from(1)
            assert message["type"] == "presence", f"unexpected frame {message}"


async def presence_of(socket: WebsocketCommunicator) -> list[str]:
    while True:
        message = await socket.receive_json_from(3)
        if message["type"] == "presence":
            return message["online"]


class Gate:
    """Stands for asyncio.sleep in the wait for a sync budget (RoomConsumer.pause):
    records each wait and holds it until the test opens the gate (having moved the
    clock)."""

    def __init__(self) -> None:
        self.waits: list[float] = []
        self.opened = asyncio.Event()

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        await self.opened.wait()
        await asyncio.sleep(0)
