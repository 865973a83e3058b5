"""Forms of the room pages. They check shapes and ranges; the room's own rules
(seats that are taken, running games) are checked by game.services.rooms."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from game.house_text import CHOICE_LABELS, PRESET_LABELS, RULE_NAMES
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
from game.rules import HOUSE_RULE_KEYS, PRESET_NAMES, PRESETS, normalize_house_rules, preset_of
from game.services.rooms import find_room_by_code


class RoomForm(forms.ModelForm):
    """Create a room or change its settings. Used without an instance so that a
    rejected post never touches the room object the page shows."""

    class Meta:
        model = Room
        fields = [
            "name", "game_kind", "trump_preset", "seat_count", "timeout_seconds",
            "starting_points", "rounds_per_match", "is_public", "stamps_enabled", "rated",
        ]
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
            "stamps_enabled": _(
                "Seated players may send quick reactions (“Nice!”, “Sorry”…) to the table. "
                "Fixed words only, one every 1.5 seconds."
            ),
            "rated": _(
                "Finished games here change the players' ratings (the rating "
                "leaderboards). Changed between games only."
            ),
        }

    # Left out of a post, the game settings keep their defaults (Dobon UNO).
    OPTIONAL = {
        "game_kind": GameKind.DOBON_UNO, "trump_preset": TrumpPreset.AU,
        "starting_points": DEFAULT_START_POINTS, "rounds_per_match": DEFAULT_ROUNDS,
    }

    # The server's limits, also given to the browser's number fields. A positive integer
    # model field gives its form field a minimum of 0, which used to reach the page
    # (min="0" beside "100 to 100,000"); the model's own validators still check a post.
    LIMITS = {
        "seat_count": (MIN_SEATS, MAX_SEATS),
        "timeout_seconds": (MIN_TIMEOUT, MAX_TIMEOUT),
        "starting_points": (MIN_START_POINTS, MAX_START_POINTS),
        "rounds_per_match": (MIN_ROUNDS, MAX_ROUNDS),
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["name"].widget.attrs.setdefault("autocomplete", "off")
        for name in self.OPTIONAL:
            self.fields[name].required = False
        for name, (low, high) in self.LIMITS.items():
            field = self.fields[name]
            field.min_value, field.max_value = low, high  # type: ignore[attr-defined]
            field.widget.attrs.update(min=low, max=high)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        for name, default in self.OPTIONAL.items():
            if cleaned.get(name) in (None, ""):
                cleaned[name] = default
        return cleaned

    @classmethod
    def for_new(cls, username: str, data: Any = None) -> RoomForm:
        """The create form, named "<username>'s room" to start with: a first tap on
        Create makes a room instead of only saying the name is required."""
        name = gettext("%(username)s's room") % {"username": username}
        return cls(data, initial={"name": name[: Room._meta.get_field("name").max_length]})

    @classmethod
    def for_room(cls, room: Room, data: Any = None) -> RoomForm:
        initial = {
            "name": room.name,
            "seat_count": room.seat_count,
            "timeout_seconds": room.timeout_seconds,
            "is_public": room.is_public,
            "stamps_enabled": room.stamps_enabled,
            "rated": room.rated,
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


def _house_choices(key: str) -> list[tuple[str, Any]]:
    return list(CHOICE_LABELS[key].items())


class HouseRulesForm(forms.Form):
    """The room's house rules (HOUSE-RULES.md §G4, §7): a preset, or every rule one by one.
    A preset sets every rule (the fields below are then ignored); "custom" takes them as
    set. static/js/house_form.js fills the fields when a preset is picked and switches to
    "custom" when a rule is changed; without it the form works the same."""

    preset = forms.ChoiceField(
        label=_("Preset"),
        choices=[(name, PRESET_LABELS[name]) for name in (*PRESET_NAMES, "custom")],
        help_text=_("A preset sets every rule below. Choose “Custom” to set them one by one."),
    )
    base = forms.CharField(required=False, widget=forms.HiddenInput)
    hand_size = forms.IntegerField(label=RULE_NAMES["hand_size"][1], min_value=3, max_value=10,
                                   help_text=_("H1 · 3 to 10 cards."))
    cut_in = forms.ChoiceField(label=RULE_NAMES["cut_in"][1], choices=_house_choices("cut_in"),
                               help_text="H2")
    stacking = forms.ChoiceField(label=RULE_NAMES["stacking"][1],
                                 choices=_house_choices("stacking"), help_text="H3")
    stack_cut_in = forms.BooleanField(label=RULE_NAMES["stack_cut_in"][1], required=False,
                                      help_text=_("H3 · has no effect when stacking is off."))
    action_finish = forms.BooleanField(label=RULE_NAMES["action_finish"][1], required=False,
                                       help_text="H4")
    mixed_color_multi = forms.BooleanField(label=RULE_NAMES["mixed_color_multi"][1],
                                           required=False, help_text="H5")
    seven_zero = forms.BooleanField(label=RULE_NAMES["seven_zero"][1], required=False,
                                    help_text="H6")
    draw_until_playable = forms.BooleanField(label=RULE_NAMES["draw_until_playable"][1],
                                             required=False, help_text="H7")
    arithmetic_dobon = forms.BooleanField(label=RULE_NAMES["arithmetic_dobon"][1],
                                          required=False, help_text="H8")
    number_only_dobon = forms.BooleanField(label=RULE_NAMES["number_only_dobon"][1],
                                           required=False, help_text="H9")
    blind_dobon = forms.BooleanField(label=RULE_NAMES["blind_dobon"][1], required=False,
                                     help_text="H10")
    multi_dobon = forms.ChoiceField(label=RULE_NAMES["multi_dobon"][1],
                                    choices=_house_choices("multi_dobon"), help_text="H11")
    reshuffle = forms.BooleanField(label=RULE_NAMES["reshuffle"][1], required=False,
                                   help_text="H12")
    rate_cap = forms.TypedChoiceField(
        label=RULE_NAMES["rate_cap"][1], coerce=int, empty_value=None, required=False,
        choices=[("", _("no cap"))] + [(str(2**k), f"×{2**k}") for k in range(11)],
        help_text=_("H13 · ×1 turns the doubling after deck-outs off."),
    )
    session_games = forms.IntegerField(
        label=RULE_NAMES["session_games"][1], min_value=1, max_value=1000, required=False,
        help_text=_("H14 · the session ends after this many games (empty: never)."),
    )
    session_target = forms.IntegerField(
        label=RULE_NAMES["session_target"][1], min_value=100, max_value=100_000, required=False,
        help_text=_("H14 · the session ends when someone reaches +T or −T (empty: never)."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("prefix", "house")
        super().__init__(*args, **kwargs)
        self.fields["preset"].widget.attrs["data-role"] = "house-preset"
        # Only "custom" reads the rules; a preset alone is a complete answer.
        for key in ("hand_size", "cut_in", "stacking", "multi_dobon"):
            self.fields[key].required = False

    @classmethod
    def for_room(cls, room: Room, data: Any = None) -> HouseRulesForm:
        rules = normalize_house_rules(room.house_rules or None)
        preset = preset_of(rules) or "custom"
        initial = {**rules, "preset": preset, "base": room.house_base or preset}
        return cls(data, initial=initial)

    def clean(self) -> dict[str, Any]:
        data: dict[str, Any] = super().clean() or {}
        preset = data.get("preset")
        if isinstance(preset, str) and preset in PRESETS:
            data["rules"], data["base"] = dict(PRESETS[preset]), preset
        elif preset == "custom" and not self.errors:
            defaults = PRESETS["standard"]
            data["rules"] = {
                key: defaults[key] if data.get(key) in (None, "") and key in self._CHOSEN
                else data.get(key)
                for key in HOUSE_RULE_KEYS
            }
            data["base"] = data.get("base") if data.get("base") in PRESETS else ""
        return data

    _CHOSEN = ("hand_size", "cut_in", "stacking", "multi_dobon")

    def fields_by_group(self) -> list[Any]:
        """The rule fields (not the preset), for the template."""
        return [self[key] for key in HOUSE_RULE_KEYS]

    @staticmethod
    def presets_json() -> dict[str, dict[str, Any]]:
        return {name: dict(rules) for name, rules in PRESETS.items()}
