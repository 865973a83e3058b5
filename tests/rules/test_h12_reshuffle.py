"""§H12 reshuffle the discards [山札の作り直し]."""

from __future__ import annotations

from .helpers import DRAW, PASS, assert_result, of_type, play
from .house_helpers import hsetup

ON = {"reshuffle": True}
H12 = [["R7", "G1", "G2"], ["Y1", "Y2", "Y3"], ["B4", "B6", "B8"], ["G6", "G7", "G9"]]


def test_h12_1_the_last_card_drawn_goes_on_and_the_next_draw_reshuffles() -> None:
    g = hsetup(ON, H12, first="R5", deck=["Y9"])
    assert not of_type(g.apply(0, play("R7"), 0.0), "chance")
    g.apply(1, DRAW, 1.0)
    assert g.phase == "turn" and g.deck_count == 0 and g.hand(1)[-1] == "Y9"
    g.apply(1, PASS, 1.5)
    events = g.apply(2, DRAW, 2.0)
    assert of_type(events, "reshuffle") == [
        {"type": "reshuffle", "to": None, "seat": 2, "count": 1}]
    assert g.hand(2)[-1] == "R5" and g.discards == ["R7"]
    g.apply(2, PASS, 2.5)
    events = g.apply(3, DRAW, 3.0)
    assert of_type(events, "draw")[0]["count"] == 0
    assert_result(g, "deck_out", [], [], next_first=0)


def test_h12_default_the_last_card_ends_the_game() -> None:
    g = hsetup(None, H12, first="R5", deck=["Y9"])
    g.apply(0, play("R7"), 0.0)
    g.apply(1, DRAW, 1.0)
    assert_result(g, "deck_out", [], [], next_first=2)


def test_h12_1_the_whole_last_play_stays_and_a_stack_is_taken_through_a_reshuffle() -> None:
    g = hsetup(ON, [["R+2", "R+2", "G1"], ["Y1", "B2"], ["B4", "B6"]], first="R5",
               deck=["G3"])
    g.apply(0, play("R+2", "R+2"), 0.0)
    events = g.apply(1, DRAW, 1.0)  # takes 4: G3, then the reshuffled R5 ... only 2 exist
    assert of_type(events, "reshuffle")[0]["count"] == 1
    assert g.discards == ["R+2", "R+2"]
    assert g.hand(1) == ["Y1", "B2", "G3", "R5"]
    assert_result(g, "deck_out", [], [], next_first=2)  # §H12.2: taken as far as it goes


def test_h12_with_h7_the_draw_continues_through_a_reshuffle() -> None:
    rules = ON | {"draw_until_playable": True}
    g = hsetup(rules, [["R2", "G1"], ["Y4", "Y6"]], first="R5", deck=["B3"])
    g.apply(0, play("R2"), 0.0)  # discards R5 R2
    events = g.apply(1, DRAW, 1.0)  # B3 (no), reshuffle [R5], R5 (red: yes)
    assert [e["type"] for e in events][:2] == ["reshuffle", "draw"]
    assert of_type(events, "draw")[0]["count"] == 2
    assert g.phase == "turn" and g.legal_actions(1) == [play("R5")]
    g = hsetup(rules, [["Y2", "G1"], ["B4", "B6"]], first="Y5", deck=["G3"])
    g.apply(0, play("Y2"), 0.0)  # discards Y5 Y2
    g.apply(1, DRAW, 1.0)  # G3 (no), reshuffle [Y5], Y5 (yellow: yes)
    assert g.hand(1) == ["B4", "B6", "G3", "Y5"] and g.phase == "turn"
    g = hsetup(rules, [["Y2", "G1"], ["B4", "B6"]], first="R3", deck=["G4"])
    g.apply(0, DRAW, 0.0)  # G4 (no); nothing to reshuffle (the R3 is the last play)
    assert g.result is not None and g.result.kind == "deck_out"
