"""The rules engines, plain Python packages: Dobon UNO (RULES.md) is re-exported here.

No Django, no clock, no global random state, no I/O: time comes in as ``now`` and
randomness from each game's own ``random.Random``. The contract is ENGINE_API.md;
event and view shapes are pinned in docs/engine-conventions.md. The engine itself lives in
``game/rules/dobon_uno/``; this package re-exports its public names so that
``from game.rules import Game, IllegalAction`` keeps working.

>>> from game.rules import Game
>>> g = Game.new(players=4, first_player=1, seed=42)
>>> g.phase in ("turn", "color")
True
"""

from __future__ import annotations

from .dobon_uno.cards import CARDS, COLORS, Card, Color, Kind
from .dobon_uno.errors import IllegalAction
from .dobon_uno.game import Action, Event, Game, Phase
from .dobon_uno.house import (
    DEFAULT_RULES,
    HOUSE_RULE_KEYS,
    PRESET_NAMES,
    PRESETS,
    HouseRules,
    describe_house_rules,
    normalize_house_rules,
    preset_of,
)
from .dobon_uno.result import MAX_RATE, Result, ResultKind, rate_for, result_to_dict

# HOUSE-RULES.md §G4: every key at its default (a read-only mapping).
DEFAULT_HOUSE_RULES = PRESETS["standard"]

__all__ = [
    "CARDS",
    "COLORS",
    "DEFAULT_HOUSE_RULES",
    "DEFAULT_RULES",
    "HOUSE_RULE_KEYS",
    "PRESETS",
    "PRESET_NAMES",
    "Action",
    "Card",
    "Color",
    "Event",
    "Game",
    "HouseRules",
    "IllegalAction",
    "Kind",
    "MAX_RATE",
    "Phase",
    "Result",
    "ResultKind",
    "rate_for",
    "describe_house_rules",
    "normalize_house_rules",
    "preset_of",
    "result_to_dict",
]
