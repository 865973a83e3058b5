"""Celery beat that runs the clock's finding part itself instead of publishing it.

Four times a second beat reads the indexed `Game.next_deadline` and sends one task per
due game to the workers (game/services/clock.py, `dispatch_due_games`); it applies no
move itself. What the sweep finds due before the next tick is held here (`Held`) and
sent at its moment, with its priority and without an ETA: a worker runs the ETA tasks it
holds first come, first served, whereas a task waiting in Redis is taken by priority,
so a person's timeout goes before a flood of other tables' CPU moves. The scheduler's
`tick` sends what has come due and sleeps no longer than until the next held moment.

Publishing the sweep to the broker, and a worker receiving, running and acknowledging
it, would cost far more than that one query (docs/performance.md), and beat is the one
clock anyway (exactly one beat runs), so it sweeps in place; any other scheduled task is
published as usual. Enabled with
`CELERY_BEAT_SCHEDULER = "game.clock.beat:SweepingScheduler"` (the default setting);
`DOBON_SWEEP_IN_BEAT=false` publishes the sweep to the workers instead.

Quiet when idle: celery logs "Sending due task" at INFO for every entry it runs, four
lines a second for the sweep; the sweep's entry skips that line (a sweep that sent
anything says so at DEBUG).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from celery.beat import PersistentScheduler
from django.db import close_old_connections

if TYPE_CHECKING:
    from game.services.clock import Due

log = logging.getLogger(__name__)

SWEEP_TASK = "game.tasks.expire_due_games_task"


class Held:
    """Due versions found before their moment, sent each when it comes (soonest first)."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Due]] = []
        self._order = itertools.count()  # equal moments: in the order found

    def __len__(self) -> int:
        return len(self._heap)

    def add(self, due: Due) -> None:
        heapq.heappush(self._heap, (due.at, next(self._order), due))

    def release(self, now: float, send: Callable[[Due], None]) -> int:
        """Send every held version due by `now`; how many."""
        sent = 0
        while self._heap and self._heap[0][0] <= now:
            send(heapq.heappop(self._heap)[2])
            sent += 1
        return sent

    def sleep(self, now: float, interval: float) -> float:
        """Beat's sleep: `interval`, or less if a held version falls due sooner."""
        if not self._heap:
            return interval
        return max(0.0, min(interval, self._heap[0][0] - now))


def sweep(hold: Callable[[Due], None] | None = None) -> int:
    """One sweep with this thread's connection checked (with the pool: borrowed and given
    back), as a worker would around a task. A version not yet due goes to `hold`.
    Returns how many games were sent or held."""
    from django.apps import apps

    if not apps.ready:  # beat imports the Django settings but need not set the apps up
        import django

        django.setup()
    from game.clock import heartbeat
    from game.services.clock import dispatch_due_games

    close_old_connections()
    try:
        sent = dispatch_due_games(hold=hold)
        heartbeat.record_sweep(time.time())  # /readyz: the clock is alive (only if it swept)
        return sent
    finally:
        close_old_connections()


def send_now(due: Due) -> None:
    from game.services.clock import send_now as send

    send(due)


class SweepingScheduler(PersistentScheduler):
    clock: Callable[[], float] = staticmethod(time.time)  # tests move it

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.held = Held()
        super().__init__(*args, **kwargs)

    def tick(self, *args: Any, **kwargs: Any) -> float:
        """Send the held versions whose moment has come, run what celery's schedule has
        due (the sweep may hold more) and sleep until the sooner of its next entry and
        the next held moment."""
        self.held.release(self.clock(), send_now)
        interval = super().tick(*args, **kwargs)
        return self.held.sleep(self.clock(), interval)

    def apply_entry(self, entry: Any, producer: Any = None) -> None:
        if entry.task != SWEEP_TASK:
            super().apply_entry(entry, producer=producer)
            return
        self.apply_async(entry, producer=producer, advance=False)  # no INFO line per tick

    def apply_async(self, entry: Any, producer: Any = None, advance: bool = True,
                    **kwargs: Any) -> Any:
        if entry.task != SWEEP_TASK:
            return super().apply_async(entry, producer=producer, advance=advance, **kwargs)
        if advance:
            self.reserve(entry)
        try:
            sent = sweep(hold=self.held.add)
            if sent:
                log.debug("sweep sent %d due games to the workers", sent)
        except Exception:  # the clock keeps ticking whatever one sweep did
            log.exception("timeout sweep failed")
        return None
