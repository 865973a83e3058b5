"""A CPU player as a program: one seat played over the live protocol with a policy of
this package, as a contest team's program would play it (docs/bots-api.md).

    DOBON_TOKEN=dobon_... python -m game.bots.client --level strong \\
        ws://127.0.0.1:8000/ws/rooms/7/

The policy sees what it sees at a room's CPU seat: the seat's view and the events the
server sent to that seat since the game began (a client that joins mid-game, or sees a
version skip, asks for them with the resuming `sync`). Where the policy waits
(``None``) in a wait that blocks the game (§R8.2, §R9.4, §R10), the client declines at once,
as a person pressing "decline" does, so the wait ends early (§R14.2) instead of running
out its timeout.

:class:`SeatPlayer` is the decision part, free of sockets; :func:`play_seat` runs it on
a websocket (the ``websockets`` package, imported only there).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import LEVELS, policy
from .base import Action, Policy
from .knowledge import Event

Message = dict[str, Any]

# The waits that hold the game until every seat asked has answered (§R14.2).
BLOCKING_PHASES = frozenset({"agari_wait", "dobon_wait", "return_wait"})
WHOLE_GAME = -1  # a resuming sync from this version sends every event of the game
# Below the server's limit (DOBON_WS_MAX_MESSAGES_PER_SECOND: 20 a second, bursts of 20):
# in a fast match a player may have something to say at most versions, and a message
# refused as `rate_limited` is a move lost to the program timeout.
MESSAGES_PER_SECOND = 16.0


@dataclass
class SeatPlayer:
    """Reads `state` frames, keeps the seat's events, answers with the policy's action.

    ``on_message`` returns the messages to send back (an action, or a resuming sync)."""

    policy: Policy
    game: int | None = None
    version: int | None = None
    private: int = 0  # this seat's private step at `version` (docs/protocol.md)
    events: list[Event] = field(default_factory=list)
    answered: tuple[int, int, int] | None = None
    finished: set[int] = field(default_factory=set)
    clock_offset: float = 0.0  # server time minus ours
    clock: Callable[[], float] = time.time

    def on_message(self, message: Message) -> list[Message]:
        if message.get("type") != "state":
            return []
        self.clock_offset = float(message["server_time"]) - self.clock()
        if not self._follow(message):
            return [self.resume()]
        if message["status"] != "running":
            if message["game"] is not None:
                self.finished.add(message["game"])
            return []
        action = self._decide(message)
        if action is None:
            return []
        # With the version it was decided on: if the table moved on meanwhile (a cut-in,
        # a timeout), the server refuses it as `stale` instead of applying it elsewhere.
        return [{"type": "action", "action": action, "version": message["version"]}]

    def resume(self) -> Message:
        """The resuming sync for what this player holds (the whole game when nothing)."""
        if self.version is None:
            return {"type": "sync", "game": self.game, "version": WHOLE_GAME}
        sync = {"type": "sync", "game": self.game, "version": self.version}
        return {**sync, "private": self.private} if self.private else sync

    def _follow(self, state: Message) -> bool:
        """Take in the frame's events; False when some are missing (ask for them)."""
        game, version, since = state["game"], state["version"], state["from_version"]
        private = state.get("private", 0)
        if game is None:
            return True
        if game != self.game:
            self.game, self.version, self.events, self.answered = game, None, [], None
            if since != WHOLE_GAME:  # joined mid-game: the start is missing
                return False
        elif self.version is not None and since != self.version:
            return bool(since < self.version and version <= self.version)  # stale: drop it
        elif version == self.version and private < self.private:
            return True  # an older private step of ours, overtaken: drop it
        self.events.extend(state["events"])
        self.version, self.private = version, private
        return True

    def _decide(self, state: Message) -> Action | None:
        view = state["view"]
        if not view or not view.get("legal_actions") or self.version != state["version"]:
            return None
        key = (state["game"], state["version"], state.get("private", 0))
        if key == self.answered or self._too_late(state.get("deadline")):
            return None
        action = self.policy.act(view, self.events)
        if action is None and view.get("phase") in BLOCKING_PHASES and view.get("chances"):
            action = {"type": "decline"}
        if action is not None:
            self.answered = key
        return action

    def _too_late(self, deadline: float | None) -> bool:
        """Past the deadline the server plays the automatic action itself (§R14)."""
        return deadline is not None and deadline < self.clock() + self.clock_offset


