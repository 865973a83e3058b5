"""§H7 draw until playable [出るまで引く] and its two timeouts."""

from __future__ import annotations

from .helpers import DRAW, PASS, assert_refused, of_type, play
from .house_helpers import hsetup

ON = {"draw_until_playable": True}
H7 = [["G1", "Y2"], ["Y4", "Y6"], ["B4", "B8"], ["G6", "G7"]]


def test_h7_1_draws_until_a_playable_card_then_must_play() -> None:
    g = hsetup(ON, H7, first="R5", deck=["B3", "G7", "R9", "Y5"])
    events = g.apply(0, DRAW, 0.0)
    assert of_type(events, "draw") == [{"type": "draw", "to": None, "seat": 0, "count": 3}]
    assert of_type(events, "drawn") == [
        {"type": "drawn", "to": 0, "seat": 0, "cards": ["B3", "G7", "R9"]}]
    assert g.hand(0) == ["G1", "Y2", "B3", "G7", "R9"] and g.deck_count == 1
    assert g.legal_actions(0) == [play("R9")]
    assert_refused(g, lambda: g.apply(0, PASS, 1.0), "must_play_after_draw")


def test_h7_timeout_after_the_draw_plays_the_last_drawn_card() -> None:
    g = hsetup(ON, H7, first="R5", deck=["B3", "G7", "R9", "Y5"])
    g.apply(0, DRAW, 0.0)
    events = g.advance(10.0)
    assert events[0] == {"type": "timeout", "to": None, "seat": 0, "action": "play"}
    assert g.top == "R9" and g.turn == 1 and not of_type(events, "chance")


def test_h7_timeout_before_the_draw_draws_then_plays() -> None:
    g = hsetup(ON, H7, first="R5", deck=["B3", "G7", "R9", "Y5"])
    events = g.advance(10.0)
    assert events[0]["action"] == "draw_play"
    assert of_type(events, "draw")[0]["count"] == 3
    assert g.top == "R9" and g.turn == 1 and g.next_deadline == 20.0


def test_h7_timeout_wild_gets_a_random_colour_at_once() -> None:
    g = hsetup(ON, [["G1", "Y2"], ["Y4", "Y6"]], first="R5", deck=["B3", "W", "Y5"])
    events = g.advance(10.0)
    assert [e["type"] for e in events][-2:] == ["color", "turn"]
    assert g.top == "W" and g.color in ("R", "B", "G", "Y") and g.turn == 1


def test_h7_edge_the_last_card_drawn_ends_the_game() -> None:
    g = hsetup(ON, H7, first="R5", deck=["B3", "G7"])
    g.apply(0, DRAW, 0.0)
    assert g.result is not None and g.result.kind == "deck_out"
    assert g.hand(0)[-2:] == ["B3", "G7"]


def test_h7_default_draws_one_and_may_pass() -> None:
    g = hsetup(None, H7, first="R5", deck=["B3", "G7", "R9", "Y5"])
    g.apply(0, DRAW, 0.0)
    assert g.hand(0) == ["G1", "Y2", "B3"]
    g.apply(0, PASS, 1.0)
    assert g.turn == 1


def test_h7_draw_allowed_with_a_playable_card_and_any_legal_play_after() -> None:
    g = hsetup(ON, [["R1", "Y2"], ["Y4", "Y6"]], first="R5", deck=["B3", "B5", "Y9"])
    assert DRAW in g.legal_actions(0)
    g.apply(0, DRAW, 0.0)
    assert g.hand(0) == ["R1", "Y2", "B3", "B5"]
    assert {a["cards"][0] for a in g.legal_actions(0)} == {"R1", "B5"}
    g.apply(0, play("R1"), 1.0)
    assert g.top == "R1"


def test_h7_taking_a_stack_is_not_a_draw_until_playable() -> None:
    g = hsetup(ON, [["R+2", "G1"], ["Y4", "Y6"]], first="R5", deck=["B3", "B5", "Y9", "R1"])
    g.apply(0, play("R+2"), 0.0)
    g.apply(1, DRAW, 1.0)
    assert g.hand(1) == ["Y4", "Y6", "B3", "B5"] and g.turn == 0
