"""Matches: N games (1–1,000) that a room plays back to back (docs/bots-api.md)."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

MIN_GAMES, MAX_GAMES = 1, 1000
# A program seat's own clock in a match (service layer; the engine keeps 5–60 s).
MIN_PROGRAM_TIMEOUT, MAX_PROGRAM_TIMEOUT = 1, 60


class Match(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")
        ABORTED = "aborted", _("aborted")

    class EndReason(models.TextChoices):
        """Why an aborted match ended (shown on its page)."""

        STOPPED = "stopped", _("The owner stopped the match.")
        GAME_ABORTED = "game_aborted", _("One of its games was aborted.")
        CANNOT_START = "cannot_start", _("Its next game could not start (seats or owner).")
        START_FAILED = "start_failed", _("Its next game could not start because of an error.")

    room = models.ForeignKey("game.Room", on_delete=models.CASCADE, related_name="matches")
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    games_total = models.PositiveIntegerField(
        _("games"), validators=[MinValueValidator(MIN_GAMES), MaxValueValidator(MAX_GAMES)]
    )
    games_finished = models.PositiveIntegerField(_("games finished"), default=0)
    # Seconds a program seat has to act before its §R14 automatic action; None: the room's.
    program_timeout = models.PositiveSmallIntegerField(
        _("program timeout (seconds)"),
        null=True,
        blank=True,
        validators=[
            MinValueValidator(MIN_PROGRAM_TIMEOUT), MaxValueValidator(MAX_PROGRAM_TIMEOUT)
        ],
    )
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.RUNNING
    )
    created_at = models.DateTimeField(_("started"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    end_reason = models.CharField(
        _("why it ended early"), max_length=16, choices=EndReason.choices, blank=True
    )

    class Meta:
        verbose_name = _("match")
        verbose_name_plural = _("matches")
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["room"], condition=Q(status="running"), name="one_running_match_per_room"
            ),
            models.CheckConstraint(
                condition=Q(games_total__gte=MIN_GAMES) & Q(games_total__lte=MAX_GAMES),
                name="match_games_1_to_1000",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.room} match {self.pk} ({self.games_finished}/{self.games_total})"

    def get_absolute_url(self) -> str:
        return reverse("game:match", kwargs={"match_id": self.pk})

    @property
    def is_running(self) -> bool:
        return self.status == self.Status.RUNNING


class MatchStanding(models.Model):
    """One player's running total in a match, counted as each of its games finishes
    (`services.matches.do_game_finished`), so the match page reads a few rows instead of
    summing every game (issue 20: 1.2 s of CPU per poll on a 1,000-game match)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="standing_rows")
    # ("user", id) or ("cpu", room seat): a person is the same player on any seat.
    key_kind = models.CharField(max_length=8)
    key_id = models.BigIntegerField()
    username = models.CharField(_("name"), max_length=150)
    cpu_level = models.CharField(max_length=16, null=True, blank=True)  # noqa: DJ001 (as GamePlayer)
    room_seat_index = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=16)  # "human", "cpu" or "program"
    total = models.BigIntegerField(_("points"), default=0)
    games = models.PositiveIntegerField(_("games"), default=0)
    # The match game (1…N) after which the total last changed: the tie-break.
    reached = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = _("match standing")
        verbose_name_plural = _("match standings")
        constraints = [
            models.UniqueConstraint(fields=["match", "key_kind", "key_id"],
                                    name="one_standing_per_player_and_match"),
        ]

    def __str__(self) -> str:
        return f"{self.username} in match {self.match_id}: {self.total}"
