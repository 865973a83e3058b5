"""Levels "normal" and "strong": every turn option valued in expected points.

Both take every dobon and return (common.certain), declare last one with the play that
leaves one card (§T8.1) and declare a 役 when they may (§T8.3). On turn they value each
card they may play (with the suit it names chosen for the cards they keep) and the draw:

- au (§T15): points shed from the hand a stop would make it pay (2s double it), one card
  nearer its own stop, the chance that an opponent's hand sums to the card's number (§T11)
  times what that dobon costs, unless the hand left sums to the same number so that the
  dobon would be returned (§T12); a stop is worth the opponents' hands; a 2 makes the next
  seat play a 2 or draw (§T6.1).
- standard (§T16, lower is better): base points shed, one card nearer going out, the
  chance that an opponent's hand sums to the sum of one of the card's runs' tails (§T13.3),
  attack cards passed on under しばり (§T7.3), a lone joker that could never go out (§T8.2).

"normal" remembers no card: its chances treat every card but its hand and the field card
as unseen; it bids 1, or 3 on a hand of few points. "strong" rebuilds what it has seen
(the discards the records show, revealed and exposed cards), counts exposed 役 cards into
their holder's hand, values its own dobon chances on the hand it keeps and the returns it
could make (au), holds back and starves a next seat near going out (au: a field it is
unlikely to match), and bids to play first in standard (§T16.5; StrongPolicy.bid).
The weights were chosen by A/B tournaments (docs/cpu-players.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..base import Action
from .common import bid, bid_range, certain, find, named_play, suit_weights
from .knowledge import (
    Event,
    Pool,
    View,
    au_matches,
    au_points,
    base,
    chance_any,
    exposed_of,
    field_before,
    hand_sum,
    number,
)


def base_sum(cards: Sequence[str]) -> int:
    return sum(base(c) for c in cards)


@dataclass(frozen=True)
class Weights:
    """A level's weights, in points of its preset's settlement."""

    memory: bool         # counts the cards it has seen (strong)
    own_dobon: float     # its own dobon chances on the hand it keeps (0: not weighed)
    risk: float          # a dobon on its play costs this many times the estimate
    per_card: float      # a card fewer: nearer going out
    hold: float          # a point of hand value shed
    attack: float        # a 2 (au) or an attack card (standard) played on the next seat
    draw: float          # the tempo a draw loses
    threat: float = 0.0  # hand value weighs more as an opponent nears going out
    block: float = 0.0   # holding back a next seat that is about to go out
    plan_return: bool = False  # au: keeps a hand that would return a dobon (§T12.1)
    starve: float = 0.0  # au: leaves a field the next seat is unlikely to match


NORMAL = Weights(memory=False, own_dobon=0.0, risk=1.0, per_card=5.0, hold=0.5,
                 attack=4.0, draw=6.0)
STRONG = Weights(memory=True, own_dobon=0.6, risk=1.4, per_card=6.0, hold=0.6,
                 attack=6.0, draw=8.0, threat=1.0, block=10.0, plan_return=True,
                 starve=12.0)


class _Player:
    level = ""
    weights = NORMAL

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def act(self, view: View, events: Sequence[Event]) -> Action | None:
        legal: list[Action] = view["legal_actions"]
        chosen = certain(legal)
        if chosen is not None or not legal:
            return chosen
        bounds = bid_range(legal)
        if bounds is not None:
            return bid(self.bid(view), bounds)
        for kind in ("yaku", "last_one"):  # §T8.3, §T8.1: declared whenever it may be
            chosen = find(legal, kind)
            if chosen is not None:
                return chosen
        if view["turn"] != view["seat"]:
            return None  # only a decline is left: the chance lapses by itself
        judge = (_Au if view["preset"] == "au" else _Standard)(view, self.weights, events)
        return judge.best(legal)

    def bid(self, view: View) -> int:
        """§T16.5: the auction's winner scores −50 when it wins the round, else its bid. A
        little on a hand with few points, the least otherwise."""
        return 3 if base_sum(view["hand"]) <= 20 else 1


class NormalPolicy(_Player):
    level = "normal"
    weights = NORMAL


class StrongPolicy(_Player):
    level = "strong"
    weights = STRONG

    def bid(self, view: View) -> int:
        """§T16.5: the auction's winner plays first and scores −50 when it wins the round,
        else its bid. Playing first wins rounds so often (quick dobons, the first chance
        to go out) that the auction is worth a real bid: measured by tournaments, always
        winning it at 2 gained about 20 points a round against bids of 1, and bids up
        to about 40 still paid (docs/cpu-players.md). More on a hand of few points."""
        return 15 if base_sum(view["hand"]) <= 25 else 12


class _Judge:
    """Values of the options of the seat on turn, in points good for it."""

    def __init__(self, view: View, weights: Weights, events: Sequence[Event] = ()) -> None:
        self.view, self.w, self.events = view, weights, events
        self.me: int = view["seat"]
        self.hand: list[str] = list(view["hand"])
        self.counts: list[int] = view["hand_counts"]
        self.opponents = [s for s in range(view["players"]) if s != self.me and self.counts[s]]
        self.pool = Pool.unseen(view, weights.memory)
        fewest = min((self.counts[s] for s in self.opponents), default=5)
        # Hand value is paid when someone else ends the round: sooner, the fewer cards
        # the closest opponent holds.
        self.hold = weights.hold * (1 + weights.threat / max(fewest, 1))
        self.next_seat = (self.me + view["direction"]) % view["players"]

    def block(self, card: str) -> float:
        """A card that holds back the next seat (a 2 in au; an attack card or a skip in
        standard) is worth more when that seat is one or two cards from going out."""
        left = self.counts[self.next_seat]
        return self.w.block * (3 - left) if 0 < left <= 2 else 0.0

    def best(self, legal: Sequence[Action]) -> Action | None:
        by_card: dict[str, list[Action]] = {}
        for action in legal:
            if action["type"] == "play":
                by_card.setdefault(action["cards"][0], []).append(action)
        best: Action | None = find(legal, "draw")
        best_value = self.draw() if best is not None else float("-inf")
        for card, options in by_card.items():
            rest = list(self.hand)
            rest.remove(card)
            declared = [a for a in options if a.get("last_one")]
            chosen = self.name(declared or options, rest)
            value = self.play(card, rest) + self.starve(card, chosen.get("suit"))
            if value > best_value:
                best, best_value = chosen, value
        return best

    def name(self, options: Sequence[Action], rest: list[str]) -> Action:
        """The suit an 8 (or a J) names: the one the kept cards hold most of; strong
        also weighs how likely the next seat is to match it (``starve``)."""
        if len(options) == 1 or not self.w.starve:
            return named_play(options, rest)
        held = suit_weights(rest)
        return max(options, key=lambda a: held.get(a.get("suit") or "", 0.0) * 3.0
                   + self.starve(a["cards"][0], a.get("suit")))

    def starve(self, card: str, named: str | None) -> float:
        """au only (below): the field left is one the next seat cannot match."""
        return 0.0

    def hidden_chance(self, seat: int, totals: Sequence[int]) -> float:
        """The chance that ``seat``'s hand sums to one of ``totals`` (distinct), with what
        it has exposed counted in (strong) and what it hides drawn from the pool."""
        shown = exposed_of(self.view, seat) if self.w.memory else []
        hidden = self.counts[seat] - len(shown)
        known = hand_sum(shown)
        if "JK" in shown and any(c != "JK" for c in shown):
            return 0.0  # §T13.2: a hand mixing a joker with other cards cannot dobon
        if hidden <= 0:
            return 1.0 if known in totals else 0.0
        return min(1.0, sum(self.pool.chance(hidden, t - known) for t in totals))

    def play(self, card: str, rest: list[str]) -> float:
        raise NotImplementedError

    def draw(self) -> float:
        raise NotImplementedError


class _Au(_Judge):
    """au: §T6 (the 2 and the 8), §T11-§T12 (dobon, chain, return), §T15 (points)."""

    def __init__(self, view: View, weights: Weights, events: Sequence[Event] = ()) -> None:
        super().__init__(view, weights, events)
        self.pool.reserve(max((self.counts[s] for s in self.opponents), default=1), 13)
        unseen = max(self.pool.size, 1)
        self.mean_value = sum(min(n, 10) if n not in (1, 11, 12, 13) else 10
                              for n, m in enumerate(self.pool.by_number) for _ in range(m)
                              ) / unseen

    def starve(self, card: str, named: str | None) -> float:
        """§T5.3: the chance that the next seat cannot match the field we leave, so draws
        instead of playing (worth most when it is near a stop). Its cards are taken as
        unseen ones, except that a seat whose latest turn was a draw on a field of this
        suit had none of it then: only the cards it drew since are unknown."""
        seat = self.next_seat
        left = self.counts[seat]
        if not self.w.starve or not left or seat == self.me:
            return 0.0
        field_suit, field_number = named or card[0], number(card)
        matches = au_matches(field_suit, field_number)
        share = sum(1 for c in self.pool.cards if matches(c)) / max(self.pool.size, 1)
        unknown = left
        records = self.view["records"]
        for index in range(len(records) - 1, -1, -1):
            record = records[index]
            if record.get("seat") != seat:
                continue
            before = field_before(self.view, self.events, index)
            if "draw" in record and before is not None and before[0] == field_suit:
                unknown = min(left, int(record["draw"]) or 1)
            break
        cannot: float = (1.0 - share) ** unknown
        return float(self.w.starve * cannot * (1 + 2 / left))

    def danger(self, n: int) -> float:
        """§T11.1: an opponent with two cards or more whose hand sums to ``n``."""
        return chance_any([self.hidden_chance(s, [n]) for s in self.opponents
                           if self.counts[s] >= 2])

    def play(self, card: str, rest: list[str]) -> float:
        n, w = number(card), self.w
        danger = self.danger(n)
        # §T15.3: X = the declarer's hand (summing to n), ours and the card, doubled once.
        loss = 2 * (au_points(rest + [card]) + max(n, 4))
        if not rest:  # §T15.2: every opponent pays its hand
            gain = sum(self.counts[s] for s in self.opponents) * self.mean_value * 1.3
            return (1 - danger) * gain - w.risk * danger * loss
        value = w.per_card + self.hold * (au_points(self.hand) - au_points(rest))
        if w.plan_return and hand_sum(rest) == n and len(rest) >= 2:
            value += danger * 2 * loss  # §T12.1: we would return it, and win doubled again
        else:
            value -= w.risk * danger * loss
        if n == 2:
            value += w.attack + self.block(card)  # §T6.1: the next seat plays a 2 or draws
        return value + self.own_dobon(rest)

    def own_dobon(self, rest: list[str]) -> float:
        """Our own chance, until our next turn, that a card is played on which the hand we
        keep may dobon (§T11.1: two cards or more summing to its number)."""
        total = hand_sum(rest)
        if not self.w.own_dobon or len(rest) < 2 or not 1 <= total <= 13:
            return 0.0
        chance = 1 - (1 - self.pool.share(total)) ** len(self.opponents)
        return self.w.own_dobon * chance * 2 * (au_points(rest) + total + 10)

    def draw(self) -> float:
        pending = self.view["pending_draw"]
        cards = pending or 1  # §T6.1: the whole obligation, or one card
        return -cards * (self.hold * self.mean_value + self.w.per_card) - self.w.draw


class _Standard(_Judge):
    """standard: §T7 (roles, しばり), §T8 (last one), §T13-§T14 (dobon on runs), §T16 (scores)."""

    def __init__(self, view: View, weights: Weights, events: Sequence[Event] = ()) -> None:
        super().__init__(view, weights, events)
        self.runs = {s: self._run(s) for s in self.opponents}
        biggest = max((sum(number(c) for c in r) for r in self.runs.values()), default=0)
        kmax = max((self.counts[s] for s in self.opponents), default=1)
        self.pool.reserve(kmax, biggest + 13)
        self.mean_base = (sum(min(n, 10) * m for n, m in enumerate(self.pool.by_number))
                          / max(self.pool.size, 1))
        # §T16.3: a loser pays w × 2 per winner; w is the worst hand among the others.
        self.loss = 2 * max((self.counts[s] * self.mean_base for s in self.opponents),
                            default=10.0) + 20

    def _run(self, seat: int) -> list[str]:
        """§T13.3: the cards played since ``seat``'s own latest record or the latest draw."""
        cards: list[str] = []
        for record in reversed(self.view["records"]):
            if record.get("seat") == seat or "draw" in record:
                break
            if "play" in record:
                cards.append(record["play"])
        cards.reverse()
        return cards

    def danger(self, card: str) -> float:
        chances = []
        for seat in self.opponents:
            tails, total = set(), 0
            for code in reversed(self.runs[seat] + [card]):
                total += number(code)
                tails.add(total)
            chances.append(self.hidden_chance(seat, sorted(tails)))
        return chance_any(chances)

    def play(self, card: str, rest: list[str]) -> float:
        w = self.w
        danger = self.danger(card)
        if not rest:  # §T16.3: going out scores 0 instead of the hand; §T16.4 disrupt dobon
            return (1 - danger) * (40 + base(card)) - w.risk * danger * self.loss
        value = w.per_card + self.hold * base(card) - w.risk * danger * self.loss
        if self.view["pending_draw"] or number(card) in (0, 2):
            # §T7.3: an attack card (or a reflect) passes the accumulation on
            value += w.attack + (self.view["pending_draw"] * (self.hold * self.mean_base
                                                            + w.per_card))
        if number(card) in (0, 1, 2):
            value += self.block(card)  # §T7.3, §T7.6: the next seat answers or is skipped
        if card == "JK":
            value += w.attack  # §T8.2, §T13.2: a joker blocks going out and dobons
        if rest == ["JK"]:
            value -= 30  # §T8.2: a lone joker may never go out
        return value + self.own_dobon(rest)

    def own_dobon(self, rest: list[str]) -> float:
        """Our own chance that a tail of one or two of the next plays sums to the hand we
        keep (§T13.2-§T13.4: no joker among other cards); a dobon scores ours 0 or less."""
        if not self.w.own_dobon or "JK" in rest:
            return 0.0
        total, share = hand_sum(rest), self.pool.share
        one = share(total) if total <= 13 else 0.0
        two = sum(share(a) * share(total - a) for a in range(max(1, total - 13), 14)
                  if total - a >= 0)
        plays = max(len(self.opponents), 1)
        chance = 1 - (1 - one) ** plays * (1 - two) ** max(plays - 1, 0)
        return self.w.own_dobon * chance * (self.loss / 2 + base_sum(rest))

    def draw(self) -> float:
        cards = self.view["pending_draw"] or 1  # §T7.3: the accumulation, or one card
        return -cards * (self.hold * self.mean_base + self.w.per_card) - self.w.draw
