"""Property tests (hypothesis): whatever the seed, the seat count and the choices, a round
conserves its cards, settles by §T15/§T16, and a saved copy plays on identically."""

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
from game.rules.trump import yaku_pattern
from game.rules.trump.cards import SIG, parse_cards
from game.rules.trump.result import yaku_of_signature

from .test_playouts import SEATS, new_round, play_round


@settings(max_examples=30, deadline=None)
@given(case=st.sampled_from(SEATS), seed=st.integers(0, 2**32 - 1))
def test_t20_11_any_round_conserves_and_settles(case: tuple[str, int], seed: int) -> None:
    preset, players = case
    rng = random.Random(seed)
    play_round(new_round(rng, preset, players), rng)


@settings(max_examples=20, deadline=None)
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


def _yaku_reference(hand: list[str]) -> str | None:
    """§T8.3 written out plainly, apart from the engine's fast version."""
    numbers = sorted(0 if c == "JK" else int(c[1:]) for c in hand)
    counts = sorted(numbers.count(n) for n in set(numbers))
    if counts[-1] >= 4:
        return "four"
    if counts == [2, 3]:
        return "full_house"
    flush = "JK" not in hand and len({c[0] for c in hand}) == 1
    straight = False
    if "JK" not in hand and counts[-1] == 1:
        high = sorted(14 if n == 1 else n for n in numbers)
        straight = numbers[4] - numbers[0] == 4 or high[4] - high[0] == 4
    if straight:
        return "straight_flush" if flush else "straight"
    return "flush" if flush else None


@settings(max_examples=1000, deadline=None)
@given(hand=st.lists(st.sampled_from([f"{s}{n}" for s in "SHDC" for n in range(1, 14)] + ["JK"]),
                     min_size=5, max_size=5))
def test_t8_3_yaku_pattern_matches_the_rule(hand: list[str]) -> None:
    if hand.count("JK") > 2 or any(hand.count(c) > 1 for c in hand if c != "JK"):
        return  # not a hand of one pack
    assert yaku_pattern(parse_cards(hand)) == _yaku_reference(hand)


@settings(max_examples=1000, deadline=None)
@given(hand=st.lists(st.sampled_from([f"{s}{n}" for s in "SHDC" for n in range(1, 14)] + ["JK"]),
                     min_size=5, max_size=5))
def test_t8_3_the_hand_signature_gives_the_same_yaku(hand: list[str]) -> None:
    if hand.count("JK") > 2 or any(hand.count(c) > 1 for c in hand if c != "JK"):
        return
    ids = parse_cards(hand)
    assert yaku_of_signature(sum(SIG[c] for c in ids)) == yaku_pattern(ids)
