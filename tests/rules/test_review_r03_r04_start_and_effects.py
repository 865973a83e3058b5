"""Review: §R3.2 / §R3.3 first-card rows for every seat count, §R4.4 multi-card effects, §R4.5."""

from __future__ import annotations

import pytest

from .helpers import DRAW, A, B, C, D, assert_legal, assert_refused, play, setup


def _hands(n: int) -> list[list[str]]:
    # Distinct, non-matching filler hands (no dobon on anything here).
    fill = [["G1", "G2"], ["B1", "B3"], ["Y1", "Y4"], ["G4", "G6"], ["B6", "B7"],
            ["Y6", "Y8"], ["G7", "G9"], ["B8", "B9"]]
    return [list(h) for h in fill[:n]]


@pytest.mark.parametrize("n", range(2, 9))
@pytest.mark.parametrize("f", [0, 1, 7])
def test_review_r3_3_skip_first_card_every_table(n: int, f: int) -> None:
    """§R3.3 S row: F is skipped, F's left neighbour plays first (for 2 seats: the dealer)."""
    f %= n
    g = setup(_hands(n), first="GS", first_player=f)
    assert g.turn == (f + 1) % n
    assert g.direction == 1 and g.color == "G" and g.pending_draw == 0


@pytest.mark.parametrize("n", range(3, 9))
@pytest.mark.parametrize("f", [0, 1, 5])
def test_review_r3_3_reverse_first_card_every_table(n: int, f: int) -> None:
    """§R3.3 R row: counter-clockwise; the dealer's (F-1) right neighbour (F-2) plays first."""
    f %= n
    g = setup(_hands(n), first="YR", first_player=f)
    assert g.direction == -1
    assert g.turn == (f - 2) % n
    assert g.color == "Y"


@pytest.mark.parametrize("f", [0, 1])
def test_review_r3_3_two_seat_reverse_first_card_dealer_plays_then_play_goes_to_f(f: int) -> None:
    """§R3.3 2-seat R: acts as an S, so the dealer plays first; after the dealer, F plays."""
    dealer = 1 - f
    hands = _hands(2)
    hands[dealer] = ["Y5", "G2"]
    g = setup(hands, first="YR", first_player=f)
    assert g.turn == dealer
    g.play(dealer, ["Y5"], 1.0)
    assert g.turn == f


def test_review_r3_3_number_first_card_sets_colour_and_no_stack() -> None:
    g = setup(_hands(3), first="B9", first_player=2)
    assert g.turn == 2 and g.color == "B" and g.pending_draw == 0 and g.phase == "turn"
    assert g.chooser is None


def test_review_r3_3_forced_colour_first_card_any_card_of_that_colour_or_any_f() -> None:
    g = setup([["Y5", "RF", "G5"], ["B1", "B3"]], first="YF", first_player=0)
    assert g.color == "Y" and g.turn == A
    assert_legal(g, A, [play("Y5"), play("RF"), DRAW])


def test_review_r3_3_wild_draw_four_first_card_f_takes_counter_clockwise_next_chooses() -> None:
    """5 seats, F = 4: after F takes, the next player (seat 0, wrapping round) chooses."""
    g = setup(_hands(5), first="W+4", first_player=4)
    assert g.turn == 4 and g.color is None and g.chooser is None
    g.draw(4, 1.0)
    assert g.phase == "color" and g.chooser == 0 and g.turn is None
    assert g.color is None
    g.choose_color(0, "G", 2.0)
    assert g.turn == 0 and g.color == "G"


def test_review_r3_3_wild_draw_four_first_card_stacked_twice_then_taken() -> None:
    """F stacks W+4 (chooses), the next stacks W+4 (chooses again), the third takes 12."""
    g = setup([["G1", "G2"], ["W+4", "B1"], ["W+4", "Y1"], ["G4", "G6"]], first="W+4",
              first_player=B)
    g.play(B, ["W+4"], 1.0)
    assert g.pending_draw == 8 and g.chooser == B and g.color is None
    g.choose_color(B, "B", 2.0)
    assert g.turn == C and g.color == "B"
    g.play(C, ["W+4"], 3.0)
    assert g.pending_draw == 12 and g.chooser == C and g.color is None
    g.choose_color(C, "Y", 4.0)
    g.draw(D, 5.0)
    assert len(g.hand(D)) == 14
    assert g.color == "Y"  # §R6.2: the last W+4 chooser's colour
    assert g.turn == A and g.phase == "turn"


def test_review_r3_3_wild_draw_four_first_card_f_stacks_two_at_once() -> None:
    g = setup([["G1", "G2"], ["W+4", "W+4", "B1"], ["Y1", "Y3"], ["G4", "G6"]], first="W+4",
              first_player=B)
    assert_legal(g, B, [play("W+4"), play("W+4", "W+4"), DRAW])
    g.play(B, ["W+4", "W+4"], 1.0)
    assert g.pending_draw == 12 and g.chooser == B


