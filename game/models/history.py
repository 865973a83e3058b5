"""Match-history aggregates, kept up to date in the transaction that finishes a game.

The history pages read these instead of adding up thousands of games per request
(game/services/history.py writes them, game/history/selectors.py reads them):

- `RoomStanding`: one line per player, game kind and trump preset who ever finished a game
  in a room (past members keep theirs), with points, games, wins by kind, times dobon'd
  and deck-outs.
- `PlayerStats`: the same per registered user over every room, plus the best game and
  points per game for the leaderboard. CPU players have none.
- `DobonTally`: who dobon'd whom in a room (declarer × target), with counts and points.
- `RoomSession`: each ended §H14 session of a room, with its final standings.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from game.models.rooms import CpuLevel, GameKind, player_name


class Counters(models.Model):
    """What a standings line and a profile both count (RULES.md §R8–§R12)."""

    games = models.PositiveIntegerField(_("games"), default=0)
    points = models.BigIntegerField(_("points"), default=0)
    wins_agari = models.PositiveIntegerField(_("wins by going out"), default=0)
    wins_dobon = models.PositiveIntegerField(_("wins by dobon"), default=0)
    wins_return = models.PositiveIntegerField(_("wins by dobon return"), default=0)
    dobonned = models.PositiveIntegerField(_("times dobon'd"), default=0)
    deck_outs = models.PositiveIntegerField(_("deck-outs"), default=0)

    class Meta:
        abstract = True

    @property
    def wins(self) -> int:
        return self.wins_agari + self.wins_dobon + self.wins_return

    def wins_by_kind(self) -> dict[str, int]:
        return {"agari": self.wins_agari, "dobon": self.wins_dobon, "return": self.wins_return}


class RoomStanding(Counters):
    """A player's line in a room: a user, or a CPU player (no user) known by `cpu_key`."""

    room = models.ForeignKey("game.Room", on_delete=models.CASCADE, related_name="standings")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="room_standings",
    )
    name = models.CharField(_("name"), max_length=150)
    is_cpu = models.BooleanField(_("CPU player"), default=False)
    # A CPU player's identity in the room ("<level>@<room seat>"): its display name is
    # translated, so it cannot be the key. Empty for people.
    cpu_key = models.CharField(_("CPU key"), max_length=40, blank=True, default="")
    last_game = models.ForeignKey(
        "game.Game", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # One line per player per game kind: trump points never add to Dobon UNO points.
    game_kind = models.CharField(
        _("game"), max_length=16, choices=GameKind.choices, default=GameKind.DOBON_UNO
    )
    # And one per trump preset: au and standard points never add up either (issue #33);
    # empty for Dobon UNO.
    preset = models.CharField(_("preset"), max_length=16, blank=True, default="")

    class Meta:
        verbose_name = _("room standing")
        verbose_name_plural = _("room standings")
        ordering = ["room", "-points", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["room", "game_kind", "preset", "user"],
                condition=Q(user__isnull=False),
                name="one_standing_per_user_per_room_kind_preset",
            ),
            models.UniqueConstraint(
                fields=["room", "game_kind", "preset", "cpu_key"],
                condition=Q(user__isnull=True),
                name="one_standing_per_cpu_per_room_kind_preset",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} @ {self.room_id}: {self.points}"

    @property
    def display_name(self) -> str:
        """A CPU's name in the active language, from its key; a person's as stored."""
        level, _at, seat = self.cpu_key.partition("@")
        if self.is_cpu and level in CpuLevel.values and seat.isdigit():
            return player_name(self.name, level, int(seat))
        return self.name


class PlayerStats(Counters):
    """A registered player's totals over every room (the profile and the leaderboard)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True,
        related_name="stats",
    )
    points_per_game = models.FloatField(_("points per game"), default=0.0)
    best_delta = models.BigIntegerField(_("best game's points"), null=True, blank=True)
    best_game = models.ForeignKey(
        "game.Game", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        verbose_name = _("player statistics")
        verbose_name_plural = _("player statistics")
        indexes = [
            models.Index(fields=["-points_per_game", "-games"], name="playerstats_ranking"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.games} games, {self.points} points"


class TrumpPlayerStats(Counters):
    """A registered player's trump Dobon totals over every room, one line per preset: au
    and standard points never mix with each other nor with Dobon UNO's (`PlayerStats`).
    Standard ranks lowest points per game first (score_order "low", §T17.3)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="trump_stats"
    )
    preset = models.CharField(_("preset"), max_length=16)
    points_per_game = models.FloatField(_("points per game"), default=0.0)

    class Meta:
        verbose_name = _("trump player statistics")
        verbose_name_plural = _("trump player statistics")
        constraints = [
            models.UniqueConstraint(fields=["user", "preset"], name="one_trump_stats_per_preset"),
        ]
        indexes = [
            models.Index(fields=["preset", "points_per_game"], name="trumpstats_ranking"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.preset}: {self.games} games, {self.points} points"


class DobonTally(models.Model):
    """How often `declarer` dobon'd `target` in a room, and the points that changed
    hands between them (positive: the target paid; negative: the target returned it)."""

    room = models.ForeignKey("game.Room", on_delete=models.CASCADE, related_name="dobon_tallies")
    declarer = models.ForeignKey(RoomStanding, on_delete=models.CASCADE, related_name="+")
    target = models.ForeignKey(RoomStanding, on_delete=models.CASCADE, related_name="+")
    count = models.PositiveIntegerField(_("dobons"), default=0)
    returned = models.PositiveIntegerField(_("returned"), default=0)
    points = models.BigIntegerField(_("points"), default=0)

    class Meta:
        verbose_name = _("dobon tally")
        verbose_name_plural = _("dobon tallies")
        constraints = [
            models.UniqueConstraint(
                fields=["declarer", "target"], name="one_tally_per_declarer_target"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.declarer_id} → {self.target_id}: {self.count}"


class RoomSession(models.Model):
    """One ended §H14 session of a room (HOUSE-RULES.md §H14.5: "the room keeps them in its
    history"): its number, how many games it had, why it ended (`"games"`, `"target"`,
    `"rules"`) and its final standings (`[{"username", "points", "place"}, ...]`). Written
    in the transaction that ends the session (game/services/house.py); `Room.last_session`
    keeps a copy of the newest for the room page and the table."""

    room = models.ForeignKey("game.Room", on_delete=models.CASCADE, related_name="sessions")
    number = models.PositiveIntegerField(_("session"))
    games = models.PositiveIntegerField(_("games"))
    reason = models.CharField(_("ended by"), max_length=16)
    standings = models.JSONField(_("standings"), default=list)
    ended_at = models.DateTimeField(_("ended"), auto_now_add=True)

    class Meta:
        verbose_name = _("session")
        verbose_name_plural = _("sessions")
        ordering = ["room", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["room", "number"], name="one_session_per_number"),
        ]

    def __str__(self) -> str:
        return f"{self.room_id} session {self.number}: {self.games} games ({self.reason})"
