"""Round trips: a saved and restored game (or a copy) plays on exactly like the original.

``Game.from_dict(json.loads(json.dumps(g.to_dict())))`` must give the same events, the
same views and the same random outcomes (a timeout's colour comes from the game's own
generator, whose state is saved) from any reachable state on.
"""

from __future__ import annotations

import json
import random

import pytest

from game.rules import Game

from .test_playouts import new_game, random_step


def json_round_trip(g: Game) -> Game:
    return Game.from_dict(json.loads(json.dumps(g.to_dict())))


def play_on_together(games: list[Game], seed: int, now: float, steps: int) -> None:
    """Drive every game with the same random choices and compare them step by step."""
    rngs = [random.Random(seed) for _ in games]
    times = [now] * len(games)
    for _ in range(steps):
        if games[0].phase == "finished":
            return
        results = [random_step(g, r, t, jump=0.25)
                   for g, r, t in zip(games, rngs, times, strict=True)]
        times = [t for t, _ in results]
        first_events = results[0][1]
        for g, (_, events) in zip(games[1:], results[1:], strict=True):
            assert events == first_events
            assert g.to_dict() == games[0].to_dict()
            for seat in [None, *range(g.players)]:
                assert g.view(seat) == games[0].view(seat)


def snapshots(seed: int, players: int, every: int) -> list[tuple[Game, float]]:
    """States met on one random playout, taken every few steps."""
    rng = random.Random(seed)
    g = new_game(rng, players)
    now, found = 0.0, []
    for step in range(4000):
        if step % every == 0:
            found.append((g.copy(), now))
        if g.phase == "finished":
            break
        now, _ = random_step(g, rng, now, jump=0.1)
    return found


@pytest.mark.parametrize("players", range(2, 9))
def test_restored_game_plays_on_identically(players: int) -> None:
    for seed in range(3):
        for g, now in snapshots(seed * 31 + players, players, every=9):
            restored = json_round_trip(g)
            assert restored.to_dict() == g.to_dict()
            play_on_together([g, restored, g.copy()], seed=hash((seed, now)) % 2**32,
                             now=now, steps=60)


def test_to_dict_is_json_and_stable() -> None:
    for g, _ in snapshots(seed=5, players=4, every=3):
        d = g.to_dict()
        assert json.loads(json.dumps(d)) == d
        assert json_round_trip(g).to_dict() == d


def test_timeout_colour_is_replayed_from_saved_rng() -> None:
    """§R14: a timed-out colour choice draws from the saved generator."""
    colours = set()
    for seed in range(12):
        g = Game.from_setup(hands=[["W", "R1"], ["B2", "G3"]], first_card="R7",
                            deck=["Y1"] * 10, first_player=0, seed=seed)
        g.play(0, ["W"], now=1.0)
        saved = json.loads(json.dumps(g.to_dict()))
        original = g.advance(11.0)
        again = Game.from_dict(saved).advance(11.0)
        assert original == again and original[1]["type"] == "color"
        colours.add(original[1]["color"])
    assert len(colours) > 1, "the timeout colour should vary with the seed"


def test_copy_is_independent() -> None:
    g = Game.new(players=3, first_player=0, seed=9)
    before = g.to_dict()
    h = g.copy()
    seat = h.turn if h.turn is not None else h.chooser
    assert seat is not None
    h.apply(seat, h.legal_actions(seat)[-1], now=1.0)
    assert g.to_dict() == before and h.to_dict() != before


def test_saved_generator_is_its_seed_and_draw_count() -> None:
    """The RNG is saved compactly (seed + words drawn), not as 625 integers, and the
    restored generator continues the very same stream."""
    g = Game.new(players=4, first_player=0, seed=2**62 + 12345)
    d = g.to_dict()
    assert set(d["rng"]) == {"seed", "draws"} and d["rng"]["seed"] == 2**62 + 12345
    assert len(json.dumps(d)) < 1500
    restored = json_round_trip(g)
    assert restored._rng.getstate() == g._rng.getstate()
    assert [restored._rng.random() for _ in range(5)] == [g._rng.random() for _ in range(5)]


def test_a_state_saved_with_the_full_generator_still_loads() -> None:
    """Games saved before the compact form (the 625-word state) restore and play on
    identically; they keep saving the full form."""
    g = Game.new(players=3, first_player=1, seed=77)
    old = g.to_dict()
    version, internal, gauss = g._rng.getstate()
    old["rng"] = [version, list(internal), gauss]
    restored = Game.from_dict(json.loads(json.dumps(old)))
    assert restored.to_dict()["rng"] == old["rng"]
    rngs, times = [random.Random(3), random.Random(3)], [0.0, 0.0]
    for _ in range(80):
        if g.phase == "finished":
            break
        (times[0], first), (times[1], second) = (
            random_step(game, r, t, jump=0.25)
            for game, r, t in zip([g, restored], rngs, times, strict=True)
        )
        assert first == second and g._rng.getstate() == restored._rng.getstate()
        assert all(g.view(s) == restored.view(s) for s in [None, *range(g.players)])


def test_timeout_colours_after_a_round_trip_follow_the_original_stream() -> None:
    """§R14: several timed-out colour choices, saved between each, draw what the unsaved
    game draws."""
    hands = [["W", "W", "W", "R1"], ["B2", "G3", "W", "W"]]
    g = Game.from_setup(hands=hands, first_card="R7", deck=["Y1"] * 10, first_player=0,
                        seed=5)
    saved = json_round_trip(g)
    now = 1.0
    for _ in range(3):
        seat = g.turn
        assert seat is not None and saved.turn == seat
        assert g.play(seat, ["W"], now) == saved.play(seat, ["W"], now)
        now += 11.0
        assert g.advance(now) == saved.advance(now)
        saved = json_round_trip(saved)
        assert saved.to_dict() == g.to_dict()