def test_review_r3_3_draw_two_first_card_with_two_seats() -> None:
    g = setup([["G1", "G2"], ["B1", "B3"]], first="G+2", first_player=A)
    assert g.turn == A and g.pending_draw == 2
    g.draw(A, 1.0)
    assert len(g.hand(A)) == 4 and g.turn == B and g.color == "G"


# ----------------------------------------------------------------------- §R4.4 / §R4.5


@pytest.mark.parametrize("n, k, expected", [
    (3, 1, 2), (3, 2, 0), (3, 3, 1),     # k = 2 on 3 seats comes back to the player
    (4, 2, 3), (4, 3, 0), (5, 2, 3),
    (2, 1, 0), (2, 2, 1), (2, 3, 0),
])
def test_review_r4_5_k_skips_formula(n: int, k: int, expected: int) -> None:
    """§R4.5: P + (1 + k) x direction (mod n), even when that comes round to P itself."""
    hands = _hands(n)
    hands[0] = ["RS"] * k + ["G5"]
    g = setup(hands, first="R3", first_player=0)
    g.play(0, ["RS"] * k, 1.0)
    assert g.turn == expected
    assert g.direction == 1


@pytest.mark.parametrize("k, direction, expected", [(1, -1, D), (2, 1, B), (3, -1, D)])
def test_review_r4_4_k_reverses_four_seats(k: int, direction: int, expected: int) -> None:
    hands = _hands(4)
    hands[A] = ["RR"] * k + ["G5"]
    g = setup(hands, first="R3", first_player=A)
    g.play(A, ["RR"] * k, 1.0)
    assert g.direction == direction
    assert g.turn == expected


@pytest.mark.parametrize("k, expected", [(1, A), (2, B), (3, A)])
def test_review_r4_4_two_seat_reverses_act_as_k_skips(k: int, expected: int) -> None:
    g = setup([["RR"] * k + ["G5"], ["B1", "B3"]], first="R3", first_player=A)
    g.play(A, ["RR"] * k, 1.0)
    assert g.turn == expected
    assert g.direction == 1


def test_review_r4_5_skips_counter_clockwise_wrap_to_player() -> None:
    """After a reverse, 2 skips on 3 seats come back to the player counter-clockwise."""
    g = setup([["G1", "G2"], ["RS", "RS", "B1"], ["RR", "Y1"]], first="R3", first_player=C)
    g.play(C, ["RR"], 1.0)
    assert g.direction == -1 and g.turn == B
    g.play(B, ["RS", "RS"], 2.0)
    assert g.turn == B


def test_review_r4_4_three_forced_colours_in_given_order_top_and_colour() -> None:
    g = setup([["RF", "BF", "GF", "Y1"], ["B1", "B3"]], first="R3", first_player=A)
    g.play(A, ["GF", "RF", "BF"], 1.0)
    assert g.top == "BF" and g.color == "B"
    assert g.turn == B
    assert g.discards[-3:] == ["GF", "RF", "BF"]


def test_review_r4_4_legal_actions_list_every_final_colour_of_forced_colour_subsets() -> None:
    g = setup([["RF", "BF", "GF", "Y1"], ["B1", "B3"]], first="R3", first_player=A)
    plays = [a["cards"] for a in g.legal_actions(A) if a["type"] == "play"]
    finals = {(tuple(sorted(p)), p[-1]) for p in plays if all(c.endswith("F") for c in p)}
    expected = set()
    for subset in (["RF"], ["BF"], ["GF"], ["RF", "BF"], ["RF", "GF"], ["BF", "GF"],
                   ["RF", "BF", "GF"]):
        for last in subset:
            expected.add((tuple(sorted(subset)), last))
    assert finals == expected


def test_review_r4_4_plus_two_three_at_once_adds_six_and_next_takes_six() -> None:
    g = setup([["R+2", "R+2", "R+2", "G5"], ["B1", "B3"], ["Y1", "Y4"]], first="R3",
              first_player=A)
    g.play(A, ["R+2"] * 3, 1.0)
    assert g.pending_draw == 6 and g.turn == B
    g.draw(B, 2.0)
    assert len(g.hand(B)) == 8 and g.turn == C and g.pending_draw == 0


def test_review_r4_4_wild_draw_four_two_at_once_is_eight_one_choice() -> None:
    g = setup([["W+4", "W+4", "G5"], ["B1", "B3"], ["Y1", "Y4"]], first="R3", first_player=A)
    g.play(A, ["W+4", "W+4"], 1.0)
    assert g.pending_draw == 8 and g.phase == "color" and g.chooser == A
    g.choose_color(A, "Y", 2.0)
    assert g.phase == "turn" and g.turn == B
    assert_legal(g, B, [DRAW])
    assert_refused(g, lambda: g.choose_color(A, "R", 3.0))
