"""§R2 — cards, notation, identical cards and points."""

from __future__ import annotations

import pytest

from .helpers import (
    A,
    B,
    C,
    D,
    assert_refused,
    assert_result,
    points,
    setup,
)


@pytest.mark.parametrize("bad", ["R10", "X5", "W+2", "BX", "r5", "", "WF", "R+4"])
def test_r2_unknown_card_code_is_a_value_error(bad: str) -> None:
    with pytest.raises(ValueError):
        setup([["G1", bad], ["G2"]])
    with pytest.raises(ValueError):
        setup([["G1"], ["G2"]], first=bad if bad else "Q")
    with pytest.raises(ValueError):
        setup([["G1"], ["G2"]], deck=["G1", bad])


def test_r2_unknown_code_in_a_play_is_a_value_error_and_changes_nothing() -> None:
    """ENGINE_API: unknown codes raise ValueError (here an IllegalAction, which is one)."""
    g = setup([["G1", "R5"], ["G2", "G3"]])
    before = g.to_dict()
    with pytest.raises(ValueError):
        g.play(A, ["R10"], 0.0)
    assert g.to_dict() == before


def test_r2_card_points_settle_at_face_value() -> None:
    """R2 table: S/R/+2 20, W 30, W+4 50, F 10, numbers face value (paid by §R11.1)."""
    loser = ["RS", "RR", "R+2", "W", "W+4", "RF", "G7"]
    assert points(loser) == 157
    g = setup([["R5"], loser, ["B0"], ["G9", "G9"]])
    g.play(A, ["R5"], 0.0)
    assert_result(g, "agari", [A], [(B, A, 157), (D, A, 18)], hand_pts=[0, 157, 0, 18])


@pytest.mark.parametrize(
    "cards",
    [["W", "W"], ["W+4", "W+4"], ["RF", "BF"], ["GF", "YF"], ["R5", "R5"], ["RS", "RS"]],
)
def test_r2_2_identical_cards_play_together(cards: list[str]) -> None:
    g = setup([cards + ["G1"], ["B7", "B8"], ["B7", "B8"], ["B7", "B8"]])
    g.play(A, cards, 0.0)
    assert g.hand(A) == ["G1"]


@pytest.mark.parametrize(
    "cards",
    [["G5", "B5"], ["W", "W+4"], ["R5", "R6"], ["RS", "BS"], ["RR", "RS"], ["W", "RF"]],
)
def test_r2_2_non_identical_cards_cannot_be_played_together(cards: list[str]) -> None:
    g = setup([cards + ["G1"], ["B7", "B8"], ["B7", "B8"], ["B7", "B8"]], first="R5")
    assert_refused(g, lambda: g.play(A, cards, 0.0))


def test_r2_2_plus_two_of_different_colours_are_not_identical() -> None:
    g = setup([["R+2", "B+2", "G1"], ["B7", "B8"]], first="G+2")
    # A faces the first-card stack; stacking R+2 and B+2 in one play is not allowed (§R5.1).
    assert_refused(g, lambda: g.play(A, ["R+2", "B+2"], 0.0))


def test_r2_3_points_of_a_play_are_the_sum_of_its_cards() -> None:
    """A plays R5 R5 (10): a 10-point hand may dobon, a 5-point hand may not."""
    g = setup([["R5", "R5", "G1"], ["B7", "B8"], ["G9", "B1"], ["G5"]])
    g.play(A, ["R5", "R5"], 0.0)
    assert_refused(g, lambda: g.dobon(D, 0.0))
    g.dobon(C, 0.0)
    assert g.result is not None and g.result.kind == "dobon"
