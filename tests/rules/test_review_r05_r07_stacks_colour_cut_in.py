"""Review: §R5.1 stacking (also via cut-in), §R6.2 / §R6.4 colour choice, §R7 cut-in windows."""

from __future__ import annotations

import pytest

from .helpers import (
    DECLINE,
    DOBON,
    DRAW,
    A,
    B,
    C,
    D,
    assert_legal,
    assert_refused,
    of_type,
    play,
    setup,
)


def test_review_r5_1_r7_4_cut_in_plus_two_from_the_seat_before_sends_stack_back() -> None:
    """A plays R+2 (B faces 2); D cuts in R+2: the stack is 4 and passes from D to A."""
    g = setup([["R+2", "G1"], ["B1", "B3"], ["Y1", "Y4"], ["R+2", "G6"]], first_player=A)
    g.play(A, ["R+2"], 1.0)
    assert g.turn == B and g.pending_draw == 2
    g.play(D, ["R+2"], 2.0)
    assert g.pending_draw == 4 and g.turn == A
    assert_legal(g, A, [DRAW])
    g.draw(A, 3.0)
    assert len(g.hand(A)) == 5 and g.turn == B


def test_review_r5_1_cut_in_needs_identical_not_just_stackable() -> None:
    """§R7.1: a B+2 or W+4 is not identical to an R+2: no cut-in (only the seat on turn stacks)."""
    g = setup([["R+2", "G1"], ["B1", "B3"], ["B+2", "W+4", "Y4"], ["G4", "G6"]], first_player=A)
    g.play(A, ["R+2"], 1.0)
    assert g.chances(C) == []
    assert_refused(g, lambda: g.play(C, ["B+2"], 2.0))
    assert_refused(g, lambda: g.play(C, ["W+4"], 2.0))


def test_review_r5_1_two_identical_plus_twos_cut_in_at_once() -> None:
    g = setup([["G+2", "G1"], ["B1", "B3"], ["G+2", "G+2", "Y4"], ["G4", "G6"]],
              first="G3", first_player=A)
    g.play(A, ["G+2"], 1.0)
    assert_legal(g, C, [play("G+2"), play("G+2", "G+2"), DECLINE])
    g.play(C, ["G+2", "G+2"], 2.0)
    assert g.pending_draw == 6 and g.turn == D


def test_review_r5_1_stack_of_plus_two_then_wild_draw_four_cut_in_then_take() -> None:
    """§R5.3-like chain with a cut-in: A +2, B W+4 (chooses), C cuts in W+4 during B's choice."""
    g = setup([["R+2", "G1"], ["W+4", "B3"], ["W+4", "Y4"], ["G4", "G6"]], first_player=A)
    g.play(A, ["R+2"], 1.0)
    g.play(B, ["W+4"], 2.0)
    assert g.pending_draw == 6 and g.chooser == B
    g.play(C, ["W+4"], 3.0)
    assert g.pending_draw == 10 and g.chooser == C
    assert_refused(g, lambda: g.choose_color(B, "R", 3.5))
    g.choose_color(C, "G", 4.0)
    assert g.turn == D
    g.draw(D, 5.0)
    assert len(g.hand(D)) == 12 and g.color == "G" and g.turn == A


def test_review_r6_2_three_stackers_only_last_choice_counts() -> None:
    g = setup([["W+4", "G1"], ["W+4", "B3"], ["W+4", "Y4"], ["G4", "G6"]], first_player=A)
    g.play(A, ["W+4"], 1.0)
    g.choose_color(A, "R", 1.5)
    assert g.color == "R"
    g.play(B, ["W+4"], 2.0)
    assert g.color is None and g.chooser == B
    g.choose_color(B, "B", 2.5)
    g.play(C, ["W+4"], 3.0)
    g.choose_color(C, "Y", 3.5)
    assert g.pending_draw == 12 and g.turn == D
    g.draw(D, 4.0)
    assert g.color == "Y"
    assert g.turn == A


