"""How a trump round ended and what it is worth (TRUMP-RULES.md §T15, §T16, §T20.7)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from .cards import AU_VALUE, BASE, CODE, JOKER, NUMBER, SUIT, SUIT_SHIFT

Payment = tuple[int, int, int]
Bonus = tuple[int, str, int]


@dataclass(frozen=True, slots=True)
class Result:
    """The settlement of a finished round (§T20.7).

    au: ``payments`` move points between seats and ``deltas`` (= ``scores``) sum to 0;
    standard: ``scores`` (= ``deltas``) are §T16's round scores, lower is better.

    >>> from .cards import parse_cards
    >>> r = settle_au_agari(0, [[], parse_cards(["S13", "D3"]), parse_cards(["C2", "H8", "D12"])])
    >>> r.payments, r.deltas, r.score_order
    ([(1, 0, 13), (2, 0, 40)], [53, -13, -40], 'high')
    """

    kind: str
    winners: list[int]
    losers: list[int]
    payments: list[Payment]
    scores: list[int]
    score_order: str
    hand_points: list[int]
    next_first_player: int | None
    chain: list[tuple[int, str]] | None = None
    multiplier: int | None = None
    target: list[str] | None = None
    worst: int | None = None
    bonuses: list[Bonus] | None = None
    rate: int = 1

    @property
    def deltas(self) -> list[int]:
        """Each seat's change of total: the scores (§T20.7)."""
        return self.scores

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe, the shape of docs/trump-engine.md."""
        return {
            "kind": self.kind,
            "winners": list(self.winners),
            "losers": list(self.losers),
            "payments": [list(p) for p in self.payments],
            "scores": list(self.scores),
            "deltas": list(self.scores),
            "score_order": self.score_order,
            "hand_points": list(self.hand_points),
            "chain": None if self.chain is None else [list(c) for c in self.chain],
            "multiplier": self.multiplier,
            "target": None if self.target is None else list(self.target),
            "worst": self.worst,
            "bonuses": None if self.bonuses is None else [list(b) for b in self.bonuses],
            "next_first_player": self.next_first_player,
            "rate": self.rate,
        }

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Result:
        """The inverse of :meth:`to_dict`."""
        return Result(
            kind=str(d["kind"]),
            winners=[int(s) for s in d["winners"]],
            losers=[int(s) for s in d["losers"]],
            payments=[(int(a), int(b), int(p)) for a, b, p in d["payments"]],
            scores=[int(x) for x in d["scores"]],
            score_order=str(d["score_order"]),
            hand_points=[int(x) for x in d["hand_points"]],
            next_first_player=(None if d["next_first_player"] is None
                               else int(d["next_first_player"])),
            chain=None if d["chain"] is None else [(int(s), str(k)) for s, k in d["chain"]],
            multiplier=None if d["multiplier"] is None else int(d["multiplier"]),
            target=None if d["target"] is None else [str(c) for c in d["target"]],
            worst=None if d["worst"] is None else int(d["worst"]),
            bonuses=(None if d["bonuses"] is None
                     else [(int(s), str(n), int(p)) for s, n, p in d["bonuses"]]),
            rate=int(d["rate"]),
        )


def result_to_dict(result: Result) -> dict[str, Any]:
    """The JSON form of a result (as ``game.rules.result_to_dict`` for Dobon UNO)."""
    return result.to_dict()


# ---------------------------------------------------------------------------- au (§T15)

def au_points(cards: list[int]) -> int:
    """§T15.1: V(X) x 2^t(X), t the number of 2s.

    >>> au_points([0, 14, 27, 43, 10])   # S1 H2 D2 C5 S11: 29 x 2^2
    116
    """
    value = twos = 0
    for c in cards:
        value += AU_VALUE[c]
        twos += NUMBER[c] == 2
    return value << twos


def _au_hand_points(hands: list[list[int]]) -> list[int]:
    return [sum(AU_VALUE[c] for c in h) for h in hands]


def settle_au_agari(stopper: int, hands: list[list[int]]) -> Result:
    """§T15.2: every other seat pays the stopper the points of its own hand."""
    n = len(hands)
    scores = [0] * n
    payments: list[Payment] = []
    for s in range(n):
        if s != stopper:
            p = au_points(hands[s])
            if p:
                payments.append((s, stopper, p))
                scores[s] -= p
                scores[stopper] += p
    return Result("agari", [stopper], [s for s in range(n) if s != stopper], payments,
                  scores, "high", _au_hand_points(hands), stopper)


def settle_au_chain(player: int, card: int, chain: list[tuple[int, str]],
                    hands: list[list[int]]) -> Result:
    """§T12.3, §T15.3: the last declaration wins from the one before it (or from the player
    of the card), paying points(W's hand + L's hand + the card) x 2^d."""
    n = len(hands)
    winner = chain[-1][0]
    loser = chain[-2][0] if len(chain) > 1 else player
    cards = hands[winner] + hands[loser] + [card]
    twos = sum(NUMBER[c] == 2 for c in cards)
    multiplier = 1 << (twos + len(chain))
    points = sum(AU_VALUE[c] for c in cards) * multiplier
    scores = [0] * n
    scores[loser], scores[winner] = -points, points
    payments = [(loser, winner, points)] if points else []
    return Result("return" if chain[-1][1] == "return" else "dobon", [winner], [loser],
                  payments, scores, "high", _au_hand_points(hands), winner,
                  chain=list(chain), multiplier=multiplier)


def settle_au_deck_out(first_player: int, hands: list[list[int]]) -> Result:
    """§T9.4, §T15.5: no winner, no payment; the first player stays."""
    n = len(hands)
    return Result("deck_out", [], [], [], [0] * n, "high", _au_hand_points(hands),
                  first_player)


# ---------------------------------------------------------------------- standard (§T16)

def base_points(cards: list[int]) -> int:
    """§T16.1: numbers, 10 and above counting 10, a JK 0."""
    return sum(BASE[c] for c in cards)


def is_flush(cards: list[int]) -> bool:
    """All of one printed suit; a JK has none (§T16.4, §T21.38)."""
    suits = {SUIT[c] for c in cards}
    return len(suits) == 1 and -1 not in suits


def is_storm(hand: list[int]) -> bool:
    """Three cards or more of one number (§T16.4)."""
    return bool(hand) and max(Counter(NUMBER[c] for c in hand).values()) >= 3


def yaku_pattern(hand: list[int]) -> str | None:
    """§T8.3: the 役 five cards form, or ``None``.

    >>> from .cards import parse_cards
    >>> yaku_pattern(parse_cards(["S10", "S11", "S12", "S13", "S1"]))
    'straight_flush'
    >>> yaku_pattern(parse_cards(["S5", "H5", "D5", "JK", "JK"]))
    'full_house'
    >>> yaku_pattern(parse_cards(["S12", "H13", "D1", "C2", "S3"])) is None
    True
    """
    if len(hand) != 5:
        return None
    numbers = [NUMBER[x] for x in hand]
    kinds = len(set(numbers))
    if kinds == 2:  # 4 + 1 or 3 + 2
        return "four" if numbers.count(numbers[0]) in (1, 4) else "full_house"
    s0 = SUIT[hand[0]]
    flush = s0 >= 0 and all(SUIT[x] == s0 for x in hand)
    straight = False
    if kinds == 5 and 0 not in numbers:  # a JK (0) is never part of a straight
        low, high = min(numbers), max(numbers)
        # A low (A-2-3-4-5), or high (10-J-Q-K-A: the A and four cards from 10 up)
        straight = high - low == 4 or (low == 1 and high == 13 and sorted(numbers)[1] == 10)
    if straight:
        return "straight_flush" if flush else "straight"
    return "flush" if flush else None


def _number_patterns() -> dict[int, str]:
    """The number part of every five-card signature that is a four, a full house or a
    straight (§T8.3)."""
    def sig(numbers: list[int]) -> int:
        return sum(1 << (3 * n) for n in numbers)
    table: dict[int, str] = {}
    for a in range(14):
        for b in range(14):
            if a != b:
                if a:  # four jokers do not exist; four of a number and any fifth card
                    table[sig([a] * 4 + [b])] = "four"
                if a:  # three of a number (never jokers) and a pair (two jokers pair)
                    table[sig([a] * 3 + [b] * 2)] = "full_house"
    for low in range(1, 10):
        table[sig(list(range(low, low + 5)))] = "straight"
    table[sig([10, 11, 12, 13, 1])] = "straight"
    return table


_NUMBER_PATTERNS = _number_patterns()
_NUMBER_BITS = (1 << SUIT_SHIFT) - 1
_FLUSH_WORDS = frozenset(5 << (4 * s) for s in range(4))


def yaku_of_signature(signature: int) -> str | None:
    """``yaku_pattern`` of a five-card hand from its signature (cards.SIG summed).

    >>> from .cards import SIG, parse_cards
    >>> yaku_of_signature(sum(SIG[c] for c in parse_cards(["H3", "H4", "H5", "H6", "H7"])))
    'straight_flush'
    """
    pattern = _NUMBER_PATTERNS.get(signature & _NUMBER_BITS)
    if (signature >> SUIT_SHIFT) in _FLUSH_WORDS:
        return "straight_flush" if pattern == "straight" else "flush"
    return pattern


@dataclass(frozen=True, slots=True)
class StandardEnd:
    """What §T16 needs to know of a finished standard round, besides the hands."""

    kind: str                         # agari, dobon, return, deck_out
    winners: list[int]
    losers: list[int]
    target: list[int]                 # the (cut) target of a dobon, or what a return answered
    dobons: list[tuple[int, list[int], bool]]   # per standing dobon: declarer, its hand, quick
    returns: list[tuple[int, list[int]]]         # per return: returner, its hand
    answered: list[int]               # a return: every card the declarers put out
    went_out: int                     # the seat that went out with the dobon'd play, or -1
    auction: tuple[int, int] | None   # (winner, bid) of the auction
    yaku: list[int]                   # seats that declared 役
    streaks: list[int]                # rounds won in a row up to the previous round


def settle_standard(end: StandardEnd, hands: list[list[int]]) -> Result:
    """§T16.3-§T16.7: round scores and bonuses from the final hands."""
    n = len(hands)
    base = [base_points(h) for h in hands]
    losers = set(end.losers)
    winners = set(end.winners)
    worst = max((base[s] for s in range(n) if s not in losers), default=0)
    bonuses: list[tuple[int, str, int]] = []
    target_cards = end.target
    if end.kind == "dobon":
        multi = len(target_cards) >= 2
        disrupt = end.went_out >= 0
        for seat, hand, quick in end.dobons:
            joker = bool(hand) and all(c == JOKER for c in hand)
            if multi:
                bonuses.append((seat, "multi", -100))
            if joker:
                bonuses.append((seat, "joker", -100))
                bonuses += [(s, "joker", worst * 2) for s in end.losers]
            if not joker and is_flush(hand + target_cards):
                bonuses.append((seat, "flush", -50))
            if is_storm(hand):
                bonuses.append((seat, "storm", -100))
            if disrupt:
                bonuses.append((seat, "disrupt", -50))
            if quick:
                bonuses.append((seat, "quick", -100))
                bonuses += [(s, "quick", worst * 2) for s in end.losers]
    elif end.kind == "return":
        for seat, hand in end.returns:
            if is_flush(hand + end.answered):
                bonuses.append((seat, "flush", -50))
            if is_storm(hand):
                bonuses.append((seat, "storm", -100))
    for s in sorted(winners):
        if end.streaks[s] >= 2:
            bonuses.append((s, "slam", -50))
    if end.auction is not None:
        seat, bid = end.auction
        bonuses.append((seat, "auction", -50 if seat in winners else bid))
    for s in end.yaku:
        if s in winners:
            bonuses.append((s, "yaku", -100))
    scores = []
    for s in range(n):
        if s in losers:
            score = worst * len(winners) * 2 if end.kind == "dobon" else worst * 6
        else:
            score = base[s]
        scores.append(score + sum(p for seat, _, p in bonuses if seat == s))
    return Result(end.kind, sorted(winners), sorted(losers), [], scores, "low", base, None,
                  target=[CODE[c] for c in target_cards],
                  worst=worst if losers else None, bonuses=bonuses)
