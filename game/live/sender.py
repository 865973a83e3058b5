"""Sending channel-layer messages from synchronous code that has no event loop above it.

`async_to_sync` called in a plain thread (a Celery worker, beat) runs each call on a new
event loop, and channels-redis keeps its Redis connections per loop: every push then
opened, set up and closed a Redis connection (measured: most of the worker's CPU per
timeout, docs/performance.md). Here such callers share one loop per process, kept in a
daemon thread, so the layer's connection is kept too. Code running under an event loop
(daphne's `sync_to_async` threads) keeps using `async_to_sync`, which hands the work to
that loop, as the in-memory layer needs.

`send` is what synchronous code calls: moves and timeouts (play), the room panel, access
changes and revoked tokens.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import SyncToAsync, async_to_sync

from game.live import fanout
from game.live.retry import kept_loop, retry_in_background

Push = tuple[str, dict[str, Any]]  # (group, message)


def send(pushes: list[Push]) -> None:
    """Send each message to its group, in order, each move's pushes as one message to
    the processes serving its room (game/live/fanout.py: a worker or beat has no sockets
    of its own); nothing without a channel layer. Raises what the layer raises: the
    caller logs it and hands the pushes to `send_later` (its change is committed)."""
    from django.conf import settings

    send_all = _sending(pushes)
    if send_all is None:
        return
    backend = str(settings.CHANNEL_LAYERS["default"]["BACKEND"])
    if backend.startswith("channels_redis"):
        run(send_all)  # a kept loop (and Redis connection) in workers and beat
    else:
        async_to_sync(send_all)()  # the in-memory layer's queues live on the server's loop


def send_later(pushes: list[Push], what: str) -> None:
    """The pushes `send` could not send, tried again in the background
    (game/live/retry.py)."""
    send_all = _sending(pushes)
    if send_all is not None:
        retry_in_background(send_all, what)


def _sending(pushes: list[Push]) -> Callable[[], Awaitable[None]] | None:
    """A coroutine function that sends `pushes` as `send` says, or None when there is
    nothing to send or no channel layer."""
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    if layer is None or not pushes:
        return None
    messages = [(group, fanout.sealed(message) if message["type"] == fanout.MOVE else message)
                for group, message in fanout.packed(pushes)]

    async def send_all() -> None:
        for group, message in messages:
            await layer.group_send(group, message)

    return send_all


def run(make: Callable[[], Awaitable[None]], timeout: float = 30.0) -> None:
    """Run the coroutine `make()` to its end, on the caller's outer loop if it has one,
    else on this process's kept loop."""
    if _has_outer_loop():
        async_to_sync(make)()
        return
    future = asyncio.run_coroutine_threadsafe(_as_coroutine(make), kept_loop())
    future.result(timeout)


async def _as_coroutine(make: Callable[[], Awaitable[None]]) -> None:
    await make()


def _has_outer_loop() -> bool:
    pid = getattr(SyncToAsync.threadlocal, "main_event_loop_pid", None)
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    return pid == os.getpid() and loop is not None


