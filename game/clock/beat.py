"""Celery beat that runs the timeout sweep itself instead of publishing it as a task.

The sweep is one indexed query when nothing is due, four times a second: publishing it
to the broker, and a worker receiving, running and acknowledging it, cost far more than
the query (measured in docs/performance.md). Beat is the one clock anyway (exactly one
beat runs), so it sweeps in place; any other scheduled task is published as usual.
Enabled with `CELERY_BEAT_SCHEDULER = "game.clock.beat:SweepingScheduler"` (the default
setting); `DOBON_SWEEP_IN_BEAT=false` publishes the sweep to the workers instead.
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
    back), as a worker would around a task."""
    from django.apps import apps

    if not apps.ready:  # beat imports the Django settings but need not set the apps up
        import django

        django.setup()
    from game.services.clock import expire_due_games

    close_old_connections()
    try:
        return expire_due_games()
    finally:
        close_old_connections()


class SweepingScheduler(PersistentScheduler):
    def apply_async(self, entry: Any, producer: Any = None, advance: bool = True,
                    **kwargs: Any) -> Any:
        if entry.task != SWEEP_TASK:
            return super().apply_async(entry, producer=producer, advance=advance, **kwargs)
        if advance:
            self.reserve(entry)
        try:
            sweep()
        except Exception:  # the clock keeps ticking whatever one sweep did
            log.exception("timeout sweep failed")
        return None
