"""Celery tasks for timeouts (R14): a precise ETA task per deadline, a beat sweep as
the safety net. Both only call the service layer, which locks, checks and pushes."""

from __future__ import annotations

from celery import shared_task

from game.services import play


@shared_task(ignore_result=True)
def expire_game_task(game_id: int, version: int) -> bool:
    """Apply the timeouts due in one game, if it is still at `version` (else another
    worker got there first and this does nothing)."""
    return play.expire_game(game_id, version) is not None


# How late a deadline must be before the beat sweep takes it from its ETA task.
SWEEP_GRACE = 0.5


@shared_task(ignore_result=True)
def expire_due_games_task() -> int:
    """Beat, every second: every running game whose deadline passed more than
    SWEEP_GRACE ago (its ETA task was lost, e.g. with a worker that died)."""
    return play.expire_due_games(grace=SWEEP_GRACE)
