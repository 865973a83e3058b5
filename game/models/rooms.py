"""Rooms and their seated members (people and CPU players), and how a seat is named."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from game.rules import rate_for

MIN_SEATS, MAX_SEATS, DEFAULT_SEATS = 2, 8, 4
MIN_TIMEOUT, MAX_TIMEOUT, DEFAULT_TIMEOUT = 5, 60, 10
# TRUMP-RULES.md §T1.4 (au starting points) and §T1.5 (standard rounds per match).
MIN_START_POINTS, MAX_START_POINTS, DEFAULT_START_POINTS = 100, 100_000, 1_000
MIN_ROUNDS, MAX_ROUNDS, DEFAULT_ROUNDS = 1, 1_000, 20


class GameKind(models.TextChoices):
    """Which game a room plays (game/rules/registry.py maps each to its engine)."""

    DOBON_UNO = "dobon_uno", _("Dobon UNO")
    TRUMP_DOBON = "trump_dobon", _("Trump Dobon")


class TrumpPreset(models.TextChoices):
    """TRUMP-RULES.md §T1: the two definitions of trump Dobon."""

    AU = "au", _("au (points, dobon chain)")
    STANDARD = "standard", _("standard (auction, しばり)")


# §T1.2: the seats each preset allows.
TRUMP_SEATS = {TrumpPreset.AU: (2, 4), TrumpPreset.STANDARD: (3, 6)}


# Invite codes people read aloud and type on a phone: no 0/O, 1/I/L, upper case only,
# shown in two groups of five (ABCDE-FGHJK); typed in lower case, with or without the
# hyphen or a space, they are still found (game.services.rooms.find_room_by_code).
# 10 of 31 symbols ≈ 2**49.5: short to type, still not worth guessing. Rooms made before
# this keep their 12-character mixed-case code until it is rotated.
INVITE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
INVITE_LENGTH = 10


def new_invite_code() -> str:
    return "".join(secrets.choice(INVITE_ALPHABET) for _ in range(INVITE_LENGTH))


def invite_code_display(code: str) -> str:
    """"ABCDEFGHJK" → "ABCDE-FGHJK"; an older code as it is."""
    if len(code) == INVITE_LENGTH and all(c in INVITE_ALPHABET for c in code):
        return f"{code[:5]}-{code[5:]}"
    return code


class CpuLevel(models.TextChoices):
    """How well a CPU player plays (game/bots). A CPU seat has a level and no user."""

    EASY = "easy", _("easy")
    NORMAL = "normal", _("normal")
    STRONG = "strong", _("strong")


def cpu_display_name(level: str, seat_index: int) -> str:
    """The name a CPU seat shows, e.g. "CPU 2 (普通)", in the active language. The room
    seat's number (1-based, as on screen) tells several CPUs of one level apart."""
    label = CpuLevel(level).label if level in CpuLevel.values else level
    return str(_("CPU %(number)d (%(level)s)") % {"number": seat_index + 1, "level": label})


def player_name(username: str, cpu_level: str | None, room_seat_index: int) -> str:
    """A player's name as shown: a CPU's in the active language (the name stored with a
    game is in the language of whoever started it), a person's as it was then."""
    return cpu_display_name(cpu_level, room_seat_index) if cpu_level else username


# "Exactly one of user / cpu_level": a seat is a person's or a CPU's, never both.
_HUMAN_XOR_CPU = (Q(user__isnull=False) & Q(cpu_level__isnull=True)) | (
    Q(user__isnull=True) & Q(cpu_level__isnull=False)
)


