"""What one seat can know, rebuilt from its view and its events alone.

A policy is a pure function of ``(level, seed, view, events)``: nothing here keeps state
between calls. Card tracking is recomputed from the event log on every decision, which
is cheap (one pass over the log) because only ``start`` and ``play`` events matter.

The danger of a play (RULES.md §R9.1: a seat whose hand total equals the play's points may
dobon) is the chance that some opponent's hand total equals the play's points. An
opponent's hand is modelled as a uniformly random subset of the cards this seat has not
seen, of the size the view shows. The distribution of the sum of such a subset comes
from a small dynamic programme over point values (14 distinct values), packed into
Python integers so that one row of sums is one big-int operation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property, lru_cache
from math import comb
from typing import Any

from game.rules.dobon_uno.cards import CARDS, CODE, ID_OF, IS_NUMBER, POINTS, full_deck
from game.rules.dobon_uno.house_game import expression

View = Mapping[str, Any]
Event = Mapping[str, Any]

# Hands bigger than this are treated as never totalling a play's points: the chance is
# negligible (ten cards summing to 50 or less) and it keeps the table small.
MAX_TRACKED_HAND = 9

POINTS_OF: dict[str, int] = {CODE[i]: POINTS[i] for i in range(len(CARDS))}
IS_ACTION: dict[str, bool] = {CODE[i]: not IS_NUMBER[i] for i in range(len(CARDS))}
# How many cards of the deck (§R2) are worth each point value.
FULL_VALUES: dict[int, int] = dict(sorted(Counter(POINTS[i] for i in full_deck()).items()))


def points(cards: Iterable[str]) -> int:
    """§R2.3: the points of a set of cards."""
    return sum(POINTS_OF[c] for c in cards)


def color_of(card: str) -> str | None:
    """The printed colour of a card (``None`` for W and W+4)."""
    color = CARDS[ID_OF[card]].color
    return None if color is None else color.value


def declaration_holds(view: View) -> bool:
    """Whether this seat's whole hand makes the last play's points, as the rules in force
    judge a dobon or a return (§R9.1, §R10.1; HOUSE-RULES.md §H8 four operations, §H9 number
    cards only). Under §H10 the engine does not say, and a false declaration is fined."""
    hand = list(view.get("hand") or [])
    last = view.get("last_play") or {}
    if not hand or last.get("seat") is None or last.get("seat") == view.get("seat") and (
            view.get("phase") != "return_wait"):
        return False
    rules = view.get("house_rules") or {}
    if rules.get("number_only_dobon") and any(IS_ACTION[c] for c in hand):
        return False
    made = expression([POINTS_OF[c] for c in hand], int(last["points"]),
                      bool(rules.get("arithmetic_dobon")))
    return made is not None


def seen_values(view: View, events: Sequence[Event] | None) -> dict[int, int]:
    """How many cards of each point value this seat has seen face up or holds: its hand,
    and (given the events) the first card, every play, and hands revealed by a dobon
    (§R9.5). ``events=None`` is a seat that remembers nothing but its own hand."""
    cards: list[str] = list(view.get("hand") or [])
    if events is not None:
        for event in events:
            kind = event.get("type")
            if kind == "play":
                cards += event["cards"]
            elif kind == "start":
                cards.append(event["top"])
        me = view.get("seat")
        for seat, hand in enumerate(view.get("revealed") or []):
            if hand is not None and seat != me:
                cards += hand
    seen: dict[int, int] = {}
    for card in cards:
        value = POINTS_OF[card]
        seen[value] = seen.get(value, 0) + 1
    return seen


def unseen_values(view: View, events: Sequence[Event] | None) -> dict[int, int]:
    """How many unseen cards (the deck and the other hands) are worth each point value.

    Point values tell number cards (0-9) from action cards (10 and more) as well."""
    seen = seen_values(view, events)
    return {v: n - seen.get(v, 0) for v, n in FULL_VALUES.items() if n > seen.get(v, 0)}


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
        # One slot per sum, wide enough for the largest coefficient: C(size, kmax) subsets.
        self._slot = max(comb(self.size, k) for k in range(self.kmax + 1)).bit_length() + 1
        self._rows = self._build(values)

    def _build(self, values: Mapping[int, int]) -> list[int]:
        slot = self._slot
        width = (self.smax + 1) * slot
        mask = (1 << width) - 1
        rows = [1] + [0] * self.kmax  # row c: coefficient of x**s in slot s
        for value, copies in values.items():
            if copies <= 0:
                continue
            old = list(rows)
            for j in range(1, min(copies, self.kmax) + 1):
                shift = j * value * slot
                if shift >= width:
                    break
                ways = comb(copies, j)
                keep = mask >> shift  # the sums that stay within smax once shifted
                for c in range(self.kmax - j + 1):
                    if old[c]:
                        rows[c + j] += ((old[c] & keep) << shift) * ways
        return rows

    def probability(self, k: int, s: int) -> float:
        """The chance that k unseen cards total exactly s points."""
        if k <= 0 or k > self.kmax or not 0 <= s <= self.smax:
            return 0.0
        ways = (self._rows[k] >> (s * self._slot)) & ((1 << self._slot) - 1)
        return ways / comb(self.size, k)


@lru_cache(maxsize=1024)
def sum_table(values: tuple[tuple[int, int], ...], kmax: int, smax: int) -> SumTable:
    """A shared SumTable: a pure function of its arguments, so caching it is safe (seats
    are often asked again before anything they can see has changed)."""
    return SumTable(dict(values), kmax, smax)


def ruled_out_totals(events: Sequence[Event], seats: Sequence[int]) -> dict[int, set[int]]:
    """Totals each of ``seats`` cannot hold, since plays it let pass without a dobon.

    Every level declares every dobon it can (§R9), and a seat is told of its chance
    (§R9.3), so when a play's window closed with the game going on, no seat whose hand
    has not changed since could dobon it: its total is not that play's points. A window
    cut short by a cut-in (§R7.2a) proves nothing; nor does the last play while its window
    may still be open, nor the first card (§R3.4).
    """
    ruled: dict[int, set[int]] = {s: set() for s in seats}
    changed: set[int] = set()
    closed = False          # a later turn action closed the window of the play met next
    by_cut_in = False       # ... and the first later play was a cut-in
    for event in reversed(events):
        kind = event.get("type")
        if kind == "play":
            player = event["seat"]
            if closed and not by_cut_in:
                for seat in seats:
                    if seat != player and seat not in changed:
                        ruled[seat].add(event["points"])
            changed.add(player)
            closed, by_cut_in = True, bool(event.get("cut_in"))
        elif kind in ("draw", "take", "pass"):
            changed.add(event["seat"])
            closed, by_cut_in = True, False
        elif kind == "swap":  # §H6: hands moved without a draw or a play
            changed.update((event["seat"], event["target"]))
        elif kind == "rotate":
            changed.update(seats)
        elif kind == "start" or kind == "dobon":
            break
        if len(changed) >= len(seats) and all(s in changed for s in seats):
            break
    return ruled


@lru_cache(maxsize=1024)
def pair_chance(values: tuple[tuple[int, int], ...], total: int) -> float:
    """§H8: the chance that two random unseen cards make ``total`` by +, −, × or ÷.

    >>> round(pair_chance(((2, 1), (3, 1), (5, 1)), 6), 3)  # 2 × 3 of three pairs
    0.333
    """
    size = sum(n for _, n in values)
    if size < 2:
        return 0.0
    ways = 0
    for i, (a, na) in enumerate(values):
        for b, nb in values[i:]:
            pairs = na * (na - 1) // 2 if a == b else na * nb
            if pairs and expression([a, b], total, True) is not None:
                ways += pairs
    return ways / comb(size, 2)


class Table:
    """The table as one seat sees it: its hand, the opponents' counts and the unseen pool."""

    def __init__(self, view: View, events: Sequence[Event] | None, smax: int = 60,
                 infer: bool = True, watch: int = MAX_TRACKED_HAND) -> None:
        self.view = view
        self.me: int = view["seat"]
        self.hand: list[str] = list(view.get("hand") or [])
        self.my_points = points(self.hand)
        counts: list[int] = list(view["hand_counts"])
        self.counts = counts
        self.opponents = [s for s in range(len(counts)) if s != self.me and counts[s] > 0]
        # The opponents whose danger is reckoned: those holding at most ``watch`` cards.
        self.watched = [s for s in self.opponents if counts[s] <= watch]
        self.values = unseen_values(view, events)
        self.arithmetic = bool((view.get("house_rules") or {}).get("arithmetic_dobon"))
        self.pool_size = sum(self.values.values())
        self.mean_value = (
            sum(v * n for v, n in self.values.items()) / self.pool_size if self.pool_size else 0.0
        )
        # What the log proves about the opponents' totals (only a seat that reads it). With
        # number-only dobon (§H9) a hand of the play's points may hold an action card and so
        # let the play pass: nothing is proven.
        infer = infer and not (view.get("house_rules") or {}).get("number_only_dobon")
        self.ruled: dict[int, set[int]] = (
            ruled_out_totals(events, self.watched) if events is not None and infer else {}
        )
        self.smax = max([smax] + [min(t, 100) for r in self.ruled.values() for t in r])
        self._danger: dict[int, float] = {}

    @cached_property
    def sums(self) -> SumTable:
        """Built on first use: many decisions never need a play's danger."""
        kmax = max((self.counts[s] for s in self.watched), default=0)
        return sum_table(tuple(sorted(self.values.items())), kmax, self.smax)

    def hit_chance(self, seat: int, total: int) -> float:
        """The chance that ``seat``'s hand totals ``total`` (§R9.1), given the totals the
        log rules out for it. Under four-operation dobon (§H8) a two-card hand may also
        make it by −, × or ÷ (the log's inference is left out there)."""
        k = self.counts[seat]
        if k == 2 and self.arithmetic:
            return pair_chance(tuple(sorted(self.values.items())), total)
        ruled = self.ruled.get(seat)
        if not ruled:
            return self.sums.probability(k, total)
        if total in ruled:
            return 0.0
        left = 1.0 - sum(self.sums.probability(k, t) for t in ruled)
        return self.sums.probability(k, total) / left if left > 1e-9 else 0.0

    def danger(self, total: int) -> float:
        """The chance that at least one opponent may dobon a play worth ``total``."""
        if total in self._danger:
            return self._danger[total]
        safe = 1.0
        for seat in self.watched:
            safe *= 1.0 - self.hit_chance(seat, total)
        self._danger[total] = 1.0 - safe
        return 1.0 - safe

    def value_share(self, value: int) -> float:
        """The share of unseen cards worth exactly ``value`` points."""
        return self.values.get(value, 0) / self.pool_size if self.pool_size else 0.0

    def opponents_points(self) -> float:
        """The expected points in the opponents' hands together."""
        return sum(self.counts[s] for s in self.opponents) * self.mean_value
