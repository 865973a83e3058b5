"""Review: §R8.1 / §R8.2 going out, §R9 dobon, §R10 return, §R11 settlement with a rate."""

from __future__ import annotations

import pytest

from .helpers import (
    DECLINE,
    DOBON,
    DRAW,
    RETURN,
    A,
    B,
    C,
    D,
    assert_legal,
    assert_refused,
    assert_result,
    of_type,
    play,
    setup,
)


@pytest.mark.parametrize("only", ["RS", "RR", "R+2", "W", "W+4", "RF", "BF"])
def test_review_r8_1_a_single_action_card_cannot_go_out_so_the_player_must_draw(only: str) -> None:
    g = setup([[only], ["B1", "B3"]], first="R3", first_player=A)
    assert_legal(g, A, [DRAW])
    assert_refused(g, lambda: g.play(A, [only], 1.0), "cannot_go_out_with_action_card")


@pytest.mark.parametrize("hand", [["W", "W"], ["RS", "RS"], ["RF", "GF"], ["W+4", "W+4"]])
def test_review_r8_1_identical_action_cards_may_not_all_be_played(hand: list[str]) -> None:
    g = setup([hand, ["B1", "B3"]], first="R3", first_player=A)
    plays = [a["cards"] for a in g.legal_actions(A) if a["type"] == "play"]
    assert plays and all(len(p) == 1 for p in plays)
    assert_refused(g, lambda: g.play(A, list(hand), 1.0), "cannot_go_out_with_action_card")


def test_review_r8_1_two_wild_draw_fours_on_a_stack_may_stack_only_one() -> None:
    g = setup([["W+4", "W+4"], ["B1", "B3"]], first="W+4", first_player=A)
    assert_legal(g, A, [play("W+4"), DRAW])


def test_review_r8_1_three_identical_numbers_go_out_at_once() -> None:
    g = setup([["G7", "G7", "G7"], ["B1", "B3"], ["Y1", "Y4"]], first="R7", first_player=A)
    assert_legal(g, A, [play("G7"), play("G7", "G7"), play("G7", "G7", "G7"), DRAW])
    g.play(A, ["G7", "G7", "G7"], 1.0)
    assert_result(g, "agari", [A], [(B, A, 4), (C, A, 5)], hand_pts=[0, 4, 5], next_first=A)


def test_review_r8_1_after_drawing_a_second_copy_the_player_may_go_out() -> None:
    g = setup([["G7"], ["B1", "B3"]], first="GS", first_player=B, deck=["G7", "Y0", "Y0"])
    assert g.turn == A
    g.draw(A, 1.0)
    g.play(A, ["G7", "G7"], 2.0)
    assert g.phase == "finished" and g.result is not None and g.result.kind == "agari"


def test_review_r8_2_going_out_wait_lets_a_seat_on_turn_next_declare() -> None:
    g = setup([["R5"], ["B5", "Y0"], ["Y1", "Y3"]], first="R3", first_player=A)
    events = g.play(A, ["R5"], 1.0)
    assert g.phase == "agari_wait" and g.turn is None
    assert [e["seat"] for e in of_type(events, "chance")] == [B]
    assert_legal(g, B, [DOBON, DECLINE])
    assert g.legal_actions(C) == []
    g.dobon(B, 2.0)
    # §R8.3 / §R10.1: A holds nothing, so no return; payment T = 5 + 5 + 5.
    assert_result(g, "dobon", [B], [(A, B, 14)], hand_pts=[5, 5, 4], next_first=B)


def test_review_r9_1_hand_of_zeros_may_dobon_a_zero_going_out() -> None:
    g = setup([["R0"], ["Y0", "B0"], ["G1", "G2"]], first="R3", first_player=A)
    g.play(A, ["R0"], 1.0)
    assert g.phase == "agari_wait" and g.chances(B) == ["dobon"]
    g.dobon(B, 2.0)
    # T = 0 + 0 + 3 = 3
    assert_result(g, "dobon", [B], [(A, B, 3)], hand_pts=[0, 0, 3], next_first=B)


def test_review_r9_1_action_cards_count_and_two_copies_play_points() -> None:
    """A plays R5 R5 (10); C holds RF (10 points): dobon; B holding 10 in numbers too."""
    g = setup([["R5", "R5", "G9"], ["B4", "Y6"], ["RF"], ["G1", "G2"]], first="R3",
              first_player=A)
    g.play(A, ["R5", "R5"], 1.0)
    assert "dobon" in g.chances(B) and g.chances(C) == ["dobon"] and g.chances(D) == []
    g.dobon(C, 2.0)
    assert g.phase == "dobon_wait"
    g.dobon(B, 3.0)
    # A's remaining hand is 9 (not 10): no return. T = (9 + 10) + 10 + 10 + 3 = 42.
    assert_result(g, "dobon", [C, B], [(A, C, 42), (A, B, 42)], hand_pts=[19, 10, 10, 3],
                  next_first=C)
    assert list(g.result.winners) == [C, B]


