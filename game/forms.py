"""Forms of the room pages. They check shapes and ranges; the room's own rules
(seats that are taken, running games) are checked by game.services.rooms."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from game.models import (
    DEFAULT_ROUNDS,
    DEFAULT_START_POINTS,
    MAX_ROUNDS,
    MAX_SEATS,
    MAX_START_POINTS,
    MAX_TIMEOUT,
    MIN_ROUNDS,
    MIN_SEATS,
    MIN_START_POINTS,
    MIN_TIMEOUT,
    CpuLevel,
    GameKind,
    Room,
    TrumpPreset,
)
from game.services.rooms import find_room_by_code


class RoomForm(forms.ModelForm):
    """Create a room or change its settings. Used without an instance so that a
    rejected post never touches the room object the page shows."""

    class Meta:
        model = Room
        fields = [
            "name", "game_kind", "trump_preset", "seat_count", "timeout_seconds",
            "starting_points", "rounds_per_match", "is_public",
        ]
        widgets = {
            "seat_count": forms.NumberInput(attrs={"min": MIN_SEATS, "max": MAX_SEATS}),
            "timeout_seconds": forms.NumberInput(attrs={"min": MIN_TIMEOUT, "max": MAX_TIMEOUT}),
            "starting_points": forms.NumberInput(
                attrs={"min": MIN_START_POINTS, "max": MAX_START_POINTS}
            ),
            "rounds_per_match": forms.NumberInput(attrs={"min": MIN_ROUNDS, "max": MAX_ROUNDS}),
        }
        help_texts = {
            "game_kind": _("Dobon UNO, or Dobon with playing cards (trump)."),
            "trump_preset": _(
                "Trump only. au: 2 to 4 players, points from a starting stake, the dobon "
                "chain. standard: 3 to 6 players, an auction each round, しばり, lowest "
                "total wins."
            ),
            "starting_points": _("Trump au only: each player's stake, 100 to 100,000."),
            "rounds_per_match": _("Trump standard only: rounds in a match, 1 to 1,000."),
            "seat_count": _("2 to 8 players (trump au 2 to 4, standard 3 to 6)."),
            "timeout_seconds": _("Seconds a player has to act (5 to 60)."),
            "is_public": _(
                "Public rooms are listed in the lobby. Private rooms are found only "
                "through the invite link or code."
            ),
        }

    # Left out of a post, the game settings keep their defaults (Dobon UNO).
    OPTIONAL = {
        "game_kind": GameKind.DOBON_UNO, "trump_preset": TrumpPreset.AU,
        "starting_points": DEFAULT_START_POINTS, "rounds_per_match": DEFAULT_ROUNDS,
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["name"].widget.attrs.setdefault("autocomplete", "off")
        for name in self.OPTIONAL:
            self.fields[name].required = False

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        for name, default in self.OPTIONAL.items():
            if cleaned.get(name) in (None, ""):
                cleaned[name] = default
        return cleaned

    @classmethod
    def for_room(cls, room: Room, data: Any = None) -> RoomForm:
        initial = {
            "name": room.name,
            "seat_count": room.seat_count,
            "timeout_seconds": room.timeout_seconds,
            "is_public": room.is_public,
            "game_kind": room.game_kind,
            "trump_preset": room.trump_preset,
            "starting_points": room.starting_points,
            "rounds_per_match": room.rounds_per_match,
        }
        return cls(data, initial=initial)


INVALID_INVITE_MESSAGE = _(
    "This invite code is not valid: it is mistyped, or the room's owner replaced it. "
    "Ask the owner for the current link."
)


class JoinCodeForm(forms.Form):
    code = forms.CharField(
        label=_("Invite code"),
        max_length=300,
        help_text=_("The code, or the whole invite link."),
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "off"}),
    )

    def clean_code(self) -> str:
        room = find_room_by_code(self.cleaned_data["code"])
        if room is None:
            raise forms.ValidationError(INVALID_INVITE_MESSAGE, code="unknown")
        self.room = room
        return room.invite_code


class SeatForm(forms.Form):
    """Which seat to take; empty means the first free seat."""

    seat_index = forms.IntegerField(required=False, min_value=0, max_value=MAX_SEATS - 1)


class CpuLevelForm(forms.Form):
    """A CPU player's strength; "normal" unless chosen."""

    level = forms.ChoiceField(
        label=_("CPU level"), choices=CpuLevel.choices, initial=CpuLevel.NORMAL, required=False
    )

    def clean_level(self) -> str:
        return self.cleaned_data["level"] or CpuLevel.NORMAL


SOLO_GAMES = {
    "dobon_uno": (GameKind.DOBON_UNO, TrumpPreset.AU),
    "trump_au": (GameKind.TRUMP_DOBON, TrumpPreset.AU),
    "trump_standard": (GameKind.TRUMP_DOBON, TrumpPreset.STANDARD),
}


class SoloGameForm(CpuLevelForm):
    """"Play now against CPU": the level and the game (Dobon UNO unless chosen)."""

    game = forms.ChoiceField(
        label=_("Game"), required=False, initial="dobon_uno",
        choices=[
            ("dobon_uno", _("Dobon UNO")),
            ("trump_au", _("Trump Dobon (au)")),
            ("trump_standard", _("Trump Dobon (standard)")),
        ],
    )

    def clean_game(self) -> tuple[str, str]:
        return SOLO_GAMES[self.cleaned_data["game"] or "dobon_uno"]


class CpuSeatForm(CpuLevelForm):
    """Which free seat gets a CPU player, and how strong it plays."""

    seat_index = forms.IntegerField(min_value=0, max_value=MAX_SEATS - 1)
