"""No full garbage collection of long-lived state in a server process (issue #22).

A daphne process holds many long-lived objects (its sockets and their last tables);
Python's full (generation-2) collection walks them all, 80–140 ms with the event loop
stopped, every 6–20 s under load (docs/performance.md): that was the latency tail.
`gc.freeze()` moves every object tracked so far out of the collector's reach, so the
regular collections only walk what is young.

Frozen objects are still freed by reference counting; only garbage in reference cycles
among them waits. So the process freezes once at its first socket (after start-up) and
then every `DOBON_GC_FREEZE_SECONDS` (after a cheap young collection), and every
`DOBON_GC_FULL_SECONDS` it unfreezes and collects everything once: that one pause bounds
the memory that cycles of closed sockets could hold (tests/game/test_memory_soak.py).
"""

from __future__ import annotations

import asyncio
import gc
import time
import weakref

_tasks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task[None]] = (
    weakref.WeakKeyDictionary()
)


def start_freezing() -> None:
    """Start this event loop's freezer, once (the first socket calls it)."""
    from django.conf import settings

    every = float(settings.DOBON_GC_FREEZE_SECONDS)
    if every <= 0:
        return
    loop = asyncio.get_running_loop()
    task = _tasks.get(loop)
    if task is None or task.done():
        _tasks[loop] = loop.create_task(
            freeze_forever(every, float(settings.DOBON_GC_FULL_SECONDS))
        )


async def freeze_forever(every: float, full_every: float) -> None:
    freeze()
    last_full = time.monotonic()
    while True:
        await asyncio.sleep(every)
        if full_every > 0 and time.monotonic() - last_full >= full_every:
            collect_all()
            last_full = time.monotonic()
        else:
            freeze()


def freeze() -> None:
    """Collect the young generations (cheap), then freeze what survived."""
    gc.collect(1)
    gc.freeze()


def collect_all() -> None:
    """The one full collection of a period: frozen cycles included."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
