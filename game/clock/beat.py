"""Celery beat that runs the clock's finding part itself instead of publishing it.

Four times a second beat reads the indexed `Game.next_deadline` and sends one task per
due game to the workers (game/services/clock.py, `dispatch_due_games`); it applies no
move itself. Publishing the sweep to the broker, and a worker receiving, running and
acknowledging it, would cost far more than that one query (docs/performance.md), and
beat is the one clock anyway (exactly one beat runs), so it sweeps in place; any other
scheduled task is published as usual. Enabled with
`CELERY_BEAT_SCHEDULER = "game.clock.beat:SweepingScheduler"` (the default setting);
`DOBON_SWEEP_IN_BEAT=false` publishes the sweep to the workers instead.

Quiet when idle: celery logs "Sending due task" at INFO for every entry it runs, four
lines a second for the sweep; the sweep's entry skips that line (a sweep that sent
anything says so at DEBUG).
"""

from __future__ import annotations

import logging
from typing import Any

from celery.beat import PersistentScheduler
from django.db import close_old_connections

log = logging.getLogger(__name__)

SWEEP_TASK = "game.tasks.expire_due_games_task"


def sweep() -> int:
    """One sweep with this thread's connection checked (with the pool: borrowed and given
    back), as a worker would around a task. Returns how many games were sent."""
    from django.apps import apps

    if not apps.ready:  # beat imports the Django settings but need not set the apps up
        import django

        django.setup()
    from game.services.clock import dispatch_due_games

    close_old_connections()
    try:
        return dispatch_due_games()
    finally:
        close_old_connections()


class SweepingScheduler(PersistentScheduler):
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
            sent = sweep()
            if sent:
                log.debug("sweep sent %d due games to the workers", sent)
        except Exception:  # the clock keeps ticking whatever one sweep did
            log.exception("timeout sweep failed")
        return None
