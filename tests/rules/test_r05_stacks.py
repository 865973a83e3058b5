"""§R5 — draw stacks: what stacks on what, taking, the worked example, short decks."""

from __future__ import annotations

import pytest

from .helpers import (
    DRAW,
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


def facing_plus_two(b_hand: list[str], deck: list[str] | None = None):  # noqa: ANN201
    g = setup([["R+2", "G1"], b_hand, ["B7", "B8"], ["B7", "B8"]], deck=deck)
    g.play(A, ["R+2"], 0.0)
    assert g.turn == B and g.pending_draw == 2
    return g


def test_r5_1_plus_two_stacks_on_plus_two_of_any_colour() -> None:
    g = facing_plus_two(["G+2", "G1"])
    g.play(B, ["G+2"], 0.0)
    assert g.pending_draw == 4 and g.turn == C


def test_r5_1_wild_draw_four_stacks_on_plus_two() -> None:
    g = facing_plus_two(["W+4", "G1"])
    g.play(B, ["W+4"], 0.0)
    assert g.pending_draw == 6
    assert g.phase == "color" and g.chooser == B


def test_r5_1_several_identical_plus_twos_at_once() -> None:
    g = facing_plus_two(["G+2", "G+2", "G1"])
    g.play(B, ["G+2", "G+2"], 0.0)
    assert g.pending_draw == 6


def test_r5_1_different_plus_twos_in_one_play_are_refused() -> None:
    g = facing_plus_two(["G+2", "B+2", "G1"])
    assert_refused(g, lambda: g.play(B, ["G+2", "B+2"], 0.0))


@pytest.mark.parametrize("card", ["R4", "W", "RF", "RS", "RR", "GF"])
def test_r5_1_only_draw_cards_stack(card: str) -> None:
    g = facing_plus_two([card, "G1", "G2"])
    assert_refused(g, lambda: g.play(B, [card], 0.0))


def test_r5_1_plus_two_does_not_stack_on_wild_draw_four() -> None:
    g = setup([["W+4", "G1"], ["R+2", "G+2", "G1"], ["B7", "B8"], ["B7", "B8"]])
    g.play(A, ["W+4"], 0.0)
    g.choose_color(A, "R", 0.0)
    assert g.turn == B and g.pending_draw == 4
    assert_refused(g, lambda: g.play(B, ["R+2"], 0.0))
    assert_legal(g, B, [DRAW])


def test_r5_1_wild_draw_four_stacks_on_wild_draw_four_several_at_once() -> None:
    g = setup([["W+4", "G1"], ["W+4", "W+4", "G1"], ["B7", "B8"], ["B7", "B8"]])
    g.play(A, ["W+4"], 0.0)
    g.choose_color(A, "R", 0.0)
    g.play(B, ["W+4", "W+4"], 0.0)
    assert g.pending_draw == 12


def test_r5_1_legal_stacking_options() -> None:
    g = facing_plus_two(["G+2", "G+2", "W+4", "R4", "W", "RS"])
    assert_legal(g, B, [play("G+2"), play("G+2", "G+2"), play("W+4"), DRAW])


def test_r5_2_take_allowed_even_when_able_to_stack() -> None:
    g = facing_plus_two(["G+2", "G1"], deck=["Y5", "Y6", "Y0"])
    events = g.draw(B, 0.0)
    assert sorted(g.hand(B)) == ["G+2", "G1", "Y5", "Y6"]
    assert g.pending_draw == 0
    assert g.turn == C
    take = of_type(events, "take")
    assert take and take[0]["count"] == 2 and take[0]["seat"] == B and take[0]["to"] is None
    drawn = of_type(events, "drawn")
    assert drawn and all(e["to"] == B for e in drawn)
    assert sorted(c for e in drawn for c in e["cards"]) == ["Y5", "Y6"]


def test_r5_2_taking_ends_the_turn_no_further_play() -> None:
    g = facing_plus_two(["G+2", "R4", "G1"])
    g.draw(B, 0.0)
    assert_refused(g, lambda: g.play(B, ["R4"], 0.0))


def test_r5_3_worked_example_d_takes_eight() -> None:
    """A +2 -> B +2 -> C W+4 -> D cannot stack and takes 8."""
    g = setup(
        [["R+2", "R1"], ["B+2", "B1"], ["W+4", "G1"], ["Y1", "Y2"]],
        deck=["G2"] * 10,
    )
    g.play(A, ["R+2"], 0.0)
    g.play(B, ["B+2"], 0.0)
    g.play(C, ["W+4"], 0.0)
    g.choose_color(C, "G", 0.0)
    assert g.turn == D and g.pending_draw == 8
    assert_legal(g, D, [DRAW])
    events = g.draw(D, 0.0)
    assert of_type(events, "take")[0]["count"] == 8
    assert len(g.hand(D)) == 10
    assert g.pending_draw == 0
    assert g.color == "G"
    assert g.turn == A


def test_r5_4_stack_bigger_than_the_deck_takes_what_is_there_and_ends() -> None:
    g = facing_plus_two(["G4", "G1"], deck=["Y5"])
    events = g.draw(B, 0.0)
    assert of_type(events, "take")[0]["count"] == 1
    assert sorted(g.hand(B)) == ["G1", "G4", "Y5"]
    assert g.deck_count == 0
    assert_result(g, "deck_out", [], [])


def test_r5_1_plus_two_does_not_stack_on_a_wild_draw_four_that_stacked_a_plus_two() -> None:
    g = setup([["R+2", "G1"], ["W+4", "B1"], ["G+2", "G2"], ["B7", "B8"]], deck=["Y0"] * 10)
    g.play(A, ["R+2"], 0.0)
    g.play(B, ["W+4"], 0.0)
    g.choose_color(B, "Y", 0.0)
    assert g.turn == C and g.pending_draw == 6
    assert_refused(g, lambda: g.play(C, ["G+2"], 0.0))
    g.draw(C, 0.0)
    assert len(g.hand(C)) == 8 and g.color == "Y" and g.turn == D


def test_r5_2_take_event_and_turn_event() -> None:
    g = facing_plus_two(["G4", "G1"])
    events = g.draw(B, 2.0)
    turn = of_type(events, "turn")
    assert turn and turn[-1]["seat"] == C and turn[-1]["deadline"] == pytest.approx(12.0)


def test_r5_2_after_a_take_the_next_player_counter_clockwise() -> None:
    g = setup([["RR", "G1"], ["B7", "B8"], ["B7", "B8"], ["R+2", "G1", "G2"]])
    g.play(A, ["RR"], 0.0)
    g.play(D, ["R+2"], 0.0)
    assert g.turn == C and g.pending_draw == 2
    g.draw(C, 0.0)
    assert g.turn == B
