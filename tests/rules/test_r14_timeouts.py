"""§R14 — timeouts via advance(now): every row of the table, clock starts, early ends."""

from __future__ import annotations

import pytest

from .helpers import A, B, C, D, assert_refused, assert_result, of_type, setup

FILL = ["B7", "B8"]


def _timeouts(events: list[dict]) -> list[tuple[int, str]]:
    return [(e["seat"], e["action"]) for e in of_type(events, "timeout")]


def test_r14_nothing_due_nothing_happens() -> None:
    g = setup([["R5", "G1"], FILL, FILL, FILL])
    before = g.to_dict()
    assert g.advance(9.99) == []
    assert g.to_dict() == before
    assert g.next_deadline == pytest.approx(10.0)


def test_r14_on_turn_not_drawn_draws_one_then_passes() -> None:
    g = setup([["R5", "G1"], FILL, FILL, FILL], deck=["R9", "Y0", "Y0"])
    events = g.advance(10.0)
    assert _timeouts(events) == [(A, "draw_pass")]
    assert sorted(g.hand(A)) == ["G1", "R5", "R9"]  # drew a playable card, still passed
    assert g.turn == B
    assert g.next_deadline == pytest.approx(20.0)
    turn = of_type(events, "turn")
    assert turn and turn[-1]["seat"] == B and turn[-1]["deadline"] == pytest.approx(20.0)


def test_r14_1_late_advance_still_acts_at_the_deadline() -> None:
    """The turn timeout at 10 starts B's clock at 10, even when advance runs at 13."""
    g = setup([["R5", "G1"], FILL, FILL, FILL])
    g.advance(13.0)
    assert g.turn == B
    assert g.next_deadline == pytest.approx(20.0)


def test_r14_on_turn_already_drawn_passes() -> None:
    g = setup([["R5", "G1"], FILL, FILL, FILL], deck=["Y1", "Y0"])
    g.draw(A, 4.0)
    assert g.next_deadline == pytest.approx(14.0)  # §R14.1: the draw restarts the clock
    assert g.advance(13.9) == []
    events = g.advance(14.0)
    assert _timeouts(events) == [(A, "pass")]
    assert len(g.hand(A)) == 3
    assert g.deck_count == 1
    assert g.turn == B and g.next_deadline == pytest.approx(24.0)


def test_r14_choosing_a_colour_gets_a_random_colour() -> None:
    g = setup([["W", "G1"], FILL, FILL, FILL])
    g.play(A, ["W"], 2.0)
    assert g.next_deadline == pytest.approx(12.0)
    events = g.advance(12.0)
    assert _timeouts(events) == [(A, "color")]
    col = of_type(events, "color")
    assert col and col[0]["color"] in ("R", "B", "G", "Y")
    assert g.color == col[0]["color"]
    assert g.turn == B and g.next_deadline == pytest.approx(22.0)


def test_r14_random_colour_is_reproducible_from_the_saved_state() -> None:
    from game.rules import Game

    g = setup([["W", "G1"], FILL, FILL, FILL], seed=5)
    g.play(A, ["W"], 0.0)
    h = Game.from_dict(g.to_dict())
    g.advance(10.0)
    h.advance(10.0)
    assert g.color == h.color


def test_r14_facing_a_draw_stack_takes_it() -> None:
    g = setup([["R+2", "G1"], FILL, FILL, FILL])
    g.play(A, ["R+2"], 1.0)
    events = g.advance(11.0)
    assert _timeouts(events) == [(B, "take")]
    assert len(g.hand(B)) == 4 and g.pending_draw == 0
    assert g.turn == C and g.next_deadline == pytest.approx(21.0)


def test_r14_first_card_stack_times_out_at_the_first_deadline() -> None:
    g = setup([FILL, FILL, FILL, FILL], first="B+2")
    g.advance(10.0)
    assert len(g.hand(A)) == 4 and g.turn == B


