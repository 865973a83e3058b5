"""A reference program client for Dobon UNO and trump Dobon (docs/bots-api.md).

Connects with an API token, follows `state` frames, answers `legal_actions` with a
trivial policy (dobon or return when possible, else the first play, else draw / pass;
in a trump room also the lowest bid, 役 and last one), and resumes after a dropped
connection with the resuming `sync`: after a server restart (close code 1012) within a
random 0.25-1.5 s, after other drops with a growing, jittered back-off.

    pip install websockets
    DOBON_TOKEN=dobon_... python docs/bot-client.py ws://127.0.0.1:8000/ws/rooms/7/

Stops after `--games` finished games (default: run until interrupted).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import time
from typing import Any

import websockets

Action = dict[str, Any]
FATAL_CLOSE_CODES = {4401, 4404, 4409}  # retrying will not help (docs/bots-api.md)
# The server process is restarting: reconnect soon (another process, or this one back),
# after a random wait so that a whole process's clients do not return in one instant.
RESTART_CLOSE_CODE = 1012
RESTART_DELAY = (0.25, 1.5)
PREFERENCE = (
    "dobon", "return", "bid", "yaku", "play", "color", "last_one", "draw", "pass", "decline",
)


def choose(view: dict[str, Any]) -> Action | None:
    """The trivial policy: a legal action, by the order of PREFERENCE. A trump auction
    lists a bid as its range (`{"type": "bid", "min": 1, "max": 999}`): bid the least;
    a trump play that may carry last one carries it (§T8.1)."""
    legal = view.get("legal_actions") or []
    for kind in PREFERENCE:
        matching = [a for a in legal if a["type"] == kind]
        if not matching:
            continue
        if kind == "bid":
            return {"type": "bid", "amount": matching[0]["min"]}
        return next((a for a in matching if a.get("last_one")), matching[0])
    return None


class Bot:
    def __init__(self, url: str, token: str, games: int | None) -> None:
        self.url, self.token, self.games_wanted = url, token, games
        self.game: int | None = None
        self.version: int | None = None
        self.private = 0  # our own private step at `version` (a decline of ours: protocol.md)
        self.answered: tuple[int, int, int] | None = None
        self.finished: set[int] = set()
        self.clock_offset = 0.0  # server time minus ours
        self.told_watching = False

    def done(self) -> bool:
        return self.games_wanted is not None and len(self.finished) >= self.games_wanted

    async def run(self) -> None:
        backoff = 0.5
        while not self.done():
            restart = False
            try:
                await self.session()
                backoff = 0.5
            except websockets.ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd else None
                if code in FATAL_CLOSE_CODES:
                    reason = closed.rcvd.reason if closed.rcvd else ""
                    raise SystemExit(f"refused: close code {code} {reason}") from closed
                restart = code == RESTART_CLOSE_CODE
                print("server restarting (1012); resuming" if restart
                      else f"connection dropped ({code}); resuming in {backoff:.1f} s")
            except OSError as exc:
                print(f"cannot connect ({exc}); retrying in {backoff:.1f} s")
            # A move sent just before the drop may have been dropped unread (a server
            # stops reading when it restarts): answer the table again. A move that did
            # count moved the version on, so the same answer comes back "stale".
            self.answered = None
            if self.done():
                break
            if restart:
                backoff = 0.5
                await asyncio.sleep(random.uniform(*RESTART_DELAY))
            else:
                await asyncio.sleep(backoff + random.random() * backoff)
                backoff = min(backoff * 2, 30.0)

    async def session(self) -> None:
        headers = {"Authorization": f"Bearer {self.token}"}
        async with websockets.connect(self.url, additional_headers=headers) as socket:
            if self.game is not None:  # resume: every event after what we had
                await self.send(socket, {"type": "sync", "game": self.game,
                                         "version": self.version, "private": self.private})
            async for raw in socket:
                await self.handle(socket, json.loads(raw))
                if self.done():
                    return

    async def send(self, socket: Any, message: dict[str, Any]) -> None:
        await socket.send(json.dumps(message))

    async def handle(self, socket: Any, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "error":
            print("refused:", message["code"], message["message"])
        elif kind == "state":
            await self.on_state(socket, message)

    async def on_state(self, socket: Any, state: dict[str, Any]) -> None:
        self.clock_offset = state["server_time"] - time.time()
        game, version = state["game"], state["version"]
        if game is None:
            return  # no game running: wait for the next one
        if self.game is not None and game < self.game:
            # The end of the game we were playing, which ended while we were away: the
            # resuming sync sends it after the table we got on connecting (a newer
            # game's). Read it; our place stays in the newer game.
            self.note_end(state)
            return
        if game == self.game and self.version is not None and state["from_version"] > self.version:
            # A version skipped (a push was lost): ask for what we missed.
            await self.send(socket, {"type": "sync", "game": self.game, "version": self.version,
                                     "private": self.private})
        self.game, self.version, self.private = game, version, state.get("private", 0)
        if state["status"] != "running":
            self.note_end(state)
            return
        if state["seat"] is None:
            if not self.told_watching:
                print("watching: this user has no seat in the running game (sit down first)")
                self.told_watching = True
            return
        self.told_watching = False
        view = state["view"]
        at = (game, version, self.private)  # a private step of ours is a new table too
        if view is None or at == self.answered:
            return
        left = self.seconds_left(state["deadline"])
        if left is not None and left < 0:
            return  # too late: the server applies the automatic action (§R14) itself
        action = choose(view)
        if action is not None:
            self.answered = at
            # The version it answers: a table that moved on meanwhile refuses it
            # ("stale") rather than apply it to a different situation.
            await self.send(socket, {"type": "action", "action": action, "version": version})

    def note_end(self, state: dict[str, Any]) -> None:
        """A finished (or aborted) game's frame: say how it ended, count it."""
        for event in state["events"]:
            if event["type"] == "finished":
                print(f"game {state['number']} over: {event['result']['kind']}, "
                      f"deltas {event['result']['deltas']}")
        if state["status"] != "running":
            self.finished.add(state["game"])

    def seconds_left(self, deadline: float | None) -> float | None:
        """A server deadline as seconds from now on our clock (skew corrected)."""
        if deadline is None:
            return None
        return deadline - (time.time() + self.clock_offset)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", help="ws(s)://host/ws/rooms/<room id>/")
    parser.add_argument("--games", type=int, default=None, help="stop after this many games")
    args = parser.parse_args()
    token = os.environ.get("DOBON_TOKEN")
    if not token:
        raise SystemExit("set DOBON_TOKEN to your API token")
    asyncio.run(Bot(args.url, token, args.games).run())


if __name__ == "__main__":
    main()
