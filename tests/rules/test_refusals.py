"""Refusals across the rules: IllegalAction with a snake_case code, game unchanged;
different reasons give different codes where the rules distinguish them."""

from __future__ import annotations

import pytest

from game.rules import IllegalAction

from .helpers import (
    DECLINE,
    DOBON,
    DRAW,
    PASS,
    RETURN,
    A,
    B,
    C,
    D,
    colour,
    play,
    refused,
    setup,
)

FILL = ["B7", "B8"]


def _fresh():  # noqa: ANN202
    return setup([["R5", "G6", "GS"], ["R9", "B8"], ["R5", "G2"], FILL])


def test_acting_out_of_turn_is_refused() -> None:
    g = _fresh()
    refused(g, B, play("R9"))
    refused(g, B, DRAW)
    refused(g, B, PASS)
    refused(g, C, play("R5"))  # identical to the first card, but no cut-in on it (§R3.4)


def test_card_not_in_hand_is_refused() -> None:
    g = _fresh()
    refused(g, A, play("R9"))
    refused(g, A, play("R5", "R5"))  # only one R5 held


def test_distinct_reasons_have_distinct_codes() -> None:
    g = _fresh()
    not_turn = refused(g, B, play("R9"))
    not_held = refused(g, A, play("R9"))
    no_match = refused(g, A, play("G6"))
    not_identical = refused(g, A, play("R5", "G6"))
    pass_first = refused(g, A, PASS)
    assert len({not_turn, not_held, no_match, pass_first}) == 4
    assert not_identical not in (not_turn, not_held, pass_first)


def test_second_draw_and_pass_before_draw_are_different_codes() -> None:
    g = _fresh()
    pass_first = refused(g, A, PASS)
    g.draw(A, 0.0)
    second = refused(g, A, DRAW)
    assert pass_first != second


def test_empty_play_is_refused() -> None:
    g = _fresh()
    refused(g, A, play())


@pytest.mark.parametrize("action", [{"type": "jump"}, {"type": "color"}, {"type": "play"}, {}])
def test_malformed_action_dicts_are_refused_without_change(action: dict) -> None:
    g = _fresh()
    before = g.to_dict()
    with pytest.raises(IllegalAction) as refusal:
        g.apply(A, action, 0.0)
    assert refusal.value.code == "malformed_action"
    assert g.to_dict() == before


@pytest.mark.parametrize("seat", [-1, 4, 99])
def test_unknown_seat_is_refused_without_change(seat: int) -> None:
    g = _fresh()
    before = g.to_dict()
    with pytest.raises(IllegalAction) as refusal:
        g.draw(seat, 0.0)
    assert refusal.value.code == "invalid_seat"
    assert g.to_dict() == before


def test_nothing_after_the_game_finished() -> None:
    g = setup([["R5"], ["R5", "B8"], ["W", "G2"], FILL])
    g.play(A, ["R5"], 0.0)
    assert g.phase == "finished"
    codes = set()
    for seat in (A, B, C, D):
        for action in (play("R5"), play("W"), DRAW, PASS, colour("R"), DOBON, RETURN, DECLINE):
            codes.add(refused(g, seat, action, 1.0))
    assert codes


def test_wrong_stacking_is_refused_with_a_stacking_code_not_a_turn_code() -> None:
    g = setup([["R+2", "G1"], ["R4", "B3", "B8"], FILL, FILL])
    g.play(A, ["R+2"], 0.0)
    wrong = refused(g, B, play("R4"))
    out_of_turn = refused(g, C, play("B7"))
    assert wrong != out_of_turn


def test_dobon_refusals() -> None:
    g = setup([["R9", "G1"], FILL, ["G4", "G6"], ["G4", "G5"]])
    refused(g, D, DOBON)  # first card (§R3.4)
    g.play(A, ["R9"], 0.0)
    refused(g, C, DOBON)  # 10 != 9
    refused(g, A, DOBON)  # own play
    g.draw(B, 0.0)
    refused(g, D, DOBON)  # window closed (§R9.2)


def test_cut_in_refusals_distinguish_window_from_identity() -> None:
    g = setup([["R5", "G1"], FILL, ["R6", "B5", "G2"], ["R5", "G3"]])
    g.play(A, ["R5"], 0.0)
    not_identical = refused(g, C, play("R6"))
    g.draw(B, 0.0)
    closed = refused(g, D, play("R5"))
    assert not_identical and closed


def test_out_of_turn_uses_the_documented_not_your_turn_code() -> None:
    """errors.IllegalAction documents "not_your_turn" for acting out of turn."""
    g = _fresh()
    refused(g, B, DRAW)
    assert refused(g, B, DRAW) == "not_your_turn"


def test_legal_actions_are_accepted_whatever_now_they_carry() -> None:
    """ENGINE_API: actions never apply timeouts; a listed action is accepted even late."""
    g = setup([["R5", "G1"], FILL, ["R5", "G2"], FILL])
    g.play(A, ["R5"], 0.0)
    g.play(C, ["R5"], 50.0)
    assert g.turn == D
