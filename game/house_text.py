"""How a house-rule set is named on the pages (HOUSE-RULES.md §G10, §7): the preset, or
"custom (from <preset>)" with the rules that differ, each with its H-id, in the active
language. The one place the site words a rule; the table has the same words in
static/js/table/house.js."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import get_language, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from game.rules import PRESET_NAMES, describe_house_rules

PRESET_LABELS = {
    "standard": pgettext_lazy("house rules preset", "Standard"),
    "party": pgettext_lazy("house rules preset", "Party"),
    "classic": pgettext_lazy("house rules preset", "Classic (playing-card Dobon)"),
    "competitive": pgettext_lazy("house rules preset", "Competitive"),
    "custom": pgettext_lazy("house rules preset", "Custom"),
}

# key → (rule id, name) in the order of HOUSE-RULES.md §G4.
RULE_NAMES: dict[str, tuple[str, Any]] = {
    "hand_size": ("H1", _("Hand size")),
    "cut_in": ("H2", _("Cut-in")),
    "stacking": ("H3", _("Draw stacking")),
    "stack_cut_in": ("H3", _("Cut-in on a draw stack")),
    "action_finish": ("H4", _("Going out with an action card")),
    "mixed_color_multi": ("H5", _("Mixed-colour multi-play")),
    "seven_zero": ("H6", _("7-0 (7 swaps, 0 rotates)")),
    "draw_until_playable": ("H7", _("Draw until playable")),
    "arithmetic_dobon": ("H8", _("Four-operation dobon")),
    "number_only_dobon": ("H9", _("Number-only dobon")),
    "blind_dobon": ("H10", _("Blind dobon (false-dobon penalty)")),
    "multi_dobon": ("H11", _("Several dobons")),
    "reshuffle": ("H12", _("Reshuffle the discards")),
    "rate_cap": ("H13", _("Rate cap")),
    "session_games": ("H14", _("Session: games")),
    "session_target": ("H14", _("Session: target points")),
}

CHOICE_LABELS: dict[str, dict[str, Any]] = {
    "cut_in": {"identical": _("identical cards"), "same_number": _("same number, any colour"),
               "off": _("off")},
    # "standard" is also the trump preset (スタンダード); stacking's is 標準.
    "stacking": {"standard": pgettext_lazy("draw stacking", "standard"),
                 "cross": _("+2 and wild draw four cross"), "off": _("off")},
    "multi_dobon": {"all": _("all win (double ron)"), "first": _("first to declare"),
                    "nearest": _("nearest in turn order")},
}


def value_text(key: str, value: Any) -> str:
    """One rule's value as a player reads it."""
    if key in CHOICE_LABELS:
        return str(CHOICE_LABELS[key].get(value, value))
    if isinstance(value, bool):
        return str(_("on") if value else _("off"))
    if value is None:
        return str(_("none"))
    if key == "hand_size":
        return str(_("%(n)d cards") % {"n": value})
    if key == "rate_cap":
        return f"×{value}"
    if key == "session_games":
        return str(_("%(n)d games") % {"n": value})
    if key == "session_target":
        return str(_("±%(n)d points") % {"n": value})
    return str(value)


def rule_line(key: str, value: Any) -> dict[str, str]:
    rule_id, name = RULE_NAMES[key]
    return {"key": key, "id": rule_id, "name": str(name), "value": value_text(key, value),
            "anchor": rule_id.lower()}


def summarize(rules: Mapping[str, Any] | None, base: str = "") -> dict[str, Any]:
    """A rule set as pages show it: `preset` (a preset name or "custom"), `label`
    ("Party", "Custom (from Party)"), `changes` (the rules that differ from the preset it
    started from, or from the default) and `text`, the compact line."""
    described = describe_house_rules(rules or None, base=base if base in PRESET_NAMES else None)
    preset = described["preset"]
    label = str(PRESET_LABELS[preset])
    if preset == "custom" and described.get("from"):
        label = str(_("Custom (from %(preset)s)") % {"preset": PRESET_LABELS[described["from"]]})
    changes = [rule_line(k, v) for k, v in described["changed"].items()]
    text = label
    if changes and preset == "custom":
        comma = "、" if (get_language() or "ja").startswith("ja") else ", "
        text += ": " + comma.join(f"{c['name']} {c['value']}" for c in changes)
    return {"preset": preset, "label": label, "changes": changes, "text": text,
            "default": preset == "standard"}
