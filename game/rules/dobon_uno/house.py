"""House rules (HOUSE-RULES.md): one frozen value, its presets and its validation.

A room's house rules are one JSON object with the sixteen keys of HOUSE-RULES.md §G4; a
missing key means its default, an unknown key or a value outside what the rule allows
raises ``ValueError`` (§G4). The engine keeps the normalised value (:class:`HouseRules`)
for the whole game (§G1, §G2) and shows it in every view (§G3).

>>> rules = HouseRules.from_mapping({"hand_size": 5})
>>> rules.hand_size, rules.engine_default, preset_of(rules.to_dict())
(5, False, None)
>>> HouseRules.from_mapping(PRESETS["classic"]).hand_size
5
>>> HouseRules.from_mapping({"hand_size": 11})
Traceback (most recent call last):
ValueError: house rule 'hand_size' must be an integer from 3 to 10, not 11 (H1)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from types import MappingProxyType
from typing import Any

CUT_IN_MODES = ("identical", "same_number", "off")          # §H2
STACKING_MODES = ("standard", "cross", "off")                # §H3
MULTI_DOBON_MODES = ("all", "first", "nearest")              # §H11
RATE_CAPS = tuple(2 ** k for k in range(11))                 # §H13: 1 .. 1024
# The keys that change the engine's play (§H1-§H12); §H13 and §H14 are the room's (§G5).
ENGINE_KEYS = (
    "hand_size", "cut_in", "stacking", "stack_cut_in", "action_finish",
    "mixed_color_multi", "seven_zero", "draw_until_playable", "arithmetic_dobon",
    "number_only_dobon", "blind_dobon", "multi_dobon", "reshuffle",
)
SITE_KEYS = ("rate_cap", "session_games", "session_target")
HOUSE_RULE_KEYS = ENGINE_KEYS + SITE_KEYS


@dataclass(frozen=True, slots=True)
class HouseRules:
    """The rule set of a game (HOUSE-RULES.md §G4); every field at its default is RULES.md."""

    hand_size: int = 7                 # §H1
    cut_in: str = "identical"          # §H2
    stacking: str = "standard"         # §H3
    stack_cut_in: bool = True          # §H3
    action_finish: bool = False        # §H4
    mixed_color_multi: bool = False    # §H5
    seven_zero: bool = False           # §H6
    draw_until_playable: bool = False  # §H7
    arithmetic_dobon: bool = False     # §H8
    number_only_dobon: bool = False    # §H9
    blind_dobon: bool = False          # §H10
    multi_dobon: str = "all"           # §H11
    reshuffle: bool = False            # §H12
    rate_cap: int | None = None        # §H13 (the room's)
    session_games: int | None = None   # §H14 (the room's)
    session_target: int | None = None  # §H14 (the room's)

    @classmethod
    def from_mapping(cls, rules: Mapping[str, Any] | HouseRules | None) -> HouseRules:
        """The validated rule set; ``None`` or ``{}`` is every default (§G4)."""
        if rules is None:
            return DEFAULT_RULES
        if isinstance(rules, HouseRules):
            return rules
        if not isinstance(rules, Mapping):
            raise ValueError(f"house rules must be a JSON object, not {rules!r}")
        unknown = sorted(str(k) for k in rules if k not in HOUSE_RULE_KEYS)
        if unknown:
            raise ValueError(f"unknown house rule(s) {', '.join(unknown)}; "
                             f"the keys are {', '.join(HOUSE_RULE_KEYS)}")
        for key, value in rules.items():
            _check(key, value)
        return replace(DEFAULT_RULES, **dict(rules)) if rules else DEFAULT_RULES

    def to_dict(self) -> dict[str, Any]:
        """Every key, defaults included (§G3), JSON-safe and a fresh dict each call."""
        return {name: getattr(self, name) for name in HOUSE_RULE_KEYS}

    @property
    def engine_default(self) -> bool:
        """Whether the engine plays exactly RULES.md (§H1-§H12 at their defaults)."""
        return all(getattr(self, k) == getattr(DEFAULT_RULES, k) for k in ENGINE_KEYS)

    def changed(self) -> dict[str, Any]:
        """The keys that differ from the default (§G10's "custom" listing)."""
        return {k: v for k, v in self.to_dict().items() if v != getattr(DEFAULT_RULES, k)}


DEFAULT_RULES = HouseRules()
assert tuple(f.name for f in fields(HouseRules)) == HOUSE_RULE_KEYS

_BOOLS = {"stack_cut_in": "H3", "action_finish": "H4", "mixed_color_multi": "H5",
          "seven_zero": "H6", "draw_until_playable": "H7", "arithmetic_dobon": "H8",
          "number_only_dobon": "H9", "blind_dobon": "H10", "reshuffle": "H12"}
_CHOICES = {"cut_in": (CUT_IN_MODES, "H2"), "stacking": (STACKING_MODES, "H3"),
            "multi_dobon": (MULTI_DOBON_MODES, "H11")}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check(key: str, value: Any) -> None:
    """One key's value, as its rule allows (§G4); ``ValueError`` naming the rule."""
    if key in _BOOLS:
        if not isinstance(value, bool):
            raise ValueError(f"house rule {key!r} must be true or false, not {value!r} "
                             f"({_BOOLS[key]})")
    elif key in _CHOICES:
        allowed, rule = _CHOICES[key]
        if value not in allowed or not isinstance(value, str):
            raise ValueError(f"house rule {key!r} must be one of {', '.join(allowed)}, "
                             f"not {value!r} ({rule})")
    elif key == "hand_size":
        if not _is_int(value) or not 3 <= value <= 10:
            raise ValueError(f"house rule 'hand_size' must be an integer from 3 to 10, "
                             f"not {value!r} (H1)")
    elif key == "rate_cap":
        if value is not None and (not _is_int(value) or value not in RATE_CAPS):
            raise ValueError(f"house rule 'rate_cap' must be null or a power of two from "
                             f"1 to 1024, not {value!r} (H13)")
    elif key == "session_games":
        if value is not None and (not _is_int(value) or not 1 <= value <= 1000):
            raise ValueError(f"house rule 'session_games' must be null or an integer from "
                             f"1 to 1000, not {value!r} (H14)")
    elif key == "session_target" and value is not None and (
            not _is_int(value) or not 100 <= value <= 100_000):
        raise ValueError(f"house rule 'session_target' must be null or an integer from "
                         f"100 to 100000, not {value!r} (H14)")


def normalize_house_rules(rules: Mapping[str, Any] | None) -> dict[str, Any]:
    """The full mapping (every key) of a partial one; ``ValueError`` as in G4.

    >>> normalize_house_rules({"seven_zero": True})["seven_zero"], len(normalize_house_rules(None))
    (True, 16)
    """
    return HouseRules.from_mapping(rules).to_dict()


def _preset(**changes: Any) -> Mapping[str, Any]:
    return MappingProxyType(replace(DEFAULT_RULES, **changes).to_dict())


# HOUSE-RULES.md §7: each preset sets every key.
PRESETS: Mapping[str, Mapping[str, Any]] = MappingProxyType({
    "standard": _preset(),
    "party": _preset(cut_in="same_number", stacking="cross", action_finish=True,
                     mixed_color_multi=True, seven_zero=True, reshuffle=True),
    "classic": _preset(hand_size=5, cut_in="same_number", draw_until_playable=True,
                       arithmetic_dobon=True, reshuffle=True),
    "competitive": _preset(blind_dobon=True, multi_dobon="nearest", rate_cap=8,
                           session_games=20),
})
PRESET_NAMES: tuple[str, ...] = tuple(PRESETS)


def preset_of(rules: Mapping[str, Any] | None) -> str | None:
    """The preset these rules are exactly, else ``None`` (§G10: "custom")."""
    full = normalize_house_rules(rules)
    for name, preset in PRESETS.items():
        if dict(preset) == full:
            return name
    return None


def describe_house_rules(rules: Mapping[str, Any] | None,
                         base: str | None = None) -> dict[str, Any]:
    """How a game page, a log or a room names a rule set (§G10, §7): the preset, or
    ``"custom"`` with the keys that differ from the default, or, given the preset the owner
    started from (``base``), ``"custom"`` with ``"from"`` and the keys that differ from it.

    >>> describe_house_rules({"seven_zero": True})
    {'preset': 'custom', 'changed': {'seven_zero': True}}
    >>> describe_house_rules(dict(PRESETS["party"]) | {"hand_size": 5}, base="party")
    {'preset': 'custom', 'from': 'party', 'changed': {'hand_size': 5}}
    """
    normal = HouseRules.from_mapping(rules)
    name = preset_of(normal.to_dict())
    if name is not None:
        return {"preset": name, "changed": normal.changed()}
    if base is None:
        return {"preset": "custom", "changed": normal.changed()}
    if base not in PRESETS:
        raise ValueError(f"unknown preset {base!r}; the presets are {', '.join(PRESETS)}")
    start = PRESETS[base]
    return {"preset": "custom", "from": base,
            "changed": {k: v for k, v in normal.to_dict().items() if v != start[k]}}
