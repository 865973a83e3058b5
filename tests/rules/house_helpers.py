"""Scenario helpers for the house-rule tests (HOUSE-RULES.md §H1-§H14)."""

from __future__ import annotations

from typing import Any

from game.rules import Game

from .helpers import FILLER


def hsetup(rules: dict[str, Any] | None, hands: list[list[str]], first: str = "R3",
           deck: list[str] | None = None, first_player: int = 0, rate: int = 1,
           timeout: float = 10.0, now: float = 0.0, seed: int = 0) -> Game:
    """``Game.from_setup`` under ``rules`` (``None``: the default, RULES.md)."""
    return Game.from_setup(hands=[list(h) for h in hands], first_card=first,
                           deck=list(FILLER if deck is None else deck),
                           first_player=first_player, rate=rate, timeout=timeout, now=now,
                           seed=seed, house_rules=rules)


def swap(target: int) -> dict[str, Any]:
    return {"type": "swap", "target": target}


def told(events: list[dict[str, Any]], kind: str, seat: int | None = None) -> list[dict[str, Any]]:
    """Events of this type, only those addressed to ``seat`` when given."""
    return [e for e in events if e["type"] == kind and (seat is None or e["to"] == seat)]
