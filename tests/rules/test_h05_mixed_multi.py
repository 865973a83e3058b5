"""§H5 mixed-colour multi-play [色違い重ね出し]."""

from __future__ import annotations

from .helpers import DOBON, assert_refused, of_type, play
from .house_helpers import hsetup

ON = {"mixed_color_multi": True}
H5 = [["R5", "B5", "G5", "Y2"], ["Y1", "Y9"], ["B7", "B8"], ["G6", "G8"]]


def test_h5_1_same_number_any_colours_first_matches_last_sets_colour() -> None:
    g = hsetup(ON, H5, first="R3")
    events = g.apply(0, play("R5", "G5", "B5"), 0.0)
    assert (g.top, g.color, g.turn) == ("B5", "B", 1)
    assert events[0]["points"] == 15
    assert [e["to"] for e in of_type(events, "chance")] == [2]  # 7 + 8 = 15
    g.apply(2, DOBON, 1.0)
    assert g.result is not None and g.result.winners == [2]


def test_h5_1_default_refuses_not_identical() -> None:
    g = hsetup(None, H5, first="R3")
    assert_refused(g, lambda: g.apply(0, play("R5", "G5", "B5"), 0.0), "not_identical")


def test_h5_2_first_card_must_match() -> None:
    g = hsetup(ON, H5, first="R3")
    assert_refused(g, lambda: g.apply(0, play("B5", "R5", "G5"), 0.0), "does_not_match")


def test_h5_4_listed_once_per_last_card_with_a_matching_lead() -> None:
    g = hsetup(ON, H5, first="R3")
    plays = [tuple(a["cards"]) for a in g.legal_actions(0) if a["type"] == "play"]
    mixed = [p for p in plays if len(p) > 1]
    assert all(p[0] == "R5" for p in mixed)  # only R5 matches red
    assert {(tuple(sorted(p)), p[-1]) for p in mixed} == {
        (("B5", "R5"), "B5"), (("G5", "R5"), "G5"),
        (("B5", "G5", "R5"), "B5"), (("B5", "G5", "R5"), "G5")}
    assert len(mixed) == 4  # a set whose only matching card is its last is not listed
    assert ("R5",) in plays and ("B5",) not in plays


def test_h5_3_a_mixed_play_may_go_out_and_several_sevens_swap_once() -> None:
    g = hsetup(ON, [["R5", "B5"], ["Y1", "Y9"], ["B7", "B8"]], first="R3")
    g.apply(0, play("R5", "B5"), 0.0)
    assert g.phase in ("agari_wait", "finished")
    g = hsetup(ON | {"seven_zero": True}, [["R7", "B7", "G1"], ["Y1", "Y9"], ["B2", "B8"]],
               first="R3")
    events = g.apply(0, play("R7", "B7"), 0.0)
    assert len(of_type(events, "choose_swap")) == 1 and g.phase == "swap"


def test_h5_4_play_accepts_any_order_whose_first_card_matches() -> None:
    for order in (("R5", "B5", "G5"), ("R5", "G5", "B5")):
        g = hsetup(ON, H5, first="R3")
        g.apply(0, play(*order), 0.0)
        assert g.top == order[-1] and g.color == order[-1][0]
