"""One database read for identical socket reads waiting at the same time (issue #22, a
crowd's syncs): a user's sockets in one room, asking for the same table while the read
threads are busy, all get the answer of one read.

A request joins a read only while that read has not started: every answer was read
after its request arrived, as fresh as a read of its own would have been. A read that
started already is left alone, and the request queues a read of its own (which the next
identical requests may join). Joiners share the result object: callers must not change
it (the socket layer builds new frames from it). A caller that is cancelled (its socket
closed) leaves the read running for the others.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from typing import Any, Generic, TypeVar

T = TypeVar("T")

Submit = Callable[..., Awaitable[T]]


class Pending(Generic[T]):
    """A read on its way to a database thread. `started` is set by that thread just
    before it reads (an attribute write is atomic under the GIL), so the event loop,
    seeing it unset, knows the read will begin after this moment."""

    __slots__ = ("started", "task")

    def __init__(self) -> None:
        self.started = False
        self.task: asyncio.Future[T] | None = None


class SharedReads:
    """This process's reads queued per key (one object, shared by every socket)."""

    def __init__(self) -> None:
        self.queued: dict[Hashable, Pending[Any]] = {}
        self.reads = 0  # reads submitted, and requests answered by another's read
        self.joins = 0

    async def read(self, key: Hashable, submit: Submit[T], fn: Callable[..., T],
                   *args: Any) -> T:
        """`await submit(fn, *args)`, or the result of an identical read (same `key`)
        that has not started yet."""
        pending = self.queued.get(key)
        if pending is None or pending.started:
            pending = self.submit(key, submit, fn, *args)
        else:
            self.joins += 1
        assert pending.task is not None
        return await asyncio.shield(pending.task)

    def submit(self, key: Hashable, submit: Submit[T], fn: Callable[..., T],
               *args: Any) -> Pending[T]:
        pending: Pending[T] = Pending()

        def marked(*given: Any) -> T:
            pending.started = True
            return fn(*given)

        pending.task = asyncio.ensure_future(submit(marked, *args))
        pending.task.add_done_callback(lambda task: self.done(key, pending, task))
        self.queued[key] = pending
        self.reads += 1
        return pending

    def done(self, key: Hashable, pending: Pending[Any], task: asyncio.Future[Any]) -> None:
        if self.queued.get(key) is pending:
            del self.queued[key]
        if not task.cancelled():
            task.exception()  # retrieved here too: every joiner may have left