def test_review_r9_4_first_dobon_stops_turn_draw_cut_in_and_colour() -> None:
    g = setup([["W", "W", "G1"], ["B9", "B9", "B9", "B3"], ["W", "Y4"], ["W"]], first="B3",
              first_player=A)
    g.play(A, ["W"], 1.0)
    assert g.chances(D) == ["dobon"] and g.chances(B) == ["dobon"]
    assert "cut_in" in g.chances(C)
    g.dobon(D, 2.0)
    assert g.phase == "dobon_wait" and g.turn is None and g.chooser is None
    assert_refused(g, lambda: g.choose_color(A, "R", 2.5))
    assert_refused(g, lambda: g.play(C, ["W"], 2.5))
    assert_refused(g, lambda: g.play(A, ["W"], 2.5))
    assert_refused(g, lambda: g.draw(B, 2.5))
    assert g.legal_actions(C) == [] and g.legal_actions(A) == []
    assert_legal(g, B, [DOBON, DECLINE])
    g.decline(B, 3.0)
    # A's remaining W + G1 = 31 != 30: no return; the choice was cancelled (no colour).
    assert_result(g, "dobon", [D], [(A, D, 61 + 30 + 34 + 30)], hand_pts=[61, 30, 34, 30])
    assert g.color is None


def test_review_r9_4_second_declarer_deadline_is_one_timeout_after_first_dobon() -> None:
    g = setup([["R+2", "G1"], ["R+2"], ["B+2"], ["G4", "G6"]], first="R3", first_player=A)
    g.play(A, ["R+2"], 1.0)
    g.dobon(B, 9.0)
    assert g.chances(C) == ["dobon"]
    assert g.next_deadline == pytest.approx(19.0)
    assert g.advance(18.9) == []
    g.dobon(C, 18.9)
    # A remains with G1 (1) != 20: no return. T = 21 + 20 + 20 + 10 = 71.
    assert_result(g, "dobon", [B, C], [(A, B, 71), (A, C, 71)], hand_pts=[21, 20, 20, 10])


def test_review_r9_5_declarers_hand_is_in_the_public_dobon_event_and_views() -> None:
    g = setup([["R+2", "G1"], ["R+2"], ["B+2"], ["G4", "G6"]], first="R3", first_player=A)
    g.play(A, ["R+2"], 1.0)
    events = g.dobon(B, 2.0)
    ev = of_type(events, "dobon")[0]
    assert ev["to"] is None and ev["hand"] == ["R+2"] and ev["target"] == A
    for seat in (None, A, C, D):
        v = g.view(seat)
        assert v["revealed"][B] == ["R+2"]
        assert v["revealed"][C] is None and v["revealed"][D] is None


def test_review_r10_return_two_declarers_one_return_pays_from_each_with_rate() -> None:
    """§R11.3 second example at rate 4: A 20, B 20, C 40, D 40 (D's 40 counts the 20 it played)."""
    g = setup([["B+2"], ["Y+2"], ["G+2", "G+2"], ["R+2", "R+2"]], first="R3", first_player=D,
              rate=4)
    g.play(D, ["R+2"], 1.0)
    assert g.chances(A) == ["dobon"] and g.chances(B) == ["dobon"]
    g.dobon(A, 2.0)
    g.dobon(B, 3.0)
    assert g.phase == "return_wait" and g.chances(D) == ["return"]
    assert_legal(g, D, [RETURN, DECLINE])
    g.dobon_return(D, 4.0)
    assert_result(g, "return", [D], [(A, D, 480), (B, D, 480)], hand_pts=[20, 20, 40, 40],
                  next_first=D)


def test_review_r10_2_no_return_of_a_return_and_nothing_after() -> None:
    g = setup([["B+2"], ["Y1", "Y3"], ["G1", "G2"], ["R+2", "R+2"]], first="R3", first_player=D)
    g.play(D, ["R+2"], 1.0)
    g.dobon(A, 2.0)
    g.dobon_return(D, 3.0)
    assert g.phase == "finished"
    for seat in range(4):
        assert g.legal_actions(seat) == []
    assert_refused(g, lambda: g.dobon(A, 4.0))
    assert_refused(g, lambda: g.dobon_return(A, 4.0))


def test_review_r11_agari_payments_times_rate_zero_hands_not_listed() -> None:
    g = setup([["R5"], ["Y0"], ["G1", "G2"], ["B0", "Y0"]], first="R3", first_player=A, rate=8)
    g.play(A, ["R5"], 1.0)
    assert_result(g, "agari", [A], [(C, A, 24)], hand_pts=[0, 0, 3, 0], next_first=A)
    assert g.result.rate == 8
    assert g.result.deltas == [24, 0, -24, 0]


def test_review_r11_dobon_with_zero_total_lists_no_payment() -> None:
    g = setup([["R0", "Y0"], ["Y0"], ["B0"]], first="R3", first_player=A)
    g.play(A, ["R0"], 1.0)
    g.dobon(B, 2.0)
    g.decline(C, 3.0)
    # A's remaining Y0 (0) equals the play's 0 and is not empty: A may return.
    assert g.phase == "return_wait"
    g.decline(A, 4.0)
    r = g.result
    assert r is not None and r.kind == "dobon" and list(r.winners) == [B]
    assert list(r.payments) == [] and list(r.deltas) == [0, 0, 0]
    assert r.next_first_player == B
