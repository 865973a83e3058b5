"""§R13 — who plays first in the next game (§R13.3, a seat that left, is the room's job)."""

from __future__ import annotations

from .helpers import A, B, C, D, setup

FILL = ["B7", "B8"]


def test_r13_1_after_going_out_the_winner() -> None:
    g = setup([FILL, ["R5"], FILL, FILL], first_player=B)
    g.play(B, ["R5"], 0.0)
    assert g.result.next_first_player == B


def test_r13_1_after_a_cut_in_going_out_the_cutter() -> None:
    g = setup([["R5", "G1"], FILL, FILL, ["R5"]])
    g.play(A, ["R5"], 0.0)
    g.play(D, ["R5"], 0.0)
    assert g.result.kind == "agari" and g.result.next_first_player == D


def test_r13_1_after_a_dobon_the_first_declarer() -> None:
    g = setup([["R+2", "G9"], ["G9", "G9", "G2"], ["Y9", "Y9", "Y2"], ["B1"]])
    g.play(A, ["R+2"], 0.0)
    g.dobon(C, 1.0)
    g.dobon(B, 2.0)
    assert g.result.next_first_player == C


def test_r13_1_after_a_return_the_returner() -> None:
    g = setup([["R+2", "B+2"], ["G9", "G9", "G2"], ["Y1"], ["G3"]])
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 0.0)
    g.dobon_return(A, 0.0)
    assert g.result.next_first_player == A


def test_r13_2_after_a_deck_out_the_seat_after_the_drawer() -> None:
    g = setup([["G1", "G2"], FILL, ["R5", "G1"], FILL], first_player=C, deck=["G4"])
    g.draw(C, 0.0)
    assert g.result.kind == "deck_out"
    assert g.result.next_first_player == D


def test_r13_2_after_a_deck_out_counter_clockwise() -> None:
    g = setup([["RR", "G1"], FILL, FILL, FILL], deck=["G4"])
    g.play(A, ["RR"], 0.0)
    assert g.turn == D
    g.draw(D, 0.0)
    assert g.result.next_first_player == C


def test_r13_2_after_a_deck_out_by_a_stack_take_the_seat_after_the_taker() -> None:
    g = setup([FILL, FILL, ["R+2", "G1"], FILL], first_player=C, deck=["G4"])
    g.play(C, ["R+2"], 0.0)
    g.draw(D, 0.0)
    assert g.result.kind == "deck_out"
    assert g.result.next_first_player == A
