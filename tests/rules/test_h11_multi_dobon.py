"""§H11 multiple dobon: "first" [先着一人] and "nearest" [頭ハネ]."""

from __future__ import annotations

from .helpers import DECLINE, DOBON, assert_result, of_type, play
from .house_helpers import hsetup

H11 = [["R+2", "G9"], ["G9", "Y9", "R2"], ["B9", "B9", "Y2"], ["Y5", "Y6"]]


def _played(rules: dict[str, str] | None):  # type: ignore[no-untyped-def]
    g = hsetup(rules, H11, first="R7")
    g.apply(0, play("R+2"), 0.0)
    assert g.chances(1) == ["dobon"] and g.chances(2) == ["dobon"]
    return g


def test_h11_1_first_closes_the_others_and_finishes_at_once() -> None:
    g = _played({"multi_dobon": "first"})
    g.apply(2, DOBON, 1.0)
    assert_result(g, "dobon", [2], [(0, 2, 80)], next_first=2)


def test_h11_1_default_waits_and_pays_each() -> None:
    g = _played(None)
    g.apply(2, DOBON, 1.0)
    assert g.phase == "dobon_wait" and g.chances(1) == ["dobon"]
    g.apply(1, DOBON, 2.0)
    assert_result(g, "dobon", [2, 1], [(0, 1, 80), (0, 2, 80)])


def test_h11_2_nearest_wins_and_the_other_dobon_is_void() -> None:
    g = _played({"multi_dobon": "nearest"})
    g.apply(2, DOBON, 1.0)
    assert g.phase == "dobon_wait" and g.chances(1) == ["dobon"]
    events = g.apply(1, DOBON, 2.0)
    assert of_type(events, "dobon_void") == [{"type": "dobon_void", "to": None, "seat": 2}]
    assert_result(g, "dobon", [1], [(0, 1, 80)], next_first=1)
    assert g.view(None)["revealed"][2] == ["B9", "B9", "Y2"]  # void hands stay revealed


def test_h11_2_when_the_nearer_seat_declines_the_farther_wins() -> None:
    g = _played({"multi_dobon": "nearest"})
    g.apply(2, DOBON, 1.0)
    g.apply(1, DECLINE, 2.0)
    assert_result(g, "dobon", [2], [(0, 2, 80)], next_first=2)


def test_h11_2_the_nearest_eligible_seat_ends_the_wait_at_once() -> None:
    g = _played({"multi_dobon": "nearest"})
    g.apply(1, DOBON, 1.0)
    assert_result(g, "dobon", [1], [(0, 1, 80)])


def test_h11_2_nearest_follows_the_direction_at_the_dobon() -> None:
    hands = [["R+2", "G9"], ["G9", "Y9", "R2"], ["B9", "B9", "Y2"], ["Y5", "Y6"],
             ["Y9", "Y9", "G2"]]
    g = hsetup({"multi_dobon": "nearest"}, hands, first="RR", first_player=2)
    assert g.direction == -1 and g.turn == 0
    g.apply(0, play("R+2"), 0.0)
    g.apply(1, DOBON, 1.0)
    assert g.phase == "dobon_wait"  # seat 4 comes first counter-clockwise
    g.apply(4, DOBON, 2.0)
    assert_result(g, "dobon", [4], [(0, 4, 100)])


def test_h11_with_h10_a_false_declaration_is_never_first() -> None:
    g = hsetup({"multi_dobon": "first", "blind_dobon": True}, H11, first="R7")
    g.apply(0, play("R+2"), 0.0)
    g.apply(3, DOBON, 0.5)  # false: 11
    assert g.phase == "turn" and "dobon" in g.chances(1)
    g.apply(2, DOBON, 1.0)
    assert g.phase == "return_wait"  # §H10.2: the return is offered blind
