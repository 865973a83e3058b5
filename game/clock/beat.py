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
clock anyway, so it sweeps in place; any other scheduled task is published as usual.
Enabled with `CELERY_BEAT_SCHEDULER = "game.clock.beat:SweepingScheduler"` (the default
setting); `DOBON_SWEEP_IN_BEAT=false` publishes the sweep to the workers instead
(`OneBeatScheduler`).

**One clock, with a stand-in** (issue #30). Both schedulers run their schedule only
while they hold the clock's lock in Redis (game/clock/lease.py: why redis-py's `Lock`,
and why no two beats ever sweep at once). A second beat, started by mistake or on
purpose, stands by: it runs no entry of the schedule (every entry here must run once)
and takes over when the holder's lock runs out (`kill -9`: within about 19 s) or is
released (a clean shutdown: within about 4 s). Each beat logs at INFO when it takes
the clock, stands by or loses it. A beat that loses the clock drops the versions it
was holding and hands their claims back, so the new holder sends them at once. Without
Redis (no `REDIS_URL`: another broker, or the laptop's in-process scheduler, which is
not beat) there is no lock and nothing changes. A celery beat that is only looked at
(`lazy`, as `celery beat` does for its banner, and tests) takes no lock either.

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

from game import logs
from game.clock.lease import ClockLease, client_for

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

    def drain(self) -> list[Due]:
        """Every held version, removed (a beat that lost the clock sends none of them)."""
        dues = [item[2] for item in sorted(self._heap)]
        self._heap.clear()
        return dues

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


def unclaim(dues: list[Due]) -> None:
    from game.services.clock import unclaim as hand_back

    close_old_connections()
    try:
        hand_back(dues)
    except Exception:  # their claims run out instead (CLAIM_SECONDS)
        log.exception("could not hand back the claims of %d held games", len(dues))
    finally:
        close_old_connections()


def make_lease() -> ClockLease | None:
    """The clock's lease in the site's Redis, or None without one (nothing to guard
    with: the laptop, or a broker that is not Redis, where one beat is the operator's
    promise as before)."""
    from django.conf import settings

    url = settings.REDIS_URL or _redis_broker(settings.CELERY_BROKER_URL)
    if not url:
        log.warning("no REDIS_URL: nothing keeps a second beat from sweeping too")
        return None
    renew = settings.DOBON_CLOCK_LOCK_RENEW_SECONDS
    return ClockLease(client_for(url, renew), settings.DOBON_CLOCK_LOCK_SECONDS, renew)


def _redis_broker(url: str | None) -> str:
    return url if url and url.split("://", 1)[0] in ("redis", "rediss") else ""


class OneBeatScheduler(PersistentScheduler):
    """Celery beat that runs its schedule only while it holds the clock (module
    docstring); `DOBON_SWEEP_IN_BEAT=false` uses it as it is."""

    lease: ClockLease | None = None

    def setup_schedule(self) -> None:
        super().setup_schedule()
        self.lease = make_lease()  # not for a lazy scheduler (looked at, never run)

    def tick(self, *args: Any, **kwargs: Any) -> float:
        lease = self.lease
        if lease is not None and not lease.may_run():
            self.stand_by()
            return lease.wait()
        return self.run_schedule(*args, **kwargs)

    def run_schedule(self, *args: Any, **kwargs: Any) -> float:
        return float(super().tick(*args, **kwargs))

    def stand_by(self) -> None:
        """What a beat that may not sweep (now) lets go of: nothing here."""

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self.lease is not None:
                self.lease.release()


class SweepingScheduler(OneBeatScheduler):
    clock: Callable[[], float] = staticmethod(time.time)  # tests move it

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.held = Held()
        super().__init__(*args, **kwargs)

    def run_schedule(self, *args: Any, **kwargs: Any) -> float:
        """Send the held versions whose moment has come, run what celery's schedule has
        due (the sweep may hold more) and sleep until the sooner of its next entry and
        the next held moment."""
        self.held.release(self.clock(), send_now)
        interval = super().run_schedule(*args, **kwargs)
        return self.held.sleep(self.clock(), interval)

    def stand_by(self) -> None:
        """The versions this beat held are sent by the clock's holder: their claims go
        back, so that it need not wait for them to run out."""
        dropped = self.held.drain()
        if dropped:
            unclaim(dropped)
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
        except Exception as exc:  # the clock keeps ticking whatever one sweep did
            log.error("timeout sweep failed", exc_info=logs.withheld(exc))
        return None
