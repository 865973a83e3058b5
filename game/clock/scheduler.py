"""In-process timeouts for the laptop default (no broker): `make run` plays §R14 alone.

A background loop runs `expire_due_games` about four times a second inside the ASGI
process, so an automatic action lands at most ~0.25 s after its deadline; a version due
sooner than the next tick (a CPU's think time, the next CPU move of a match) wakes it at
its moment (`clock.set_waker`). Here the "worker" is this same process.

It is an asyncio task on the server's own event loop that hands the database work to
a worker thread (`sync_to_async`), rather than a free-standing thread: the pushes that
follow a commit must run on the server's loop, because the in-memory channel layer's
queues are not thread-safe and a put from a foreign thread would not wake the sockets
waiting on them until something else happened. From a `sync_to_async` thread,
`async_to_sync` sends on the main loop, which is exactly what the service layer does.

The loop starts on the first ASGI connection (there is no running loop when
`dobon_site/asgi.py` is imported) and only once per process.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import sync_to_async
from django.db import close_old_connections

from game import logs
from game.clock import heartbeat
from game.services import clock

log = logging.getLogger(__name__)

INTERVAL = 0.25

_task: asyncio.Task[None] | None = None


def tick() -> int:
    """One sweep, with fresh database connections (this thread serves no requests)."""
    close_old_connections()
    try:
        changed = clock.expire_due_games()
        heartbeat.record_sweep(time.time())  # /readyz: the clock is alive
        return changed
    finally:
        close_old_connections()


_wake: asyncio.Event | None = None


async def run_forever() -> None:
    global _wake
    loop = asyncio.get_running_loop()
    _wake = asyncio.Event()
    clock.set_waker(lambda at: loop.call_soon_threadsafe(_wake_at, loop, at))
    try:
        while True:
            try:
                await asyncio.wait_for(_wake.wait(), INTERVAL)
            except TimeoutError:
                pass
            _wake.clear()
            try:
                await sync_to_async(tick, thread_sensitive=False)()
            except Exception as exc:  # keep the clock running whatever one sweep did
                log.error("in-process timeout sweep failed", exc_info=logs.withheld(exc))
    finally:
        clock.set_waker(None)
        _wake = None


def _wake_at(loop: asyncio.AbstractEventLoop, at: float) -> None:
    """On the loop: sweep at unix time `at` (a CPU's think time ends), not at the next
    tick. The laptop's stand-in for a worker task with an ETA."""
    event = _wake
    if event is not None:
        loop.call_later(max(0.0, at - time.time()), event.set)


def ensure_started() -> bool:
    """Start the loop on the running event loop, once. True when this call started it."""
    global _task
    if _task is not None and not _task.done():
        return False
    _task = asyncio.get_running_loop().create_task(run_forever())
    log.info("in-process timeout scheduler started (every %.2f s)", INTERVAL)
    return True


ASGIApp = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


class StartSchedulerMiddleware:
    """ASGI wrapper that starts the scheduler on the first connection."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        ensure_started()
        await self.app(scope, receive, send)
