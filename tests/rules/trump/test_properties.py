"""Property tests (hypothesis): whatever the seed, the seat count and the choices, a round
conserves its cards, settles by T15/T16, and a saved copy plays on identically."""

from __future__ import annotations

import doctest
import random

from hypothesis import given, settings
from hypothesis import strategies as st

import game.rules.trump
import game.rules.trump.actions
import game.rules.trump.cards
import game.rules.trump.game
import game.rules.trump.match
import game.rules.trump.result

from .test_playouts import SEATS, new_round, play_round


@settings(max_examples=60, deadline=None)
@given(case=st.sampled_from(SEATS), seed=st.integers(0, 2**32 - 1))
def test_t20_11_any_round_conserves_and_settles(case: tuple[str, int], seed: int) -> None:
    preset, players = case
    rng = random.Random(seed)
    play_round(new_round(rng, preset, players), rng)


@settings(max_examples=40, deadline=None)
@given(case=st.sampled_from(SEATS), seed=st.integers(0, 2**32 - 1))
def test_t20_11_any_round_trips(case: tuple[str, int], seed: int) -> None:
    preset, players = case
    rng = random.Random(seed)
    play_round(new_round(rng, preset, players), rng, trips=True)


def test_the_package_doctests_hold() -> None:
    for module in (game.rules.trump, game.rules.trump.actions, game.rules.trump.cards,
                   game.rules.trump.game, game.rules.trump.match, game.rules.trump.result):
        failed, _ = doctest.testmod(module)
        assert failed == 0, module.__name__