def test_r14_can_dobon_chance_lapses_silently() -> None:
    """A plays W at 0 (C can dobon until 10), chooses at 6 (B's clock until 16)."""
    g = setup([["W", "G1"], FILL, ["G9", "G9", "G9", "G3"], FILL])
    g.play(A, ["W"], 0.0)
    g.choose_color(A, "R", 6.0)
    assert g.next_deadline == pytest.approx(10.0)
    events = g.advance(10.0)
    assert not [e for e in events if e["to"] is None and e.get("seat") == C]
    assert "dobon" not in g.view(C)["chances"]
    assert_refused(g, lambda: g.dobon(C, 10.0))
    assert g.turn == B and g.next_deadline == pytest.approx(16.0)


def test_r14_can_cut_in_chance_lapses() -> None:
    g = setup([["W", "G1"], FILL, ["W", "G2"], FILL])
    g.play(A, ["W"], 0.0)
    g.choose_color(A, "R", 6.0)
    g.advance(10.0)
    assert_refused(g, lambda: g.play(C, ["W"], 10.0))
    assert g.turn == B


def test_r14_can_return_chance_lapses() -> None:
    g = setup([["R+2", "B+2"], ["G9", "G9", "G2"], ["Y1"], ["G3"]])
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 3.0)
    assert g.phase == "return_wait"
    assert g.next_deadline == pytest.approx(13.0)  # §R14.1: at once when nobody else was asked
    g.advance(13.0)
    assert_result(g, "dobon", [B], [(A, B, 64)])


def test_r14_advance_applies_several_timeouts_in_deadline_order() -> None:
    g = setup([["G1", "G2"], FILL, FILL, FILL])
    events = g.advance(35.0)
    assert _timeouts(events) == [(A, "draw_pass"), (B, "draw_pass"), (C, "draw_pass")]
    assert [len(g.hand(s)) for s in range(4)] == [3, 3, 3, 2]
    assert g.turn == D and g.next_deadline == pytest.approx(40.0)


def test_r14_1_first_card_wild_draw_four_chain_of_timeouts() -> None:
    """F=A takes at 10, B's colour choice starts then (random at 20), B's turn times out at 30."""
    g = setup([FILL, FILL, FILL, FILL], first="W+4")
    events = g.advance(30.0)
    assert _timeouts(events) == [(A, "take"), (B, "color"), (B, "draw_pass")]
    assert len(g.hand(A)) == 6 and len(g.hand(B)) == 3
    assert g.color in ("R", "B", "G", "Y")
    assert g.turn == C and g.next_deadline == pytest.approx(40.0)


def test_r14_1_colour_choice_after_a_taken_first_card_wild_draw_four_starts_at_the_take() -> None:
    g = setup([FILL, FILL, FILL, FILL], first="W+4")
    g.draw(A, 3.0)
    assert g.chooser == B
    assert g.next_deadline == pytest.approx(13.0)


def test_r14_1_cut_in_and_dobon_chances_count_in_next_deadline() -> None:
    g = setup([["W", "G1"], FILL, ["W", "G2"], FILL])
    g.play(A, ["W"], 0.0)
    g.choose_color(A, "R", 1.0)
    assert g.next_deadline == pytest.approx(10.0)
    assert g.view(C)["deadline"] == pytest.approx(10.0)
    assert g.view(B)["turn_deadline"] == pytest.approx(11.0)


def test_r14_1_other_declarers_have_one_timeout_from_the_first_dobon() -> None:
    """§R9.4: A plays at 0, B dobons at 2: C may still declare at 11 (< 12)."""
    g = setup([["R+2", "G9"], ["G9", "G9", "G2"], ["Y9", "Y9", "Y2"], ["B1"]])
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 2.0)
    assert g.next_deadline == pytest.approx(12.0)
    g.advance(11.0)
    assert g.phase == "dobon_wait"
    g.dobon(C, 11.0)
    assert_result(g, "dobon", [B, C], [(A, B, 70), (A, C, 70)])


def test_r14_1_dobon_wait_times_out_one_timeout_after_the_first_dobon() -> None:
    g = setup([["R+2", "G9"], ["G9", "G9", "G2"], ["Y9", "Y9", "Y2"], ["B1"]])
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 2.0)
    g.advance(12.0)
    assert_result(g, "dobon", [B], [(A, B, 70)])


