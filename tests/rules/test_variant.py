"""The frozen variant a rule set makes (game/rules/dobon_uno/variant.py; issue #32 item 1):
built once per rule set, each field the rule it names (HOUSE-RULES.md §H2-§H12)."""

from __future__ import annotations

import doctest

import pytest

from game.rules import PRESETS, HouseRules
from game.rules.dobon_uno import variant as variant_module
from game.rules.dobon_uno.cards import ID_OF, STACK_ON, Rank
from game.rules.dobon_uno.variant import variant_of

W4, G2 = int(Rank.WILD_DRAW_FOUR), ID_OF["G+2"]


def rules(**changes: object) -> HouseRules:
    return HouseRules.from_mapping(changes)


def test_one_variant_per_rule_set() -> None:
    assert variant_of(rules(seven_zero=True)) is variant_of(rules(seven_zero=True))
    assert variant_of(rules()) is variant_of(HouseRules.from_mapping(None))


def test_h3_what_an_open_stack_accepts() -> None:
    """§R5.1 by default; §H3.1 "cross": a +2 also on a W+4; §H3.3 "off": nothing."""
    assert variant_of(rules()).stack_accepts == tuple(STACK_ON)
    cross = variant_of(rules(stacking="cross")).stack_accepts
    assert cross[W4] >> G2 & 1 and not STACK_ON[W4] >> G2 & 1
    assert variant_of(rules(stacking="off")).stack_accepts == (0,) * len(STACK_ON)


def test_h3_cut_ins_on_an_open_stack() -> None:
    """§H3.3 "off" and §H3.4 ``stack_cut_in: false`` forbid them (§H3.5)."""
    assert variant_of(rules()).cut_in_on_stack
    assert not variant_of(rules(stacking="off")).cut_in_on_stack
    assert not variant_of(rules(stack_cut_in=False)).cut_in_on_stack
    assert variant_of(rules(stacking="cross")).cut_in_on_stack


@pytest.mark.parametrize(("changes", "hand", "value", "made"), [
    ({}, ["R2", "G3"], 5, True),
    ({}, ["R2", "G3"], 6, False),
    ({"arithmetic_dobon": True}, ["R2", "G3"], 6, True),   # §H8.1: 2 × 3
    ({"arithmetic_dobon": True}, ["R2", "G3"], 1, True),   # §H8.1: 3 − 2
    ({"arithmetic_dobon": True}, ["R1", "R2", "G3"], 6, True),  # three cards: the sum
    ({"number_only_dobon": True}, ["R+2"], 20, False),     # §H9.1
    ({}, ["R+2"], 20, True),
    ({}, [], 0, False),
])
def test_h8_h9_which_hands_make_a_value(changes: dict[str, object], hand: list[str],
                                        value: int, made: bool) -> None:
    assert variant_of(rules(**changes)).makes([ID_OF[c] for c in hand], value) is made


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_each_preset_s_variant_reads_its_rules(preset: str) -> None:
    r = HouseRules.from_mapping(PRESETS[preset])
    v = variant_of(r)
    assert (v.cut_in, v.action_finish, v.mixed_multi, v.seven_zero, v.draw_until_playable,
            v.arithmetic, v.number_only, v.blind, v.multi_dobon, v.reshuffle) == (
        r.cut_in, r.action_finish, r.mixed_color_multi, r.seven_zero, r.draw_until_playable,
        r.arithmetic_dobon, r.number_only_dobon, r.blind_dobon, r.multi_dobon, r.reshuffle)


def test_the_variant_doctests_hold() -> None:
    assert doctest.testmod(variant_module).failed == 0

