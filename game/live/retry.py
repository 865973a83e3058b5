"""Trying a channel-layer send again when the layer refused it, without holding up the
caller, and the event loop kept per process for senders that have none of their own.

A push the channel layer refused (Redis restarting, a network blip) is tried again after
RETRY_PAUSES, about 30 s in all: the change is committed, and a push that never came
would leave every client on the last version it saw — when it was a game's last move,
for ever, since no later frame shows them a gap to resync over. The deploy check stops
Redis for 5 s while games play. A retry that arrives after a newer version is dropped by
the clients as old; a newer version that arrives first shows them the gap, and they
resync (docs/protocol.md). Django-free; imports nothing of ours.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import threading
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)

RETRY_PAUSES = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0)

_lock = threading.Lock()
_kept: dict[str, Any] = {"pid": None, "loop": None}
_retrying: set[asyncio.Task[bool]] = set()  # kept referenced until done
_retrying_elsewhere: set[concurrent.futures.Future[bool]] = set()


async def with_retries(
    make: Callable[[], Awaitable[None]], what: str,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> bool:
    """Await `make()` until it goes through, pausing RETRY_PAUSES between tries; whether
    it went through (a last failure is logged, nothing raised)."""
    for pause in RETRY_PAUSES:
        await sleep(pause)
        try:
            await make()
        except Exception:
            continue
        log.info("%s went through on a later try", what)
        return True
    log.error("gave up %s after %d tries", what, len(RETRY_PAUSES) + 1)
    return False


def retry_in_background(make: Callable[[], Awaitable[None]], what: str) -> None:
    """`with_retries` without waiting for it: on the running loop when called from one
    (daphne), else on this process's kept loop (a database thread, a worker, beat)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    if loop is not None:
        task = loop.create_task(with_retries(make, what))
        _retrying.add(task)
        task.add_done_callback(_retrying.discard)
        return
    future = asyncio.run_coroutine_threadsafe(with_retries(make, what), kept_loop())
    _retrying_elsewhere.add(future)
    future.add_done_callback(_retrying_elsewhere.discard)


def kept_loop() -> asyncio.AbstractEventLoop:
    with _lock:
        if _kept["pid"] != os.getpid():  # first use, or a forked pool child
            fresh = asyncio.new_event_loop()
            threading.Thread(target=fresh.run_forever, name="dobon-sender", daemon=True).start()
            _kept.update(pid=os.getpid(), loop=fresh)
        loop: asyncio.AbstractEventLoop = _kept["loop"]
        return loop