class Room(models.Model):
    name = models.CharField(_("name"), max_length=60)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("owner"),
        on_delete=models.SET_NULL,
        null=True,
        related_name="owned_rooms",
    )
    seat_count = models.PositiveSmallIntegerField(
        _("seats"),
        default=DEFAULT_SEATS,
        validators=[MinValueValidator(MIN_SEATS), MaxValueValidator(MAX_SEATS)],
    )
    timeout_seconds = models.PositiveSmallIntegerField(
        _("timeout (seconds)"),
        default=DEFAULT_TIMEOUT,
        validators=[MinValueValidator(MIN_TIMEOUT), MaxValueValidator(MAX_TIMEOUT)],
    )
    is_public = models.BooleanField(_("public"), default=True)
    # Quick reactions at the table (game/services/stamps.py); the owner may turn them off.
    stamps_enabled = models.BooleanField(_("stamps"), default=True)
    # Whether finished games here change skill ratings (docs/ratings.md); between games.
    rated = models.BooleanField(_("rated"), default=True)
    game_kind = models.CharField(
        _("game"), max_length=16, choices=GameKind.choices, default=GameKind.DOBON_UNO
    )
    trump_preset = models.CharField(
        _("trump preset"), max_length=16, choices=TrumpPreset.choices, default=TrumpPreset.AU
    )
    starting_points = models.PositiveIntegerField(
        _("starting points"), default=DEFAULT_START_POINTS,
        validators=[MinValueValidator(MIN_START_POINTS), MaxValueValidator(MAX_START_POINTS)],
    )
    rounds_per_match = models.PositiveIntegerField(
        _("rounds per match"), default=DEFAULT_ROUNDS,
        validators=[MinValueValidator(MIN_ROUNDS), MaxValueValidator(MAX_ROUNDS)],
    )
    # The running trump match (§T17): {"record": match_new(...)/match_update(...),
    # "room_seats": [...]} carried round to round; None before the first round and after
    # a setting changed (§T1.1, §T17.5). Dobon UNO rooms leave it empty.
    trump_match = models.JSONField(_("trump match"), null=True, blank=True)
    invite_code = models.CharField(
        _("invite code"), max_length=32, unique=True, default=new_invite_code, editable=False
    )
    # RULES.md §R12.3: consecutive deck-outs of the whole room; the next game's rate is 2**k,
    # at most 2**20 (§R16.14).
    deck_out_streak = models.PositiveIntegerField(_("consecutive deck-outs"), default=0)
    # HOUSE-RULES.md §G1/§G4: the room's house rules, a full mapping (every key) or {} for
    # none (RULES.md exactly); `house_base` the preset the owner started from (§7, §G10).
    house_rules = models.JSONField(_("house rules"), default=dict, blank=True)
    house_base = models.CharField(_("house rules preset"), max_length=16, blank=True, default="")
    # §H14: the current session holds the finished games numbered above `session_since`;
    # `last_session` keeps the final standings of the last session that ended.
    session_since = models.PositiveIntegerField(_("session starts after game"), default=0)
    sessions_ended = models.PositiveIntegerField(_("sessions ended"), default=0)
    last_session = models.JSONField(_("last session"), null=True, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("room")
        verbose_name_plural = _("rooms")
        ordering = ["-updated_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(seat_count__gte=MIN_SEATS) & Q(seat_count__lte=MAX_SEATS),
                name="room_seat_count_2_to_8",
            ),
            models.CheckConstraint(
                condition=Q(timeout_seconds__gte=MIN_TIMEOUT)
                & Q(timeout_seconds__lte=MAX_TIMEOUT),
                name="room_timeout_5_to_60",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("game:room", kwargs={"room_id": self.pk})

    @property
    def invite_code_display(self) -> str:
        return invite_code_display(self.invite_code)

    @property
    def is_trump(self) -> bool:
        return self.game_kind == GameKind.TRUMP_DOBON

    @property
    def preset(self) -> str | None:
        """The trump preset, or None for Dobon UNO."""
        return self.trump_preset if self.is_trump else None

    @property
    def next_rate(self) -> int:
        """§R12.3's rate (2**k, at most 2**20), capped by §H13's `rate_cap` (§H13.1: only the
        rate is capped, the count k is kept)."""
        rate = rate_for(self.deck_out_streak)
        cap = (self.house_rules or {}).get("rate_cap")
        return min(rate, cap) if cap else rate

    def running_game(self) -> models.Model | None:
        """The running Game (typed loosely: games.py imports this module, not back)."""
        return self.games.filter(status="running").first()  # Game.Status.RUNNING


class Membership(models.Model):
    """A user, or a CPU player (no user, a `cpu_level`), seated in a room. Seat indices
    run clockwise (RULES.md §R1.1)."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="memberships",
    )
    # NULL, not "", for a person: the check constraint reads "exactly one of user / level".
    cpu_level = models.CharField(  # noqa: DJ001
        _("CPU level"), max_length=8, choices=CpuLevel.choices, null=True, blank=True
    )
    seat_index = models.PositiveSmallIntegerField(
        _("seat"), validators=[MaxValueValidator(MAX_SEATS - 1)]
    )
    points = models.BigIntegerField(_("points in this room"), default=0)
    # Open token-client sockets of this member in this room: while above 0 the seat
    # plays as a program (`kind: "program"`, a match's program timeout applies).
    program_sockets = models.PositiveSmallIntegerField(_("program connections"), default=0)
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)

    class Meta:
        verbose_name = _("seat membership")
        verbose_name_plural = _("seat memberships")
        ordering = ["room", "seat_index"]
        constraints = [
            models.UniqueConstraint(fields=["room", "seat_index"], name="one_user_per_seat"),
            models.UniqueConstraint(fields=["room", "user"], name="one_seat_per_user_per_room"),
            models.CheckConstraint(
                condition=Q(seat_index__lt=MAX_SEATS), name="membership_seat_index_below_8"
            ),
            models.CheckConstraint(condition=_HUMAN_XOR_CPU, name="membership_user_xor_cpu"),
        ]

    def __str__(self) -> str:
        return f"{self.display_name} @ {self.room} #{self.seat_index}"

    @property
    def is_cpu(self) -> bool:
        return self.cpu_level is not None

    @property
    def display_name(self) -> str:
        """The username, or "CPU (level)" for a CPU seat."""
        if self.cpu_level is not None:
            return cpu_display_name(self.cpu_level, self.seat_index)
        return self.user.username if self.user is not None else ""
