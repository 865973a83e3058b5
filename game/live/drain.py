"""A server process's drain before it stops (issue #30: restarts that lose nothing).

`python -m dobon_site.server` drives it on SIGTERM; the room sockets
(game/live/consumers.py) register with it. Three steps, in order:

1. `begin`: from now on a socket that opens is accepted and closed at once with 1012
   (service restart), and open sockets read no more messages: what a client sends from
   here on is dropped unread (it reconnects to another process, resumes by version and
   sends again). The server has stopped listening already, so this concerns only
   websockets asked for on HTTP connections opened before.
2. `settle`: wait until every move this process has begun is done: a move read before
   the drain and still queued on its socket, one in a database thread or on the event
   loop's lean path, with its pushes sent (to the channel layer for the other processes,
   and handed to this process's own sockets) and its after-commit work run; and pushes a
   socket holds back for a missing earlier version released.
3. `close_all`: every registered socket closes with 1012, counted out of the shared
   registry first (presence, the per-user caps: game/live/presence.py), so that the
   client's reconnect is never refused for its own old socket.

One `Drain` per process (`process`); it imports nothing of the site, so the sockets and
the server both reach it without a circle.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

log = logging.getLogger(__name__)

# RFC 6455 / IANA: "Service Restart". The client reconnects after a short random wait.
CLOSE_SERVICE_RESTART = 1012

Clock = Callable[[], float]


class Drainable(Protocol):
    """A socket as the drain sees it."""

    def busy(self) -> bool:
        """A move of this socket is queued, or a push is held back for an earlier one."""
        ...

    async def close_for_restart(self) -> None:
        """Count the socket out and close it with CLOSE_SERVICE_RESTART."""
        ...


@dataclass(frozen=True)
class Report:
    """What a drain did, for the log."""

    settled: bool  # every begun move finished before the settle deadline
    closed: int  # sockets closed with 1012
    seconds: float


class Drain:
    def __init__(self) -> None:
        self.draining = False
        self.sockets: weakref.WeakSet[Any] = weakref.WeakSet()
        # Moves in flight: tasks nobody else owns (their socket may be gone), kept here
        # until they end so that the drain can wait for them.
        self.moves: set[asyncio.Task[Any]] = set()

    def register(self, socket: Drainable) -> None:
        self.sockets.add(socket)

    def track(self, task: asyncio.Task[Any]) -> None:
        """Keep `task` (a move) until it ends; `settle` waits for it."""
        self.moves.add(task)
        task.add_done_callback(self.moves.discard)

    def begin(self) -> None:
        if not self.draining:
            log.info("draining: %d sockets, %d moves in flight", len(self.sockets),
                     len(self.moves))
        self.draining = True

    def quiet(self) -> bool:
        return not self.moves and not any(s.busy() for s in list(self.sockets))

    async def settle(self, deadline: float, clock: Clock = time.monotonic,
                     step: float = 0.01) -> bool:
        """Wait until `quiet` or `deadline` (on `clock`); whether it got quiet."""
        while not self.quiet():
            if clock() >= deadline:
                log.warning("drain: %d moves still in flight at the deadline", len(self.moves))
                return False
            await asyncio.sleep(step)
        return True

    async def close_all(self) -> int:
        """Close every registered socket with 1012; how many there were."""
        sockets = list(self.sockets)
        results = await asyncio.gather(*(s.close_for_restart() for s in sockets),
                                       return_exceptions=True)
        for failed in (r for r in results if isinstance(r, BaseException)):
            log.warning("closing a socket for the restart failed: %r", failed)
        return len(sockets)

    async def run(self, settle_until: float, clock: Clock = time.monotonic) -> Report:
        """`begin`, `settle` until `settle_until`, `close_all`."""
        start = clock()
        self.begin()
        settled = await self.settle(settle_until, clock)
        closed = await self.close_all()
        return Report(settled, closed, round(clock() - start, 3))


process = Drain()


def reset() -> None:
    """A fresh drain (tests: one process runs many servers' worth of sockets)."""
    global process
    process = Drain()


def current() -> Drain:
    return process

