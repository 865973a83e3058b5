"""Scenario helpers for the rule-by-rule tests (written from RULES.md and ENGINE_API.md only).

Seats are named after RULES.md's examples: A=0, B=1, C=2, D=3.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from game.rules import Game, IllegalAction

A, B, C, D = 0, 1, 2, 3
COLOURS = ("R", "B", "G", "Y")

# A deck of zeros: drawing them never changes a hand's points (so no accidental dobon).
FILLER = ["Y0"] * 30

SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")

_SYMBOL_POINTS = {"S": 20, "R": 20, "+2": 20, "F": 10}


def card_points(code: str) -> int:
    """Points of one card per R2 (independent of the engine)."""
    if code == "W":
        return 30
    if code == "W+4":
        return 50
    symbol = code[1:]
    return int(symbol) if symbol.isdigit() else _SYMBOL_POINTS[symbol]


def points(cards: Iterable[str]) -> int:
    return sum(card_points(c) for c in cards)


def setup(
    hands: list[list[str]],
    first: str = "R3",
    deck: list[str] | None = None,
    first_player: int = 0,
    rate: int = 1,
    timeout: float = 10.0,
    now: float = 0.0,
    seed: int = 0,
) -> Game:
    return Game.from_setup(
        hands=[list(h) for h in hands],
        first_card=first,
        deck=list(FILLER if deck is None else deck),
        first_player=first_player,
        rate=rate,
        timeout=timeout,
        now=now,
        seed=seed,
    )


def copy_of(g: Game) -> Game:
    return Game.from_dict(copy.deepcopy(g.to_dict()))


def assert_code(code: Any) -> str:
    assert isinstance(code, str) and code, f"IllegalAction.code must be a non-empty str: {code!r}"
    assert SNAKE.match(code), f"IllegalAction.code must be snake_case: {code!r}"
    return code


def assert_refused(g: Game, fn: Callable[[], Any], code: str | None = None) -> str:
    """`fn()` raises IllegalAction with a snake_case code and leaves the game unchanged."""
    before = copy.deepcopy(g.to_dict())
    with pytest.raises(IllegalAction) as info:
        fn()
    got = assert_code(getattr(info.value, "code", None))
    if code is not None:
        assert got == code
    assert g.to_dict() == before, "a refused action changed the game"
    return got


def refused(g: Game, seat: int, action: dict[str, Any], now: float = 0.0) -> str:
    """The same as assert_refused, through g.apply."""
    return assert_refused(g, lambda: g.apply(seat, action, now))


# --- action dicts -------------------------------------------------------------------

def play(*cards: str) -> dict[str, Any]:
    return {"type": "play", "cards": list(cards)}


DRAW = {"type": "draw"}
PASS = {"type": "pass"}
DOBON = {"type": "dobon"}
RETURN = {"type": "return"}
DECLINE = {"type": "decline"}


def colour(c: str) -> dict[str, Any]:
    return {"type": "color", "color": c}


ALL_COLOURS = [colour(c) for c in COLOURS]


def canon(action: dict[str, Any]) -> tuple[Any, ...]:
    """Order-insensitive key, except that the last card of a play matters (F colours)."""
    kind = action["type"]
    if kind == "play":
        cards = list(action["cards"])
        return ("play", tuple(sorted(cards)), cards[-1])
    if kind == "color":
        return ("color", action["color"])
    return (kind,)


def assert_legal(g: Game, seat: int, expected: list[dict[str, Any]], now: float = 0.0) -> None:
    """legal_actions(seat) lists exactly `expected`, and apply accepts every entry."""
    got = g.legal_actions(seat)
    assert {canon(a) for a in got} == {canon(a) for a in expected}
    for action in got:
        copy_of(g).apply(seat, action, now)


# --- results and events -------------------------------------------------------------

def per_seat(values: Any, n: int) -> list[Any]:
    if isinstance(values, dict):
        return [values.get(s, values.get(str(s), 0)) for s in range(n)]
    return list(values)


def payments(g: Game) -> list[tuple[int, int, int]]:
    assert g.result is not None
    return sorted(tuple(p) for p in g.result.payments)  # type: ignore[misc]


def deltas(g: Game) -> list[int]:
    assert g.result is not None
    return per_seat(g.result.deltas, g.players)


def hand_points(g: Game) -> list[int]:
    assert g.result is not None
    return per_seat(g.result.hand_points, g.players)


def assert_result(
    g: Game,
    kind: str,
    winners: list[int],
    pays: list[tuple[int, int, int]],
    hand_pts: list[int] | None = None,
    next_first: int | None = None,
) -> None:
    assert g.phase == "finished"
    r = g.result
    assert r is not None
    assert r.kind == kind
    assert list(r.winners) == winners
    assert payments(g) == sorted(pays)
    expected_deltas = [0] * g.players
    for payer, payee, pts in pays:
        expected_deltas[payer] -= pts
        expected_deltas[payee] += pts
    assert deltas(g) == expected_deltas
    assert sum(deltas(g)) == 0
    assert all(p[2] != 0 for p in payments(g)), "zero payments are not listed (R11.4)"
    if hand_pts is not None:
        assert hand_points(g) == hand_pts
    if next_first is not None:
        assert r.next_first_player == next_first


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]
