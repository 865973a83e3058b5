"""Skill ratings (issue #34, docs/ratings.md), kept up to date in the transaction that
finishes a rated game (game/services/ratings.py) and read by the leaderboards, profiles
and history pages (game/history/ratings.py).

- `Rating`: one line per registered player, rated game (`dobon_uno`, `trump_au`,
  `trump_standard`) and track (`people`, `programs`): openskill's mu and sigma, the
  ordinal (mu − 3σ) the leaderboards sort by, rated games and when the last one finished.
- `RatingChange`: one row per seat of a rated game (CPU anchors too, unchanged), with the
  rating before and after: the game's page shows them, the profile graph reads them, and
  `manage.py rebuild_ratings` can be checked against them.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from game.models.rooms import CpuLevel


class RatedGame(models.TextChoices):
    DOBON_UNO = "dobon_uno", _("Dobon UNO")
    TRUMP_AU = "trump_au", _("Trump Dobon (au)")
    TRUMP_STANDARD = "trump_standard", _("Trump Dobon (standard)")


class RatingTrack(models.TextChoices):
    PEOPLE = "people", _("people")
    PROGRAMS = "programs", _("programs")


class Rating(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    game = models.CharField(_("game"), max_length=16, choices=RatedGame.choices)
    track = models.CharField(_("track"), max_length=8, choices=RatingTrack.choices)
    mu = models.FloatField(_("mu"))
    sigma = models.FloatField(_("sigma"))
    # mu − 3σ, kept beside them so a leaderboard is one indexed scan.
    ordinal = models.FloatField(_("ordinal"))
    games = models.PositiveIntegerField(_("rated games"), default=0)
    last_played_at = models.DateTimeField(_("last rated game"))

    class Meta:
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        constraints = [
            models.UniqueConstraint(fields=["user", "game", "track"],
                                    name="one_rating_per_user_game_track"),
        ]
        indexes = [
            models.Index(fields=["game", "track", "-ordinal", "user"], name="rating_board"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.game}/{self.track}: {self.mu:.2f} ± {self.sigma:.2f}"


class RatingChange(models.Model):
    """One seat's rating before and after one rated game (a CPU's: its fixed anchor)."""

    game = models.ForeignKey("game.Game", on_delete=models.CASCADE, related_name="rating_changes")
    seat = models.PositiveSmallIntegerField(_("engine seat"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="rating_changes",
    )
    cpu_level = models.CharField(  # noqa: DJ001 (NULL for people, as on GamePlayer)
        _("CPU level"), max_length=8, choices=CpuLevel.choices, null=True, blank=True
    )
    rated_game = models.CharField(_("rated game"), max_length=16, choices=RatedGame.choices)
    track = models.CharField(_("track"), max_length=8, choices=RatingTrack.choices)
    mu_before = models.FloatField(_("mu before"))
    sigma_before = models.FloatField(_("sigma before"))
    mu = models.FloatField(_("mu after"))
    sigma = models.FloatField(_("sigma after"))
    # The player's n-th rated game of this game and track (None for a CPU): the profile
    # graph samples rows by it, whatever the number of games.
    number = models.PositiveIntegerField(_("rated game number"), null=True, blank=True)

    class Meta:
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")
        ordering = ["game", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="one_rating_change_per_seat"),
        ]
        indexes = [
            models.Index(fields=["user", "rated_game", "track", "number"],
                         name="ratingchange_user_number"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id} seat {self.seat}: {self.mu_before:.2f} → {self.mu:.2f}"