def test_r14_1_return_chance_starts_when_the_dobon_wait_closes_early() -> None:
    g = setup([["R+2", "B+2"], ["G9", "G9", "G2"], ["Y9", "Y9", "Y2"], ["G3"]])
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 2.0)
    g.decline(C, 5.0)  # §R14.2: every seat asked has answered
    assert g.phase == "return_wait"
    assert g.next_deadline == pytest.approx(15.0)
    g.advance(14.9)
    assert g.phase == "return_wait"
    g.advance(15.0)
    assert_result(g, "dobon", [B], [(A, B, 83)])


def test_r14_1_return_chance_starts_when_the_dobon_wait_times_out() -> None:
    g = setup([["R+2", "B+2"], ["G9", "G9", "G2"], ["Y9", "Y9", "Y2"], ["G3"]])
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 2.0)
    g.advance(12.0)
    assert g.phase == "return_wait"
    assert g.next_deadline == pytest.approx(22.0)
    g.dobon_return(A, 21.0)
    assert_result(g, "return", [A], [(B, A, 83)])


def test_r14_1_agari_wait_lasts_one_timeout_from_the_play() -> None:
    g = setup([["R5"], FILL, FILL, ["G5"]])
    g.play(A, ["R5"], 3.0)
    assert g.next_deadline == pytest.approx(13.0)
    g.advance(12.9)
    assert g.phase == "agari_wait"
    g.advance(13.0)
    assert_result(g, "agari", [A], [(B, A, 15), (C, A, 15), (D, A, 5)])


def test_r14_2_agari_wait_ends_early_once_everyone_asked_answered() -> None:
    g = setup([["R5"], FILL, FILL, ["G5"]])
    g.play(A, ["R5"], 0.0)
    g.decline(D, 1.0)
    assert g.phase == "finished" and g.result.kind == "agari"
    assert g.next_deadline is None


def test_r14_2_dobon_wait_ends_early_once_everyone_asked_answered() -> None:
    g = setup([["R+2", "G9"], ["G9", "G9", "G2"], ["Y9", "Y9", "Y2"], ["B1"]])
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 1.0)
    g.dobon(C, 2.0)
    assert g.phase == "finished"
    assert g.next_deadline is None


def test_r14_2_return_wait_ends_early_on_decline() -> None:
    g = setup([["R+2", "B+2"], ["G9", "G9", "G2"], ["Y1"], ["G3"]])
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 1.0)
    g.decline(A, 2.0)
    assert g.phase == "finished" and g.result.kind == "dobon"


def test_r14_no_deadline_after_the_game_finished() -> None:
    g = setup([["R5"], FILL, FILL, FILL])
    g.play(A, ["R5"], 0.0)
    assert g.next_deadline is None
    assert g.advance(100.0) == []


def test_r14_advance_through_a_colour_timeout_and_turns() -> None:
    g = setup([["W", "G1"], FILL, FILL, FILL])
    g.play(A, ["W"], 0.0)
    events = g.advance(35.0)
    assert _timeouts(events) == [(A, "color"), (B, "draw_pass"), (C, "draw_pass")]
    assert g.turn == D and g.next_deadline == pytest.approx(40.0)


def test_r14_timeout_draw_does_not_end_the_turn_early_for_others() -> None:
    """A timed-out draw_pass is one visible draw and one pass; the card stays private."""
    g = setup([["R5", "G1"], FILL, FILL, FILL], deck=["G7", "Y0"])
    events = g.advance(10.0)
    public = [e for e in events if e["to"] is None]
    assert "G7" not in str(public)
    assert [e["to"] for e in of_type(events, "drawn")] == [A]


def test_r14_first_card_wild_colour_times_out_then_f_plays() -> None:
    g = setup([FILL, FILL, FILL, FILL], first="W")
    assert g.chooser == A and g.next_deadline == pytest.approx(10.0)
    events = g.advance(10.0)
    assert _timeouts(events) == [(A, "color")]
    assert g.turn == A and g.next_deadline == pytest.approx(20.0)
