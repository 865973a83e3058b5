"""legal_actions(seat) completeness in small positions (§R4-§R10): exactly what the rules
allow, and every entry is accepted by apply on a copy."""

from __future__ import annotations

from .helpers import (
    ALL_COLOURS,
    DECLINE,
    DOBON,
    DRAW,
    PASS,
    RETURN,
    A,
    B,
    C,
    D,
    assert_legal,
    play,
    setup,
)

FILL = ["B7", "B8"]


def test_multi_play_counts_on_turn() -> None:
    """§R4.1/§R2.2: one, two or three R5; the last G1 keeps every count legal."""
    g = setup([["R5", "R5", "R5", "G1"], FILL, FILL, FILL])
    assert_legal(g, A, [play("R5"), play("R5", "R5"), play("R5", "R5", "R5"), DRAW])
    for s in (B, C, D):
        assert_legal(g, s, [])


def test_going_out_counts_only_with_numbers() -> None:
    """§R8.1: R5 R5 may go out; RS RS may not (only one RS)."""
    g = setup([["R5", "R5"], FILL, FILL, FILL])
    assert_legal(g, A, [play("R5"), play("R5", "R5"), DRAW])
    g = setup([["RS", "RS"], FILL, FILL, FILL])
    assert_legal(g, A, [play("RS"), DRAW])


def test_forced_colour_orders_end_on_each_colour() -> None:
    """§R4.4: several F in any order; the order decides the colour."""
    g = setup([["RF", "BF", "GF", "G1"], FILL, FILL, FILL])
    expected = [play("RF"), play("BF"), play("GF"), DRAW]
    for pair in (("RF", "BF"), ("RF", "GF"), ("BF", "GF")):
        expected += [play(pair[0], pair[1]), play(pair[1], pair[0])]
    expected += [play("BF", "GF", "RF"), play("RF", "GF", "BF"), play("RF", "BF", "GF")]
    assert_legal(g, A, expected)


def test_mixed_hand_on_turn() -> None:
    g = setup([["R5", "B3", "W", "W", "W+4", "YS", "G+2", "B9"], FILL, FILL, FILL])
    assert_legal(g, A, [
        play("R5"), play("B3"), play("W"), play("W", "W"), play("W+4"), DRAW,
    ])


def test_after_the_optional_draw() -> None:
    g = setup([["B5", "G1"], FILL, FILL, FILL], deck=["R8", "Y0"])
    assert_legal(g, A, [DRAW])
    g.draw(A, 0.0)
    assert_legal(g, A, [play("R8"), PASS])


def test_facing_a_stack() -> None:
    g = setup([["R+2", "G1"], ["B+2", "B+2", "W+4", "W+4", "R+2", "RS", "R1"], FILL, FILL])
    g.play(A, ["R+2"], 0.0)
    assert_legal(g, B, [
        play("B+2"), play("B+2", "B+2"), play("W+4"), play("W+4", "W+4"), play("R+2"), DRAW,
    ])


def test_facing_a_wild_draw_four_stack() -> None:
    g = setup([["W+4", "G1"], ["B+2", "W+4", "W+4", "R1"], FILL, FILL])
    g.play(A, ["W+4"], 0.0)
    g.choose_color(A, "R", 0.0)
    assert_legal(g, B, [play("W+4"), play("W+4", "W+4"), DRAW])


def test_colour_phase_chooser_and_cutters() -> None:
    g = setup([["W", "G1"], FILL, ["W", "W", "G2"], ["Y9", "Y9", "Y9", "Y3"]])
    g.play(A, ["W"], 0.0)
    assert_legal(g, A, ALL_COLOURS)
    assert_legal(g, B, [])
    assert_legal(g, C, [play("W"), play("W", "W"), DECLINE])
    assert_legal(g, D, [DOBON, DECLINE])


def test_cut_in_with_forced_colours_of_any_colour() -> None:
    g = setup([["RF", "G1"], FILL, ["BF", "GF", "Y1"], FILL])
    g.play(A, ["RF"], 0.0)
    assert_legal(g, C, [
        play("BF"), play("GF"), play("BF", "GF"), play("GF", "BF"), DECLINE,
    ])


def test_cut_in_that_would_go_out_with_an_action_card_is_not_listed() -> None:
    """A's S skips B, so C is on turn and D (not on turn) holds RS RS."""
    g = setup([["RS", "G1"], FILL, FILL, ["RS", "RS"]])
    g.play(A, ["RS"], 0.0)
    assert g.turn == C
    assert_legal(g, D, [play("RS"), DECLINE])


def test_agari_wait() -> None:
    g = setup([["R5"], FILL, ["G5"], ["R5", "G1"]])
    g.play(A, ["R5"], 0.0)
    assert_legal(g, A, [])
    assert_legal(g, B, [])
    assert_legal(g, C, [DOBON, DECLINE])
    assert_legal(g, D, [])


def test_return_wait() -> None:
    g = setup([["R+2", "B+2"], ["G9", "G9", "G2"], ["Y1"], ["G3"]])
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 0.0)
    assert_legal(g, A, [RETURN, DECLINE])
    for s in (B, C, D):
        assert_legal(g, s, [])


def test_finished() -> None:
    g = setup([["R5"], FILL, FILL, FILL])
    g.play(A, ["R5"], 0.0)
    for s in (A, B, C, D):
        assert_legal(g, s, [])


def test_first_card_wild_draw_four_taken_then_next_chooses() -> None:
    g = setup([["W+4", "G1"], FILL, FILL, FILL], first="W+4")
    assert_legal(g, A, [play("W+4"), DRAW])
    g.draw(A, 0.0)
    assert_legal(g, B, ALL_COLOURS)
    assert_legal(g, A, [])
