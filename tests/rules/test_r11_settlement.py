"""§R11 — settlement: going out, dobon (T to each declarer), return; the worked examples."""

from __future__ import annotations

from .helpers import A, B, C, D, assert_result, points, setup

# D (seat 3) is the first player; D's play is a red skip (20 points).
A20 = ["B9", "B9", "B2"]
B30 = ["Y9", "Y9", "Y9", "Y3"]
B20 = ["GS"]
C40 = ["Y9", "Y9", "Y9", "Y9", "Y4"]
D50 = ["RS", "G9", "G9", "G9", "G3"]  # plays RS, keeps 30
D40 = ["RS", "G9", "G9", "G2"]  # plays RS, keeps 20 (= a declarer's 20: may return)


def _game(hands: list[list[str]], rate: int = 1):  # noqa: ANN202
    assert [points(h) for h in hands[:1]] == [20]
    return setup(hands, first_player=D, rate=rate)


def test_r11_1_going_out_every_other_seat_pays_its_hand_points() -> None:
    g = setup([["R5"], ["B0"], ["W", "G1"], ["RS", "B+2", "Y4"]])
    g.play(A, ["R5"], 0.0)
    assert_result(g, "agari", [A], [(C, A, 31), (D, A, 44)], hand_pts=[0, 0, 31, 44],
                  next_first=A)


def test_r11_2_example_one_declarer_is_paid_t() -> None:
    """A 20, B 30, C 40, D 50; D plays a 20 and A dobons: D pays A 140."""
    g = _game([A20, B30, C40, D50])
    g.play(D, ["RS"], 0.0)
    g.dobon(A, 1.0)
    assert_result(g, "dobon", [A], [(D, A, 140)], hand_pts=[20, 30, 40, 50], next_first=A)


def test_r11_2_example_two_declarers_are_each_paid_t() -> None:
    """A 20, B 20, C 40, D 50; D plays 20, A and B dobon: D pays A 130 and B 130."""
    g = _game([A20, B20, C40, D50])
    g.play(D, ["RS"], 0.0)
    g.dobon(A, 1.0)
    g.dobon(B, 2.0)
    assert_result(g, "dobon", [A, B], [(D, A, 130), (D, B, 130)],
                  hand_pts=[20, 20, 40, 50], next_first=A)


def test_r11_2_example_two_declared_the_other_way_round() -> None:
    """UNSETTLED: winners of a dobon are listed in declaration order."""
    g = _game([A20, B20, C40, D50])
    g.play(D, ["RS"], 0.0)
    g.dobon(B, 1.0)
    g.dobon(A, 2.0)
    assert_result(g, "dobon", [B, A], [(D, A, 130), (D, B, 130)], next_first=B)


def test_r11_3_example_one_declarer_pays_t_to_the_returner() -> None:
    """A 20, B 30, C 40, D 40; D plays 20, A dobons, D returns: A pays D 130."""
    g = _game([A20, B30, C40, D40])
    g.play(D, ["RS"], 0.0)
    g.dobon(A, 1.0)
    g.dobon_return(D, 2.0)
    assert_result(g, "return", [D], [(A, D, 130)], hand_pts=[20, 30, 40, 40], next_first=D)


def test_r11_3_example_two_declarers_each_pay_t() -> None:
    """A 20, B 20, C 40, D 40; D plays 20, A and B dobon, D returns: 120 each."""
    g = _game([A20, B20, C40, D40])
    g.play(D, ["RS"], 0.0)
    g.dobon(A, 1.0)
    g.dobon(B, 2.0)
    g.dobon_return(D, 3.0)
    assert_result(g, "return", [D], [(A, D, 120), (B, D, 120)],
                  hand_pts=[20, 20, 40, 40], next_first=D)


def test_r11_4_zero_payments_are_not_listed_and_sum_is_zero() -> None:
    g = setup([["R5"], ["B0"], ["G0", "Y0"], ["G1"]])
    g.play(A, ["R5"], 0.0)
    assert_result(g, "agari", [A], [(D, A, 1)])
    assert len(g.result.payments) == 1


def test_r11_worked_examples_with_the_rate() -> None:
    """§R12.3: payments are already multiplied by the rate (x4 here)."""
    g = _game([A20, B30, C40, D50], rate=4)
    g.play(D, ["RS"], 0.0)
    g.dobon(A, 1.0)
    assert_result(g, "dobon", [A], [(D, A, 560)], hand_pts=[20, 30, 40, 50])