# What a refusal at connect means for the person running the program (docs/bots-api.md).
REFUSALS = {
    4401: "the token is unknown or revoked (or its account is inactive): create a new one "
          "on /account/tokens/",
    4404: "no such room, or a private room your user may not see",
    4409: "too many open sockets for your user: close a browser tab or another program",
    4412: "the room's watchers are full (your user is not a member of the room)",
}
# 4410, 4411 (this address's sockets or handshakes) and 4503 (a full server process) pass
# with time: the client tries again with its backoff.

Say = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


async def play_seat(url: str, token: str, player: SeatPlayer, games: int | None = None,
                    stop: asyncio.Event | None = None, say: Say = _quiet) -> None:
    """Play until ``games`` games finished (or ``stop`` is set), reconnecting after a
    dropped connection and resuming where the player was. ``say`` hears what happens."""
    import websockets

    backoff = 0.5
    headers = {"Authorization": f"Bearer {token}"}
    while not _done(player, games, stop):
        try:
            async with websockets.connect(url, additional_headers=headers,
                                          max_size=2**22) as socket:
                backoff = 0.5
                if player.game is not None:
                    await socket.send(json.dumps(player.resume()))
                await _converse(socket, player, games, stop, say)
        except websockets.ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd is not None else None
            if code in REFUSALS:
                raise SystemExit(f"refused (close code {code}): {REFUSALS[code]}") from closed
            say(f"connection dropped (close code {code}); resuming")
        except OSError as exc:
            say(f"cannot connect ({exc}); trying again")
        if not _done(player, games, stop):
            await asyncio.sleep(backoff * (1 + random.random()))
            backoff = min(backoff * 2, 30.0)


@dataclass
class Pacer:
    """A token bucket like the server's, so that no message of ours is refused."""

    rate: float = MESSAGES_PER_SECOND
    tokens: float = MESSAGES_PER_SECOND
    stamp: float = field(default_factory=time.monotonic)
    clock: Callable[[], float] = time.monotonic

    def wait(self) -> float:
        """Seconds to wait before the next message may go (and take its token)."""
        now = self.clock()
        self.tokens = min(self.rate, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        self.tokens -= 1
        return 0.0 if self.tokens >= 0 else -self.tokens / self.rate


async def _converse(socket: Any, player: SeatPlayer, games: int | None,
                    stop: asyncio.Event | None, say: Say) -> None:
    pacer = Pacer()
    seated: bool | None = None
    greeted = False
    while not _done(player, games, stop):
        try:
            raw = await asyncio.wait_for(socket.recv(), 1.0)
        except TimeoutError:
            continue  # look at `stop` again
        message = json.loads(raw)
        if not greeted and message.get("type") == "state":
            greeted = True  # the first table: the socket was accepted
            say(f"connected to room {(message.get('room') or {}).get('name', '?')}")
        before = len(player.finished)
        for reply in player.on_message(message):
            if (pause := pacer.wait()) > 0:
                await asyncio.sleep(pause)
            await socket.send(json.dumps(reply))
        seated = _tell(message, player, before, seated, say)


def _tell(message: Message, player: SeatPlayer, finished_before: int, seated: bool | None,
          say: Say) -> bool | None:
    """Say when a game ends, a refusal comes, or whether this user sits in the game."""
    if message.get("type") == "error":
        say(f"refused: {message.get('code')} ({message.get('message')})")
    if message.get("type") != "state" or message.get("game") is None:
        return seated
    if len(player.finished) > finished_before:
        say(f"game {message.get('number')} over ({len(player.finished)} finished)")
    seat = message.get("seat")
    if (seat is not None) == seated or message.get("status") != "running":
        return seated
    if seat is None:
        say("watching: your user has no seat in this game (take a seat in the room first)")
        return False
    room_seat = next((p["room_seat"] for p in message.get("players", []) if p["seat"] == seat),
                     seat)
    say(f"playing seat {room_seat + 1}")
    return True


def _done(player: SeatPlayer, games: int | None, stop: asyncio.Event | None) -> bool:
    return (stop is not None and stop.is_set()) or (
        games is not None and len(player.finished) >= games
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Play your seat in a Dobon UNO room with one of the site's CPU policies, "
                    "as a program (token in DOBON_TOKEN; docs/bots-api.md).")
    parser.add_argument("url", help="ws(s)://host/ws/rooms/<room id>/")
    parser.add_argument("--level", default="normal", choices=LEVELS)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--games", type=int, default=None, help="stop after this many games")
    args = parser.parse_args()
    token = os.environ.get("DOBON_TOKEN")
    if not token:
        raise SystemExit("set DOBON_TOKEN to your API token")
    seed = args.seed if args.seed is not None else random.getrandbits(63)
    player = SeatPlayer(policy(args.level, seed))
    asyncio.run(play_seat(args.url, token, player, args.games, say=print))


if __name__ == "__main__":
    main()
