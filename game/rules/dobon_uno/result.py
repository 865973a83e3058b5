"""How a game ended and who pays whom (RULES.md §R11-§R13)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class ResultKind(StrEnum):
    """The four ways a game ends."""

    AGARI = "agari"
    DOBON = "dobon"
    RETURN = "return"
    DECK_OUT = "deck_out"


Payment = tuple[int, int, int]

# §R16.14 (§R12.3): the doubling stops at 2^20 (×1,048,576); the count goes on growing.
MAX_RATE_EXPONENT = 20
MAX_RATE = 2**MAX_RATE_EXPONENT


def rate_for(deck_outs: int) -> int:
    """The rate of a game that starts after `deck_outs` consecutive deck-outs: 2^k, at
    most 2^20 (§R12.3, §R16.14).

    >>> rate_for(0), rate_for(3), rate_for(20), rate_for(31)
    (1, 8, 1048576, 1048576)
    """
    if deck_outs < 0:
        raise ValueError(f"a deck-out count is not negative, not {deck_outs!r}")
    return int(2 ** min(deck_outs, MAX_RATE_EXPONENT))


@dataclass(frozen=True, slots=True)
class Result:
    """The settlement of a finished game.

    ``payments`` are ``(payer, payee, points)`` already multiplied by ``rate``; zero
    payments are left out (§R11.4). ``deltas`` are per-seat totals and sum to zero.

    >>> r = settle_agari(winner=1, hand_points=[12, 0, 30], rate=2)
    >>> r.payments, r.deltas
    ([(0, 1, 24), (2, 1, 60)], [-24, 84, -60])
    """

    kind: ResultKind
    winners: list[int]
    payments: list[Payment]
    deltas: list[int]
    hand_points: list[int]
    next_first_player: int
    rate: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form, the shape of docs/engine-conventions.md."""
        return {
            "kind": self.kind.value,
            "winners": list(self.winners),
            "payments": [list(p) for p in self.payments],
            "deltas": list(self.deltas),
            "hand_points": list(self.hand_points),
            "next_first_player": self.next_first_player,
            "rate": self.rate,
        }

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Result:
        """The inverse of :meth:`to_dict`."""
        return Result(
            kind=ResultKind(d["kind"]),
            winners=[int(s) for s in d["winners"]],
            payments=[(int(a), int(b), int(p)) for a, b, p in d["payments"]],
            deltas=[int(x) for x in d["deltas"]],
            hand_points=[int(x) for x in d["hand_points"]],
            next_first_player=int(d["next_first_player"]),
            rate=int(d["rate"]),
        )


def result_to_dict(result: Result) -> dict[str, Any]:
    """``result.to_dict()``, as a function (the name docs/engine-conventions.md uses)."""
    return result.to_dict()


def _deltas(players: int, payments: list[Payment]) -> list[int]:
    deltas = [0] * players
    for payer, payee, points in payments:
        deltas[payer] -= points
        deltas[payee] += points
    return deltas


def _result(kind: ResultKind, winners: list[int], payments: list[Payment],
            hand_points: list[int], next_first: int, rate: int) -> Result:
    payments = [p for p in payments if p[2] != 0]
    deltas = _deltas(len(hand_points), payments)
    return Result(kind, winners, payments, deltas, list(hand_points), next_first, rate)


def settle_agari(winner: int, hand_points: list[int], rate: int) -> Result:
    """§R11.1: every other seat pays the winner its own hand points (seat order)."""
    payments = [(s, winner, pts * rate) for s, pts in enumerate(hand_points) if s != winner]
    return _result(ResultKind.AGARI, [winner], payments, hand_points, winner, rate)


def settle_dobon(target: int, declarers: list[int], hand_points: list[int], rate: int,
                 returned: bool) -> Result:
    """§R11.2 / §R11.3: T is everyone's hand points, the dobon'd play counted back.

    ``hand_points[target]`` must already include the play dobon'd on. Without a return
    the target pays T to each declarer (in declaration order); with a return each
    declarer pays T to the target.

    >>> settle_dobon(3, [0], [20, 30, 40, 50], 1, returned=False).payments
    [(3, 0, 140)]
    >>> settle_dobon(3, [0, 1], [20, 20, 40, 40], 1, returned=True).payments
    [(0, 3, 120), (1, 3, 120)]
    """
    total = sum(hand_points) * rate
    if returned:
        payments = [(d, target, total) for d in declarers]
        return _result(ResultKind.RETURN, [target], payments, hand_points, target, rate)
    payments = [(target, d, total) for d in declarers]
    return _result(ResultKind.DOBON, list(declarers), payments, hand_points, declarers[0], rate)


def add_payments(result: Result, payments: list[Payment]) -> Result:
    """The same result with ``payments`` listed after its own (HOUSE-RULES.md §H10.3.4:
    false-dobon penalties); the deltas follow, the kind and winners do not change.

    >>> r = add_payments(settle_deck_out(1, [5, 5], 1), [(0, 1, 20)])
    >>> r.kind.value, r.payments, r.deltas
    ('deck_out', [(0, 1, 20)], [-20, 20])
    """
    return _result(result.kind, list(result.winners), result.payments + payments,
                   result.hand_points, result.next_first_player, result.rate)


def settle_deck_out(next_first: int, hand_points: list[int], rate: int) -> Result:
    """§R12.2: no points change hands; §R13.2 names the next first player."""
    return _result(ResultKind.DECK_OUT, [], [], hand_points, next_first, rate)
