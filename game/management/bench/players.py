"""Websocket players for the load benchmark (protocol v2, and v1's separate event frames)."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

# Close codes that mean "not now, try again" (docs/protocol.md): too many sockets or
# handshakes from this address or in this process, a full process.
COME_BACK_LATER = frozenset({4410, 4411, 4503})
COME_BACK_TRIES = 12
# The server process is restarting (issue #30): come back after a random wait in this
# range (seconds), as the browser's table and docs/bot-client.py do, and resume by version.
RESTART_CLOSE = 1012
RESTART_DELAY = (0.25, 1.5)


@dataclass
class Restart:
    """One 1012 this socket got: when, and when its next state came (None: not back)."""

    closed_at: float
    back_at: float | None = None

    @property
    def seconds(self) -> float | None:
        return None if self.back_at is None else self.back_at - self.closed_at


@dataclass
class Sent:
    game: int
    version: int
    at: float
    refused: bool = False


@dataclass
class Player:
    name: str
    room: int
    port: int
    cookie: str
    act: bool
    think: tuple[float, float] | None = None  # seconds before acting (human pace)
    owner_start: Callable[[], Awaitable[None]] | None = None  # press "start" when a game ends
    gate: asyncio.Semaphore | None = None  # bounds the handshakes in flight
    # The client address the servers see (X-Forwarded-For; the bench runs them with
    # DOBON_PROXY_COUNT=1): admission limits count per address, so each room has its own.
    address: str | None = None
    arrivals: list[tuple[int, int, float]] = field(default_factory=list)  # game, version, time
    # game → every version whose change reached this socket (a frame brings its
    # from_version + 1 … version): what `missed_versions` compares with the database
    covered: dict[int, set[int]] = field(default_factory=dict)
    sent: list[Sent] = field(default_factory=list)
    # (arrival, arrival − deadline) of each automatic action (idle rooms)
    timeouts: list[tuple[float, float]] = field(default_factory=list)
    frames: int = 0
    gaps: int = 0
    resumes: int = 0
    retries: int = 0
    state: dict[str, Any] | None = None
    acted: tuple[int, int] | None = None
    ws: Any = None
    deadline: float | None = None
    saw_timeout: bool = False
    restarting: bool = False
    restarts: list[Restart] = field(default_factory=list)  # 1012s and the way back
    other_closes: list[int | None] = field(default_factory=list)  # any other close code
    errors: list[tuple[float, str]] = field(default_factory=list)  # error frames: time, code

    async def run(self, stop: asyncio.Event, rng: random.Random) -> None:
        first = await self.first_state()
        if first is None:
            return
        self.receive(first, stop, rng)
        from websockets.exceptions import ConnectionClosed

        while True:
            try:  # websockets ends the loop on 1000/1001 and raises on other codes
                async for raw in self.ws:
                    self.receive(raw, stop, rng)
            except ConnectionClosed:
                pass
            code = self.ws.close_code
            if code != RESTART_CLOSE:
                self.other_closes.append(code)
                return
            if stop.is_set() or not await self.come_back(stop, rng):
                return

    async def come_back(self, stop: asyncio.Event, rng: random.Random) -> bool:
        """After a 1012: reconnect after a random RESTART_DELAY and read the table; the
        resuming `sync` follows in `on_state`. False when the socket never got back in."""
        self.restarts.append(Restart(time.time()))
        self.acted = None  # a move sent during the drain may have been dropped unread
        await asyncio.sleep(rng.uniform(*RESTART_DELAY))
        first = await self.first_state()
        while first is None and not stop.is_set():  # the browser's table never gives up
            await asyncio.sleep(rng.uniform(1.0, 4.0))  # (static/js/table/socket.js)
            first = await self.first_state()
        if first is None:
            return False
        self.receive(first, stop, rng)
        return True

    async def first_state(self) -> str | bytes | None:
        """Connect and read the first state; a socket told to come back later (4410, 4411,
        4503: docs/protocol.md) tries again after a backoff, as the browser's table and
        docs/bot-client.py do. None when it never got in."""
        from websockets.exceptions import ConnectionClosed

        gate = self.gate or asyncio.Semaphore(1)
        for attempt in range(COME_BACK_TRIES):
            async with gate:  # until the first state: daphne drops a handshake not done in 5 s
                if not await self.connect():
                    return None
                try:
                    return await self.ws.recv()  # type: ignore[no-any-return]
                except ConnectionClosed as closed:
                    code = closed.rcvd.code if closed.rcvd else None
                    # A 1012 before the first state: it reached a daphne that is draining
                    # in its turn of the rolling restart; come back as after any 1012.
                    if code not in COME_BACK_LATER and code != RESTART_CLOSE:
                        raise
            self.retries += 1  # the gate is free meanwhile: others may try
            await asyncio.sleep(min(0.5 * 2**attempt, 4.0))
        return None

    async def connect(self) -> bool:
        from websockets.asyncio.client import connect
        from websockets.exceptions import InvalidHandshake

        for attempt in range(6):  # a busy server may drop a handshake: retry like a browser
            try:
                self.ws = await connect(
                    f"ws://127.0.0.1:{self.port}/ws/rooms/{self.room}/",
                    origin=f"http://127.0.0.1:{self.port}",  # type: ignore[arg-type]
                    additional_headers=headers(self.cookie, self.address), max_size=2**22,
                    open_timeout=30,
                )
                return True
            except (OSError, InvalidHandshake, TimeoutError):
                self.retries += 1
                await asyncio.sleep(0.5 * 2**attempt)
        return False

    def receive(self, raw: str | bytes, stop: asyncio.Event, rng: random.Random) -> None:
        now = time.time()
        self.frames += 1
        message = json.loads(raw)
        kind = message["type"]
        if kind == "error":
            self.errors.append((now, str(message.get("code"))))
            if self.sent:
                self.sent[-1].refused = True
        elif kind == "event":  # protocol v1: events came in frames of their own
            self.saw_timeout |= message["event"]["type"] == "timeout"
        elif kind == "state":
            events = message.get("events") or []
            self.saw_timeout |= any(e.get("type") == "timeout" for e in events)
            self.cover(message)
            if self.is_catch_up(message):
                return  # an ended game's end, after the next game's table: nothing to do
            self.on_state(message, now)
            if not stop.is_set():
                self.react(stop, rng)

    def cover(self, message: dict[str, Any]) -> None:
        game, version = message["game"], message["version"]
        if game is None:
            return
        since = message.get("from_version", version - 1)
        seen = self.covered.setdefault(game, set())
        if since == version:  # a plain table: the first one counts as had, no change
            if not seen:
                seen.add(version)
            return
        seen.update(range(since + 1, version + 1))

    def is_catch_up(self, message: dict[str, Any]) -> bool:
        """A resuming sync's catch-up frame: the end of a game older than the table this
        socket shows (docs/protocol.md), which came first on the way back."""
        shown = self.state["game"] if self.state is not None else None
        return message["game"] is not None and shown is not None and message["game"] < shown

    def on_state(self, message: dict[str, Any], now: float) -> None:
        game, version = message["game"], message["version"]
        back = bool(self.restarts) and self.restarts[-1].back_at is None
        if back:  # the first table after a restart: the way back ends here
            self.restarts[-1].back_at = now
            self.resume_ended_game(game)
        if game is not None:
            last = self.arrivals[-1] if self.arrivals else None
            # v2: a frame carries the events since `from_version`; v1 frames had one version.
            since = message.get("from_version", version - 1)
            if back and last and last[0] == game and since is not None and since > last[1]:
                self.resume(game, last[1])  # what happened meanwhile, by version
            elif last and last[0] == game and since is not None and since > last[1]:
                self.gaps += since - last[1]
                if "from_version" in message:  # v2: resume, as docs/protocol.md asks
                    self.resume(game, last[1])
            self.arrivals.append((game, version, now))
        if self.saw_timeout and self.deadline is not None:
            self.timeouts.append((now, now - self.deadline))
        self.saw_timeout = False
        self.state = message
        view = message["view"]
        self.deadline = view["turn_deadline"] if view else None

    def resume_ended_game(self, game: int | None) -> None:
        """Back after a restart at another game's table (or at none): the game this
        socket was playing ended meanwhile; the resuming sync brings its end."""
        held = self.state
        if held is not None and held["game"] is not None and held["game"] != game and (
            held["status"] == "running"
        ):
            self.resume(held["game"], held["version"])

    def resume(self, game: int, version: int) -> None:
        """Ask for the events since `version` (the reply fills the gap in the move log)."""
        self.resumes += 1
        self.send_soon({"type": "sync", "game": game, "version": version})

    def send_soon(self, message: dict[str, Any]) -> None:
        """Send `message` in a task of its own; a socket closed meanwhile (a restart)
        just does not get it."""
        asyncio.get_running_loop().create_task(self.send_quietly(self.ws, message))

    @staticmethod
    async def send_quietly(ws: Any, message: dict[str, Any]) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            await ws.send(json.dumps(message))
        except ConnectionClosed:
            pass

    def react(self, stop: asyncio.Event, rng: random.Random) -> None:
        state = self.state
        assert state is not None
        ended = state["game"] is not None and state["status"] != "running"
        if ended and self.owner_start and not self.restarting:
            self.restarting = True
            asyncio.get_running_loop().create_task(self.restart(stop, rng))
        elif self.act:
            if self.think is None:
                self.maybe_act(rng)
            else:
                key = (state["game"], state["version"])
                asyncio.get_running_loop().create_task(self.act_later(key, stop, rng))

    async def restart(self, stop: asyncio.Event, rng: random.Random) -> None:
        assert self.owner_start is not None
        if self.think is not None:
            await asyncio.sleep(rng.uniform(*self.think))
        if not stop.is_set():
            await self.owner_start()
        self.restarting = False

    async def act_later(self, key: tuple[int, int], stop: asyncio.Event,
                        rng: random.Random) -> None:
        assert self.think is not None
        await asyncio.sleep(rng.uniform(*self.think))
        state = self.state
        if state is None or stop.is_set() or (state["game"], state["version"]) != key:
            return  # the table moved on meanwhile: think again about the new one
        self.maybe_act(rng)

    def maybe_act(self, rng: random.Random) -> None:
        state = self.state
        view = state and state["view"]
        if not state or not view or not view.get("legal_actions"):
            return
        key = (state["game"], state["version"])
        if self.acted == key:
            return
        action = choose(view, rng)
        if action is None:
            return
        self.acted = key
        self.sent.append(Sent(state["game"], state["version"], time.time()))
        self.send_soon({"type": "action", "action": action})


def headers(cookie: str, address: str | None) -> dict[str, str]:
    """A handshake's headers: the session cookie, and the client address for the
    servers' one trusted proxy hop (stack.PRODUCTION_ENV's DOBON_PROXY_COUNT)."""
    out = {"Cookie": cookie}
    if address is not None:
        out["X-Forwarded-For"] = address
    return out


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    legal: list[dict[str, Any]] = view["legal_actions"]
    by_type: dict[str, list[dict[str, Any]]] = {}
    for action in legal:
        by_type.setdefault(action["type"], []).append(action)
    for kind in ("dobon", "return"):
        if kind in by_type:
            return by_type[kind][0]
    mine = view["seat"] in (view["turn"], view["chooser"])
    if not mine:
        if view["phase"] in ("agari_wait", "dobon_wait", "return_wait") and "decline" in by_type:
            return by_type["decline"][0]
        if "play" in by_type and rng.random() < 0.3:  # a cut-in now and then
            return rng.choice(by_type["play"])
        return None
    for kind in ("color", "play", "pass", "draw", "take"):
        if kind in by_type:
            return rng.choice(by_type[kind])
    return legal[0]


def missed_versions(players: list[Player], final: dict[int, int]) -> int:
    """Versions that never reached a socket: of every game it had a frame of, those
    after the first it had up to the game's last (`final`: game → version)."""
    missed = 0
    for p in players:
        for game, seen in p.covered.items():
            if seen and game in final:
                missed += len(set(range(min(seen), final[game] + 1)) - seen)
    return missed


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def delays(players: list[Player], since: float = 0.0, until: float = float("inf")) -> list[float]:
    """Per accepted action sent in [since, until): until every player of its room had a
    newer state."""
    return [delay for _, delay in timed_delays(players, since, until)]


