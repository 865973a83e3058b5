"""§R14 note (docs/protocol.md, "The clock, and outages"): `resume(now)` restarts every clock
due by `now` with a full timeout instead of applying its timeouts; nothing else changes."""

from __future__ import annotations

import pytest

from game.rules import PRESETS, Game

from .helpers import A, B, C, setup

FILL = ["B7", "B8"]


def test_r14_resume_restarts_a_due_turn_clock_with_a_full_timeout() -> None:
    g = setup([["R5", "G1"], FILL, FILL, FILL])
    before = g.to_dict()
    assert [e["type"] for e in g.resume(1560.0)] == ["resume"]
    assert g.next_deadline == pytest.approx(1570.0) and g.turn == A
    assert g.hand(A) == before["hands"][A] and g.deck_count == len(before["deck"])
    assert g.advance(1569.9) == []  # the fresh timeout runs in full, then §R14 as usual
    assert [e["action"] for e in g.advance(1570.0) if e["type"] == "timeout"] == ["draw_pass"]


def test_r14_resume_keeps_a_clock_that_is_not_due() -> None:
    g = setup([["R5", "G1"], FILL, FILL, FILL])
    assert g.resume(9.0) == [] and g.next_deadline == pytest.approx(10.0)


def test_r14_resume_keeps_an_open_chance_open_with_a_fresh_deadline() -> None:
    g = setup([["W+4", "G1"], FILL, ["W+4", "G2"], FILL])
    g.play(A, ["W+4"], 0.0)
    g.choose_color(A, "R", 0.0)
    assert "cut_in" in g.view(C)["chances"]
    g.resume(100.0)
    assert g.turn == B and "cut_in" in g.view(C)["chances"]
    assert g.view(C)["deadline"] == pytest.approx(110.0)
    assert g.next_deadline == pytest.approx(110.0)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_r14_resume_under_every_preset_and_through_a_round_trip(preset: str) -> None:
    g = Game.new(players=4, first_player=1, seed=3, timeout=10.0, now=0.0,
                 house_rules=PRESETS[preset])
    g.resume(600.0)
    assert g.next_deadline == pytest.approx(610.0)
    assert Game.from_dict(g.to_dict()).next_deadline == pytest.approx(610.0)
