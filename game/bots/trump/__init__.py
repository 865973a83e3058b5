"""CPU players for trump Dobon (TRUMP-RULES.md, both presets): three levels of policy, a
round driver. Plain Python like ``game.rules.trump``; a policy reads only its seat's view.

``game.bots.policy(level, seed)`` answers trump views too (it dispatches on the view's
``preset``); this package's ``policy`` is the trump half alone.

>>> from game.rules.trump import Game
>>> g = Game.new(players=3, seed=4, preset="standard")
>>> answer = policy("strong", 1).act(g.view(0), [])  # the auction: a bid (T4)
>>> answer["type"], is_answer(g.view(0), answer)
('bid', True)
"""

from __future__ import annotations

from collections.abc import Callable

from ..base import Action, Policy
from .common import is_answer
from .easy import EasyPolicy
from .player import NormalPolicy, StrongPolicy

LEVELS: tuple[str, ...] = ("easy", "normal", "strong")

_CLASSES: dict[str, Callable[[int], Policy]] = {
    "easy": EasyPolicy,
    "normal": NormalPolicy,
    "strong": StrongPolicy,
}


def policy(level: str, seed: int) -> Policy:
    """The trump policy of this level; unknown levels raise ``ValueError``."""
    try:
        cls = _CLASSES[level]
    except (KeyError, TypeError):
        raise ValueError(f"unknown CPU level {level!r}; expected one of {LEVELS}") from None
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an int, not {seed!r}")
    return cls(seed)


__all__ = ["LEVELS", "Action", "is_answer", "policy"]
