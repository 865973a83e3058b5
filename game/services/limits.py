"""Limits on what keeps the clock and the workers busy with nobody waiting: running
matches, and running games with CPU players, per account and for the whole site
(issue #22: five CPU-only 1,000-game matches from one account took half of beat's core;
100 clicks on "play now against CPU" started 100 games).

Each limit is a setting (DOBON_MATCHES_PER_ACCOUNT, DOBON_MATCHES_PER_SITE,
DOBON_CPU_GAMES_PER_ACCOUNT, DOBON_CPU_GAMES_PER_SITE). These functions return the
refusal's code (`too_many_matches`, `too_many_cpu_games`, `site_busy`; game/messages.py
says what to do) or None; the caller refuses. The account's row is locked first, so one
account's concurrent starts are counted one after the other; the site's counts are read without
a lock (a burst from several accounts may pass a site limit by a few).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import get_user_model

from game.models import Game, Match, Membership

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser


def _lock_account(user: AbstractBaseUser) -> None:
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()


def match_refusal(user: AbstractBaseUser) -> str | None:
    """Under the caller's transaction: why `user` may not start one more match, if so."""
    _lock_account(user)
    running = Match.objects.filter(status=Match.Status.RUNNING)
    if running.filter(started_by_id=user.pk).count() >= settings.DOBON_MATCHES_PER_ACCOUNT:
        return "too_many_matches"
    if running.count() >= settings.DOBON_MATCHES_PER_SITE:
        return "site_busy"
    return None


def cpu_game_refusal(user: AbstractBaseUser, seated: list[Membership]) -> str | None:
    """Under the caller's transaction: why `user` may not start one more game with CPUs
    (outside a match; a match's games count as its match). A table without CPUs is not
    limited."""
    if not any(m.cpu_level is not None for m in seated):
        return None
    _lock_account(user)
    games = Game.objects.filter(
        status=Game.Status.RUNNING, match__isnull=True, players__cpu_level__isnull=False
    )
    mine = games.filter(started_by_id=user.pk).values("pk").distinct().count()
    if mine >= settings.DOBON_CPU_GAMES_PER_ACCOUNT:
        return "too_many_cpu_games"
    if games.values("pk").distinct().count() >= settings.DOBON_CPU_GAMES_PER_SITE:
        return "site_busy"
    return None
