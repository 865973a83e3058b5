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

    room = models.ForeignKey("game.Room", on_delete=models.CASCADE, related_name="matches")
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    games_total = models.PositiveIntegerField(
        _("games"), validators=[MinValueValidator(MIN_GAMES), MaxValueValidator(MAX_GAMES)]
    )
    games_finished = models.PositiveIntegerField(_("games finished"), default=0)
    # Seconds a program seat has to act before its R14 automatic action; None: the room's.
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
