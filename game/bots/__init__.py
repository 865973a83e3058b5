"""CPU players for Dobon UNO and trump Dobon: three levels of policy, game drivers and a
tournament.

Plain Python like ``game.rules``: no Django import anywhere under this package. A policy
sees only what its seat's player sees (``engine.view(seat)`` and that seat's events),
never the engine. ``policy(level, seed)`` plays both games: a trump view (it carries a
``preset``) goes to the trump policy of that level and seed (``game.bots.trump``), any
other view to the Dobon UNO one, which answers exactly as before.

>>> from game.bots import policy
>>> p = policy("easy", seed=1)
>>> p.act({"legal_actions": []}, []) is None
True
"""

from __future__ import annotations

from collections.abc import Sequence

from . import trump
from .base import Action, Policy
from .driver import GameRecord, play_game
from .easy import EasyPolicy
from .knowledge import Event, View
from .normal import NormalPolicy
from .strong import StrongPolicy

LEVELS: tuple[str, ...] = ("easy", "normal", "strong")

_CLASSES: dict[str, type[EasyPolicy] | type[NormalPolicy] | type[StrongPolicy]] = {
    "easy": EasyPolicy,
    "normal": NormalPolicy,
    "strong": StrongPolicy,
}


def policy(level: str, seed: int) -> Policy:
    """The policy of this level; unknown levels raise ``ValueError``.

    Cheap to build: rooms make a fresh one for every decision.
    """
    try:
        cls = _CLASSES[level]
    except (KeyError, TypeError):
        raise ValueError(f"unknown CPU level {level!r}; expected one of {LEVELS}") from None
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an int, not {seed!r}")
    return _EitherGame(level, seed, cls(seed))


class _EitherGame:
    """One level and seed for both games, picked by the view it is shown."""

    def __init__(self, level: str, seed: int, dobon_uno: Policy) -> None:
        self.level, self.seed, self._dobon_uno = level, seed, dobon_uno

    def act(self, view: View, events: Sequence[Event]) -> Action | None:
        if view.get("preset") is not None:  # only trump views carry a preset (§T19)
            return trump.policy(self.level, self.seed).act(view, events)
        return self._dobon_uno.act(view, events)


__all__ = ["LEVELS", "Action", "GameRecord", "Policy", "play_game", "policy", "trump"]
