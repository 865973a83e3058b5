"""§R6 — colour choice: W / W+4 choose at once, last W+4 chooses, F never asks, cut-ins."""

from __future__ import annotations

import pytest

from .helpers import (
    ALL_COLOURS,
    DRAW,
    A,
    B,
    C,
    D,
    assert_legal,
    assert_refused,
    of_type,
    setup,
)


def test_r6_1_wild_player_chooses_at_once_others_wait() -> None:
    g = setup([["W", "G1"], ["B9", "B8"], ["B7", "B8"], ["B7", "B8"]])
    g.play(A, ["W"], 0.0)
    assert g.phase == "color" and g.chooser == A and g.turn is None
    assert g.color is None
    assert_legal(g, A, ALL_COLOURS)
    events = g.choose_color(A, "Y", 0.0)
    col = of_type(events, "color")
    assert col and col[0]["color"] == "Y" and col[0]["seat"] == A and col[0]["to"] is None
    assert g.color == "Y" and g.turn == B and g.chooser is None


def test_r6_1_colour_choice_by_the_wrong_seat_is_refused() -> None:
    g = setup([["W", "G1"], ["B9", "B8"], ["B7", "B8"], ["B7", "B8"]])
    g.play(A, ["W"], 0.0)
    for seat in (B, C, D):
        assert_refused(g, lambda seat=seat: g.choose_color(seat, "R", 0.0))


@pytest.mark.parametrize("bad", ["X", "r", "", "W", "RB"])
def test_r6_1_bad_colour_is_refused(bad: str) -> None:
    """UNSETTLED: a bad colour is an IllegalAction (not a bare ValueError)."""
    g = setup([["W", "G1"], ["B9", "B8"], ["B7", "B8"], ["B7", "B8"]])
    g.play(A, ["W"], 0.0)
    assert_refused(g, lambda: g.choose_color(A, bad, 0.0))


def test_r6_1_no_colour_choice_outside_the_colour_phase() -> None:
    g = setup([["R5", "G1"], ["B9", "B8"], ["B7", "B8"], ["B7", "B8"]])
    assert_refused(g, lambda: g.choose_color(A, "G", 0.0))
    g.play(A, ["R5"], 0.0)
    assert_refused(g, lambda: g.choose_color(A, "G", 0.0))
    assert_refused(g, lambda: g.choose_color(B, "G", 0.0))


def test_r6_1_second_colour_choice_is_refused() -> None:
    g = setup([["W", "W", "G1"], ["B9", "B8"], ["B7", "B8"], ["B7", "B8"]])
    g.play(A, ["W", "W"], 0.0)
    g.choose_color(A, "Y", 0.0)
    assert_refused(g, lambda: g.choose_color(A, "R", 0.0))


def test_r6_2_only_the_last_wild_draw_four_chooses() -> None:
    g = setup(
        [["W+4", "G1"], ["W+4", "B1"], ["B7", "B8"], ["B7", "B8"]], deck=["Y0"] * 10
    )
    g.play(A, ["W+4"], 0.0)
    g.choose_color(A, "R", 0.0)
    g.play(B, ["W+4"], 0.0)
    assert g.phase == "color" and g.chooser == B
    g.choose_color(B, "G", 0.0)
    assert g.turn == C and g.pending_draw == 8
    g.draw(C, 0.0)
    assert g.color == "G"
    assert g.turn == D


def test_r6_3_forced_colour_never_asks() -> None:
    g = setup([["BF", "G1"], ["B9", "B8"], ["B7", "B8"], ["B7", "B8"]])
    events = g.play(A, ["BF"], 0.0)
    assert g.phase == "turn" and g.chooser is None and g.turn == B
    assert g.color == "B"
    assert not of_type(events, "color") or of_type(events, "color")[0]["color"] == "B"
    assert_refused(g, lambda: g.choose_color(A, "R", 0.0))


def test_r6_4_cut_in_wild_moves_the_choice_to_the_cutter() -> None:
    g = setup([["W", "G1"], ["B9", "B8"], ["W", "G2"], ["B7", "B8"]])
    g.play(A, ["W"], 0.0)
    g.play(C, ["W"], 0.0)
    assert g.phase == "color" and g.chooser == C
    assert_refused(g, lambda: g.choose_color(A, "R", 0.0))
    g.choose_color(C, "G", 0.0)
    assert g.color == "G"
    assert g.turn == D


def test_r6_4_cut_in_wild_after_the_colour_was_chosen() -> None:
    """§R7.2: the window stays open after the choice, until the next turn action."""
    g = setup([["W", "G1"], ["B9", "B8"], ["W", "G2"], ["B7", "B8"]])
    g.play(A, ["W"], 0.0)
    g.choose_color(A, "R", 0.0)
    assert g.turn == B
    g.play(C, ["W"], 0.0)
    assert g.phase == "color" and g.chooser == C
    g.choose_color(C, "Y", 0.0)
    assert g.turn == D and g.color == "Y"


def test_r6_4_waiting_seat_may_cut_in_with_wild_draw_four_and_cannot_take_yet() -> None:
    g = setup([["W+4", "G1"], ["W+4", "B1"], ["B7", "B8"], ["B7", "B8"]], deck=["Y0"] * 10)
    g.play(A, ["W+4"], 0.0)
    assert g.phase == "color" and g.chooser == A
    assert_refused(g, lambda: g.draw(B, 0.0))
    g.play(B, ["W+4"], 0.0)
    assert g.pending_draw == 8
    assert g.phase == "color" and g.chooser == B
    assert_refused(g, lambda: g.choose_color(A, "R", 0.0))
    g.choose_color(B, "B", 0.0)
    assert g.turn == C and g.pending_draw == 8
    assert_legal(g, C, [DRAW])
    g.draw(C, 0.0)
    assert g.color == "B" and g.turn == D
