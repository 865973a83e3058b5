"""Level "normal": plain Dobon heuristics on what its own hand and the card counts show.

It remembers no played card: the danger of a play is judged as if every card but its
own were unseen (``Table(view, None)``), by the opponents' card counts only.

- dobon (§R9) and return (§R10) whenever it can;
- facing a draw stack, stacks rather than takes (§R5);
- sheds high-point and action cards early, keeps number cards to go out with (§R8.1);
- prefers plays after which its remaining hand equals the play's points, so that a
  dobon on it could be returned (§R10.1);
- avoids plays whose points opponents with four cards or fewer are likely to hold in
  total (§R9.1);
- draws only when every play looks bad; after a draw, passes unless a play is good.
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

# Points a play is worth to this policy, per unit (tuned by tournaments, docs/bots.md).
_PER_CARD = 10.0
_PER_POINT = 0.4
_ACTION_BONUS = 6.0
_DANGER = 250.0
_RETURNABLE = 80.0
_STUCK = 30.0
_GO_OUT = 1000.0
_CUT_IN_BAR = 12.0
_WATCH = 4  # only opponents holding this many cards or fewer are thought dangerous


class NormalPolicy:
    level = "normal"

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def act(self, view: View, events: Sequence[Event]) -> Action | None:
        legal: list[Action] = view["legal_actions"]
        certain = obvious(legal, view)
        if certain is not None or not legal:
            return certain
        colour = colour_by_hand(legal, view["hand"]) or swap_choice(legal, view)
        if colour is not None:
            return colour
        options = plays(legal)
        table = Table(view, None, smax=max_points(options), watch=_WATCH)
        scored = sorted(((self._score(table, a["cards"]), i) for i, a in enumerate(options)),
                        reverse=True)
        best = options[scored[0][1]] if scored else None
        best_score = scored[0][0] if scored else float("-inf")
        if view["turn"] != view["seat"]:
            # A cut-in chance (§R7): take it only when it clearly helps; else let it lapse.
            return best if best is not None and best_score >= _CUT_IN_BAR else None
        if view["pending_draw"]:
            return best if best is not None else find(legal, "draw")  # §R5: stack, else take
        if best is not None and (best_score >= 0 or find(legal, "draw") is None
                                 and find(legal, "pass") is None):
            return best
        return find(legal, "draw") or find(legal, "pass") or best

    def _score(self, table: Table, cards: list[str]) -> float:
        value = points(cards)
        rest = without(table.hand, cards)
        danger = table.danger(value)
        if not rest:  # §R8: going out, unless someone dobons it (no return, §R16.7)
            return _GO_OUT * (1.0 - 2.0 * danger)
        score = _PER_CARD * len(cards) + _PER_POINT * value
        if IS_ACTION[cards[0]]:
            score += _ACTION_BONUS
        if points(rest) == value:
            score += _RETURNABLE * danger  # §R10: a dobon on it would be returned
        else:
            score -= _DANGER * danger
        if all(IS_ACTION[c] for c in rest):
            score -= _STUCK  # §R8.1: no number card left to go out with
        return score
