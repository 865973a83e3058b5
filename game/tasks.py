"""Celery tasks of the clock (§R14 timeouts, CPU moves, matches). They only call the
service layer (game/services/clock.py), which claims, locks, checks and pushes; nothing
imports this module back."""

from __future__ import annotations

import time
from typing import Any

from celery import shared_task
from celery.signals import worker_process_init

from game.clock import heartbeat
from game.services import clock, matches

# A row another process holds (a person's move, mostly) is tried again this much later, a
# few times; after that the claim runs out and the sweep sends the game again.
RETRY_SECONDS = 0.05
RETRIES = 5


@shared_task(ignore_result=True)
def expire_due_games_task() -> int:
    """Beat, every DOBON_SWEEP_SECONDS (run inside beat by game/clock/beat.py): find the
    due games and send each to a worker (without a broker: do them here)."""
    sent = clock.dispatch_due_games()
    heartbeat.record_sweep(time.time())  # /readyz: the clock is alive (DOBON_SWEEP_IN_BEAT off)
    return sent


@shared_task(bind=True, ignore_result=True)
def run_due_game(self: Any, game_id: int, version: int, attempt: int = 0) -> int:
    """A worker: what is due in one game at the version it was sent for."""
    applied = clock.run_due_game(game_id, version)
    if applied == clock.SKIPPED and attempt < RETRIES:
        priority = (self.request.delivery_info or {}).get("priority")
        self.apply_async(args=[game_id, version, attempt + 1], countdown=RETRY_SECONDS,
                         priority=priority)
    return applied


@shared_task(ignore_result=True)
def start_next_match_game(match_id: int) -> bool:
    """A worker: a match whose next game's start was lost starts it (safe to repeat)."""
    return matches.start_next(match_id) is not None


@worker_process_init.connect
def warm_up(**_: Any) -> None:
    """A pool process's first task would otherwise also pay for importing the CPU
    players and opening its connections: a first timeout came ~0.5 s later than the
    next ones on a busy machine. Pay at start instead."""
    from django.db import close_old_connections, connection

    import game.bots  # noqa: F401 (the CPU policies, imported when a CPU first acts)
    from game.live import sender

    try:
        connection.ensure_connection()
        # The push path too: the kept event loop and its Redis connection (a group
        # nobody is in: nothing is delivered).
        sender.send([("dobon-worker-warm-up", {"type": "noop"})])
    except Exception:  # a service not up yet: the first task connects then
        pass
    finally:
        close_old_connections()
