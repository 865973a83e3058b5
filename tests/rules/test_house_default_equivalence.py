"""Default equivalence (HOUSE-RULES.md: "with every house rule at its default, a game is
exactly RULES.md").

Two checks:

- ``house_rules`` absent, ``{}`` and the full default mapping give the same game: the same
  events, state and result for the same setup and actions (they are all a plain ``Game``).
- ``HouseGame`` (the class that plays house rules) with every rule at its default plays
  exactly like ``Game`` over random playouts: every event, every state and every list of
  legal actions agree. This pins each house-rule method to the base rule it replaces.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from game.rules import DEFAULT_HOUSE_RULES, Game
from game.rules.dobon_uno.house_game import HouseGame

from .test_playouts import canon, dense_game, new_game

MAX_STEPS = 4000


def _state(g: Game) -> dict[str, Any]:
    d = g.to_dict()
    d.pop("house_state", None)
    return d


def _legal(g: Game, seat: int) -> set[tuple[Any, ...]]:
    return {canon(a) for a in g.legal_actions(seat)}


def _plain_view(g: Game, seat: int | None) -> dict[str, Any]:
    """The view without the keys only a HouseGame adds, legal actions as a set."""
    view = g.view(seat)
    assert view.pop("dobon_rights_lost", []) == []
    if view["dobon"] is not None:
        assert view["dobon"].pop("void", []) == []
    view["legal_actions"] = sorted(map(str, map(canon, view["legal_actions"])))
    return view


def _pick(g: Game, rng: random.Random) -> tuple[int, dict[str, Any]] | None:
    seats = [s for s in range(g.players) if g.legal_actions(s)]
    if not seats or rng.random() < 0.04:
        return None
    seat = rng.choice(seats)
    actions = g.legal_actions(seat)
    rare = [a for a in actions if a["type"] in ("dobon", "return")]
    if rare and rng.random() < 0.5:
        return seat, dict(rng.choice(rare))
    return seat, dict(rng.choice(actions))


def run_side_by_side(seed: int, players: int, dense: bool) -> str:
    rng = random.Random(seed)
    g = dense_game(rng, players) if dense else new_game(rng, players)
    h = HouseGame.from_dict(g.to_dict())
    assert type(h) is HouseGame and type(g) is Game
    now = 0.0
    for _ in range(MAX_STEPS):
        assert _state(g) == _state(h)
        for seat in range(players):
            assert _legal(g, seat) == _legal(h, seat), f"seat {seat}"
        for seat in [None, *range(players)]:
            assert _plain_view(g, seat) == _plain_view(h, seat)
        if g.phase == "finished":
            break
        picked = _pick(g, rng)
        deadline = g.next_deadline
        if picked is None:
            assert deadline is not None
            now = max(now, deadline)
            assert g.advance(now) == h.advance(now)
            continue
        if deadline is not None:
            now = min(deadline, now + rng.random() * (deadline - now))
        seat, action = picked
        assert g.apply(seat, action, now) == h.apply(seat, action, now)
    assert g.result is not None and g.result == h.result
    return g.result.kind.value


@pytest.mark.parametrize("players", range(2, 9))
def test_house_game_at_defaults_plays_exactly_like_game(players: int) -> None:
    kinds = {run_side_by_side(seed * 10 + players, players, dense=False) for seed in range(8)}
    kinds |= {run_side_by_side(seed * 10 + players, players, dense=True) for seed in range(8)}
    assert kinds


@pytest.mark.parametrize("seed", range(20))
def test_absent_empty_and_default_house_rules_give_identical_games(seed: int) -> None:
    rng = random.Random(seed)
    players = 2 + seed % 7
    games = [Game.new(players=players, first_player=seed % players, seed=seed, **extra)
             for extra in ({}, {"house_rules": None}, {"house_rules": {}},
                           {"house_rules": dict(DEFAULT_HOUSE_RULES)})]
    assert all(type(g) is Game for g in games)
    now = 0.0
    for _ in range(MAX_STEPS):
        states = [g.to_dict() for g in games]
        assert all(s == states[0] for s in states)
        if games[0].phase == "finished":
            break
        picked = _pick(games[0], rng)
        if picked is None:
            now = max(now, games[0].next_deadline or now)
            outs = [g.advance(now) for g in games]
        else:
            seat, action = picked
            outs = [g.apply(seat, action, now) for g in games]
        assert all(o == outs[0] for o in outs)
    assert games[0].result is not None
    assert all(g.result == games[0].result for g in games)
