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


# §H11.2 as written: "the wait ends early as soon as no seat with an open chance is nearer
# than the nearest declarer so far". A farther seat's chance stays open while a nearer one
# is still undecided; its declaration is void and it receives nothing.
# Seats 1, 2 and 3 each hold 20; T = (9 + 20) + 20 + 20 + 20 = 89.
H11_FOUR = [["R+2", "G9"], ["G9", "Y9", "R2"], ["B9", "B9", "Y2"], ["Y9", "G9", "B2"]]


def test_h11_2_a_farther_seat_keeps_its_chance_while_a_nearer_one_is_open() -> None:
    g = hsetup({"multi_dobon": "nearest"}, H11_FOUR, first="R7")
    g.apply(0, play("R+2"), 0.0)
    g.apply(2, DOBON, 1.0)
    assert g.phase == "dobon_wait" and g.chances(1) == ["dobon"]
    assert g.chances(3) == ["dobon"]  # farther than seat 2, still open (§H11.2)
    g.apply(3, DOBON, 1.5)
    assert g.phase == "dobon_wait"  # seat 1 is nearer and still open
    events = g.apply(1, DECLINE, 2.0)
    assert of_type(events, "dobon_void") == [{"type": "dobon_void", "to": None, "seat": 3}]
    assert_result(g, "dobon", [2], [(0, 2, 89)], next_first=2)
    assert g.view(None)["dobon"]["void"] == [3]


def test_h11_2_the_wait_ends_when_no_nearer_chance_is_open_farther_ones_close() -> None:
    g = hsetup({"multi_dobon": "nearest"}, H11_FOUR, first="R7")
    g.apply(0, play("R+2"), 0.0)
    g.apply(2, DOBON, 1.0)
    events = g.apply(1, DECLINE, 2.0)
    assert_result(g, "dobon", [2], [(0, 2, 89)])
    assert g.chances(3) == [] and of_type(events, "dobon_void") == []
    assert [e for e in events if e["type"] == "decline" and e["seat"] == 3] == []


def test_h11_2_with_h10_a_true_nearer_dobon_leaves_farther_blind_chances_open() -> None:
    """§H10 × §H11: seat 3's blind chance stays open after seat 2's true dobon (closing it
    would tell seat 3 that it could not win any more); its false declaration still pays."""
    rules = {"multi_dobon": "nearest", "blind_dobon": True}
    hands = [["R+2", "G9"], ["G9", "Y9", "R2"], ["B9", "B9", "Y2"], ["Y5", "Y6"]]
    g = hsetup(rules, hands, first="R7")
    g.apply(0, play("R+2"), 0.0)
    assert g.chances(3) == ["dobon"]  # §H10.1: blind
    g.apply(2, DOBON, 1.0)
    assert g.phase == "dobon_wait" and g.chances(3) == ["dobon"]
    events = g.apply(3, DOBON, 1.5)  # 11: false
    assert of_type(events, "false_declaration")[0]["seat"] == 3
    assert g.phase == "dobon_wait" and g.chances(1) == ["dobon"]
    g.apply(1, DECLINE, 2.0)
    assert g.phase == "return_wait"  # §H10.2: the return is offered blind
    g.apply(0, DECLINE, 3.0)
    assert g.result is not None and g.result.winners == [2]
    assert (0, 2, 80) in g.result.payments and (3, 0, 20) in g.result.payments
