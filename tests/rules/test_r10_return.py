"""§R10 — dobon return: when it holds, one return for all, empty hand, lapse, no re-return."""

from __future__ import annotations

import pytest

from .helpers import (
    DECLINE,
    RETURN,
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


def _holds(extra_c: list[str] | None = None):  # noqa: ANN202
    """§R10.3 (holds): A holds +2 +2 (40) and plays one; B dobons holding 20."""
    return setup([["R+2", "B+2"], ["G9", "G9", "G2"], extra_c or ["Y1"], ["G3"]])


def test_r10_3_worked_example_return_holds() -> None:
    g = _holds()
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 1.0)
    assert g.phase == "return_wait"
    assert_legal(g, A, [RETURN, DECLINE])
    for seat in (B, C, D):
        assert_legal(g, seat, [])
    events = g.dobon_return(A, 2.0)
    r = of_type(events, "return")
    assert r and r[0]["seat"] == A and r[0]["hand"] == ["B+2"] and r[0]["to"] is None
    # T = A 40 (play counted back) + B 20 + C 1 + D 3 = 64
    assert_result(g, "return", [A], [(B, A, 64)], hand_pts=[40, 20, 1, 3], next_first=A)


def test_r10_3_worked_example_return_fails() -> None:
    """A holds +2 and 5 (25), plays the +2 (5 left); B dobons with 20; 5 != 20."""
    g = setup([["R+2", "R5"], ["G9", "G9", "G2"], ["Y1"], ["G3"]])
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 1.0)
    assert_refused(g, lambda: g.dobon_return(A, 2.0))
    # T = 25 + 20 + 1 + 3 = 49
    assert_result(g, "dobon", [B], [(A, B, 49)], hand_pts=[25, 20, 1, 3], next_first=B)


def test_r10_1_no_return_with_an_empty_hand() -> None:
    """A goes out with R0; D (a lone 0) dobons; A's empty hand is 0 but cannot return."""
    g = setup([["R0"], ["B4"], ["Y6"], ["G0"]])
    g.play(A, ["R0"], 0.0)
    assert g.phase == "agari_wait"
    g.dobon(D, 1.0)
    assert_refused(g, lambda: g.dobon_return(A, 1.0))
    assert_result(g, "dobon", [D], [(A, D, 10)], hand_pts=[0, 4, 6, 0], next_first=D)


def test_r10_1_one_return_answers_every_declarer() -> None:
    g = _holds(extra_c=["Y9", "Y9", "Y2"])
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 1.0)
    g.dobon(C, 2.0)
    assert g.phase == "return_wait"
    g.dobon_return(A, 3.0)
    # T = 40 + 20 + 20 + 3 = 83
    assert_result(g, "return", [A], [(B, A, 83), (C, A, 83)], next_first=A)


def test_r10_1_return_only_after_the_dobon_wait_closed() -> None:
    g = _holds(extra_c=["Y9", "Y9", "Y2"])
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 1.0)
    assert g.phase == "dobon_wait"
    assert_refused(g, lambda: g.dobon_return(A, 1.0))
    assert_legal(g, A, [])
    g.decline(C, 2.0)
    assert g.phase == "return_wait"
    g.dobon_return(A, 3.0)
    assert_result(g, "return", [A], [(B, A, 83)])


def test_r10_1_only_the_dobon_d_player_may_return() -> None:
    g = _holds(extra_c=["Y9", "Y9", "Y2"])
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 1.0)
    g.decline(C, 1.0)
    for seat in (B, C, D):
        assert_refused(g, lambda seat=seat: g.dobon_return(seat, 2.0))


def test_r10_1_no_return_without_a_dobon() -> None:
    g = _holds()
    assert_refused(g, lambda: g.dobon_return(A, 0.0))
    g.play(A, ["R+2"], 0.0)
    assert_refused(g, lambda: g.dobon_return(A, 0.0))


def test_r10_2_declined_return_settles_the_dobon() -> None:
    g = _holds()
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 1.0)
    events = g.decline(A, 2.0)
    assert all(e["to"] == A for e in of_type(events, "decline"))
    assert_result(g, "dobon", [B], [(A, B, 64)], next_first=B)


def test_r10_2_return_chance_lapses_after_one_timeout() -> None:
    g = _holds()
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 1.0)
    assert g.next_deadline == pytest.approx(11.0)
    g.advance(10.9)
    assert g.phase == "return_wait"
    g.advance(11.0)
    assert_result(g, "dobon", [B], [(A, B, 64)])


def test_r10_2_no_return_of_a_return() -> None:
    g = _holds()
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 1.0)
    g.dobon_return(A, 2.0)
    assert g.phase == "finished"
    for seat in (A, B, C, D):
        assert_refused(g, lambda seat=seat: g.dobon_return(seat, 3.0))
        assert g.legal_actions(seat) == []
