"""Level "easy": a uniformly random legal action, except that a dobon (R9) or a dobon
return (R10) it can declare is always declared."""

from __future__ import annotations

from collections.abc import Sequence

from .base import Action, decision_rng, obvious
from .knowledge import Event, View


class EasyPolicy:
    level = "easy"

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def act(self, view: View, events: Sequence[Event]) -> Action | None:
        legal: list[Action] = view["legal_actions"]
        certain = obvious(legal)  # a lone action, a return or a dobon: easy takes them too
        if certain is not None or not legal:
            return certain
        rng = decision_rng(self.level, self.seed, view, events)
        return legal[rng.randrange(len(legal))]
