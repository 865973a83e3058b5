"""Celery tasks for timeouts (R14): a precise ETA task per deadline, a beat sweep as
the safety net. Both only call the service layer, which locks, checks and pushes."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from game.models import Game
from game.services import play

# Versions one task may apply in a row when each leaves the next one due at once.
CHAIN_LIMIT = 100


@shared_task(ignore_result=True)
def expire_game_task(game_id: int, version: int) -> bool:
    """Apply the timeouts due in one game, if it is still at `version` (else another
    worker got there first and this does nothing).

    When the change leaves something due at once (CPU players in a match act without
    a pause), the task goes on with it, one transaction per version, instead of one
    broker round trip per move; the ETA tasks those versions queued find the game moved
    on and do nothing."""
    outcome = play.expire_game(game_id, version)
    changed = outcome is not None
    for _ in range(CHAIN_LIMIT - 1):
        if outcome is None or outcome.finished or not due_now(game_id, outcome.version):
            break
        outcome = play.expire_game(game_id, outcome.version)
    return changed


def due_now(game_id: int, version: int) -> bool:
    return Game.objects.filter(
        pk=game_id, status=Game.Status.RUNNING, version=version, next_deadline__lte=timezone.now()
    ).exists()


# How late a deadline must be before the beat sweep takes it from its ETA task.
SWEEP_GRACE = 0.5


@shared_task(ignore_result=True)
def expire_due_games_task() -> int:
    """Beat, every second: every running game whose deadline passed more than
    SWEEP_GRACE ago (its ETA task was lost, e.g. with a worker that died)."""
    return play.expire_due_games(grace=SWEEP_GRACE)
