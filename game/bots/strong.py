"""Level "strong": expected points, from every card it has seen.

It rebuilds, from its view and events, the cards it has not seen (the first card, every
play and its own hand are known), and from them the chance that each opponent's hand
totals a given number of points (§R9.1) given its card count, ruling out the totals of
plays that went by without a dobon (knowledge.ruled_out_totals). Each option is judged
in points, as the settlement counts them (§R11):

- a play loses the table's total T when an opponent may dobon it (§R11.2), unless the
  hand left equals the play's points so that the dobon would be returned (§R10, §R11.3);
- going out gains the opponents' hand points, unless someone dobons it (§R8.2, §R16.7);
- the hand left is worth its own dobon chances: the share of unseen cards worth exactly
  its total, over the opponents' plays before its next turn;
- cards and points shed count for progress; a hand of action cards only is stuck (§R8.1);
- S, +2 and W+4 are worth more when the next seat is close to going out (§R4.4);
- a draw stack is stacked (§R5.1) unless taking it costs less than the stacking play's
  risk (§R5.2); the optional draw (§R4.2) is valued over the unseen cards;
- a cut-in (§R7) is taken when its value is positive, else the chance is left to lapse.

The weights below were chosen by A/B tournaments (docs/bots.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from .base import (
    Action,
    colour_by_hand,
    find,
    max_points,
    obvious,
    plays,
    swap_choice,
    without,
)
from .knowledge import IS_ACTION, Event, Table, View, points

_PER_CARD = 12.0
_PER_POINT = 0.5
_OWN_DOBON = 0.7
_STUCK = 40.0
_DRAW_COST = 14.0
_BLOCK = 10.0
_CUT_IN_BAR = 0.0
# Being dobon'd costs more than the random-hand model's chance times T: hands are not
# random subsets (players keep number cards), and the game's future is lost with it.
_RISK = 1.7


class StrongPolicy:
    level = "strong"

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def act(self, view: View, events: Sequence[Event]) -> Action | None:
        legal: list[Action] = view["legal_actions"]
        # §R10 / §R9: a return or a dobon always pays: T from the other side (§R11). Even a
        # dobon that may be returned: the target returns at most about one time in four.
        certain = obvious(legal, view)
        if certain is not None or not legal:
            return certain
        options = plays(legal)
        table = Table(view, events, smax=max_points(options))
        colour = colour_by_hand(legal, view["hand"], weights=_colour_weights(view["hand"]))
        if colour is not None:
            return colour
        swap = swap_choice(legal, view)  # §H6.4
        if swap is not None:
            return swap
        judge = _Judge(table)
        scored = [(judge.play(a["cards"]), i) for i, a in enumerate(options)]
        best_score, best_index = max(scored, default=(float("-inf"), -1))
        best = options[best_index] if scored else None
        if view["turn"] != view["seat"]:
            # R7 cut-in: an extra play, taken when it is worth more than waiting.
            return best if best is not None and best_score > _CUT_IN_BAR else None
        if view["pending_draw"]:  # §R5: stack unless taking costs less than the risk
            take = judge.take(view["pending_draw"])
            return best if best is not None and best_score > take else find(legal, "draw")
        draw = find(legal, "draw")
        if draw is not None and (best is None or judge.draw() > best_score):
            return draw
        if find(legal, "pass") is not None and (best is None or judge.stay() > best_score):
            return find(legal, "pass")
        return best or draw or find(legal, "pass")


def _colour_weights(hand: Sequence[str]) -> dict[str, float]:
    # Number cards matter most after a colour choice: they are what it goes out with.
    return {card: (1.5 if not IS_ACTION[card] else 1.0) for card in hand}


class _Judge:
    """Values of this seat's options, in expected points."""

    def __init__(self, table: Table) -> None:
        self.t = table
        self.gain = table.opponents_points()
        self.total = table.my_points + self.gain
        self.rounds = max(len(table.opponents), 1)

    def own_chance(self, total: int) -> float:
        """The chance that an opponent's play before our next turn is worth ``total``."""
        share = self.t.value_share(total)
        return 1.0 - (1.0 - share) ** self.rounds

    def hand_value(self, total: int, stuck: bool) -> float:
        """What holding a hand worth ``total`` is worth until our next turn."""
        value = _OWN_DOBON * self.own_chance(total) * self.total
        return value - _STUCK if stuck else value  # §R8.1: no number card to go out with

    def play(self, cards: Sequence[str]) -> float:
        value = points(cards)
        rest = without(self.t.hand, cards)
        danger = self.t.danger(value)
        if not rest:
            return (1.0 - danger) * self.gain - _RISK * danger * self.total
        score = _PER_CARD * len(cards) + _PER_POINT * value
        if points(rest) == value:
            score += danger * self.total  # §R10: we would return it
        else:
            score -= _RISK * danger * self.total
        return (score + self.hand_value(points(rest), _stuck(rest)) + self.block(cards[-1])
                + self.moved(cards[-1], len(rest)))

    def moved(self, card: str, left: int) -> float:
        """7-0 (§H6): a 7 trades the hand left for the smallest opponent's, a 0 for the
        previous seat's: worth the cards it saves (or costs)."""
        view = self.t.view
        if not (view.get("house_rules") or {}).get("seven_zero") or card[1:] not in ("7", "0"):
            return 0.0
        counts = self.t.counts
        if card[1:] == "7":
            other = min(counts[s] for s in self.t.opponents) if self.t.opponents else left
        else:
            other = counts[(self.t.me - view["direction"]) % len(counts)]
        return _PER_CARD * (left - other)

    def block(self, card: str) -> float:
        """S, +2 and W+4 hold back the next seat (§R4.4): worth most when it is close to
        going out, which would make us pay our hand (§R11.1)."""
        if not card.endswith(("S", "+2", "+4")):
            return 0.0
        view = self.t.view
        nxt = (self.t.me + view["direction"]) % len(self.t.counts)
        left = self.t.counts[nxt]
        return _BLOCK * (3 - left) if 0 < left <= 2 else 0.0

    def draw(self) -> float:
        """The optional draw: one card more, a new total (averaged over unseen cards)."""
        t = self.t
        if not t.pool_size:
            return -_DRAW_COST
        stuck = _stuck(t.hand)
        expected = 0.0
        for drawn, n in t.values.items():  # 0-9 are number cards, the rest action cards
            expected += n * self.hand_value(t.my_points + drawn, stuck and drawn >= 10)
        return expected / t.pool_size - _DRAW_COST - _PER_POINT * t.mean_value

    def take(self, count: int) -> float:
        """Taking a draw stack (§R5.2): ``count`` more cards of average points."""
        return -count * (_DRAW_COST + _PER_POINT * self.t.mean_value)

    def stay(self) -> float:
        """Passing after the draw keeps the hand as it is."""
        return self.hand_value(self.t.my_points, _stuck(self.t.hand))


def _stuck(hand: Sequence[str]) -> bool:
    return all(IS_ACTION[c] for c in hand)

