"""§R3 — starting a game: first player, dealer, and the first-card table (§R3.3)."""

from __future__ import annotations

import pytest

from game.rules import Game

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
    play,
    setup,
)

# Four seats, F = B (seat 1), so the dealer is A (seat 0). Filler hands match nothing
# in particular and have distinct point totals.
HANDS = [["G1", "G2"], ["B1", "B2"], ["Y1", "Y3"], ["G4", "G6"]]


def start(first: str, hands: list[list[str]] | None = None, first_player: int = B) -> Game:
    return setup(hands or HANDS, first=first, first_player=first_player)


def test_r3_1_direction_starts_clockwise_with_first_card_up() -> None:
    g = start("R7")
    assert g.direction == 1
    assert g.top == "R7" and g.color == "R"
    assert g.phase == "turn" and g.pending_draw == 0


def test_r3_3_number_first_card_f_plays_normally() -> None:
    g = start("R7")
    assert g.turn == B
    assert g.chooser is None


def test_r3_3_skip_first_card_skips_f() -> None:
    g = start("RS")
    assert g.turn == C
    assert g.color == "R"


def test_r3_3_reverse_first_card_dealers_right_neighbour_plays_first() -> None:
    """Dealer = A (0); its right neighbour is D (3); direction counter-clockwise."""
    g = start("RR")
    assert g.direction == -1
    assert g.turn == D


def test_r3_3_reverse_first_card_then_play_goes_counter_clockwise() -> None:
    g = start("RR", hands=[["G1", "G2"], ["B1", "B2"], ["Y1", "Y3"], ["R4", "G6"]])
    g.play(D, ["R4"], 0.0)
    assert g.turn == C


def test_r3_3_reverse_first_card_three_seats() -> None:
    """F = A, dealer = C, dealer's right neighbour = B."""
    g = setup([["G1", "G2"], ["B1", "B2"], ["Y1", "Y3"]], first="GR", first_player=A)
    assert g.direction == -1
    assert g.turn == B


@pytest.mark.parametrize("f, dealer", [(B, A), (A, B)])
def test_r3_3_reverse_first_card_two_seats_acts_as_skip(f: int, dealer: int) -> None:
    """With 2 seats the R acts as an S: F is skipped and the dealer plays first."""
    g = setup([["G1", "G2"], ["B1", "B2"]], first="RR", first_player=f)
    assert g.turn == dealer


def test_r3_3_draw_two_first_card_f_faces_stack_of_two_and_takes() -> None:
    g = start("R+2")
    assert g.turn == B and g.pending_draw == 2
    g.draw(B, 0.0)
    assert len(g.hand(B)) == 4
    assert g.pending_draw == 0
    assert g.turn == C


def test_r3_3_draw_two_first_card_f_may_stack_plus_two() -> None:
    g = start("R+2", hands=[["G1", "G2"], ["B+2", "B2"], ["Y1", "Y3"], ["G4", "G6"]])
    g.play(B, ["B+2"], 0.0)
    assert g.pending_draw == 4
    assert g.turn == C


def test_r3_3_draw_two_first_card_f_may_stack_wild_draw_four() -> None:
    g = start("R+2", hands=[["G1", "G2"], ["W+4", "B2"], ["Y1", "Y3"], ["G4", "G6"]])
    g.play(B, ["W+4"], 0.0)
    assert g.pending_draw == 6
    assert g.phase == "color" and g.chooser == B


def test_r3_3_draw_two_first_card_legal_actions() -> None:
    g = start("R+2", hands=[["G1", "G2"], ["B+2", "W+4", "W", "R2"], ["Y1", "Y3"], ["G4", "G6"]])
    assert_legal(g, B, [play("B+2"), play("W+4"), DRAW])


def test_r3_3_wild_first_card_f_chooses_then_plays() -> None:
    g = start("W", hands=[["G1", "G2"], ["B1", "B2"], ["Y1", "Y3"], ["G4", "G6"]])
    assert g.phase == "color" and g.chooser == B
    assert g.turn is None and g.color is None
    assert_refused(g, lambda: g.choose_color(A, "B", 0.0))
    g.choose_color(B, "B", 0.0)
    assert g.color == "B"
    assert g.phase == "turn" and g.turn == B
    g.play(B, ["B1"], 0.0)
    assert g.turn == C