def test_review_r6_4_cut_in_wild_by_a_third_seat_cancels_choice_and_old_clock() -> None:
    """C cuts in W during A's choice: C chooses, A's pending choice and its clock are gone."""
    g = setup([["W", "G1"], ["B1", "B3"], ["W", "Y4"], ["G4", "G6"]], first_player=A)
    g.play(A, ["W"], 1.0)
    assert g.next_deadline == pytest.approx(11.0)
    g.play(C, ["W"], 5.0)
    assert g.chooser == C and g.phase == "color" and g.turn is None
    assert_refused(g, lambda: g.choose_color(A, "R", 5.5))
    assert g.next_deadline == pytest.approx(15.0)
    assert g.advance(14.9) == []
    assert g.chooser == C
    events = g.advance(15.0)
    timeouts = of_type(events, "timeout")
    assert [(e["seat"], e["action"]) for e in timeouts] == [(C, "color")]
    assert g.turn == D  # the turn passes from the cut-in seat (§R7.4)


def test_review_r6_4_waiting_seat_cuts_in_wild_draw_four_and_faces_nothing() -> None:
    """B (waiting to face A's W+4) cuts in with W+4: C now faces 8, B chooses."""
    g = setup([["W+4", "G1"], ["W+4", "B3"], ["Y1", "Y4"], ["G4", "G6"]], first_player=A)
    g.play(A, ["W+4"], 1.0)
    assert_refused(g, lambda: g.draw(B, 1.5))
    assert "cut_in" in g.chances(B)
    g.play(B, ["W+4"], 2.0)
    assert g.chooser == B and g.pending_draw == 8
    assert_refused(g, lambda: g.draw(C, 2.5))
    g.choose_color(B, "B", 3.0)
    assert g.turn == C
    assert_legal(g, C, [DRAW])


def test_review_r6_4_waiting_seat_cut_in_chance_ends_when_colour_is_chosen() -> None:
    g = setup([["W+4", "G1"], ["W+4", "B3"], ["Y1", "Y4"], ["G4", "G6"]], first_player=A)
    g.play(A, ["W+4"], 1.0)
    g.choose_color(A, "G", 2.0)
    assert g.turn == B and "cut_in" not in g.chances(B)
    g.play(B, ["W+4"], 3.0)  # now an ordinary stack from B's turn
    assert g.pending_draw == 8 and g.chooser == B


def test_review_r7_2_colour_choice_keeps_window_open_next_turn_action_closes() -> None:
    """The choice is not a turn action; B's draw (a turn action) closes D's chance on the W."""
    g = setup([["W", "G1"], ["B1", "B3"], ["Y1", "Y4"], ["W", "G6"]], first_player=A)
    g.play(A, ["W"], 1.0)
    assert "cut_in" in g.chances(D)
    g.choose_color(A, "B", 2.0)
    assert "cut_in" in g.chances(D)
    g.draw(B, 3.0)
    assert g.chances(D) == []
    assert g.top == "W"
    assert_refused(g, lambda: g.play(D, ["W"], 3.5), "window_closed")


def test_review_r7_2_take_of_a_stack_closes_the_window() -> None:
    g = setup([["W+4", "G1"], ["B1", "B3"], ["W+4", "Y4"], ["G4", "G6"]], first_player=A)
    g.play(A, ["W+4"], 1.0)
    g.choose_color(A, "B", 2.0)
    assert "cut_in" in g.chances(C)
    g.apply(B, {"type": "draw"}, 3.0)
    assert g.chances(C) == []
    assert g.turn == C


def test_review_r7_2_pass_after_draw_keeps_nothing_open() -> None:
    g = setup([["R5", "G1"], ["B1", "B3"], ["R5", "Y4"], ["G4", "G6"]], first_player=A)
    g.play(A, ["R5"], 1.0)
    g.draw(B, 2.0)
    assert g.chances(C) == []
    g.pass_turn(B, 3.0)
    assert g.chances(C) == [] and g.turn == C


