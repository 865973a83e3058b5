"""§H8 four-operation dobon [四則演算ドボン]."""

from __future__ import annotations

import pytest

from game.rules.dobon_uno.house_game import expression

from .helpers import DOBON, RETURN, assert_result, of_type, play
from .house_helpers import hsetup

ON = {"arithmetic_dobon": True}
H8 = [["R6", "G9", "Y5"], ["B2", "G3"], ["W"], ["B1", "B4", "Y7"]]


def test_h8_1_two_cards_multiply_to_the_play() -> None:
    g = hsetup(ON, H8, first="R1")
    events = g.apply(0, play("R6"), 0.0)
    assert [e["to"] for e in of_type(events, "chance")] == [1]  # seat 3: 3 cards, sum 12
    events = g.apply(1, DOBON, 1.0)
    assert of_type(events, "dobon")[0]["expression"] == "2 × 3 = 6"
    assert_result(g, "dobon", [1], [(0, 1, 67)])  # no return: 14, 4, 45 ≠ 6


def test_h8_1_default_has_no_chance() -> None:
    g = hsetup(None, H8, first="R1")
    assert not of_type(g.apply(0, play("R6"), 0.0), "chance")


def test_h8_2_return_by_the_same_test_and_h8_3_settlement_by_sums() -> None:
    g = hsetup(ON, [["R6", "G2", "Y3"], ["B2", "G3"], ["W"], ["B1", "B4", "Y7"]], first="R1")
    g.apply(0, play("R6"), 0.0)
    g.apply(1, DOBON, 1.0)
    assert g.phase == "return_wait" and g.chances(0) == ["return"]
    events = g.apply(0, RETURN, 2.0)
    assert of_type(events, "return")[0]["expression"] == "2 × 3 = 6"
    assert_result(g, "return", [0], [(1, 0, 58)])


@pytest.mark.parametrize("value,text", [
    (4, "20 ÷ 5 = 4"), (15, "20 − 5 = 15"), (25, "20 + 5 = 25"), (100, "20 × 5 = 100")])
def test_h8_1_division_and_the_h8_4_expression(value: int, text: str) -> None:
    assert expression([20, 5], value, True) == text
    assert expression([5, 20], value, True) == text.replace("20 + 5", "5 + 20").replace(
        "20 × 5", "5 × 20")


def test_h8_4_expression_rules() -> None:
    assert expression([3, 0], 0, True) == "3 × 0 = 0"
    assert expression([0, 3], 0, True) == "0 × 3 = 0"  # 0 ÷ 3 would come later
    assert expression([6, 0], 3, True) is None  # no division by 0
    assert expression([7], 7, True) == "7 = 7"
    assert expression([1, 2, 3], 6, True) == "1 + 2 + 3 = 6"
    assert expression([4, 2], 2, True) == "4 − 2 = 2"


def test_h8_1_a_divided_dobon_in_play() -> None:
    g = hsetup(ON, [["R4", "G9"], ["B+2", "R5"], ["G1", "G2"]], first="R1")
    g.apply(0, play("R4"), 0.0)
    assert g.chances(1) == ["dobon"]
    events = g.apply(1, DOBON, 1.0)
    assert of_type(events, "dobon")[0]["expression"] == "20 ÷ 5 = 4"


def test_h8_1_no_expression_key_without_the_rule() -> None:
    g = hsetup(None, [["R5", "G9"], ["B2", "G3"], ["G1", "G2"]], first="R1")
    g.apply(0, play("R5"), 0.0)
    assert "expression" not in of_type(g.apply(1, DOBON, 1.0), "dobon")[0]
