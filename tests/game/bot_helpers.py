"""A program client for tests: the real ASGI app (dobon_site.asgi) with a Bearer token,
a trivial policy, and the sweep driven by the test (pytest runs no background clock)."""

from __future__ import annotations

import time
from typing import Any

from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from accounts import tokens
from dobon_site.asgi import application
from game.services import clock


def new_key(user: Any, name: str = "bot") -> str:
    return tokens.create_token(user, name).key


async def open_token_socket(
    key: str, room_id: int, origin: bytes | None = b"https://evil.example"
) -> WebsocketCommunicator:
    """A socket that signs in by token only: no cookie, and a foreign origin (token
    clients are not origin-checked)."""
    headers = [(b"authorization", f"Bearer {key}".encode())]
    if origin is not None:
        headers.append((b"origin", origin))
    socket = WebsocketCommunicator(application, f"/ws/rooms/{room_id}/", headers=headers)
    connected, _ = await socket.connect()
    assert connected
    return socket


async def closed_with(socket: WebsocketCommunicator, timeout: float = 3) -> tuple[int, str]:
    while True:
        message = await socket.receive_output(timeout)
        if message["type"] == "websocket.close":
            return message["code"], message.get("reason", "")


def trivial_policy(view: dict[str, Any]) -> dict[str, Any] | None:
    """Dobon when possible, else the first play, else the first legal action."""
    legal = view.get("legal_actions") or []
    for kind in ("dobon", "return", "play", "color", "draw", "pass", "decline"):
        for action in legal:
            if action["type"] == kind:
                return action
    return None


async def play_games_as_program(
    socket: WebsocketCommunicator, games: int, limit: float = 120.0
) -> list[dict[str, Any]]:
    """Follow `state` frames and answer legal actions until `games` games finished,
    running the due CPU moves and timeouts between frames. Every frame received is
    returned (for the fairness checks)."""
    frames: list[dict[str, Any]] = []
    finished: set[int] = set()
    answered: tuple[int, int] | None = None
    give_up = time.monotonic() + limit
    while len(finished) < games:
        assert time.monotonic() < give_up, "the games did not finish in time"
        if await socket.receive_nothing(0.01):
            await sync_to_async(clock.expire_due_games)()
            continue
        frame = await socket.receive_json_from(3)
        frames.append(frame)
        if frame["type"] != "state" or frame["game"] is None:
            continue
        if frame["status"] != "running":
            finished.add(frame["game"])
            continue
        key = (frame["game"], frame["version"])
        action = trivial_policy(frame["view"]) if frame["view"] else None
        if action is not None and answered != key:
            answered = key
            await socket.send_json_to({"type": "action", "action": action})
    return frames
