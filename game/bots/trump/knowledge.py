"""What a trump seat can know from its own view (TRUMP-RULES.md §T19): card numbers and
values, the cards it has not seen, and the chance that a hidden hand sums to a number.

Cards are the engine's codes (``"S1"`` … ``"C13"``, ``"JK"``); nothing here imports the
engine: a policy reads only its view.

>>> number("H12"), au_value("H12"), base("H12"), au_points(["S2", "D5"])
(12, 10, 10, 14)
>>> pool = Pool(["S1", "H1", "D2", "C9"])
>>> round(pool.chance(2, 2), 3)  # two of the four hidden cards are the two aces
0.167
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from math import comb
from typing import Any

View = Mapping[str, Any]
Event = Mapping[str, Any]

SUITS = ("S", "H", "D", "C")
PAIR = {"S": "C", "C": "S", "H": "D", "D": "H"}  # §T2.5
# Hidden hands larger, or sums higher, than these are not weighed (rare dobons; keeps a
# decision within a few milliseconds).
MAX_CARDS = 9
MAX_SUM = 60


def number(code: str) -> int:
    """§T2.2: A 1 … K 13, JK 0 (matching, dobon and 役 use it)."""
    return 0 if code == "JK" else int(code[1:])


def suit(code: str) -> str | None:
    """The printed suit; a joker has none."""
    return None if code == "JK" else code[0]


def au_value(code: str) -> int:
    """§T15.1: A, J, Q, K count 10."""
    n = number(code)
    return 10 if n in (1, 11, 12, 13) else n


def base(code: str) -> int:
    """§T16.1: numbers of 10 and above count 10, JK 0."""
    return min(number(code), 10)


def au_points(cards: Iterable[str]) -> int:
    """§T15.1: V(X) × 2^t(X), t the number of 2s."""
    cards = list(cards)
    return sum(au_value(c) for c in cards) << sum(1 for c in cards if number(c) == 2)


def hand_sum(cards: Iterable[str]) -> int:
    return sum(number(c) for c in cards)


def pack(preset: str) -> list[str]:
    """§T2: 52 cards, and two jokers in standard."""
    cards = [f"{s}{n}" for s in SUITS for n in range(1, 14)]
    return cards + (["JK", "JK"] if preset == "standard" else [])


def remove(cards: list[str], gone: Iterable[str]) -> None:
    """Take each of ``gone`` out of ``cards`` once, where it is there."""
    for code in gone:
        if code in cards:
            cards.remove(code)


def plays(view: View) -> list[str]:
    """Every card played this round, in order (§T13.1 records)."""
    return [r["play"] for r in view["records"] if "play" in r]


def known_discards(view: View) -> list[str]:
    """The cards under the field card that the records show: the last ``discard_count``
    plays before the top (a reshuffle takes every older one back into the deck, §T9.2)."""
    played = plays(view)
    under = played[:-1] if played and played[-1] == view["top"] else played
    count = view["discard_count"]
    return under[-count:] if count else []


def exposed_of(view: View, seat: int) -> list[str]:
    """Cards of another seat everyone has seen and it still holds (a standard 役, §T8.3)."""
    exposed = view.get("exposed") or []
    return list(exposed[seat] or []) if seat < len(exposed) else []


class Pool:
    """Cards this seat has not seen, counted by number: hidden hands are drawn from them
    as random subsets of their size (the model the chances below rest on)."""

    def __init__(self, cards: Iterable[str]) -> None:
        self.cards = list(cards)
        self.by_number = [0] * 14  # index 0: jokers
        for code in self.cards:
            self.by_number[number(code)] += 1
        self.size = sum(self.by_number)
        self._ways: list[list[float]] | None = None
        self._kmax = self._smax = 0

    @classmethod
    def unseen(cls, view: View, memory: bool) -> Pool:
        """Without memory: every card but its own hand and the field card (normal level).
        With memory: also the discards the records show and every card another seat has
        put on view (revealed hands, exposed 役 cards)."""
        cards = pack(view["preset"])
        remove(cards, view["hand"])
        remove(cards, [view["top"]])
        if memory:
            remove(cards, known_discards(view))
            for seat, shown in enumerate(view.get("revealed") or []):
                if seat != view["seat"] and shown:
                    remove(cards, shown)
            for seat in range(view["players"]):
                if seat != view["seat"]:
                    remove(cards, exposed_of(view, seat))
        return cls(cards)

    def share(self, n: int) -> float:
        """The chance that one unseen card has number ``n``."""
        return self.by_number[n] / self.size if self.size and 0 <= n <= 13 else 0.0

    def reserve(self, kmax: int, smax: int) -> None:
        """Build the table for hands of up to ``kmax`` cards and sums up to ``smax`` at
        once, so that a decision's questions share it."""
        kmax, smax = min(kmax, MAX_CARDS), min(smax, MAX_SUM)
        if self._ways is None or kmax > self._kmax or smax > self._smax:
            self._kmax, self._smax = max(kmax, self._kmax), max(smax, self._smax)
            self._ways = self._build(self._kmax, self._smax)

    def _build(self, kmax: int, smax: int) -> list[list[float]]:
        """ways[k][s]: how many k-card subsets without a joker sum to s."""
        ways = [[0.0] * (smax + 1) for _ in range(kmax + 1)]
        ways[0][0] = 1.0
        for n in range(1, 14):
            m = self.by_number[n]
            if not m:
                continue
            for k in range(kmax, 0, -1):  # downwards: each number's group is taken once
                row = ways[k]
                for j in range(1, min(m, k) + 1):
                    src, factor, shift = ways[k - j], comb(m, j), j * n
                    for s in range(shift, smax + 1):
                        w = src[s - shift]
                        if w:
                            row[s] += factor * w
        return ways

    def chance(self, k: int, total: int) -> float:
        """The chance that a hidden hand of ``k`` cards sums to ``total`` and holds either
        no joker or only jokers (§T13.2; au has no joker). Hands of more than MAX_CARDS
        cards and sums above MAX_SUM are taken as 0: such hands are rarely dobon'd."""
        if k <= 0 or total < 0 or k > self.size:
            return 0.0
        only_jokers = comb(self.by_number[0], k) if total == 0 else 0
        if total < k or k > MAX_CARDS or total > MAX_SUM:
            return only_jokers / comb(self.size, k)
        self.reserve(k, total)
        assert self._ways is not None
        return (self._ways[k][total] + only_jokers) / comb(self.size, k)

    def mean_number(self) -> float:
        return sum(n * m for n, m in enumerate(self.by_number)) / self.size if self.size else 7.0


def au_matches(field_suit: str, field_number: int) -> Callable[[str], bool]:
    """§T5.3 (au): whether a card may be played on this field (its suit or its number)."""
    return lambda code: code[0] == field_suit or number(code) == field_number


def field_before(view: View, events: Sequence[Event], index: int) -> tuple[str, int] | None:
    """au: the field suit and number before record ``index``: the latest play before it
    (an 8 with the suit it named, §T6.2), else the first field card from the ``start``
    event; ``None`` when neither is known."""
    for record in reversed(view["records"][:index]):
        if "play" in record:
            code = record["play"]
            return record.get("suit") or code[0], number(code)
    start = next((e for e in events if e.get("type") == "start"), None)
    top = start.get("top") if start else None
    return (top[0], number(top)) if isinstance(top, str) and top != "JK" else None


def chance_any(chances: Sequence[float]) -> float:
    """The chance that at least one of several independent events happens."""
    miss = 1.0
    for p in chances:
        miss *= 1.0 - p
    return 1.0 - miss
