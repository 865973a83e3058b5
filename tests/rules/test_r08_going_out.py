"""§R8 — going out: numbers only, the dobon wait, dobon on a going-out play."""

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
    assert_result,
    of_type,
    setup,
)

FILL = ["B7", "B8"]  # 15 points


@pytest.mark.parametrize("card", ["RS", "RR", "R+2", "W", "W+4", "RF", "GF"])
def test_r8_1_cannot_go_out_with_an_action_or_forced_colour_card(card: str) -> None:
    g = setup([[card], FILL, FILL, FILL])
    assert_refused(g, lambda: g.play(A, [card], 0.0))
    assert_legal(g, A, [DRAW])


@pytest.mark.parametrize("cards", [["RS", "RS"], ["W", "W"], ["RF", "BF"], ["W+4", "W+4"]])
def test_r8_1_cannot_go_out_with_several_action_cards(cards: list[str]) -> None:
    g = setup([cards, FILL, FILL, FILL])
    assert_refused(g, lambda: g.play(A, cards, 0.0))
    g.play(A, cards[:1], 0.0)
    assert g.hand(A) == cards[1:]


def test_r8_1_can_go_out_with_several_identical_numbers() -> None:
    g = setup([["R5", "R5"], FILL, FILL, FILL])
    g.play(A, ["R5", "R5"], 0.0)
    assert_result(g, "agari", [A], [(B, A, 15), (C, A, 15), (D, A, 15)])


def test_r8_1_cannot_go_out_by_stacking() -> None:
    """A plays two +2 (40) so that B's lone +2 (20) gives B no dobon chance."""
    g = setup([["R+2", "R+2", "G1"], ["G+2"], FILL, FILL])
    g.play(A, ["R+2", "R+2"], 0.0)
    assert_refused(g, lambda: g.play(B, ["G+2"], 0.0))
    assert_legal(g, B, [DRAW])


def test_r8_1_cannot_go_out_by_stacking_wild_draw_four() -> None:
    g = setup([["R+2", "R+2", "G1"], ["W+4"], FILL, FILL])
    g.play(A, ["R+2", "R+2"], 0.0)
    assert_refused(g, lambda: g.play(B, ["W+4"], 0.0))


@pytest.mark.parametrize("card", ["RS", "R+2", "RR", "W", "RF"])
def test_r8_1_cannot_go_out_by_cut_in_with_an_action_card(card: str) -> None:
    g = setup([[card, "G1"], FILL, [card], FILL])
    g.play(A, [card], 0.0)
    assert_refused(g, lambda: g.play(C, [card], 0.0))
    assert "cut_in" not in g.view(C)["chances"]


def test_r8_1_going_out_with_action_card_and_not_matching_are_different_codes() -> None:
    g = setup([["RS"], FILL, FILL, FILL])
    out = assert_refused(g, lambda: g.play(A, ["RS"], 0.0))
    g2 = setup([["GS", "G1"], FILL, FILL, FILL])
    mismatch = assert_refused(g2, lambda: g2.play(A, ["GS"], 0.0))
    assert out != mismatch


def test_r8_2_nobody_can_dobon_the_player_has_won_at_once() -> None:
    g = setup([["R5"], FILL, FILL, ["G9"]])
    events = g.play(A, ["R5"], 0.0)
    assert of_type(events, "agari")
    assert of_type(events, "finished")
    assert_result(g, "agari", [A], [(B, A, 15), (C, A, 15), (D, A, 9)], next_first=A)


def test_r8_2_going_out_waits_for_dobon_declarations() -> None:
    g = setup([["R5"], FILL, ["G2", "G3"], ["G5"]])
    events = g.play(A, ["R5"], 0.0)
    assert of_type(events, "agari")
    assert g.phase == "agari_wait"
    assert g.turn is None and g.result is None
    assert_legal(g, C, [DOBON, DECLINE])
    assert_legal(g, D, [DOBON, DECLINE])
    assert_legal(g, B, [])
    assert_refused(g, lambda: g.draw(B, 0.0))


def test_r8_2_everybody_declines_the_player_has_won() -> None:
    g = setup([["R5"], FILL, ["G2", "G3"], ["G5"]])
    g.play(A, ["R5"], 0.0)
    g.decline(C, 1.0)
    assert g.phase == "agari_wait"
    g.decline(D, 2.0)
    assert_result(g, "agari", [A], [(B, A, 15), (C, A, 5), (D, A, 5)], next_first=A)


def test_r8_2_nobody_declares_within_the_timeout_the_player_has_won() -> None:
    g = setup([["R5"], FILL, ["G2", "G3"], ["G5"]])
    g.play(A, ["R5"], 0.0)
    assert g.next_deadline == pytest.approx(10.0)
    g.advance(9.9)
    assert g.phase == "agari_wait"
    g.advance(10.0)
    assert_result(g, "agari", [A], [(B, A, 15), (C, A, 5), (D, A, 5)])


def test_r8_3_dobon_cancels_the_going_out() -> None:
    g = setup([["R5"], FILL, ["G2", "G3"], ["G9"]])
    g.play(A, ["R5"], 0.0)
    g.dobon(C, 1.0)
    # T = A 5 (the play counted back) + B 15 + C 5 + D 9 = 34
    assert_result(g, "dobon", [C], [(A, C, 34)], hand_pts=[5, 15, 5, 9], next_first=C)


def test_r8_2_r9_4_other_seats_get_one_timeout_from_the_first_dobon_on_a_going_out() -> None:
    """UNSETTLED (§R8.2 + §R9.4): A goes out at 0; C dobons at 5; D may still declare at 12
    because the §R9.4 wait runs one timeout from the first dobon, not from the play."""
    g = setup([["R5"], FILL, ["G2", "G3"], ["G5"]])
    g.play(A, ["R5"], 0.0)
    g.dobon(C, 5.0)
    assert g.phase == "dobon_wait"
    g.advance(12.0)
    assert g.phase == "dobon_wait"
    g.dobon(D, 12.0)
    assert_result(g, "dobon", [C, D], [(A, C, 30), (A, D, 30)])
