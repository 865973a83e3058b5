"""§H3 draw stacking [ドロー累積]: "cross", "off" and ``stack_cut_in: false``."""

from __future__ import annotations

from .helpers import DRAW, assert_refused, colour, of_type, play
from .house_helpers import hsetup

H3A = [["W+4", "R1"], ["B+2", "Y9"], ["G2", "G3"], ["Y5", "Y6"]]
H3A_DECK = ["G1", "G4", "G6", "G7", "G8", "G9", "Y1"]
H3B = [["R+2", "G9"], ["R+2", "B+2", "Y9"], ["R+2", "G3"], ["Y5", "Y6"]]
H3C = [["R+2", "G9"], ["Y4", "Y6"], ["R+2", "G3"], ["Y5", "Y8"]]


def test_h3_1_cross_plus_two_on_wild_draw_four() -> None:
    g = hsetup({"stacking": "cross"}, H3A, first="R5", deck=H3A_DECK)
    g.apply(0, play("W+4"), 0.0)
    g.apply(0, colour("R"), 0.5)
    assert (g.pending_draw, g.turn) == (4, 1)
    assert {"type": "play", "cards": ["B+2"]} in g.legal_actions(1)
    g.apply(1, play("B+2"), 1.0)
    assert (g.pending_draw, g.color, g.turn) == (6, "B", 2)
    events = g.apply(2, DRAW, 2.0)
    assert not of_type(events, "chance")
    assert g.hand(2) == ["G2", "G3", "G1", "G4", "G6", "G7", "G8", "G9"]
    assert (g.top, g.color, g.turn, g.deck_count) == ("B+2", "B", 3, 1)


def test_h3_1_default_refuses_plus_two_on_wild_draw_four() -> None:
    g = hsetup(None, H3A, first="R5", deck=H3A_DECK)
    g.apply(0, play("W+4"), 0.0)
    g.apply(0, colour("R"), 0.5)
    assert_refused(g, lambda: g.apply(1, play("B+2"), 1.0), "must_draw_or_stack")


def test_h3_2_cross_first_card_wild_draw_four_plus_two_sets_the_colour() -> None:
    g = hsetup({"stacking": "cross"}, [["G+2", "G5"], ["R1", "R2"]], first="W+4",
               first_player=0)
    assert g.color is None and g.pending_draw == 4
    g.apply(0, play("G+2"), 0.0)
    assert (g.color, g.pending_draw, g.turn) == ("G", 6, 1)


def test_h3_3_off_only_take_no_cut_in() -> None:
    g = hsetup({"stacking": "off"}, H3B, first="R5", deck=["G1", "G2", "G4"])
    g.apply(0, play("R+2"), 0.0)
    assert g.pending_draw == 2
    assert g.legal_actions(1) == [{"type": "draw"}]
    assert g.chances(2) == [] and g.legal_actions(2) == []
    assert_refused(g, lambda: g.apply(2, play("R+2"), 1.0), "no_cut_in_on_stack")
    assert_refused(g, lambda: g.apply(1, play("B+2"), 1.0), "must_draw_or_stack")
    g.apply(1, DRAW, 2.0)
    assert g.hand(1)[-2:] == ["G1", "G2"] and g.turn == 2 and g.deck_count == 1


def test_h3_3_off_take_emptying_the_deck_is_a_deck_out() -> None:
    g = hsetup({"stacking": "off"}, H3B, first="R5", deck=["G1", "G2"])
    g.apply(0, play("R+2"), 0.0)
    g.apply(1, DRAW, 1.0)
    assert g.result is not None and g.result.kind == "deck_out"


def test_h3_3_default_stacks_and_cuts_in() -> None:
    g = hsetup(None, H3B, first="R5", deck=["G1", "G2", "G4"])
    g.apply(0, play("R+2"), 0.0)
    assert {"type": "play", "cards": ["B+2"]} in g.legal_actions(1)
    assert g.chances(2) == ["cut_in"]
    g.apply(2, play("R+2"), 1.0)
    assert (g.pending_draw, g.turn) == (4, 3)


def test_h3_3_off_several_on_turn_still_open_a_stack_and_first_card_plus_two() -> None:
    g = hsetup({"stacking": "off"}, [["R+2", "R+2", "G1"], ["R1", "G2"]], first="R5")
    g.apply(0, play("R+2", "R+2"), 0.0)
    assert g.pending_draw == 4
    g = hsetup({"stacking": "off"}, [["R+2", "G1"], ["R1", "G2"]], first="B+2")
    assert g.legal_actions(0) == [{"type": "draw"}]


def test_h3_4_no_stack_cut_in() -> None:
    g = hsetup({"stack_cut_in": False}, H3C, first="R5", deck=["G1", "G2"])
    g.apply(0, play("R+2"), 0.0)
    assert g.turn == 1 and g.chances(2) == []
    assert_refused(g, lambda: g.apply(2, play("R+2"), 1.0), "no_cut_in_on_stack")
    g2 = hsetup(None, H3C, first="R5", deck=["G1", "G2"])
    g2.apply(0, play("R+2"), 0.0)
    g2.apply(2, play("R+2"), 1.0)
    assert (g2.pending_draw, g2.turn) == (4, 3)


def test_h3_4_facing_player_still_stacks_and_wild_draw_four_colour_wait_has_no_cut_in() -> None:
    """§R6.4's second sentence does not apply under stack_cut_in false."""
    g = hsetup({"stack_cut_in": False}, [["W+4", "G9"], ["W+4", "Y6"], ["R+2", "G3"]],
               first="R5")
    g.apply(0, play("W+4"), 0.0)
    assert g.phase == "color" and g.chances(1) == []
    assert_refused(g, lambda: g.apply(1, play("W+4"), 0.5), "no_cut_in_on_stack")
    g.apply(0, colour("G"), 1.0)
    assert {"type": "play", "cards": ["W+4"]} in g.legal_actions(1)
