"""Websocket players through the edge (wss, the test CA, the session cookie of a real
sign-up). Each records every version its socket was given, every close (code and time)
and how long the next state took after it, so that the check can say afterwards whether
a committed move failed to reach a seat, and how the sockets came back."""

from __future__ import annotations

import asyncio
import json
import random
import ssl
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from game.management.bench.players import choose

# Closes after which trying again will not help (docs/protocol.md).
FATAL = frozenset({4401, 4403, 4404, 4409})


@dataclass
class Close:
    at: float
    code: int | None  # None: the connection dropped without a close frame (1006)
    back_at: float | None = None  # when the next socket had its state


@dataclass
class Player:
    """One seat's socket. `act`: play the first legal action at once (the bench's
    policy); otherwise only watch, so that the clock plays this seat."""

    label: str
    room: int
    seat: int
    cookie: str
    edge: str  # the edge's address
    name: str  # the public name
    tls: ssl.SSLContext
    act: bool = True
    on_finished: Callable[[Player, int], Awaitable[None]] | None = None
    covered: dict[int, set[int]] = field(default_factory=dict)  # game → versions seen
    finished: dict[int, dict[str, Any]] = field(default_factory=dict)  # game → result
    closes: list[Close] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    game: int | None = None
    version: int | None = None
    connected: bool = False
    answered: tuple[int, int] | None = None
    rng: random.Random = field(default_factory=random.Random)

    @property
    def url(self) -> str:
        return f"wss://{self.name}/ws/rooms/{self.room}/"

    async def run(self, stop: asyncio.Event) -> None:
        backoff = 0.2
        while not stop.is_set():
            try:
                await self.session(stop)
                backoff = 0.2
            except ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd else None
                self.mark_closed(code)
                if code in FATAL:
                    self.errors.append(f"refused for good: {code}")
                    return
            except (OSError, InvalidHandshake, InvalidStatus, TimeoutError) as exc:
                if self.connected:
                    self.mark_closed(None)
                self.errors.append(f"connect: {type(exc).__name__}: {exc}"[:200])
            if stop.is_set():
                return
            # A jittered back-off, as the browser's table and docs/bot-client.py do.
            await asyncio.sleep(backoff + self.rng.random() * backoff)
            backoff = min(backoff * 2, 5.0)

    def mark_closed(self, code: int | None) -> None:
        if self.connected:
            self.closes.append(Close(time.monotonic(), code))
        self.connected = False

    async def session(self, stop: asyncio.Event) -> None:
        async with connect(
            self.url, host=self.edge, port=443, ssl=self.tls, server_hostname=self.name,
            origin=f"https://{self.name}",  # type: ignore[arg-type]
            additional_headers={"Cookie": self.cookie}, open_timeout=15, max_size=2**22,
        ) as socket:
            if self.game is not None:  # resume: every event after the version we hold
                await socket.send(json.dumps(
                    {"type": "sync", "game": self.game, "version": self.version}))
            stopping = asyncio.ensure_future(stop.wait())
            try:
                while True:
                    receiving = asyncio.ensure_future(socket.recv())
                    done, _ = await asyncio.wait(
                        {receiving, stopping}, return_when=asyncio.FIRST_COMPLETED)
                    if stopping in done:
                        receiving.cancel()
                        return
                    await self.handle(socket, json.loads(receiving.result()))
            finally:
                stopping.cancel()

    async def handle(self, socket: Any, message: dict[str, Any]) -> None:
        if message.get("type") != "state":
            return
        if not self.connected:
            self.connected = True
            if self.closes and self.closes[-1].back_at is None:
                self.closes[-1].back_at = time.monotonic()
        game, version = message["game"], message["version"]
        if game is None:
            return
        # The versions this frame brings reached this socket, whatever came before.
        brought = range(message["from_version"] + 1, version + 1)
        self.covered.setdefault(game, set()).update(brought)
        if self.game is not None and game < self.game:
            # The catch-up of a game that ended while this socket was away, after the
            # connect's table of the next one (docs/protocol.md, the resuming sync): its
            # end, nothing to act on or to resume.
            self.note_finished(game, message)
            return
        held = self.version if game == self.game else 0
        if held is not None and message["from_version"] > held:
            # A push lost on the way, or a game begun while this socket was away: ask for
            # every event since the version we hold (docs/protocol.md).
            await socket.send(json.dumps({"type": "sync", "game": game, "version": held}))
            if game != self.game:
                self.game, self.version = game, 0
        elif game != self.game or self.version is None or version > self.version:
            self.game, self.version = game, version
        self.note_finished(game, message)
        if message["status"] != "running":
            if self.on_finished is not None:
                await self.on_finished(self, game)
            return
        view = message.get("view")
        if not self.act or not view or (game, version) == self.answered:
            return
        action = choose(view, self.rng)
        if action is not None:
            self.answered = (game, version)
            await socket.send(json.dumps({"type": "action", "action": action, "version": version}))

    def note_finished(self, game: int, message: dict[str, Any]) -> None:
        for event in message.get("events") or []:
            if event.get("type") == "finished":
                self.finished[game] = event.get("result") or {}
