"""What every trump level shares: the per-decision generator, the actions no level weighs
(a return, a dobon), forgetting last one, the bid answer and the suit an 8 or a J names."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..base import Action
from .knowledge import PAIR, SUITS, View, number, suit

# §T21.Q12: the easy level forgets to declare last one about one time in ten.
FORGET_LAST_ONE = 0.1


def decision_rng(level: str, seed: int, view: View) -> random.Random:
    """A generator for one decision, fixed by the inputs (str seeds hash with SHA-512: the
    same in every process, whatever PYTHONHASHSEED is)."""
    key = (f"trump:{level}:{seed}:{view.get('seat')}:{len(view.get('records') or [])}:"
           f"{view.get('phase')}:{view.get('turn')}:{view.get('deck_count')}:"
           f"{len(view.get('hand') or [])}:{len(view.get('legal_actions') or [])}")
    return random.Random(key)


def find(legal: Sequence[Action], kind: str) -> Action | None:
    for action in legal:
        if action["type"] == kind:
            return action
    return None


def certain(legal: Sequence[Action]) -> Action | None:
    """A return or a dobon: every level takes them (au §T12.3: the last declaration wins;
    standard §T14: a declarer scores its bonuses, its losers pay). Of several standard
    counts the largest: a target of two cards or more earns the multi dobon (§T16.4)."""
    chosen = find(legal, "return")
    if chosen is not None:
        return chosen
    dobons = [a for a in legal if a["type"] == "dobon"]
    return max(dobons, key=lambda a: int(a.get("count") or 0)) if dobons else None


def bid_range(legal: Sequence[Action]) -> tuple[int, int] | None:
    """The auction's descriptor (§T21.46): the seat answers ``{"type": "bid", "amount": n}``."""
    descriptor = find(legal, "bid")
    if descriptor is None:
        return None
    return int(descriptor.get("min", 1)), int(descriptor.get("max", 999))


def bid(amount: int, bounds: tuple[int, int]) -> Action:
    low, high = bounds
    return {"type": "bid", "amount": max(low, min(high, amount))}


def forgets_last_one(seed: int, view: View) -> bool:
    """Whether the easy level forgets last one on the play it is about to make. Keyed by
    the play's place in the records, so the same answer holds afterwards when the
    declaration is offered on its own (§T8.1): a forgotten last one stays forgotten."""
    return _forgets(seed, view["seat"], len(view["records"]))


def forgot_last_one(seed: int, view: View) -> bool:
    """After the play: the index of this seat's latest play record keys the same draw."""
    records = view["records"]
    for index in range(len(records) - 1, -1, -1):
        if records[index].get("seat") == view["seat"] and "play" in records[index]:
            return _forgets(seed, view["seat"], index)
    return False


def _forgets(seed: int, seat: int, index: int) -> bool:
    return random.Random(f"trump:forget:{seed}:{seat}:{index}").random() < FORGET_LAST_ONE


def is_answer(view: View, action: Action | None) -> bool:
    """Whether ``action`` is an answer the engine takes for this view: one of its legal
    actions, or a bid within the auction's descriptor (which is not itself an action)."""
    if action is None:
        return True
    legal = view["legal_actions"]
    if action in legal:
        return True
    bounds = bid_range(legal)
    amount = action.get("amount")
    return (bounds is not None and action.get("type") == "bid" and set(action) == {"type", "amount"}
            and type(amount) is int and bounds[0] <= amount <= bounds[1])


def suit_weights(cards: Sequence[str]) -> dict[str, float]:
    """How well each suit suits the cards kept: a plain card counts for its suit, a J
    (standard) half for its pair too; 8s and jokers match anything and count for none."""
    held = dict.fromkeys(SUITS, 0.0)
    for code in cards:
        s = suit(code)
        if s is None or number(code) == 8:
            continue
        held[s] += 1.0
        if number(code) == 11:
            held[PAIR[s]] += 0.5
    return held


def named_play(options: Sequence[Action], rest: Sequence[str]) -> Action:
    """Of one card's listed plays (one per suit it may name), the one naming the suit the
    rest of the hand holds most of; ties go to the first listed."""
    if len(options) == 1:
        return options[0]
    held = suit_weights(rest)
    return max(options, key=lambda a: held.get(a.get("suit") or "", 0.0))
