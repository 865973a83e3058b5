"""Set-up helpers for the rule-by-rule trump tests (written from TRUMP-RULES.md)."""

from __future__ import annotations

from typing import Any

from game.rules.trump import Game

FILLER = ["S10", "H10", "D10", "C10", "S11", "H11", "D11", "C11", "S12", "H12"]


def au(hands: list[list[str]], field: str, deck: list[str] | None = None,
       first: int = 0, **kw: Any) -> Game:
    return Game.from_setup(hands=hands, first_card=field,
                           deck=list(FILLER if deck is None else deck),
                           first_player=first, preset="au", **kw)


def std(hands: list[list[str]], field: str, deck: list[str] | None = None,
        first: int | None = 0, **kw: Any) -> Game:
    return Game.from_setup(hands=hands, first_card=field,
                           deck=list(FILLER if deck is None else deck),
                           first_player=first, preset="standard", **kw)


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def plays(g: Game, seat: int) -> list[tuple[str, str | None]]:
    """The plays listed for ``seat``: (card, named suit)."""
    return [(a["cards"][0], a.get("suit")) for a in g.legal_actions(seat)
            if a["type"] == "play" and not a.get("last_one")]


def cards_played(g: Game, seat: int) -> set[str]:
    return {card for card, _ in plays(g, seat)}


def of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]
