"""The variant a Dobon UNO game plays: one frozen value built once from its house rules.

A :class:`Variant` holds what the engine asks of a rule set, already worked out: the
tables and small functions the house engine reads at the few places a rule changes
something, each naming its rule (HOUSE-RULES.md §H1-§H12). ``variant_of`` builds one per
distinct rule set and keeps it, so a game loaded from its saved state (every move of the
site) does no work for its rules. This is the first step of issue #32 item 1 (one engine
with variant hooks, docs/variants.md): today the house engine (house_game.py) reads it;
a default game (RULES.md exactly) reads nothing.

>>> from game.rules.dobon_uno.cards import ID_OF
>>> from game.rules.dobon_uno.house import DEFAULT_RULES, HouseRules
>>> two_three = [ID_OF["R2"], ID_OF["G3"]]
>>> v = variant_of(HouseRules.from_mapping({"arithmetic_dobon": True}))
>>> v.makes(two_three, 6), variant_of(DEFAULT_RULES).makes(two_three, 6)
(True, False)
>>> variant_of(DEFAULT_RULES) is variant_of(HouseRules.from_mapping({}))
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from .cards import CODE, IS_NUMBER, POINTS, RANK, STACK_ON, Rank, mask_of
from .house import HouseRules

_DRAW_TWO, _WILD4 = int(Rank.DRAW_TWO), int(Rank.WILD_DRAW_FOUR)
_DRAW_TWO_MASK = mask_of(i for i in range(len(CODE)) if RANK[i] == _DRAW_TWO)
# §H3.1: under "cross" a +2 of any colour also stacks on a W+4.
_CROSS_STACK_ON = tuple(
    STACK_ON[rank] | (_DRAW_TWO_MASK if rank == _WILD4 else 0) for rank in range(16)
)
_NO_STACK = tuple(0 for _ in range(16))  # §H3.3: nothing goes on a stack
_MINUS, _TIMES, _DIVIDE = "\u2212", "\u00d7", "\u00f7"


def expression(points: list[int], value: int, arithmetic: bool) -> str | None:
    """§H8.4: the one expression by which a hand's card points make ``value``, or None.

    >>> expression([2, 3], 6, True), expression([20, 5], 4, True), expression([4], 4, True)
    ('2 × 3 = 6', '20 ÷ 5 = 4', '4 = 4')
    >>> expression([2, 3], 6, False) is None, expression([1, 2, 3], 6, True)
    (True, '1 + 2 + 3 = 6')
    """
    if arithmetic and len(points) == 2:
        a, b = points
        big, small = max(a, b), min(a, b)
        for made, text in ((a + b, f"{a} + {b}"), (big - small, f"{big} {_MINUS} {small}"),
                           (a * b, f"{a} {_TIMES} {b}")):
            if made == value:
                return f"{text} = {value}"
        if b and a % b == 0 and a // b == value:
            return f"{a} {_DIVIDE} {b} = {value}"
        if a and b % a == 0 and b // a == value:
            return f"{b} {_DIVIDE} {a} = {value}"
        return None
    if sum(points) != value:
        return None
    return " + ".join(str(p) for p in points) + f" = {value}"


@dataclass(frozen=True)
class Variant:
    """What a rule set changes, as the engine reads it (each field names its rule)."""

    rules: HouseRules
    stack_accepts: tuple[int, ...]  # §R5.1 with §H3.1 / §H3.3: per top rank, the ids a stack takes
    cut_in_on_stack: bool           # §H3.3, §H3.4 (§H3.5): may a cut-in go on an open stack
    cut_in: str                     # §H2: "identical", "same_number" or "off"
    action_finish: bool             # §H4.1, §H4.3: any play may go out
    mixed_multi: bool               # §H5: number cards of one number in several colours
    seven_zero: bool                # §H6: a 7 swaps hands, a 0 rotates them
    draw_until_playable: bool       # §H7
    arithmetic: bool                # §H8: two cards make the value by four operations
    number_only: bool               # §H9: only hands of number cards dobon or return
    blind: bool                     # §H10: every seat may declare; a false one pays
    multi_dobon: str                # §H11: "all", "first" or "nearest"
    reshuffle: bool                 # §H12: the discards become the deck

    @property
    def same_number_cut_in(self) -> bool:
        """§H2.1: number cards of the top's number cut in (not only identical cards)."""
        return self.cut_in == "same_number"

    def makes(self, hand: list[int], value: int) -> bool:
        """Whether ``hand`` makes ``value``: §R9.1 / §R10.1 with §H8.1 and §H9.1."""
        if not hand or self.number_only and not all(IS_NUMBER[c] for c in hand):
            return False
        if self.arithmetic and len(hand) == 2:
            return expression([POINTS[c] for c in hand], value, True) is not None
        return sum(POINTS[c] for c in hand) == value


@cache
def variant_of(rules: HouseRules) -> Variant:
    """The variant of ``rules``, built once per distinct rule set."""
    stacking = rules.stacking
    accepts = (_NO_STACK if stacking == "off"
               else _CROSS_STACK_ON if stacking == "cross" else STACK_ON)
    return Variant(
        rules=rules, stack_accepts=tuple(accepts),
        cut_in_on_stack=stacking != "off" and rules.stack_cut_in,
        cut_in=rules.cut_in, action_finish=rules.action_finish,
        mixed_multi=rules.mixed_color_multi, seven_zero=rules.seven_zero,
        draw_until_playable=rules.draw_until_playable, arithmetic=rules.arithmetic_dobon,
        number_only=rules.number_only_dobon, blind=rules.blind_dobon,
        multi_dobon=rules.multi_dobon, reshuffle=rules.reshuffle,
    )


__all__ = ["Variant", "expression", "variant_of"]
