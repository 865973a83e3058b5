"""§H9 number-only dobon [数字ドボン]."""

from __future__ import annotations

from .helpers import DOBON, assert_refused, assert_result, play
from .house_helpers import hsetup

ON = {"number_only_dobon": True}
H9 = [["R+2", "G9"], ["G9", "Y9", "R2"], ["B+2"], ["Y5", "Y6"]]


def test_h9_1_only_a_hand_of_numbers_may_dobon() -> None:
    g = hsetup(ON, H9, first="R7")
    g.apply(0, play("R+2"), 0.0)
    assert (g.pending_draw, g.turn) == (2, 1)
    assert g.chances(1) == ["dobon"] and g.chances(2) == []
    assert_refused(g, lambda: g.apply(2, DOBON, 0.5), "cannot_dobon")
    g.apply(1, DOBON, 1.0)
    assert_result(g, "dobon", [1], [(0, 1, 80)])


def test_h9_1_default_lets_the_plus_two_hand_dobon_too() -> None:
    g = hsetup(None, H9, first="R7")
    g.apply(0, play("R+2"), 0.0)
    assert "dobon" in g.chances(2)
    g.apply(1, DOBON, 1.0)
    g.apply(2, DOBON, 2.0)
    assert_result(g, "dobon", [1, 2], [(0, 1, 80), (0, 2, 80)])


def test_h9_2_r10_3_first_example_no_longer_returns() -> None:
    hands = [["R+2", "R+2"], ["G9", "Y9", "R2"], ["G1", "G3"]]
    g = hsetup(ON, hands, first="R7")
    g.apply(0, play("R+2"), 0.0)
    g.apply(1, DOBON, 1.0)
    assert g.phase == "finished"  # A's remaining +2 is not a number card
    g = hsetup(None, hands, first="R7")
    g.apply(0, play("R+2"), 0.0)
    g.apply(1, DOBON, 1.0)
    assert g.phase == "return_wait"


def test_h9_1_numbers_may_dobon_an_action_card() -> None:
    g = hsetup(ON, [["RS", "G9"], ["G9", "Y9", "R2"], ["G1", "G3"]], first="R7")
    g.apply(0, play("RS"), 0.0)
    assert g.chances(1) == ["dobon"] and g.chances(2) == []
