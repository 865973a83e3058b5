"""CPU players for Dobon UNO: three levels of policy, a game driver and a tournament.

Plain Python like ``game.rules``: no Django import anywhere under this package. A policy
sees only what its seat's player sees (``engine.view(seat)`` and that seat's events),
never the engine.

>>> from game.bots import policy
>>> p = policy("easy", seed=1)
>>> p.act({"legal_actions": []}, []) is None
True
"""

from __future__ import annotations

from .base import Action, Policy
from .driver import GameRecord, play_game
from .easy import EasyPolicy
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
    return cls(seed)


__all__ = ["LEVELS", "Action", "GameRecord", "Policy", "play_game", "policy"]
