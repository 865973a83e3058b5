"""§R12 — deck out: the last card ends the game, no points change, the rate."""

from __future__ import annotations

import pytest

from .helpers import (
    A,
    B,
    C,
    D,
    assert_refused,
    assert_result,
    hand_points,
    of_type,
    points,
    setup,
)

FILL = ["B7", "B8"]


def test_r12_1_drawing_the_last_card_ends_the_game() -> None:
    """UNSETTLED: a deck-out result has no winners (winners == [])."""
    g = setup([["R5", "G1"], FILL, FILL, FILL], deck=["R9"])
    events = g.draw(A, 0.0)
    assert g.deck_count == 0
    assert "R9" in g.hand(A)
    assert of_type(events, "finished")
    assert_result(g, "deck_out", [], [], next_first=B)


def test_r12_1_the_last_drawn_card_cannot_be_played() -> None:
    g = setup([["R5", "G1"], FILL, FILL, FILL], deck=["R9"])
    g.draw(A, 0.0)
    assert_refused(g, lambda: g.play(A, ["R9"], 0.0))
    assert_refused(g, lambda: g.pass_turn(A, 0.0))
    assert g.legal_actions(A) == []


def test_r12_1_a_draw_that_leaves_cards_does_not_end_the_game() -> None:
    g = setup([["R5", "G1"], FILL, FILL, FILL], deck=["G9", "R9"])
    g.draw(A, 0.0)
    assert g.phase == "turn" and g.deck_count == 1


def test_r12_1_taking_a_stack_that_empties_the_deck_ends_the_game() -> None:
    g = setup([["R+2", "G1"], FILL, FILL, FILL], deck=["Y5", "Y6"])
    g.play(A, ["R+2"], 0.0)
    g.draw(B, 0.0)
    assert sorted(g.hand(B)) == ["B7", "B8", "Y5", "Y6"]
    assert_result(g, "deck_out", [], [], next_first=C)


def test_r12_1_a_timeouts_draw_of_the_last_card_ends_the_game() -> None:
    g = setup([["R5", "G1"], FILL, FILL, FILL], deck=["G9"])
    g.advance(10.0)
    assert "G9" in g.hand(A)
    assert_result(g, "deck_out", [], [], next_first=B)


def test_r12_1_draw_from_an_empty_deck_ends_the_game() -> None:
    g = setup([["R5", "G1"], FILL, FILL, FILL], deck=[])
    g.draw(A, 0.0)
    assert g.hand(A) == ["R5", "G1"]
    assert_result(g, "deck_out", [], [], next_first=B)


def test_r12_1_taking_from_an_empty_deck_ends_the_game() -> None:
    g = setup([["G1", "G2"], FILL, FILL, FILL], first="R+2", deck=[])
    g.draw(A, 0.0)
    assert g.hand(A) == ["G1", "G2"]
    assert g.result.kind == "deck_out"


def test_r12_2_no_points_change_hands_and_hand_points_are_reported() -> None:
    """UNSETTLED: hand_points are still reported at a deck-out (each hand's points)."""
    hands = [["R5", "W"], ["RS", "G1"], ["B+2"], ["W+4", "Y9"]]
    g = setup(hands, deck=["G9"], rate=8)
    g.draw(A, 0.0)
    assert_result(g, "deck_out", [], [])
    assert hand_points(g) == [points(hands[0]) + 9] + [points(h) for h in hands[1:]]


def test_r12_2_finished_event_shows_every_hand() -> None:
    hands = [["R5", "W"], ["RS", "G1"], ["B+2"], ["W+4", "Y9"]]
    g = setup(hands, deck=["G9"])
    events = g.draw(A, 0.0)
    fin = of_type(events, "finished")[0]
    assert fin["to"] is None
    assert [sorted(h) for h in fin["hands"]] == [sorted(hands[0] + ["G9"])] + [
        sorted(h) for h in hands[1:]
    ]
    assert fin["result"]["kind"] == "deck_out"


@pytest.mark.parametrize("rate", [1, 2, 4, 8])
def test_r12_3_going_out_settles_at_the_games_rate(rate: int) -> None:
    g = setup([["R5"], FILL, ["G1"], FILL], rate=rate)
    assert g.rate == rate
    assert g.view(None)["rate"] == rate
    events = g.play(A, ["R5"], 0.0)
    assert_result(g, "agari", [A], [(B, A, 15 * rate), (C, A, rate), (D, A, 15 * rate)])
    assert of_type(events, "finished")[0]["result"]["rate"] == rate


def test_r12_3_dobon_settles_at_the_games_rate() -> None:
    g = setup([["R9", "G1"], FILL, ["G4", "G5"], FILL], rate=4)
    g.play(A, ["R9"], 0.0)
    g.dobon(C, 0.0)
    assert_result(g, "dobon", [C], [(A, C, 4 * 49)])


def test_r12_3_return_settles_at_the_games_rate() -> None:
    g = setup([["R+2", "B+2"], ["G9", "G9", "G2"], ["Y1"], ["G3"]], rate=8)
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 0.0)
    g.dobon_return(A, 0.0)
    assert_result(g, "return", [A], [(B, A, 8 * 64)])


def test_r12_1_first_card_wild_draw_four_taken_into_deck_out_has_no_colour() -> None:
    """UNSETTLED: F takes a first-card W+4 and empties the deck: no colour is ever chosen."""
    g = setup([FILL, FILL, FILL, FILL], first="W+4", deck=["Y1", "Y2"])
    g.draw(A, 0.0)
    assert g.result.kind == "deck_out"
    assert g.color is None
    assert g.result.next_first_player == B


# -- §R16.14 (§R12.3): the doubling stops at 2^20 ----------------------------------------------


@pytest.mark.parametrize(("deck_outs", "rate"), [
    (0, 1), (1, 2), (2, 4), (19, 2**19), (20, 2**20), (21, 2**20), (31, 2**20), (10_000, 2**20),
])
def test_r16_14_the_rate_doubles_per_deck_out_up_to_2_to_the_20(deck_outs: int, rate: int) -> None:
    from game.rules import rate_for

    assert rate_for(deck_outs) == rate


def test_r16_14_a_game_above_the_cap_is_refused() -> None:
    from game.rules import MAX_RATE, Game

    assert MAX_RATE == 1_048_576
    with pytest.raises(ValueError, match="R16.14"):
        Game.new(players=4, seed=1, rate=MAX_RATE * 2)


def test_r16_14_going_out_at_the_largest_rate_settles_exactly() -> None:
    from game.rules import MAX_RATE

    g = setup([["R5"], FILL, ["G1"], FILL], rate=MAX_RATE)
    g.play(A, ["R5"], 0.0)
    result = g.result
    assert result is not None and result.rate == MAX_RATE
    assert result.deltas == [31 * MAX_RATE, -15 * MAX_RATE, -MAX_RATE, -15 * MAX_RATE]
