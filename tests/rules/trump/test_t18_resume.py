"""§T18 and outages: `resume(now)` restarts every clock already due by `now` with a full
timeout instead of applying its timeouts; nothing else changes. TRUMP-RULES.md leaves a
stopped server clock open; decided as for Dobon UNO (docs/protocol.md, "The clock, and
outages"; docs/trump-engine.md)."""

from __future__ import annotations

import pytest

from game.rules.trump import Game

from .helpers import au, std, types


def test_t18_resume_restarts_a_due_turn_clock_with_a_full_timeout() -> None:
    g = au([["S3", "H7"], ["C12", "D4"]], "H3", timeout=10.0)
    before = g.to_dict()
    assert types(g.resume(600.0)) == ["resume"]
    assert g.next_deadline == pytest.approx(610.0) and g.turn == 0
    assert g.hand(0) == before["hands"][0] and g.deck_count == len(before["deck"])
    assert g.advance(609.9) == []  # the fresh timeout runs in full, then §T18 as usual
    assert "timeout" in types(g.advance(610.0))


def test_t18_resume_keeps_a_clock_that_is_not_due() -> None:
    g = au([["S3", "H7"], ["C12", "D4"]], "H3", timeout=10.0)
    assert g.resume(9.0) == [] and g.next_deadline == pytest.approx(10.0)


def test_t18_resume_keeps_an_open_dobon_chance_open_with_a_fresh_deadline() -> None:
    # seat 1's hand sums to 7: seat 0's H7 opens its dobon chance (§T11.1)
    g = au([["H7", "S9", "D9"], ["C3", "D4"], ["S12", "H12"]], "H3", timeout=10.0)
    g.play(0, ["H7"], 1.0)
    assert "dobon" in g.view(1)["chances"]
    assert types(g.resume(100.0)) == ["resume"]
    assert "dobon" in g.view(1)["chances"]
    assert g.next_deadline == pytest.approx(110.0)
    assert g.to_act() == Game.from_dict(g.to_dict()).to_act()


def test_t18_resume_restarts_the_standard_auction_clock() -> None:
    g = Game.new(players=4, seed=3, preset="standard", timeout=10.0, now=0.0)
    assert g.phase == "auction"
    assert types(g.resume(600.0)) == ["resume"]
    assert g.phase == "auction" and g.next_deadline == pytest.approx(610.0)


@pytest.mark.parametrize("preset", ["au", "standard"])
def test_t18_resume_survives_the_round_trip_and_plays_on_identically(preset: str) -> None:
    g = (Game.new(players=4, first_player=1, seed=5, preset="au", timeout=10.0, now=0.0)
         if preset == "au" else
         std([["S3", "H7", "D9"], ["C12", "D4", "H5"], ["S12", "H12", "C2"]], "H3",
             timeout=10.0))
    g.resume(600.0)
    copy = Game.from_dict(g.to_dict())
    assert copy.next_deadline == pytest.approx(610.0)
    assert copy.advance(611.0) == g.advance(611.0)
