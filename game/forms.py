"""Forms of the room pages. They check shapes and ranges; the room's own rules
(seats that are taken, running games) are checked by game.services.rooms."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from game.models import MAX_SEATS, MAX_TIMEOUT, MIN_SEATS, MIN_TIMEOUT, CpuLevel, Room
from game.services.rooms import find_room_by_code


class RoomForm(forms.ModelForm):
    """Create a room or change its settings. Used without an instance so that a
    rejected post never touches the room object the page shows."""

    class Meta:
        model = Room
        fields = ["name", "seat_count", "timeout_seconds", "is_public", "stamps_enabled"]
        widgets = {
            "seat_count": forms.NumberInput(attrs={"min": MIN_SEATS, "max": MAX_SEATS}),
            "timeout_seconds": forms.NumberInput(attrs={"min": MIN_TIMEOUT, "max": MAX_TIMEOUT}),
        }
        help_texts = {
            "seat_count": _("2 to 8 players."),
            "timeout_seconds": _("Seconds a player has to act (5 to 60)."),
            "is_public": _(
                "Public rooms are listed in the lobby. Private rooms are found only "
                "through the invite link or code."
            ),
            "stamps_enabled": _(
                "Seated players may send quick reactions (“Nice!”, “Sorry”…) to the table. "
                "Fixed words only, one every 1.5 seconds."
            ),
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["name"].widget.attrs.setdefault("autocomplete", "off")

    @classmethod
    def for_room(cls, room: Room, data: Any = None) -> RoomForm:
        initial = {
            "name": room.name,
            "seat_count": room.seat_count,
            "timeout_seconds": room.timeout_seconds,
            "is_public": room.is_public,
            "stamps_enabled": room.stamps_enabled,
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
        widget=forms.TextInput(
            attrs={"autocomplete": "off", "autocapitalize": "characters", "spellcheck": "false"}
        ),
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


class CpuSeatForm(CpuLevelForm):
    """Which free seat gets a CPU player, and how strong it plays."""

    seat_index = forms.IntegerField(min_value=0, max_value=MAX_SEATS - 1)
