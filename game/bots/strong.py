"""Level "strong": expected points, from every card it has seen.

It rebuilds, from its view and events, the cards it has not seen (the first card, every
play and its own hand are known), and from them the chance that each opponent's hand
totals a given number of points (R9.1) given its card count. Each option is judged in
points, as the settlement counts them (R11):

- a play loses the table's total T when an opponent may dobon it (R11.2), unless the
  hand left equals the play's points so that the dobon would be returned (R10, R11.3);
- going out gains the opponents' hand points, unless someone dobons it (R8.2, R16.7);
- the hand left is worth its own dobon chances: the share of unseen cards worth exactly
  its total, over the opponents' plays before its next turn;
- cards and points shed count for progress; a hand of action cards only is stuck (R8.1);
- a cut-in (R7) is taken when its value is positive; a dobon is declined only when the
  dobon'd player is more likely than not to return it (R10).
"""

from __future__ import annotations

from collections.abc import Sequence

from .base import Action, colour_by_hand, find, plays, sure_win, without
from .knowledge import IS_ACTION, Event, Table, View, points

_PER_CARD = 12.0
_PER_POINT = 0.5
_OWN_DOBON = 0.35
_STUCK = 40.0
_DRAW_COST = 14.0


class StrongPolicy:
    level = "strong"

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def act(self, view: View, events: Sequence[Event]) -> Action | None:
        legal: list[Action] = view["legal_actions"]
        if not legal:
            return None
        certain = sure_win(legal)
        if certain is not None:
            return certain
        options = plays(legal)
        smax = max([points(a["cards"]) for a in options] + [view["last_play"]["points"], 60])
        table = Table(view, events, smax=smax)
        dobon = find(legal, "dobon")
        if dobon is not None:
            return self._dobon_or_not(view, table, dobon, legal)
        colour = colour_by_hand(legal, view["hand"], weights=_colour_weights(view["hand"]))
        if colour is not None:
            return colour
        judge = _Judge(table)
        scored = [(judge.play(a["cards"]), i) for i, a in enumerate(options)]
        best_score, best_index = max(scored, default=(float("-inf"), -1))
        best = options[best_index] if scored else None
        if view["turn"] != view["seat"]:
            return best if best is not None and best_score > 0 else None  # R7 cut-in
        if view["pending_draw"]:
            return best if best is not None else find(legal, "draw")  # R5.2
        draw = find(legal, "draw")
        if draw is not None and (best is None or judge.draw() > best_score):
            return draw
        if find(legal, "pass") is not None and (best is None or judge.stay() > best_score):
            return find(legal, "pass")
        return best or draw or find(legal, "pass")

    def _dobon_or_not(self, view: View, table: Table, dobon: Action,
                      legal: Sequence[Action]) -> Action | None:
        """R9/R10: dobon unless the target is likely to return it."""
        last = view["last_play"]
        target = last["seat"]
        if target is None or view["phase"] == "agari_wait":
            return dobon  # a going-out play has no return (R16.7)
        if table.hit_chance(target, last["points"]) > 0.5:
            return find(legal, "decline")
        return dobon


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

    def hand_value(self, rest: Sequence[str]) -> float:
        value = _OWN_DOBON * self.own_chance(points(rest)) * self.total
        if all(IS_ACTION[c] for c in rest):
            value -= _STUCK  # R8.1: cannot go out with these
        return value

    def play(self, cards: Sequence[str]) -> float:
        value = points(cards)
        rest = without(self.t.hand, cards)
        danger = self.t.danger(value)
        if not rest:
            return (1.0 - danger) * self.gain - danger * self.total
        score = _PER_CARD * len(cards) + _PER_POINT * value
        if points(rest) == value:
            score += danger * self.total  # R10: we would return it
        else:
            score -= danger * self.total
        return score + self.hand_value(rest)

    def draw(self) -> float:
        """The optional draw: one card more, a new total (averaged over unseen cards)."""
        t = self.t
        if not t.pool_size:
            return -_DRAW_COST
        expected = 0.0
        for card, n in t.pool.items():
            expected += n * self.hand_value(t.hand + [card])
        return expected / t.pool_size - _DRAW_COST - _PER_POINT * t.mean_value

    def stay(self) -> float:
        """Passing after the draw keeps the hand as it is."""
        return self.hand_value(self.t.hand)

