"""The Dobon UNO rules engine (RULES.md), a plain Python package.

No Django, no clock, no global random state, no I/O: time comes in as ``now`` and
randomness from each game's own ``random.Random``. The contract is ENGINE_API.md;
event and view shapes are pinned in docs/engine-conventions.md.

>>> from game.rules import Game
>>> g = Game.new(players=4, first_player=1, seed=42)
>>> g.phase in ("turn", "color")
True
"""

from __future__ import annotations

from .cards import CARDS, COLORS, Card, Color, Kind
from .errors import IllegalAction
from .game import Action, Event, Game, Phase
from .result import Result, ResultKind, result_to_dict

__all__ = [
    "CARDS",
    "COLORS",
    "Action",
    "Card",
    "Color",
    "Event",
    "Game",
    "IllegalAction",
    "Kind",
    "Phase",
    "Result",
    "ResultKind",
    "result_to_dict",
]
