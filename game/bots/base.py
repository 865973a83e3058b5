"""What every policy shares: the interface, a per-decision generator, action helpers."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from .knowledge import Event, View, color_of, declaration_holds, points

Action = dict[str, Any]


class Policy(Protocol):
    """A CPU player. ``act`` is a pure function of the policy's level and seed and of its
    arguments: the same inputs always give the same answer, whatever object answers.

    ``view`` is exactly ``engine.view(seat)``; ``events`` are the events whose ``to`` is
    that seat or ``None`` since the game began (the service layer's ``start`` first).
    The answer is one element of ``view["legal_actions"]``, or ``None`` to wait; in the
    standard trump auction, a bid built from the listed descriptor
    (``game.bots.trump.is_answer`` checks both).
    """

    level: str
    seed: int

    def act(self, view: View, events: Sequence[Event]) -> Action | None: ...


def decision_rng(level: str, seed: int, view: View, events: Sequence[Event]) -> random.Random:
    """A generator for one decision, fixed by the inputs (str seeds hash with SHA-512, so
    it is the same in every process whatever PYTHONHASHSEED is)."""
    key = (f"{level}:{seed}:{view.get('seat')}:{len(events)}:{view.get('phase')}:"
           f"{view.get('turn')}:{view.get('deck_count')}:{len(view.get('hand') or [])}")
    return random.Random(key)


def find(legal: Sequence[Action], kind: str) -> Action | None:
    """The listed action of this type (draw, pass, dobon, return, decline), if any."""
    for action in legal:
        if action["type"] == kind:
            return action
    return None


def plays(legal: Sequence[Action]) -> list[Action]:
    """The listed plays."""
    return [a for a in legal if a["type"] == "play"]


def max_points(options: Sequence[Action]) -> int:
    """The most points any of these plays is worth (0 for none)."""
    return max((points(a["cards"]) for a in options), default=0)


def without(hand: Sequence[str], cards: Sequence[str]) -> list[str]:
    """The hand after putting ``cards`` down."""
    rest = list(hand)
    for card in cards:
        rest.remove(card)
    return rest


def sure_win(legal: Sequence[Action]) -> Action | None:
    """A return (§R10) is always worth taking: the declarers pay instead of us (§R11.3)."""
    return find(legal, "return")


def obvious(legal: Sequence[Action], view: View | None = None) -> Action | None:
    """What every level does without weighing anything: a lone listed action, a return
    (§R10, always paid for by the declarers) or else a dobon (§R9). None: weigh the rest.

    Under blind dobon (HOUSE-RULES.md §H10) every seat is offered a dobon on every play and
    a false declaration costs a penalty, so a dobon or a return is declared only when
    the seat's own hand makes the play (``declaration_holds``); a wait that asks for
    nothing else is declined rather than left to time out."""
    if len(legal) == 1 and legal[0]["type"] not in ("dobon", "return"):
        return legal[0]
    rules = (view or {}).get("house_rules") or {}
    if not rules.get("blind_dobon") or view is None:
        if len(legal) == 1:
            return legal[0]
        return sure_win(legal) or find(legal, "dobon")
    claim = sure_win(legal) or find(legal, "dobon")
    if claim is not None and declaration_holds(view):
        return claim
    if all(a["type"] in ("dobon", "return", "decline") for a in legal):
        return find(legal, "decline")
    return None


def without_claims(legal: Sequence[Action]) -> list[Action]:
    """The listed actions but dobon and return: what is left to weigh once ``obvious``
    has declined to declare (under §H10 a declaration it did not make would be false)."""
    return [a for a in legal if a["type"] not in ("dobon", "return")]


def swap_choice(legal: Sequence[Action], view: View) -> Action | None:
    """§H6.4 the 7's swap: take the hand of the opponent closest to going out (fewest
    cards; on a tie the one that plays soonest), which also stops it going out."""
    swaps = [a for a in legal if a["type"] == "swap"]
    if not swaps:
        return None
    counts, me, n = view["hand_counts"], view["seat"], len(view["hand_counts"])
    direction = view.get("direction", 1)
    return min(swaps, key=lambda a: (counts[a["target"]],
                                     (a["target"] - me) * direction % n))


def colour_by_hand(legal: Sequence[Action], hand: Sequence[str],
                   weights: Mapping[str, float] | None = None) -> Action | None:
    """§R6: the colour this seat holds most of (number cards weigh a little more, as they
    are what it goes out with); ``None`` when no colour choice is listed."""
    choices = [a for a in legal if a["type"] == "color"]
    if not choices:
        return None
    held: dict[str, float] = {}
    for card in hand:
        colour = color_of(card)
        if colour is not None:
            held[colour] = held.get(colour, 0.0) + (weights or {}).get(card, 1.0)
    return max(choices, key=lambda a: held.get(a["color"], 0.0))