def slowest(players: list[Player], since: float, until: float,
            count: int = 3) -> list[tuple[float, float]]:
    """The `count` slowest of `delays`, as (seconds into the window when the action was
    sent, ms): tells a stall at an attack's start from one in its middle."""
    worst = sorted(timed_delays(players, since, until), key=lambda d: d[1], reverse=True)
    return [(round(at - since, 1), round(delay * 1000, 1)) for at, delay in worst[:count]]


def timed_delays(players: list[Player], since: float = 0.0,
                 until: float = float("inf")) -> list[tuple[float, float]]:
    """`delays` with the moment each action was sent: (sent at, delay in seconds)."""
    by_room: dict[int, list[Player]] = {}
    for p in players:
        by_room.setdefault(p.room, []).append(p)
    out = []
    for room_players in by_room.values():
        for p in room_players:
            for sent in p.sent:
                if sent.refused or not since <= sent.at < until:
                    continue
                last = 0.0
                for q in room_players:
                    t = next((t for g, v, t in q.arrivals
                              if (g == sent.game and v > sent.version) or g > sent.game), None)
                    if t is None:
                        last = float("nan")
                        break
                    last = max(last, t)
                if last == last:  # not NaN: every player saw it
                    out.append((sent.at, last - sent.at))
    return out


def summary_ms(values: list[float]) -> dict[str, Any]:
    return {"n": len(values), "p50": round(percentile(values, .5) * 1000, 1),
            "p99": round(percentile(values, .99) * 1000, 1),
            "max": round(max(values) * 1000, 1) if values else None}
