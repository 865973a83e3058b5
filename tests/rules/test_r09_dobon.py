"""§R9 — dobon: who may declare, the window, privacy of the chance, the stop, reveal."""

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
    assert_result,
    of_type,
    setup,
)

FILL = ["B7", "B8"]  # 15 points


def test_r9_1_hand_points_equal_to_the_play_may_dobon() -> None:
    g = setup([["R9", "G1"], FILL, ["G4", "G5"], FILL])
    g.play(A, ["R9"], 0.0)
    events = g.dobon(C, 1.0)
    d = of_type(events, "dobon")
    assert d and d[0]["seat"] == C and d[0]["target"] == A and d[0]["to"] is None
    assert_result(g, "dobon", [C], [(A, C, 10 + 15 + 9 + 15)])


def test_r9_1_action_cards_in_the_hand_count_at_their_points() -> None:
    """A plays R+2 (20); C holds a single S (20)."""
    g = setup([["R+2", "G1"], FILL, ["GS"], FILL])
    g.play(A, ["R+2"], 0.0)
    g.dobon(C, 0.0)
    assert g.result is not None and g.result.kind == "dobon"


def test_r9_1_wild_in_the_hand_counts_thirty() -> None:
    """A plays W+4 (50); C holds W + R9 + B9 + G2 (30 + 20 = 50)."""
    g = setup([["W+4", "G1"], FILL, ["W", "R9", "B9", "G2"], FILL])
    g.play(A, ["W+4"], 0.0)
    assert "dobon" in g.view(C)["chances"]
    g.dobon(C, 0.0)
    assert g.result.kind == "dobon"


def test_r9_1_hand_of_zeros_may_dobon_a_zero() -> None:
    g = setup([["R0", "G1"], FILL, ["G0", "B0"], FILL])
    g.play(A, ["R0"], 0.0)
    g.dobon(C, 0.0)
    assert_result(g, "dobon", [C], [(A, C, 1 + 15 + 0 + 15)])


def test_r9_1_wrong_points_are_refused() -> None:
    g = setup([["R9", "G1"], FILL, ["G4", "G6"], FILL])
    g.play(A, ["R9"], 0.0)
    assert_refused(g, lambda: g.dobon(C, 0.0))
    assert_refused(g, lambda: g.dobon(B, 0.0))
    assert g.legal_actions(C) == []


def test_r9_1_the_player_cannot_dobon_its_own_play() -> None:
    g = setup([["R9", "G4", "G5"], FILL, FILL, FILL])
    g.play(A, ["R9"], 0.0)
    assert_refused(g, lambda: g.dobon(A, 0.0))


def test_r9_1_seat_on_turn_may_dobon_the_play_before() -> None:
    g = setup([["R9", "G1"], ["G4", "G5"], FILL, FILL])
    g.play(A, ["R9"], 0.0)
    assert g.turn == B
    g.dobon(B, 0.0)
    assert g.result.kind == "dobon" and list(g.result.winners) == [B]


def test_r9_1_dobon_on_a_cut_in_targets_the_cutter() -> None:
    g = setup([["R5", "G1"], FILL, ["R5", "G2"], ["G3", "G2"]])
    g.play(A, ["R5"], 0.0)
    g.play(C, ["R5"], 0.0)
    events = g.dobon(D, 0.0)
    assert of_type(events, "dobon")[0]["target"] == C
    assert g.result.kind == "dobon"
    assert [p[0] for p in g.result.payments] == [C]


@pytest.mark.parametrize("action", ["draw", "play"])
def test_r9_2_window_closes_at_the_next_turn_action(action: str) -> None:
    g = setup([["R9", "G1"], ["R8", "B8"], FILL, ["G4", "G5"]])
    g.play(A, ["R9"], 0.0)
    if action == "draw":
        g.draw(B, 0.0)
    else:
        g.play(B, ["R8"], 0.0)
    assert_refused(g, lambda: g.dobon(D, 0.0))
    assert "dobon" not in g.view(D)["chances"]


def test_r9_2_window_stays_open_during_the_colour_choice() -> None:
    """A plays W (30); C holds 30; the dobon cancels A's pending choice (§R9.4)."""
    g = setup([["W", "G1"], FILL, ["G9", "G9", "G9", "G3"], FILL])
    g.play(A, ["W"], 0.0)
    assert g.phase == "color"
    g.dobon(C, 1.0)
    assert_refused(g, lambda: g.choose_color(A, "R", 1.0))
    assert g.result.kind == "dobon"


def test_r9_2_window_stays_open_after_the_colour_choice() -> None:
    g = setup([["W", "G1"], FILL, ["G9", "G9", "G9", "G3"], FILL])
    g.play(A, ["W"], 0.0)
    g.choose_color(A, "B", 1.0)
    g.dobon(C, 2.0)
    assert g.result.kind == "dobon"


def test_r9_3_only_the_eligible_seat_is_told_and_nobody_is_declared_automatically() -> None:
    g = setup([["R9", "G1"], FILL, ["G4", "G5"], FILL])
    events = g.play(A, ["R9"], 0.0)
    chances = of_type(events, "chance")
    assert chances, "the eligible seat must be told (R9.3)"
    assert all(e["to"] == C for e in chances)
    assert any("dobon" in e["kinds"] for e in chances)
    assert not of_type(events, "dobon")
    assert g.phase == "turn" and g.turn == B and g.result is None
    assert "dobon" in g.view(C)["chances"]
    for seat in (A, B, D):
        assert "dobon" not in g.view(seat)["chances"]
    assert g.view(None)["chances"] == []


