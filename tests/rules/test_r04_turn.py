"""§R4 — a turn: matching, the optional draw, pass, effects of k cards, next seat."""

from __future__ import annotations

import pytest

from .helpers import (
    DRAW,
    PASS,
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

OTHERS = [["B7", "B8"], ["B7", "B8"], ["B7", "B8"]]  # 15 points each, nothing special


def with_a(hand: list[str], first: str = "R3", **kw: object) -> object:
    return setup([hand] + [list(h) for h in OTHERS], first=first, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("card", ["R9", "G3", "W", "W+4", "GF", "YF", "RS"])
def test_r4_1_matching_cards_can_be_played(card: str) -> None:
    """Colour match, number match, W, W+4 and any F always match."""
    g = with_a([card, "G1", "G2"])
    g.play(A, [card], 0.0)
    assert g.top == card


@pytest.mark.parametrize("card", ["G5", "BS", "Y9", "B+2", "GR"])
def test_r4_1_non_matching_card_is_refused(card: str) -> None:
    g = with_a([card, "G1", "G2"])
    assert_refused(g, lambda: g.play(A, [card], 0.0))


def test_r4_1_symbol_matches_symbol() -> None:
    g = setup([["RS", "G1"], ["B7", "B8"], ["BS", "G1"], ["B7", "B8"]])
    g.play(A, ["RS"], 0.0)
    assert g.turn == C
    g.play(C, ["BS"], 0.0)
    assert g.color == "B"


def test_r4_1_plus_two_matches_plus_two_after_the_stack_was_taken() -> None:
    """UNSETTLED (read from §R4.1): after a take, the top +2 matches another colour's +2."""
    g = setup([["R+2", "G1"], ["B7", "B8"], ["B+2", "G1"], ["B7", "B8"]])
    g.play(A, ["R+2"], 0.0)
    g.draw(B, 0.0)
    assert g.turn == C and g.pending_draw == 0
    g.play(C, ["B+2"], 0.0)
    assert g.pending_draw == 2


def test_r4_1_after_forced_colour_only_its_colour_matches() -> None:
    g = setup([["GF", "G1"], ["G7", "R3", "B8"], ["B7", "B8"], ["B7", "B8"]])
    g.play(A, ["GF"], 0.0)
    assert g.color == "G"
    assert_refused(g, lambda: g.play(B, ["R3"], 0.0))
    g.play(B, ["G7"], 0.0)


def test_r4_1_after_wild_the_chosen_colour_matches() -> None:
    g = setup([["W", "G1"], ["B9", "R3", "B8"], ["B7", "B8"], ["B7", "B8"]])
    g.play(A, ["W"], 0.0)
    g.choose_color(A, "B", 0.0)
    assert_refused(g, lambda: g.play(B, ["R3"], 0.0))
    g.play(B, ["B9"], 0.0)


def test_r4_2_draw_allowed_with_a_playable_card_then_play_the_drawn_card() -> None:
    g = with_a(["R5", "G1"], deck=["R9", "Y0", "Y0"])
    g.draw(A, 0.0)
    assert sorted(g.hand(A)) == ["G1", "R5", "R9"]
    assert g.turn == A
    g.play(A, ["R9"], 0.0)
    assert g.turn == B


def test_r4_2_after_drawing_any_card_of_the_hand_may_be_played() -> None:
    g = with_a(["R5", "G1"], deck=["Y9", "Y0"])
    g.draw(A, 0.0)
    g.play(A, ["R5"], 0.0)
    assert g.turn == B


def test_r4_2_pass_only_after_drawing() -> None:
    g = with_a(["R5", "G1"])
    assert_refused(g, lambda: g.pass_turn(A, 0.0))
    g.draw(A, 0.0)
    events = g.pass_turn(A, 0.0)
    assert of_type(events, "pass")
    assert g.turn == B


def test_r4_2_only_one_optional_draw() -> None:
    g = with_a(["R5", "G1"])
    g.draw(A, 0.0)
    assert_refused(g, lambda: g.draw(A, 0.0))


def test_r4_2_legal_actions_before_and_after_the_draw() -> None:
    g = with_a(["R5", "G1"], deck=["R9", "Y0"])
    assert_legal(g, A, [play("R5"), DRAW])
    g.draw(A, 0.0)
    assert_legal(g, A, [play("R5"), play("R9"), PASS])


def test_r4_3_facing_a_stack_replaces_play_and_draw() -> None:
    g = setup([["R+2", "G1"], ["R4", "B3", "B8"], ["B7", "B8"], ["B7", "B8"]])
    g.play(A, ["R+2"], 0.0)
    assert_refused(g, lambda: g.play(B, ["R4"], 0.0))
    assert_refused(g, lambda: g.pass_turn(B, 0.0))
    assert_legal(g, B, [DRAW])
    g.draw(B, 0.0)
    assert len(g.hand(B)) == 5
    assert g.turn == C


def test_r4_4_skip_k_skips_k_players() -> None:
    g = with_a(["RS", "RS", "G1"])
    g.play(A, ["RS", "RS"], 0.0)
    assert g.turn == D


def test_r4_4_reverse_once_flips_direction() -> None:
    g = with_a(["RR", "G1"])
    g.play(A, ["RR"], 0.0)
    assert g.direction == -1 and g.turn == D


def test_r4_4_reverse_twice_flips_back() -> None:
    g = with_a(["RR", "RR", "G1"])
    g.play(A, ["RR", "RR"], 0.0)
    assert g.direction == 1 and g.turn == B


def test_r4_4_reverse_thrice_is_counter_clockwise() -> None:
    g = with_a(["RR", "RR", "RR", "G1"])
    g.play(A, ["RR", "RR", "RR"], 0.0)
    assert g.direction == -1 and g.turn == D


def test_r4_4_two_seats_reverse_acts_as_skip() -> None:
    g = setup([["RR", "G1"], ["B7", "B8"]])
    g.play(A, ["RR"], 0.0)
    assert g.turn == A


def test_r4_4_two_seats_two_reverses_skip_two() -> None:
    """UNSETTLED (read from §R4.4/§R4.5): §R4.5 formula with k=2 skips: A + 3 (mod 2) = B."""
    g = setup([["RR", "RR", "G1"], ["B7", "B8"]])
    g.play(A, ["RR", "RR"], 0.0)
    assert g.turn == B


def test_r4_4_plus_two_k_adds_2k() -> None:
    g = with_a(["R+2", "R+2", "G1"])
    g.play(A, ["R+2", "R+2"], 0.0)
    assert g.pending_draw == 4 and g.turn == B


def test_r4_4_wild_draw_four_k_adds_4k_with_one_choice() -> None:
    g = with_a(["W+4", "W+4", "G1"])
    g.play(A, ["W+4", "W+4"], 0.0)
    assert g.pending_draw == 8
    assert g.phase == "color" and g.chooser == A
    g.choose_color(A, "Y", 0.0)
    assert g.phase == "turn" and g.turn == B and g.pending_draw == 8


def test_r4_4_two_wilds_need_one_choice() -> None:
    g = with_a(["W", "W", "G1"])
    g.play(A, ["W", "W"], 0.0)
    assert g.phase == "color" and g.chooser == A
    g.choose_color(A, "G", 0.0)
    assert g.phase == "turn" and g.turn == B and g.color == "G"


@pytest.mark.parametrize("order", [["RF", "BF"], ["BF", "RF"], ["YF", "GF", "BF"]])
def test_r4_4_several_forced_colours_last_one_sets_colour(order: list[str]) -> None:
    g = with_a(order + ["G1"])
    events = g.play(A, order, 0.0)
    assert g.top == order[-1]
    assert g.color == order[-1][0]
    assert of_type(events, "play")[0]["cards"] == order


def test_r4_5_skips_can_come_round_to_the_player() -> None:
    """3 seats, A plays S S: A + (1 + 2) = A."""
    g = setup([["RS", "RS", "G1"], ["B7", "B8"], ["B7", "B8"]])
    g.play(A, ["RS", "RS"], 0.0)
    assert g.turn == A


def test_r4_5_skip_counter_clockwise() -> None:
    g = setup([["RR", "G1"], ["B7", "B8"], ["B7", "B8"], ["RS", "G2", "G3"]])
    g.play(A, ["RR"], 0.0)
    assert g.turn == D
    g.play(D, ["RS"], 0.0)
    assert g.turn == B


def test_r4_5_two_seats_skip_returns_to_player() -> None:
    g = setup([["RS", "G1"], ["B7", "B8"]])
    g.play(A, ["RS"], 0.0)
    assert g.turn == A


def test_r4_6_nobody_is_on_turn_while_a_colour_is_chosen() -> None:
    g = setup([["W", "G1"], ["B9", "R3", "B8"], ["B7", "B8"], ["B7", "B8"]])
    g.play(A, ["W"], 1.0)
    assert g.turn is None and g.phase == "color"
    assert_refused(g, lambda: g.play(B, ["R3"], 2.0))
    assert_refused(g, lambda: g.draw(B, 2.0))
    assert g.legal_actions(B) == []


def test_r4_6_next_turn_clock_starts_when_colour_is_chosen() -> None:
    g = setup([["W", "G1"], ["B9", "R3", "B8"], ["B7", "B8"], ["B7", "B8"]])
    g.play(A, ["W"], 1.0)
    assert g.next_deadline == pytest.approx(11.0)
    events = g.choose_color(A, "B", 4.0)
    assert g.turn == B
    assert g.next_deadline == pytest.approx(14.0)
    turns = of_type(events, "turn")
    assert turns and turns[-1]["deadline"] == pytest.approx(14.0)
    assert g.view(B)["turn_deadline"] == pytest.approx(14.0)
