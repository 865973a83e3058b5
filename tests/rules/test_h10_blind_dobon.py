"""§H10 blind dobon [ノーヒントドボン] with the false-dobon penalty [誤ドボン罰]."""

from __future__ import annotations

from .helpers import (
    DECLINE,
    DOBON,
    DRAW,
    RETURN,
    assert_refused,
    assert_result,
    of_type,
    play,
)
from .house_helpers import hsetup

ON = {"blind_dobon": True}


def test_h10_1_every_seat_has_a_dobon_window_and_h10_3_a_false_dobon() -> None:
    g = hsetup(ON, [["R5", "G9"], ["Y1", "Y2", "Y3"], ["B4", "B8"], ["G7", "G6"]], first="R2",
               deck=[])
    g.apply(0, play("R5"), 0.0)
    for seat in (1, 2, 3):
        assert DOBON in g.legal_actions(seat)
    assert DOBON not in g.legal_actions(0)
    events = g.apply(1, DOBON, 1.0)
    assert events == [{"type": "false_declaration", "to": None, "seat": 1, "what": "dobon",
                       "hand": ["Y1", "Y2", "Y3"], "penalty": 20}]
    assert g.phase == "turn" and g.turn == 1
    assert g.view(2)["dobon_rights_lost"] == [1]
    assert_refused(g, lambda: g.apply(1, DOBON, 2.0), "dobon_rights_lost")
    assert DOBON in g.legal_actions(2)  # §H10.3.1: no other chance closes
    g.apply(1, DRAW, 3.0)
    assert_result(g, "deck_out", [], [(1, 0, 20), (1, 2, 20), (1, 3, 20)], next_first=2)
    assert g.result is not None and g.result.deltas == [20, -60, 20, 20]


def test_h10_1_default_tells_nobody_a_chance() -> None:
    g = hsetup(None, [["R5", "G9"], ["Y1", "Y2", "Y3"], ["B4", "B8"], ["G7", "G6"]],
               first="R2", deck=[])
    g.apply(0, play("R5"), 0.0)
    assert all(g.chances(s) == [] for s in range(4))


def test_h10_2_every_going_out_play_waits() -> None:
    g = hsetup(ON, [["R5"], ["Y1", "Y9"], ["B4", "B8"], ["G7", "G6"]], first="R2")
    g.apply(0, play("R5"), 0.0)
    assert g.phase == "agari_wait"
    for seat in (1, 2, 3):
        g.apply(seat, DECLINE, 1.0)
    assert_result(g, "agari", [0], [(1, 0, 10), (2, 0, 12), (3, 0, 13)])


def test_h10_2_default_wins_at_once() -> None:
    g = hsetup(None, [["R5"], ["Y1", "Y9"], ["B4", "B8"], ["G7", "G6"]], first="R2")
    g.apply(0, play("R5"), 0.0)
    assert g.phase == "finished"


def test_h10_4_a_false_return_pays_the_penalty_on_top() -> None:
    g = hsetup(ON, [["R5", "G9"], ["Y1", "Y4"], ["B4", "B8"], ["G7", "G6"]], first="R2")
    g.apply(0, play("R5"), 0.0)
    g.apply(1, DOBON, 1.0)
    g.apply(2, DECLINE, 1.5)
    g.apply(3, DECLINE, 1.6)
    assert g.phase == "return_wait" and g.chances(0) == ["return"]  # although 9 ≠ 5
    events = g.apply(0, RETURN, 2.0)
    assert of_type(events, "false_declaration")[0]["what"] == "return"
    assert g.result is not None
    assert g.result.payments == [(0, 1, 44), (0, 1, 20), (0, 2, 20), (0, 3, 20)]
    assert g.result.deltas == [-104, 64, 20, 20] and g.result.kind == "dobon"


def test_h10_timeouts_lapse_the_dobon_window_and_the_return() -> None:
    g = hsetup(ON, [["R5", "G9"], ["Y1", "Y4"], ["B4", "B8"], ["G7", "G6"]], first="R2")
    g.apply(0, play("R5"), 0.0)
    events = g.advance(10.0)
    assert [(e["type"], e["to"]) for e in events[:3]] == [
        ("decline", 1), ("decline", 2), ("decline", 3)]  # §R16.10: lapses first, told privately
    assert events[3]["type"] == "timeout" and events[3]["seat"] == 1
    assert g.chances(2) == []
    g = hsetup(ON, [["R5", "G9"], ["Y1", "Y4"], ["B4", "B8"], ["G7", "G6"]], first="R2")
    g.apply(0, play("R5"), 0.0)
    g.apply(1, DOBON, 1.0)
    g.advance(11.0)  # the other seats' chances lapse; the return chance opens
    assert g.phase == "return_wait"
    g.advance(21.0)
    assert_result(g, "dobon", [1], [(0, 1, 44)])


def test_s26_a_seat_without_rights_is_not_asked_and_gets_no_return() -> None:
    g = hsetup(ON, [["R5", "G9", "G1"], ["Y1", "Y4"], ["B4", "B8"]], first="R2")
    g.apply(0, play("R5"), 0.0)
    g.apply(2, DOBON, 0.5)  # false: 12 ≠ 5
    g.apply(1, DOBON, 1.0)
    assert g.phase == "return_wait"
    g.apply(0, RETURN, 2.0)  # false: 10 ≠ 5
    assert g.result is not None and g.result.payments == [
        (0, 1, 32), (2, 0, 20), (2, 1, 20), (0, 1, 20), (0, 2, 20)]
    g = hsetup(ON, [["R5", "G9"], ["Y1", "Y4"], ["B4", "B8"]], first="R2")
    g.apply(0, play("R5"), 0.0)
    g.apply(2, DOBON, 0.5)


def test_s27_a_false_declarer_keeps_its_cut_in_chance() -> None:
    g = hsetup(ON, [["R5", "G9"], ["Y1", "Y2"], ["R5", "B8"]], first="R2")
    g.apply(0, play("R5"), 0.0)
    assert g.chances(2) == ["cut_in", "dobon"]
    g.apply(2, DOBON, 0.5)
    assert g.chances(2) == ["cut_in"]
    g.apply(2, play("R5"), 1.0)
    assert g.top == "R5" and g.last_play["seat"] == 2
    assert DOBON not in g.legal_actions(2)


def test_h10_3_the_lost_seat_is_not_asked_on_a_going_out_play() -> None:
    g = hsetup(ON, [["R5", "R6"], ["R1", "Y2"], ["R4", "B8"]], first="R2")
    g.apply(0, play("R5"), 0.0)
    g.apply(1, DOBON, 0.5)  # false
    g.apply(1, play("R1"), 1.0)
    g.apply(2, play("R4"), 2.0)
    g.apply(0, play("R6"), 3.0)
    assert g.phase == "agari_wait"
    assert g.chances(1) == [] and g.chances(2) == ["dobon"]