def _r9_4_example():  # noqa: ANN202
    """A plays +2 (20); B and C hold 20 each."""
    return setup([["R+2", "G9"], ["G9", "G9", "G2"], ["Y9", "Y9", "Y2"], ["B1"]])


def test_r9_4_worked_example_b_declares_then_c_may_declare_too() -> None:
    g = _r9_4_example()
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 1.0)
    assert g.phase == "dobon_wait"
    assert g.result is None
    assert_legal(g, C, [DOBON, DECLINE])
    g.dobon(C, 2.0)
    # T = A 29 (the +2 counted back) + 20 + 20 + 1 = 70; A's 9 left cannot return.
    assert_result(g, "dobon", [B, C], [(A, B, 70), (A, C, 70)], hand_pts=[29, 20, 20, 1],
                  next_first=B)


def test_r9_4_second_seat_may_decline() -> None:
    g = _r9_4_example()
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 1.0)
    g.decline(C, 2.0)
    assert_result(g, "dobon", [B], [(A, B, 70)], next_first=B)


def test_r9_4_first_dobon_stops_the_game() -> None:
    g = setup([["R+2", "G9"], ["G9", "G9", "G2", "R+2"], ["Y9", "Y9", "Y2"], ["R+2", "B1"]])
    # B holds 40 now (cannot dobon 20), C holds 20, D holds R+2 (cut-in) + 1.
    g.play(A, ["R+2"], 0.0)
    g.dobon(C, 1.0)
    assert g.phase in ("dobon_wait", "return_wait", "finished")
    assert_refused(g, lambda: g.play(B, ["R+2"], 1.0))
    assert_refused(g, lambda: g.draw(B, 1.0))
    assert_refused(g, lambda: g.play(D, ["R+2"], 1.0))
    assert_refused(g, lambda: g.pass_turn(B, 1.0))


def test_r9_4_during_the_wait_only_dobon_or_decline() -> None:
    g = setup([["R+2", "G9"], ["G9", "G9", "G2"], ["Y9", "Y9", "Y2"], ["R+2", "B1"]])
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 1.0)
    assert g.phase == "dobon_wait" and g.turn is None
    assert_refused(g, lambda: g.play(D, ["R+2"], 1.0))
    assert_refused(g, lambda: g.draw(B, 1.0))
    assert_refused(g, lambda: g.draw(C, 1.0))
    assert_refused(g, lambda: g.dobon(B, 1.0))
    assert_refused(g, lambda: g.dobon(D, 1.0))
    assert_refused(g, lambda: g.dobon_return(A, 1.0))
    assert_legal(g, D, [])
    assert_legal(g, A, [])
    assert_legal(g, B, [])
    assert_legal(g, C, [DOBON, DECLINE])


def test_r9_4_a_seat_that_declined_before_the_first_dobon_is_not_asked() -> None:
    g = _r9_4_example()
    g.play(A, ["R+2"], 0.0)
    g.decline(C, 0.5)
    g.dobon(B, 1.0)
    assert_result(g, "dobon", [B], [(A, B, 70)])


def test_r9_4_dobon_cancels_a_pending_colour_choice() -> None:
    g = setup([["W+4", "G1"], FILL, ["W", "R9", "B9", "G2"], ["G9", "G9", "G9", "G9", "G9", "G5"]])
    g.play(A, ["W+4"], 0.0)
    assert g.phase == "color"
    g.dobon(C, 1.0)
    assert g.phase == "dobon_wait"
    assert_refused(g, lambda: g.choose_color(A, "R", 1.0))
    assert_refused(g, lambda: g.play(C, ["W"], 1.0))
    g.dobon(D, 2.0)
    assert g.result.kind == "dobon" and list(g.result.winners) == [C, D]


def test_r9_5_declarers_hands_are_revealed() -> None:
    g = _r9_4_example()
    g.play(A, ["R+2"], 0.0)
    events = g.dobon(B, 1.0)
    d = of_type(events, "dobon")[0]
    assert sorted(d["hand"]) == ["G2", "G9", "G9"]
    for viewer in (None, A, C, D):
        v = g.view(viewer)
        assert sorted(v["revealed"][B]) == ["G2", "G9", "G9"]
        assert v["revealed"][C] is None
    assert g.view(None)["dobon"] == {"target": A, "declarers": [B]}


def test_r9_2_the_seat_on_turn_loses_its_chance_by_drawing() -> None:
    g = setup([["R9", "G1"], ["G4", "G5"], FILL, FILL])
    g.play(A, ["R9"], 0.0)
    g.draw(B, 0.0)
    assert_refused(g, lambda: g.dobon(B, 0.0))


def test_r11_hand_points_count_a_multi_card_play_back() -> None:
    g = setup([["R5", "R5", "G1"], FILL, ["G9", "B1"], FILL])
    g.play(A, ["R5", "R5"], 0.0)
    g.dobon(C, 0.0)
    assert_result(g, "dobon", [C], [(A, C, 11 + 15 + 10 + 15)], hand_pts=[11, 15, 10, 15])
