"""A thousand games among random mixes of levels, 2 to 8 seats: every answer a policy
gives is one of its legal actions and the engine accepts it; policies see only a JSON
round trip of their view and events, and their answers depend on nothing else."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Sequence
from typing import Any

import pytest

from game.bots import LEVELS, play_game, policy
from game.bots.driver import start_event
from game.rules import Game

Answer = tuple[int, dict[str, Any], list[dict[str, Any]], dict[str, Any] | None]


def _lineup(rng: random.Random) -> list[str]:
    return [rng.choice(LEVELS) for _ in range(rng.randint(2, 8))]


def _play_checked(levels: Sequence[str], seed: int, roundtrip: bool) -> tuple[int, int]:
    """One game in which every answer is checked against its own view; returns the number
    of actions and of answers that were plays, draws or chances taken."""
    answers = 0

    def observe(seat: int, view: Any, events: Any, action: Any) -> None:
        nonlocal answers
        if action is None:
            return
        answers += 1
        # Exactly an element of the list it was given (the driver then applies it: a
        # refusal would raise IllegalAction and fail the test).
        assert any(action is a for a in view["legal_actions"]), (seat, action)

    game = Game.new(players=len(levels), first_player=seed % len(levels), seed=seed)
    record = play_game([policy(lv, seed * 8 + s) for s, lv in enumerate(levels)], seed=seed,
                       game=game, observe=observe, roundtrip=roundtrip)
    assert record.result["kind"] in ("agari", "dobon", "return", "deck_out")
    assert sum(record.result["deltas"]) == 0
    assert record.actions == answers
    return record.actions, answers


def test_a_thousand_games_every_answer_is_legal_and_accepted() -> None:
    """§R1.1 2-8 seats, every level: 1,000 whole games, about 60,000 answers (the folder
    must stay fast on a shared 2-core machine)."""
    rng = random.Random(20261122)
    total = 0
    seats_seen: set[int] = set()
    levels_seen: set[str] = set()
    for seed in range(1000):
        levels = _lineup(rng)
        seats_seen.add(len(levels))
        levels_seen.update(levels)
        actions, _ = _play_checked(levels, seed, roundtrip=seed % 25 == 0)
        total += actions
    assert seats_seen == set(range(2, 9))
    assert levels_seen == set(LEVELS)
    assert total > 50_000


def test_policies_get_only_json_and_it_is_enough() -> None:
    """Every decision of these games gets a JSON round trip of view and events."""
    for seed, levels in enumerate([["strong", "normal", "easy"], ["strong"] * 8,
                                   ["normal", "strong"]]):
        actions, _ = _play_checked(levels, 9000 + seed, roundtrip=True)
        assert actions > 10


def _shuffle_hidden(game: Game, seat: int, rng: random.Random) -> Game:
    """The same game for ``seat``'s eyes, with the cards it cannot see dealt anew: every
    other unrevealed hand and the deck are shuffled together and dealt back in the same
    sizes (§R15.2: those are exactly what it may not see)."""
    state = copy.deepcopy(game.to_dict())
    revealed = game.view(seat)["revealed"]
    hidden = [s for s in range(game.players) if s != seat and revealed[s] is None]
    pool = [c for s in hidden for c in state["hands"][s]] + state["deck"]
    rng.shuffle(pool)
    for s in hidden:
        size = len(state["hands"][s])
        state["hands"][s], pool = pool[:size], pool[size:]
    state["deck"] = pool
    state["rng"] = Game.new(players=2, seed=rng.randrange(10**6)).to_dict()["rng"]
    return Game.from_dict(state)


def test_a_decision_ignores_what_the_seat_cannot_see() -> None:
    """§R15: two engines that show a seat the same view, with different opponents' hands
    and deck, get the same answer from a fresh policy of the same level and seed."""
    rng = random.Random(5)
    compared = differed = 0
    for seed, levels in enumerate([["strong", "normal", "easy", "strong"],
                                   ["normal", "strong", "strong"], ["strong", "easy"]]):
        game = Game.new(players=len(levels), first_player=0, seed=700 + seed)
        seeds = [seed * 100 + s for s in range(len(levels))]

        def observe(seat: int, view: Any, events: Any, action: Any,
                    levels: list[str] = levels, seeds: list[int] = seeds,
                    game: Game = game) -> None:
            nonlocal compared, differed
            other = _shuffle_hidden(game, seat, rng)
            if other.to_dict()["hands"] != game.to_dict()["hands"]:
                differed += 1
            assert other.view(seat) == game.view(seat)
            fresh = policy(levels[seat], seeds[seat])
            assert fresh.act(other.view(seat), json.loads(json.dumps(events))) == action
            compared += 1

        play_game([policy(lv, s) for lv, s in zip(levels, seeds, strict=True)], seed=seed,
                  game=game, observe=observe)
    assert compared > 100 and differed > compared // 2


def test_same_inputs_same_answer_from_any_policy_object() -> None:
    """Rooms build a fresh policy for every decision: answers depend on (level, seed,
    view, events) only."""
    game = Game.new(players=4, first_player=1, seed=77)
    events = [start_event(game)]
    for level in LEVELS:
        for seat in range(4):
            view = game.view(seat)
            first = policy(level, 3).act(view, events)
            assert all(policy(level, 3).act(copy.deepcopy(view), list(events)) == first
                       for _ in range(3))


@pytest.mark.parametrize("level", LEVELS)
def test_an_eight_seat_decision_is_fast(level: str) -> None:
    """CPU time per decision on 8-seat games with long logs (figures in docs/bots.md)."""
    record = play_game([policy(level, s) for s in range(8)], seed=31)
    per = sum(record.seconds_by_seat) / record.decisions
    assert per < 0.025, f"{level}: {1000 * per:.2f} ms per decision"