def test_r3_3_wild_draw_four_first_card_f_faces_stack_of_four() -> None:
    g = start("W+4")
    assert g.turn == B and g.pending_draw == 4
    assert g.color is None
    assert_legal(g, B, [DRAW])


def test_r3_3_wild_draw_four_first_card_f_takes_next_player_chooses_then_plays() -> None:
    g = start("W+4")
    g.draw(B, 0.0)
    assert len(g.hand(B)) == 6
    assert g.pending_draw == 0
    assert g.phase == "color" and g.chooser == C and g.turn is None
    assert_refused(g, lambda: g.choose_color(B, "G", 0.0))
    g.choose_color(C, "Y", 0.0)
    assert g.color == "Y"
    assert g.turn == C
    g.play(C, ["Y1"], 0.0)
    assert g.turn == D


def test_r3_3_wild_draw_four_first_card_f_cannot_stack_plus_two() -> None:
    g = start("W+4", hands=[["G1", "G2"], ["B+2", "B2"], ["Y1", "Y3"], ["G4", "G6"]])
    assert_refused(g, lambda: g.play(B, ["B+2"], 0.0))
    assert_legal(g, B, [DRAW])


def test_r3_3_wild_draw_four_first_card_f_stacks_and_chooses() -> None:
    g = start("W+4", hands=[["G1", "G2"], ["W+4", "B2"], ["Y1", "Y3"], ["G4", "G6"]])
    g.play(B, ["W+4"], 0.0)
    assert g.pending_draw == 8
    assert g.phase == "color" and g.chooser == B
    g.choose_color(B, "G", 0.0)
    assert g.turn == C and g.pending_draw == 8
    g.draw(C, 0.0)
    assert len(g.hand(C)) == 10
    assert g.color == "G"
    assert g.turn == D


def test_r3_3_forced_colour_first_card_sets_colour_f_plays() -> None:
    g = start("GF")
    assert g.color == "G"
    assert g.phase == "turn" and g.turn == B and g.chooser is None


@pytest.mark.parametrize("seed", range(30))
def test_r3_2_new_game_follows_first_player_and_first_card_table(seed: int) -> None:
    """Game.new(first_player=F): the opening matches §R3.3 for whatever card is turned up."""
    f = 2
    g = Game.new(players=4, first_player=f, seed=seed, rate=1, timeout=10.0, now=0.0)
    top = g.top
    if top == "W":
        assert g.phase == "color" and g.chooser == f
    elif top == "W+4":
        assert g.turn == f and g.pending_draw == 4
    elif top.endswith("S"):
        assert g.turn == 3
    elif top.endswith("R"):
        assert g.turn == 0 and g.direction == -1  # dealer 1, its right neighbour 0
    elif top.endswith("+2"):
        assert g.turn == f and g.pending_draw == 2
    else:
        assert g.turn == f and g.color == top[0]


def test_r3_4_no_cut_in_on_the_first_card() -> None:
    g = start("R7", hands=[["G1", "G2"], ["B1", "B2"], ["Y1", "Y3"], ["R7", "G6"]])
    assert_refused(g, lambda: g.play(D, ["R7"], 0.0))
    assert g.legal_actions(D) == []


def test_r3_4_no_dobon_on_the_first_card() -> None:
    g = start("R7", hands=[["G1", "G2"], ["B1", "B2"], ["Y1", "Y3"], ["G3", "G4"]])
    assert_refused(g, lambda: g.dobon(D, 0.0))
    assert_refused(g, lambda: g.dobon(B, 0.0))
    assert_refused(g, lambda: g.decline(D, 0.0))
    assert g.view(D)["chances"] == []


def test_r3_4_no_cut_in_on_a_wild_first_card_during_the_choice() -> None:
    g = start("W", hands=[["G1", "G2"], ["B1", "B2"], ["W", "Y3"], ["G4", "G6"]])
    assert_refused(g, lambda: g.play(C, ["W"], 0.0))


def test_r3_4_no_cut_in_on_a_wild_draw_four_first_card() -> None:
    g = start("W+4", hands=[["G1", "G2"], ["B1", "B2"], ["W+4", "Y3"], ["G4", "G6"]])
    assert_refused(g, lambda: g.play(C, ["W+4"], 0.0))
    assert g.legal_actions(C) == []
    assert DOBON not in g.legal_actions(A) and DECLINE not in g.legal_actions(A)