def test_review_r7_4_cut_in_on_skip_by_the_skipped_seat() -> None:
    """A plays RS (B skipped, C on turn); B cuts in RS: C is skipped, D plays."""
    g = setup([["RS", "G1"], ["RS", "B3"], ["Y1", "Y4"], ["G4", "G6"]], first_player=A)
    g.play(A, ["RS"], 1.0)
    assert g.turn == C
    g.play(B, ["RS"], 2.0)
    assert g.turn == D


def test_review_r7_4_cut_in_two_skips_wraps_to_the_cutter() -> None:
    """3 seats: A plays RS (C on turn); B cuts in RS RS: B + 3 = B plays next (§R4.5)."""
    g = setup([["RS", "G1"], ["RS", "RS", "B3"], ["Y1", "Y4"]], first_player=A)
    g.play(A, ["RS"], 1.0)
    assert g.turn == C
    g.play(B, ["RS", "RS"], 2.0)
    assert g.turn == B


def test_review_r7_4_cut_in_reverse_flips_and_goes_from_cutter() -> None:
    g = setup([["RR", "G1"], ["B1", "B3"], ["RR", "Y4"], ["G4", "G6"]], first_player=A)
    g.play(A, ["RR"], 1.0)
    assert g.direction == -1 and g.turn == D
    g.play(C, ["RR"], 2.0)
    assert g.direction == 1 and g.turn == D


def test_review_r7_4_two_seat_cut_in_reverse_acts_as_skip() -> None:
    g = setup([["RR", "G1"], ["RR", "B3"]], first_player=A)
    g.play(A, ["RR"], 1.0)
    assert g.turn == A
    assert "cut_in" in g.chances(B)
    g.play(B, ["RR"], 2.0)
    assert g.turn == B and g.direction == 1


def test_review_r7_5_three_consecutive_cut_ins() -> None:
    g = setup([["G7", "G7", "R1"], ["B1", "B3"], ["G7", "Y4"], ["G7", "G6"]], first="G3",
              first_player=A)
    g.play(A, ["G7"], 1.0)
    g.play(C, ["G7"], 2.0)
    assert g.turn == D
    assert "cut_in" in g.chances(A) and g.chances(C) == []
    assert "cut_in" not in g.chances(D)  # D is on turn: it plays normally
    g.play(A, ["G7"], 3.0)
    assert g.turn == B
    ev = g.play(D, ["G7"], 4.0)
    assert ev[0]["cut_in"] is True
    assert g.turn == A


def test_review_r7_6_decline_lapses_cut_in_and_dobon_then_both_refused() -> None:
    # C holds R5 + Y0 = 5 points: cut-in and dobon chance on A's R5.
    g = setup([["R5", "G1"], ["B1", "B3"], ["R5", "Y0"], ["G4", "G6"]], first_player=A)
    g.play(A, ["R5"], 1.0)
    assert sorted(g.chances(C)) == ["cut_in", "dobon"]
    assert_legal(g, C, [play("R5"), DOBON, DECLINE])
    g.decline(C, 2.0)
    assert g.chances(C) == []
    assert_refused(g, lambda: g.play(C, ["R5"], 2.5))
    assert_refused(g, lambda: g.dobon(C, 2.5))
    assert g.legal_actions(C) == []


def test_review_r7_6_decline_of_one_seat_leaves_others_open() -> None:
    g = setup([["R5", "G1"], ["B1", "B3"], ["R5", "Y4"], ["R5", "G6"]], first_player=A)
    g.play(A, ["R5"], 1.0)
    g.decline(C, 2.0)
    assert g.chances(D) == ["cut_in"]
    g.play(D, ["R5"], 3.0)
    assert g.turn == A


def test_review_r7_3_going_out_by_cut_in_then_no_cut_in_on_it() -> None:
    g = setup([["R5", "G1"], ["B1", "B3"], ["R5"], ["R5", "G6"]], first_player=A)
    g.play(A, ["R5"], 1.0)
    g.play(C, ["R5"], 2.0)
    assert g.phase == "finished"  # nobody holds 5 points: C has won at once
    assert g.result is not None and g.result.kind == "agari" and list(g.result.winners) == [C]
