"""§H4 action-card finish [記号上がり]."""

from __future__ import annotations

from .helpers import DOBON, DRAW, assert_refused, assert_result, of_type, play
from .house_helpers import hsetup

ON = {"action_finish": True}


def test_h4_1_going_out_on_a_skip_wins_at_once() -> None:
    g = hsetup(ON, [["YS"], ["Y1", "Y9"], ["B9", "B8"], ["G7", "G8"]], first="Y5")
    assert g.legal_actions(0) == [{"type": "play", "cards": ["YS"]}, {"type": "draw"}]
    events = g.apply(0, play("YS"), 0.0)
    assert of_type(events, "agari")
    assert_result(g, "agari", [0], [(1, 0, 10), (2, 0, 17), (3, 0, 15)])
    assert g.result is not None and g.result.deltas == [42, -10, -17, -15]


def test_h4_1_default_refuses_and_seat_may_only_draw() -> None:
    g = hsetup(None, [["YS"], ["Y1", "Y9"], ["B9", "B8"], ["G7", "G8"]], first="Y5")
    assert g.legal_actions(0) == [DRAW]
    assert_refused(g, lambda: g.apply(0, play("YS"), 0.0), "cannot_go_out_with_action_card")


def test_h4_2_going_out_wild_asks_no_colour_and_dobon_counts_it_back() -> None:
    g = hsetup(ON, [["W"], ["W"], ["B9", "B8"], ["G7", "G8"]], first="Y5")
    events = g.apply(0, play("W"), 0.0)
    assert g.phase == "agari_wait" and not of_type(events, "choose")
    assert g.chances(1) == ["dobon"]  # no cut-in on a going-out play (§R7.3)
    g.apply(1, DOBON, 1.0)
    assert_result(g, "dobon", [1], [(0, 1, 92)])


def test_h4_2_stacking_the_last_plus_two_goes_out_and_the_stack_is_never_taken() -> None:
    g = hsetup(ON, [["R+2", "G5"], ["B+2"], ["G1", "G2"]], first="R5")
    g.apply(0, play("R+2"), 0.0)
    g.apply(1, play("B+2"), 1.0)
    assert_result(g, "agari", [1], [(0, 1, 5), (2, 1, 3)])


def test_h4_3_a_last_action_card_identical_to_the_top_gives_a_going_out_cut_in() -> None:
    g = hsetup(ON, [["RS", "G5"], ["Y1", "Y2"], ["G1", "G2"], ["RS"]], first="R5")
    g.apply(0, play("RS"), 0.0)
    assert "cut_in" in g.chances(3)
    g.apply(3, play("RS"), 0.5)
    assert g.result is not None and g.result.winners == [3]
    g = hsetup(None, [["RS", "G5"], ["Y1", "Y2"], ["G1", "G2"], ["RS"]], first="R5")
    g.apply(0, play("RS"), 0.0)
    assert "cut_in" not in g.chances(3)  # §R16.2
