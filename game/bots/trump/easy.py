"""Level "easy": a uniformly random move, except that a dobon or a return it can declare is
always declared, and a last one is declared with the play except about one time in ten
(§T21.Q12), when it is forgotten for good. It bids a random 1-10."""

from __future__ import annotations

from collections.abc import Sequence

from ..base import Action
from .common import (
    bid,
    bid_range,
    certain,
    decision_rng,
    forgets_last_one,
    forgot_last_one,
)
from .knowledge import Event, View


class EasyPolicy:
    level = "easy"

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def act(self, view: View, events: Sequence[Event]) -> Action | None:
        legal: list[Action] = view["legal_actions"]
        chosen = certain(legal)
        if chosen is not None or not legal:
            return chosen
        rng = decision_rng(self.level, self.seed, view)
        bounds = bid_range(legal)
        if bounds is not None:
            return bid(rng.randint(1, 10), bounds)
        # One choice per move: a play with and without last one is one move, a standalone
        # last one is declared below, and declining is never chosen (it is not a move).
        moves = [a for a in legal if a["type"] not in ("last_one", "decline")
                 and not a.get("last_one")]
        late = next((a for a in legal if a["type"] == "last_one"), None)
        if late is not None and not forgot_last_one(self.seed, view):
            return late
        if not moves:
            return None
        move = moves[rng.randrange(len(moves))]
        if move["type"] == "play" and not forgets_last_one(self.seed, view):
            declared = {**move, "last_one": True}
            return next((a for a in legal if a == declared), move)
        return move
