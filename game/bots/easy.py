"""Level "easy": a uniformly random legal action, except that a dobon (§R9) or a dobon
return (§R10) it can declare is always declared, and one it cannot (offered to every seat
under blind dobon, HOUSE-RULES.md §H10) never is."""

from __future__ import annotations

from collections.abc import Sequence

from .base import Action, decision_rng, obvious, without_claims
from .knowledge import Event, View


class EasyPolicy:
    level = "easy"

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def act(self, view: View, events: Sequence[Event]) -> Action | None:
        legal: list[Action] = view["legal_actions"]
        certain = obvious(legal, view)  # a lone action, a return or a dobon: easy takes them too
        if certain is not None or not legal:
            return certain
        options = without_claims(legal)
        if not options:
            return None
        rng = decision_rng(self.level, self.seed, view, events)
        return options[rng.randrange(len(options))]
