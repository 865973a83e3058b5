"""The trump Dobon engine (TRUMP-RULES.md): both presets, ``au`` and ``standard``.

A plain package like ``game.rules`` (no Django, no clock, no global random state, no I/O)
with the same shape (ENGINE_API.md, §T20); docs/trump-engine.md pins views, events,
actions, refusal codes and the match record.

>>> from game.rules.trump import Game
>>> g = Game.new(players=4, first_player=1, seed=42)
>>> g.phase, g.preset
('turn', 'au')
"""

from __future__ import annotations

from ..dobon_uno.errors import IllegalAction
from .cards import CODE, SUITS
from .game import PHASES, PRESETS, Action, Event, Game
from .match import match_new, match_update, standing
from .result import Result, au_points, result_to_dict, yaku_pattern

__all__ = [
    "CODE",
    "PHASES",
    "PRESETS",
    "SUITS",
    "Action",
    "Event",
    "Game",
    "IllegalAction",
    "Result",
    "au_points",
    "match_new",
    "match_update",
    "result_to_dict",
    "standing",
    "yaku_pattern",
]
