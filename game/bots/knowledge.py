"""What one seat can know, rebuilt from its view and its events alone.

A policy is a pure function of ``(level, seed, view, events)``: nothing here keeps state
between calls. Card tracking is recomputed from the event log on every decision, which
is cheap (one pass over the log) because only ``start`` and ``play`` events matter.

The danger of a play (RULES.md R9.1: a seat whose hand total equals the play's points may
dobon) is the chance that some opponent's hand total equals the play's points. An
opponent's hand is modelled as a uniformly random subset of the cards this seat has not
seen, of the size the view shows. The distribution of the sum of such a subset comes
from a small dynamic programme over point values (14 distinct values), packed into
Python integers so that one row of sums is one big-int operation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from math import comb
from typing import Any

from game.rules.cards import CARDS, CODE, ID_OF, IS_NUMBER, POINTS, full_deck

View = Mapping[str, Any]
Event = Mapping[str, Any]

# One slot of the packed sum rows: wide enough for any subset count C(112, 12) < 2**55.
_SLOT = 64
_SLOT_MASK = (1 << _SLOT) - 1
# Hands bigger than this are treated as never totalling a play's points: the chance is
# negligible (twelve cards summing to 50 or less) and it keeps the table small.
MAX_TRACKED_HAND = 12

POINTS_OF: dict[str, int] = {CODE[i]: POINTS[i] for i in range(len(CARDS))}
IS_ACTION: dict[str, bool] = {CODE[i]: not IS_NUMBER[i] for i in range(len(CARDS))}
FULL_DECK: Counter[str] = Counter(CODE[i] for i in full_deck())
DECK_SIZE = sum(FULL_DECK.values())


def points(cards: Iterable[str]) -> int:
    """R2.3: the points of a set of cards."""
    return sum(POINTS_OF[c] for c in cards)


def color_of(card: str) -> str | None:
    """The printed colour of a card (``None`` for W and W+4)."""
    color = CARDS[ID_OF[card]].color
    return None if color is None else color.value


def seen_cards(view: View, events: Sequence[Event]) -> Counter[str]:
    """Every card this seat has seen face up or holds: its hand, the first card, every
    play, and hands revealed by a dobon (R9.5)."""
    seen: Counter[str] = Counter(view.get("hand") or [])
    for event in events:
        kind = event.get("type")
        if kind == "play":
            seen.update(event["cards"])
        elif kind == "start":
            seen[event["top"]] += 1
    me = view.get("seat")
    for seat, hand in enumerate(view.get("revealed") or []):
        if hand is not None and seat != me:
            seen.update(hand)
    return seen


def unseen_pool(view: View, events: Sequence[Event] | None) -> Counter[str]:
    """The cards this seat has not seen (the deck and the other hands together).

    ``events=None`` gives the pool of a seat that remembers nothing but its own hand.
    """
    seen = seen_cards(view, events) if events is not None else Counter(view.get("hand") or [])
    pool = FULL_DECK - seen
    return pool


def value_counts(pool: Mapping[str, int]) -> dict[int, int]:
    """How many cards of each point value the pool holds."""
    counts: dict[int, int] = {}
    for card, n in pool.items():
        value = POINTS_OF[card]
        counts[value] = counts.get(value, 0) + n
    return counts


class SumTable:
    """P(a random k-card subset of the pool totals s), for k <= kmax and s <= smax.

    >>> t = SumTable({0: 1, 5: 2}, kmax=2, smax=10)
    >>> round(t.probability(1, 5), 3), round(t.probability(2, 10), 3)
    (0.667, 0.333)
    """

    def __init__(self, values: Mapping[int, int], kmax: int, smax: int) -> None:
        self.size = sum(values.values())
        self.kmax = min(kmax, MAX_TRACKED_HAND, self.size)
        self.smax = max(smax, 0)
        self._rows = self._build(values)

    def _build(self, values: Mapping[int, int]) -> list[int]:
        width = (self.smax + 1) * _SLOT
        mask = (1 << width) - 1
        rows = [1] + [0] * self.kmax  # row c: coefficient of x**s in slot s
        for value, copies in values.items():
            if copies <= 0:
                continue
            old = list(rows)
            for j in range(1, min(copies, self.kmax) + 1):
                shift = j * value * _SLOT
                if shift >= width:
                    break
                ways = comb(copies, j)
                for c in range(self.kmax - j + 1):
                    if old[c]:
                        rows[c + j] += ((old[c] << shift) & mask) * ways
        return rows

    def probability(self, k: int, s: int) -> float:
        """The chance that k unseen cards total exactly s points."""
        if k <= 0 or k > self.kmax or not 0 <= s <= self.smax:
            return 0.0
        ways = (self._rows[k] >> (s * _SLOT)) & _SLOT_MASK
        return ways / comb(self.size, k)


class Table:
    """The table as one seat sees it: its hand, the opponents' counts and the unseen pool."""

    def __init__(self, view: View, events: Sequence[Event] | None, smax: int = 60) -> None:
        self.view = view
        self.me: int = view["seat"]
        self.hand: list[str] = list(view.get("hand") or [])
        self.my_points = points(self.hand)
        counts: list[int] = list(view["hand_counts"])
        self.counts = counts
        self.opponents = [s for s in range(len(counts)) if s != self.me and counts[s] > 0]
        self.pool = unseen_pool(view, events)
        self.values = value_counts(self.pool)
        self.pool_size = sum(self.values.values())
        self.mean_value = (
            sum(v * n for v, n in self.values.items()) / self.pool_size if self.pool_size else 0.0
        )
        kmax = max((counts[s] for s in self.opponents), default=0)
        self.sums = SumTable(self.values, kmax, smax)
        self._danger: dict[int, float] = {}

    def hit_chance(self, seat: int, total: int) -> float:
        """The chance that ``seat``'s hand totals ``total`` (R9.1)."""
        return self.sums.probability(self.counts[seat], total)

    def danger(self, total: int, exclude: int | None = None) -> float:
        """The chance that at least one opponent may dobon a play worth ``total``."""
        if exclude is None and total in self._danger:
            return self._danger[total]
        safe = 1.0
        for seat in self.opponents:
            if seat != exclude:
                safe *= 1.0 - self.hit_chance(seat, total)
        if exclude is None:
            self._danger[total] = 1.0 - safe
        return 1.0 - safe

    def value_share(self, value: int) -> float:
        """The share of unseen cards worth exactly ``value`` points."""
        return self.values.get(value, 0) / self.pool_size if self.pool_size else 0.0

    def opponents_points(self) -> float:
        """The expected points in the opponents' hands together."""
        return sum(self.counts[s] for s in self.opponents) * self.mean_value
