"""§R7 — cut-ins: identical card out of turn, window, effects, consecutive cut-ins, lapse."""

from __future__ import annotations

import pytest

from .helpers import (
    DECLINE,
    DOBON,
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

FILL = ["B7", "B8"]  # 15 points, identical to nothing played below


def test_r7_1_identical_card_cuts_in_and_turn_passes_from_cutter() -> None:
    g = setup([["R5", "G1"], FILL, ["R5", "G2"], FILL])
    g.play(A, ["R5"], 0.0)
    assert g.turn == B
    events = g.play(C, ["R5"], 0.0)
    plays = of_type(events, "play")
    assert plays and plays[0]["cut_in"] is True and plays[0]["seat"] == C
    assert g.hand(C) == ["G2"]
    assert g.turn == D


def test_r7_1_play_event_on_turn_is_not_a_cut_in() -> None:
    g = setup([["R5", "G1"], FILL, FILL, FILL])
    events = g.play(A, ["R5"], 0.0)
    p = of_type(events, "play")[0]
    assert p["cut_in"] is False and p["cards"] == ["R5"] and p["points"] == 5


def test_r7_1_several_copies_may_cut_in() -> None:
    g = setup([["R5", "G1"], FILL, ["R5", "R5", "G2"], FILL])
    g.play(A, ["R5"], 0.0)
    assert_legal(g, C, [play("R5"), play("R5", "R5"), DECLINE])
    g.play(C, ["R5", "R5"], 0.0)
    assert g.turn == D


def test_r7_1_wild_cuts_in_on_wild() -> None:
    g = setup([["W", "G1"], FILL, ["W", "G2"], FILL])
    g.play(A, ["W"], 0.0)
    g.play(C, ["W"], 0.0)
    assert g.chooser == C


def test_r7_1_any_forced_colour_cuts_in_on_a_forced_colour() -> None:
    """§R2.2: two F of any colours are identical."""
    g = setup([["RF", "G1"], FILL, ["BF", "G2"], FILL])
    g.play(A, ["RF"], 0.0)
    g.play(C, ["BF"], 0.0)
    assert g.color == "B" and g.turn == D


def test_r7_1_non_identical_card_out_of_turn_is_refused() -> None:
    g = setup([["R5", "G1"], FILL, ["R6", "B5", "R3"], FILL])
    g.play(A, ["R5"], 0.0)
    for cards in (["R6"], ["B5"]):
        assert_refused(g, lambda cards=cards: g.play(C, cards, 0.0))
    assert g.legal_actions(C) == []


def test_r7_1_no_cut_in_on_own_play() -> None:
    g = setup([["R5", "R5", "G1"], FILL, FILL, FILL])
    g.play(A, ["R5"], 0.0)
    assert_refused(g, lambda: g.play(A, ["R5"], 0.0))
    assert g.legal_actions(A) == []


def test_r7_1_original_player_may_cut_in_on_a_cut_in() -> None:
    """§R7.5: consecutive cut-ins; the top card is now C's play, not A's."""
    g = setup([["R5", "R5", "G1"], FILL, ["R5", "G2"], FILL])
    g.play(A, ["R5"], 0.0)
    g.play(C, ["R5"], 0.0)
    g.play(A, ["R5"], 0.0)
    assert g.turn == B


def test_r7_1_no_cut_in_on_the_first_card() -> None:
    g = setup([["G1", "G2"], FILL, ["R3", "G2"], FILL], first="R3")
    assert_refused(g, lambda: g.play(C, ["R3"], 0.0))


@pytest.mark.parametrize("action", ["draw", "pass", "play"])
def test_r7_2_window_closes_at_the_next_turn_action(action: str) -> None:
    """D is never on turn here, so its R5 can only be a cut-in on A's R5."""
    g = setup([["R5", "G1"], ["R9", "B8"], FILL, ["R5", "G2"]])
    g.play(A, ["R5"], 0.0)
    if action == "draw":
        g.draw(B, 0.0)
    elif action == "pass":
        g.draw(B, 0.0)
        g.pass_turn(B, 0.0)
    else:
        g.play(B, ["R9"], 0.0)
    assert_refused(g, lambda: g.play(D, ["R5"], 0.0))
    assert g.legal_actions(D) == []


def test_r7_2_window_closes_when_the_stack_is_taken() -> None:
    g = setup([["R+2", "G1"], FILL, FILL, ["R+2", "G2"]])
    g.play(A, ["R+2"], 0.0)
    g.draw(B, 0.0)
    assert g.turn == C
    assert_refused(g, lambda: g.play(D, ["R+2"], 0.0))


def test_r7_2_window_stays_open_during_and_after_colour_choice() -> None:
    g = setup([["W+4", "G1"], FILL, ["W+4", "G2"], FILL])
    g.play(A, ["W+4"], 0.0)
    g.choose_color(A, "R", 0.0)
    assert g.turn == B
    assert "cut_in" in g.view(C)["chances"]
    g.play(C, ["W+4"], 0.0)
    assert g.pending_draw == 8 and g.chooser == C


def test_r7_2a_a_cut_in_closes_chances_on_the_play_before() -> None:
    """A plays R5 (5); D could dobon it. C cuts in with R5 R5 (10): D's chance is gone."""
    g = setup([["R5", "G1"], FILL, ["R5", "R5", "G2"], ["G2", "G3"]])
    g.play(A, ["R5"], 0.0)
    assert "dobon" in g.view(D)["chances"]
    g.play(C, ["R5", "R5"], 0.0)
    assert_refused(g, lambda: g.dobon(D, 0.0))
    assert "dobon" not in g.view(D)["chances"]


def test_r7_3_no_cut_in_on_a_going_out_play() -> None:
    g = setup([["R5"], FILL, ["R5", "G2"], ["G5"]])
    g.play(A, ["R5"], 0.0)
    assert g.phase == "agari_wait"
    assert_refused(g, lambda: g.play(C, ["R5"], 0.0))
    assert g.legal_actions(C) == []


def test_r7_3_no_cut_in_on_a_going_out_play_that_ends_the_game() -> None:
    g = setup([["R5"], FILL, ["R5", "G2"], FILL])
    g.play(A, ["R5"], 0.0)
    assert g.phase == "finished"
    assert_refused(g, lambda: g.play(C, ["R5"], 0.0))


def test_r7_4_cut_in_on_skip_skips_seat_after_cutter() -> None:
    g = setup([["RS", "G1"], FILL, FILL, ["RS", "G2"]])
    g.play(A, ["RS"], 0.0)
    assert g.turn == C
    g.play(D, ["RS"], 0.0)
    assert g.turn == B


def test_r7_4_cut_in_on_plus_two_adds_to_the_stack() -> None:
    g = setup([["R+2", "G1"], FILL, ["R+2", "G2"], FILL])
    g.play(A, ["R+2"], 0.0)
    g.play(C, ["R+2"], 0.0)
    assert g.pending_draw == 4 and g.turn == D


def test_r7_4_cut_in_on_reverse_flips_and_passes_from_cutter() -> None:
    g = setup([["RR", "G1"], FILL, ["RR", "G2"], FILL])
    g.play(A, ["RR"], 0.0)
    assert g.direction == -1 and g.turn == D
    g.play(C, ["RR"], 0.0)
    assert g.direction == 1 and g.turn == D


def test_r7_4_r8_1_cut_in_with_a_last_number_card_goes_out() -> None:
    """A cut-in with a last number card goes out (§R8.1 allows numbers)."""
    g = setup([["R5", "G1"], FILL, ["R5"], FILL])
    g.play(A, ["R5"], 0.0)
    g.play(C, ["R5"], 0.0)
    assert g.phase == "finished"
    assert g.result.kind == "agari" and list(g.result.winners) == [C]


def test_r7_5_consecutive_cut_ins_first_come_first_served() -> None:
    g = setup([["R5", "G1"], ["R5", "B8"], ["R5", "G2"], ["R5", "G3"]])
    g.play(A, ["R5"], 0.0)
    g.play(D, ["R5"], 0.0)
    assert g.turn == A
    g.play(C, ["R5"], 0.0)
    assert g.turn == D
    g.play(B, ["R5"], 0.0)
    assert g.turn == C


def test_r7_6_decline_lapses_cut_in_and_dobon_together() -> None:
    """C holds R5 G0: it may cut in with its R5 and dobon (5 points); one decline ends both."""
    g = setup([["R5", "G1"], FILL, ["R5", "G0"], FILL])
    g.play(A, ["R5"], 0.0)
    assert_legal(g, C, [play("R5"), DOBON, DECLINE])
    events = g.decline(C, 0.0)
    assert all(e["to"] == C for e in of_type(events, "decline"))
    assert_refused(g, lambda: g.play(C, ["R5"], 0.0))
    assert_refused(g, lambda: g.dobon(C, 0.0))
    assert g.legal_actions(C) == []
    assert g.view(C)["chances"] == []


def test_r7_6_decline_without_a_chance_is_refused() -> None:
    g = setup([["R5", "G1"], FILL, FILL, FILL])
    g.play(A, ["R5"], 0.0)
    assert_refused(g, lambda: g.decline(C, 0.0))


def test_r7_6_cut_in_chance_lapses_after_the_timeout() -> None:
    """A plays W at 0 (C's chance until 10), chooses at 8 (B's clock until 18)."""
    g = setup([["W", "G1"], FILL, ["W", "G2"], FILL])
    g.play(A, ["W"], 0.0)
    g.choose_color(A, "R", 8.0)
    g.advance(9.5)
    assert "cut_in" in g.view(C)["chances"]
    g.advance(10.0)
    assert g.turn == B
    assert "cut_in" not in g.view(C)["chances"]
    assert_refused(g, lambda: g.play(C, ["W"], 10.0))
    assert g.next_deadline == pytest.approx(18.0)


def test_r7_1_wild_draw_four_is_not_identical_to_wild() -> None:
    g = setup([["W", "G1"], FILL, ["W+4", "G2"], FILL])
    g.play(A, ["W"], 0.0)
    assert_refused(g, lambda: g.play(C, ["W+4"], 0.0))


def test_r7_1_the_seat_on_turn_plays_an_identical_card_normally() -> None:
    g = setup([["R5", "G1"], ["R5", "B8"], FILL, FILL])
    g.play(A, ["R5"], 0.0)
    events = g.play(B, ["R5"], 0.0)
    assert of_type(events, "play")[0]["cut_in"] is False
    assert g.turn == C


def test_r7_4_cut_in_chooser_clock_starts_with_the_cut_in_play() -> None:
    """§R14.1: a colour choice starts when the card is played."""
    g = setup([["W", "G1"], FILL, ["W", "G2"], FILL])
    g.play(A, ["W"], 0.0)
    g.play(C, ["W"], 3.0)
    assert g.chooser == C
    assert g.view(C)["turn_deadline"] == pytest.approx(13.0)
    g.advance(13.0)
    assert g.turn == D and g.color in ("R", "B", "G", "Y")


def test_r7_4_r8_2_cut_in_going_out_waits_for_dobon_and_wins_after_declines() -> None:
    g = setup([["R5", "G1"], ["G2", "G3"], ["R5"], FILL])
    g.play(A, ["R5"], 0.0)
    g.play(C, ["R5"], 1.0)
    assert g.phase == "agari_wait"
    g.decline(B, 2.0)
    assert g.result.kind == "agari" and list(g.result.winners) == [C]
    assert g.result.next_first_player == C


def test_r7_4_original_player_may_dobon_the_cut_in() -> None:
    """A plays R5 keeping G2 G3 (5); C cuts in with R5: A may dobon C (§R9.1)."""
    g = setup([["R5", "G2", "G3"], FILL, ["R5", "G1"], FILL])
    g.play(A, ["R5"], 0.0)
    g.play(C, ["R5"], 0.0)
    assert "dobon" in g.view(A)["chances"]
    g.dobon(A, 0.0)
    # T = A 5 + B 15 + C 6 (the R5 counted back) + D 15 = 41
    assert_result_dobon = g.result
    assert assert_result_dobon.kind == "dobon"
    assert sorted(tuple(p) for p in assert_result_dobon.payments) == [(C, A, 41)]
