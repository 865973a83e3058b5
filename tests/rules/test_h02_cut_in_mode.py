"""§H2 cut-in mode [カットイン]: "same_number" [同数字カットイン] and "off" [カットインなし]."""

from __future__ import annotations

from .helpers import DOBON, assert_refused, of_type, play
from .house_helpers import hsetup

SAME = {"cut_in": "same_number"}
OFF = {"cut_in": "off"}
H2A = [["R3", "G9"], ["Y1", "Y6"], ["B3", "G6"], ["Y7", "Y8"]]
H2B = [["R3", "G9"], ["Y1", "Y2"], ["R3", "G6"], ["Y7", "Y8"]]


def test_h2_1_same_number_cut_in_any_colour() -> None:
    g = hsetup(SAME, H2A, first="R5", deck=["G1", "G2", "G4"])
    events = g.apply(0, play("R3"), 0.0)
    assert (g.top, g.color, g.turn) == ("R3", "R", 1)
    assert [(e["to"], e["kinds"]) for e in of_type(events, "chance")] == [(2, ["cut_in"])]
    assert {"type": "play", "cards": ["B3"]} in g.legal_actions(2)
    events = g.apply(2, play("B3"), 1.0)
    assert events[0]["cut_in"] is True
    assert (g.top, g.color, g.turn) == ("B3", "B", 3)  # seat 1 is passed over
    assert not of_type(events, "chance")


def test_h2_1_default_has_no_chance_and_refuses_with_not_your_turn() -> None:
    g = hsetup(None, H2A, first="R5", deck=["G1", "G2", "G4"])
    assert not of_type(g.apply(0, play("R3"), 0.0), "chance")
    assert_refused(g, lambda: g.apply(2, play("B3"), 1.0), "not_your_turn")


def test_h2_1_action_cards_still_need_identical() -> None:
    """S3: same-number cut-ins are for number cards only."""
    g = hsetup(SAME, [["RS", "G9"], ["Y1", "Y6"], ["G2", "G6"], ["BS", "Y8"]], first="R5")
    g.apply(0, play("RS"), 0.0)
    assert g.turn == 2 and g.chances(3) == []
    assert_refused(g, lambda: g.apply(3, play("BS"), 1.0), "not_your_turn")


def test_h2_1_same_number_cut_in_may_go_out() -> None:
    g = hsetup(SAME, [["R3", "G9"], ["Y1", "Y6"], ["B3"], ["Y7", "Y8"]], first="R5")
    g.apply(0, play("R3"), 0.0)
    events = g.apply(2, play("B3"), 1.0)
    assert of_type(events, "agari") and g.phase == "finished"


def test_h2_2_off_no_chance_refused_and_dobon_window_stays() -> None:
    g = hsetup(OFF, H2B, first="R5", deck=["G1", "G2", "G4"])
    events = g.apply(0, play("R3"), 0.0)
    assert [(e["to"], e["kinds"]) for e in of_type(events, "chance")] == [(1, ["dobon"])]
    assert g.chances(2) == [] and g.legal_actions(2) == []
    assert_refused(g, lambda: g.apply(2, play("R3"), 1.0), "cut_in_off")
    events = g.apply(1, DOBON, 2.0)
    assert of_type(events, "dobon")  # S4: the window of §R7.2 still exists


def test_h2_2_default_offers_the_identical_cut_in() -> None:
    g = hsetup(None, H2B, first="R5", deck=["G1", "G2", "G4"])
    g.apply(0, play("R3"), 0.0)
    assert g.chances(2) == ["cut_in"]
