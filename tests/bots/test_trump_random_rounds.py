"""Random rounds of trump Dobon among every level at every seat count of both presets
(TRUMP-RULES.md §T1.2): every answer a policy gives is one of its legal actions (or a bid
within the auction's descriptor, §T21.46), the engine takes it, and every round ends.
Policies see only a JSON round trip of their view and events, and their answers depend on
nothing else (§T19)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from game.bots import LEVELS
from game.bots import policy as any_game_policy
from game.bots.trump import is_answer, policy
from game.bots.trump.driver import play_round
from game.rules.trump import Game

SEATS = {"au": range(2, 5), "standard": range(3, 7)}
KINDS = ("agari", "dobon", "return", "deck_out")


def _checked_round(preset: str, levels: list[str], seed: int, roundtrip: bool) -> int:
    """One round in which every answer is checked against the view it was given; returns
    the number of actions applied."""
    answers = 0

    def observe(seat: int, view: Any, events: Any, action: Any) -> None:
        nonlocal answers
        if action is None:
            return
        answers += 1
        if action.get("type") == "bid":
            assert is_answer(view, action) and 1 <= action["amount"] <= 999, action
        else:
            # Exactly an element of the list it was given (the driver then applies it:
            # a refusal would raise IllegalAction and fail the test).
            assert any(action is a for a in view["legal_actions"]), (seat, action)

    record = play_round([policy(lv, seed * 8 + s) for s, lv in enumerate(levels)],
                        seed=seed, preset=preset, first_player=seed % len(levels),
                        observe=observe, roundtrip=roundtrip)
    assert record.result["kind"] in KINDS
    assert record.actions == answers
    if preset == "au":
        assert sum(record.result["deltas"]) == 0  # §T15.4
    return record.actions


@pytest.mark.parametrize("preset", ["au", "standard"])
def test_random_rounds_every_answer_is_legal_and_every_round_ends(preset: str) -> None:
    """Every level at every seat count of the preset, 60 rounds per seat count."""
    rng = random.Random(f"trump-bots:{preset}")
    seen: dict[int, set[str]] = {}
    total = 0
    for players in SEATS[preset]:
        for i in range(60):
            levels = [LEVELS[(i + s) % 3] if i < 3 else rng.choice(LEVELS)
                      for s in range(players)]
            seen.setdefault(players, set()).update(levels)
            total += _checked_round(preset, levels, 1000 * players + i, roundtrip=i % 10 == 0)
    assert all(levels == set(LEVELS) for levels in seen.values())
    assert total > 5_000


@pytest.mark.parametrize("preset", ["au", "standard"])
def test_a_table_of_one_level_ends_every_round(preset: str) -> None:
    for level in LEVELS:
        for players in SEATS[preset]:
            for seed in range(5):
                _checked_round(preset, [level] * players, seed, roundtrip=False)


def _new(preset: str, players: int, seed: int) -> Game:
    return Game.new(players=players, seed=seed, preset=preset,
                    first_player=0 if preset == "au" else None)


@pytest.mark.parametrize("preset", ["au", "standard"])
def test_same_inputs_same_answer_from_any_policy_object(preset: str) -> None:
    """Rooms build a fresh policy for every decision: answers depend on (level, seed,
    view, events) only."""
    for seed in range(6):
        game = _new(preset, 4, seed)
        for level in LEVELS:
            for seat in range(4):
                view = game.view(seat)
                first = policy(level, 3).act(view, [])
                assert all(policy(level, 3).act(copy.deepcopy(view), []) == first
                           for _ in range(3))


def _shuffle_hidden(game: Game, seat: int, rng: random.Random) -> Game:
    """The same round for ``seat``'s eyes with the cards it cannot see dealt anew: the
    other unrevealed hands and the deck are shuffled together and dealt back in the same
    sizes (§T19.3: those are exactly what it may not see)."""
    state = copy.deepcopy(game.to_dict())
    view = game.view(seat)
    hidden = [s for s in range(game.players) if s != seat and view["revealed"][s] is None
              and not view["exposed"][s]]
    hands = state["hands"]
    pool = [c for s in hidden for c in hands[s]] + state["deck"]
    rng.shuffle(pool)
    for s in hidden:
        size = len(hands[s])
        hands[s], pool = pool[:size], pool[size:]
    state["deck"] = pool
    return Game.from_dict(state)


@pytest.mark.parametrize("preset", ["au", "standard"])
def test_a_decision_ignores_what_the_seat_cannot_see(preset: str) -> None:
    """§T19: two engines that show a seat the same view, with other opponents' hands and
    deck, get the same answer from a fresh policy of the same level and seed."""
    rng = random.Random(5)
    compared = 0
    for seed, levels in enumerate([["strong", "normal", "easy", "strong"],
                                   ["normal", "strong", "strong"]]):
        game = _new(preset, len(levels), 700 + seed)

        def observe(seat: int, view: Any, events: Any, action: Any,
                    levels: list[str] = levels, game: Game = game, seed: int = seed) -> None:
            nonlocal compared
            if view["phase"] == "auction":
                return  # the engine's generator is part of the state; nothing is hidden
            other = _shuffle_hidden(game, seat, rng)
            assert other.view(seat) == game.view(seat)
            fresh = policy(levels[seat], seed * 100 + seat)
            assert fresh.act(other.view(seat), json.loads(json.dumps(events))) == action
            compared += 1

        play_round([policy(lv, seed * 100 + s) for s, lv in enumerate(levels)],
                   seed=seed, game=game, observe=observe)
    assert compared > 20


def test_game_bots_policy_answers_trump_views_as_the_trump_policy() -> None:
    """The one entry point the site calls: a trump view (it carries ``preset``) gets the
    trump policy's answer for the same level and seed."""
    for preset in ("au", "standard"):
        for seed in range(4):
            game = _new(preset, 3, seed)
            for level in LEVELS:
                for seat in range(3):
                    view = game.view(seat)
                    assert (any_game_policy(level, seed).act(view, [])
                            == policy(level, seed).act(view, []))


@pytest.mark.parametrize("preset", ["au", "standard"])
@pytest.mark.parametrize("level", LEVELS)
def test_a_decision_is_fast(preset: str, level: str) -> None:
    """CPU time per decision on six (standard) or four (au) seats; the figures are in
    docs/cpu-players.md. A room gives a policy 0.5 s."""
    players = 6 if preset == "standard" else 4
    seconds = decisions = 0.0
    for seed in range(8):
        record = play_round([policy(level, s) for s in range(players)], seed=seed,
                            preset=preset)
        seconds += sum(record.seconds_by_seat)
        decisions += record.decisions
    per = seconds / decisions
    assert per < 0.003, f"{level}: {1000 * per:.2f} ms per decision"
