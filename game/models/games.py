"""Games and each game's event log.

The engine state lives in `Game.state` (the engine's `to_dict()`); every change to it
bumps `Game.version` inside one transaction, so pushes and timeout tasks can tell
whether they are still current.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from game.models.rooms import CpuLevel, GameKind, Room, player_name


class Game(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")
        ABORTED = "aborted", _("aborted")

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="games")
    number = models.PositiveIntegerField(_("game number"))
    state = models.JSONField(_("engine state"))
    # The engine state at version 0 (the deal and first card): replays start here and
    # re-apply each version's input (GameEvent.step), because `state` is overwritten.
    initial_state = models.JSONField(_("initial engine state"), null=True, blank=True)
    version = models.PositiveIntegerField(_("version"), default=0)
    # What clients call the version (docs/protocol.md, "Versions and private answers"):
    # `version` counts every change and orders the log; this counts the changes that
    # anybody but the seats told of them privately can observe. A change only its own
    # seats may know (a declined chance, one lapsing by the clock) keeps it and counts
    # in `private_steps` instead: {seat: such changes of that seat since it grew}.
    public_version = models.PositiveIntegerField(_("public version"), default=0)
    private_steps = models.JSONField(_("private steps"), default=dict, blank=True)
    # Events logged so far: the next event's seq, kept on the locked row so appending
    # events costs no extra query per move.
    event_count = models.PositiveIntegerField(_("events logged"), default=0)
    # When a CPU seat acts next (game/services/cpu.py), outside the engine's own clocks.
    cpu_due = models.DateTimeField(_("CPU move due"), null=True, blank=True)
    # The earliest of the engine's deadlines and cpu_due; the beat sweep looks this up.
    next_deadline = models.DateTimeField(_("next deadline"), null=True, blank=True, db_index=True)
    # The clock's claim (game/services/clock.py): a worker was sent this version's due
    # work and has until `claimed_until` to do it; after that, or once the version moved
    # on, the sweep may send it again (a worker that died loses nothing).
    claim_version = models.PositiveIntegerField(_("claimed version"), null=True, blank=True)
    claimed_until = models.DateTimeField(_("claimed until"), null=True, blank=True)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.RUNNING
    )
    # 64-bit columns for the rate and every point total (§R16.14: up to 2^20 per game).
    rate = models.PositiveBigIntegerField(_("rate"), default=1)
    # The game this round plays (fixed when it starts: the room may change later) and,
    # for trump Dobon, its preset. game/rules/registry.py loads `state` by this kind.
    game_kind = models.CharField(
        _("game"), max_length=16, choices=GameKind.choices, default=GameKind.DOBON_UNO
    )
    preset = models.CharField(_("preset"), max_length=16, blank=True, default="")
    # The match this game belongs to (game/models/matches.py), if any.
    match = models.ForeignKey(
        "game.Match", on_delete=models.SET_NULL, null=True, blank=True, related_name="games"
    )
    result = models.JSONField(_("result"), null=True, blank=True)
    # The room's `rated` when the game started (docs/ratings.md): a rebuild of the
    # ratings reads it here, whatever the room says later.
    rated = models.BooleanField(_("rated"), default=True)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    started_at = models.DateTimeField(_("started"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("game")
        verbose_name_plural = _("games")
        ordering = ["-started_at"]
        constraints = [
            models.UniqueConstraint(fields=["room", "number"], name="game_number_unique_in_room"),
            models.UniqueConstraint(
                fields=["room"],
                condition=Q(status="running"),
                name="one_running_game_per_room",
            ),
        ]
        indexes = [
            # A room's history, newest first, and its count: games that are over only.
            models.Index(
                fields=["room", "-number"], condition=~Q(status="running"),
                name="game_over_by_room",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.room} #{self.number}"

    def get_absolute_url(self) -> str:
        return reverse("game:game", kwargs={"game_id": self.pk})

    @property
    def is_running(self) -> bool:
        return self.status == self.Status.RUNNING


class GamePlayer(models.Model):
    """Who sat where in one game: engine seat ↔ user, kept after they leave the room."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="players")
    seat = models.PositiveSmallIntegerField(_("engine seat"))
    room_seat_index = models.PositiveSmallIntegerField(_("room seat"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="game_seats",
    )
    username = models.CharField(_("name at the time"), max_length=150)
    # Set for a CPU player's seat (which has no user); the leaderboard leaves these out.
    cpu_level = models.CharField(  # noqa: DJ001 (NULL for people, as on Membership)
        _("CPU level"), max_length=8, choices=CpuLevel.choices, null=True, blank=True
    )
    delta = models.BigIntegerField(_("points won or lost"), null=True, blank=True)
    # Set when the game finishes (game/services/history.py): this user's n-th finished
    # game and their net points after it, so a profile's chart samples rows by index.
    user_game_number = models.PositiveIntegerField(_("user's game number"), null=True, blank=True)
    user_net_after = models.BigIntegerField(_("user's net points after"), null=True, blank=True)

    class Meta:
        verbose_name = _("game player")
        verbose_name_plural = _("game players")
        ordering = ["game", "seat"]
        indexes = [
            models.Index(fields=["user", "game"], name="gameplayer_user_game"),
            models.Index(fields=["user", "user_game_number"], name="gameplayer_user_number"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="one_player_per_game_seat"),
            models.UniqueConstraint(fields=["game", "user"], name="one_seat_per_user_per_game"),
            # The user may be gone (account deleted: SET_NULL), so "at most one".
            models.CheckConstraint(
                condition=Q(user__isnull=True) | Q(cpu_level__isnull=True),
                name="game_player_not_user_and_cpu",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.username} in {self.game} (seat {self.seat})"

    @property
    def display_name(self) -> str:
        return player_name(self.username, self.cpu_level, self.room_seat_index)


class GameEvent(models.Model):
    """One engine event, in order. `to_seat` mirrors the event's `to` for replay filters."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField(_("sequence"))
    version = models.PositiveIntegerField(_("game version"))
    # The game's public version after this event's change, and for an event of a private
    # change its seat's private step (0 for every event of a public change).
    public_version = models.PositiveIntegerField(_("public version"), default=0)
    private_step = models.PositiveIntegerField(_("private step"), default=0)
    to_seat = models.SmallIntegerField(_("only for seat"), null=True, blank=True)
    data = models.JSONField(_("event"))
    # On the first event of each version: the input that made the version, for replays
    # ({"now": t} for timeouts, plus "seat" and "action" for a player's action).
    step = models.JSONField(_("replay input"), null=True, blank=True)
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        verbose_name = _("game event")
        verbose_name_plural = _("game events")
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="event_seq_unique_in_game"),
        ]

    def __str__(self) -> str:
        kind: Any = self.data.get("type") if isinstance(self.data, dict) else "?"
        return f"{self.game} #{self.seq} {kind}"


# The match-history aggregates (kept up to date when a game finishes) live in their own
# module; importing it here registers them with the game app.
