"""Celery tasks for timeouts (R14): the beat sweep is the clock. It only calls the
service layer, which locks, checks and pushes; nothing imports this module back."""

from __future__ import annotations

from celery import shared_task

from game.services import clock


@shared_task(ignore_result=True)
def expire_due_games_task() -> int:
    """Beat, every DOBON_SWEEP_SECONDS: every running game whose deadline has passed."""
    return clock.expire_due_games()
