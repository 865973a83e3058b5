"""Key decisions of the trump CPU players, on set-ups from TRUMP-RULES.md's examples."""

from __future__ import annotations

from typing import Any

import pytest

from game.bots import LEVELS
from game.bots.trump import policy
from game.bots.trump.common import FORGET_LAST_ONE, forgets_last_one
from game.rules.trump import Game

FILLER = ["S10", "H10", "D10", "C10", "S11", "H11", "D11", "C11", "S12", "H12"]
SMART = ("normal", "strong")


def au(hands: list[list[str]], field: str, first: int = 0) -> Game:
    return Game.from_setup(hands=hands, first_card=field, deck=list(FILLER),
                           first_player=first, preset="au")


def std(hands: list[list[str]], field: str, first: int | None = 0, **kw: Any) -> Game:
    return Game.from_setup(hands=hands, first_card=field, deck=list(FILLER),
                           first_player=first, preset="standard", **kw)


def answers(game: Game, seat: int, levels: tuple[str, ...] = LEVELS,
            seeds: range = range(20)) -> list[dict[str, Any] | None]:
    view = game.view(seat)
    return [policy(level, seed).act(view, []) for level in levels for seed in seeds]


def test_t11_every_level_dobons_when_it_can() -> None:
    """§T11.7 (a): after 0 plays D10, seats 1 (1+2+3+4) and 2 (4+6) may dobon; seat 1 is
    also on turn and could play instead."""
    game = au([["D10", "S9"], ["H1", "C2", "S3", "D4"], ["S4", "H6"], ["C10", "H13"]], "D5")
    game.play(0, ["D10"], 1.0)
    for seat in (1, 2):
        assert all(a == {"type": "dobon"} for a in answers(game, seat))


def test_t12_dobons_on_top_and_returns() -> None:
    """§T12.6: after 1's dobon, 2 dobons on top and 0 returns, at every level."""
    game = au([["D10", "S3", "H7"], ["C4", "H6"], ["S5", "C5"]], "D6")
    game.play(0, ["D10"], 0.0)
    game.dobon(1, 2.0)
    assert all(a == {"type": "dobon"} for a in answers(game, 2))
    assert all(a == {"type": "return"} for a in answers(game, 0))


def test_t13_standard_dobon_names_the_largest_count() -> None:
    """§T13.10 (C): 3 may dobon with count 1 or 2; two cards earn the multi dobon (§T16.4)."""
    game = std([["JK", "C9"], ["S2", "H13"], ["JK", "C2", "D10"], ["H1", "D1"]], "S8")
    game.play(0, ["JK"], 0.0)
    game.play(1, ["S2"], 1.0)
    assert game.dobon_counts(3) == [1, 2]
    assert all(a == {"type": "dobon", "count": 2} for a in answers(game, 3))


def test_t14_standard_loser_returns() -> None:
    """§T14.9 (B) (a): after 3's dobon and 0's decline, 1 may return: every level does."""
    game = std([["JK", "C2"], ["S2", "H2"], ["S13", "H9", "D6"], ["H1", "D1"]], "S8")
    game.play(0, ["JK"], 0.0)
    game.play(1, ["S2"], 1.0)
    game.dobon(3, 4.0, count=2)
    game.decline(0, 6.0)
    assert all(a == {"type": "return"} for a in answers(game, 1))


@pytest.mark.parametrize("level", SMART)
def test_t8_1_normal_and_strong_declare_last_one_with_the_play(level: str) -> None:
    """§T8.4 (a): 0 holds [S4 S9] on S7; the play that leaves one card carries last one."""
    game = std([["S4", "S9"], ["C3", "D5"], ["H6", "C6"]], "S7")
    for seed in range(30):
        action = policy(level, seed).act(game.view(0), [])
        assert action is not None and action["type"] == "play" and action["last_one"] is True


def test_t21_q12_easy_forgets_last_one_about_one_time_in_ten() -> None:
    """§T21.Q12: over many seeds easy forgets in about one case in ten; a forgotten last
    one stays forgotten when it is offered on its own after the play (§T8.1)."""
    game = std([["S4", "S9"], ["C3", "D5"], ["H6", "C6"]], "S7")
    view = game.view(0)
    forgot = declared = 0
    for seed in range(2000):
        action = policy("easy", seed).act(view, [])
        assert action is not None
        if action["type"] == "play":
            if action.get("last_one"):
                declared += 1
            else:
                forgot += 1
                assert forgets_last_one(seed, view)
    assert 0.07 < forgot / (forgot + declared) < 0.13
    assert FORGET_LAST_ONE == 0.1
    # After a play without last one, the declaration is offered on its own.
    seeds = [s for s in range(200) if forgets_last_one(s, view)]
    kept = [s for s in range(200) if not forgets_last_one(s, view)]
    game.play(0, ["S4"], 1.0)
    after = game.view(0)
    assert {"type": "last_one"} in after["legal_actions"]
    assert all(policy("easy", s).act(after, []) is None for s in seeds)
    assert all(policy("easy", s).act(after, []) == {"type": "last_one"} for s in kept)
    for level in SMART:
        assert policy(level, 1).act(after, []) == {"type": "last_one"}


def test_t4_bids_are_sensible() -> None:
    """§T4, §T16.5: every bid is an answer within 1-999 built from the descriptor; normal
    bids little, strong bids enough to play first (a measured edge, docs/cpu-players.md),
    more on a hand of few points."""
    low = [["S1", "H2", "D3", "C2", "S4"], ["S13", "H12", "D11", "C10", "S9"],
           ["H13", "D12", "C11", "S10", "H9"]]
    game = Game.from_setup(hands=low, first_card="C7", deck=list(FILLER), preset="standard")
    assert game.phase == "auction"
    bids = {level: [policy(level, s).act(game.view(0), []) for s in range(50)]
            for level in LEVELS}
    for answered in bids.values():
        for action in answered:
            assert action is not None and set(action) == {"type", "amount"}
            assert action["type"] == "bid" and 1 <= action["amount"] <= 999
    amounts = {level: {a["amount"] for a in answered if a} for level, answered in bids.items()}
    assert amounts["easy"] <= set(range(1, 11)) and len(amounts["easy"]) > 3
    assert max(amounts["normal"]) <= 3 < min(amounts["strong"])
    strong_low = policy("strong", 1).act(game.view(0), [])
    strong_high = policy("strong", 1).act(game.view(1), [])
    assert strong_low is not None and strong_high is not None
    assert strong_low["amount"] > strong_high["amount"]


@pytest.mark.parametrize("level", SMART)
def test_t6_2_an_eight_names_the_suit_kept_most(level: str) -> None:
    """au: only S8 matches S4; the rest of the hand is hearts but one."""
    game = au([["S8", "H3", "H5", "H9", "D1"], ["C3", "C4"]], "S4")
    for seed in range(10):
        assert policy(level, seed).act(game.view(0), []) == {
            "type": "play", "cards": ["S8"], "suit": "H"}


@pytest.mark.parametrize("level", SMART)
def test_t6_1_a_two_answers_the_obligation(level: str) -> None:
    """§T6.4 (b): facing an obligation of 2, a 2 in hand passes it on instead of drawing 2."""
    game = au([["S2", "D7"], ["H2", "C6", "S13"], ["D9", "C13"]], "S5")
    game.play(0, ["S2"], 0.0)
    assert policy(level, 1).act(game.view(1), []) == {"type": "play", "cards": ["H2"]}


@pytest.mark.parametrize("level", SMART)
def test_t7_3_an_attack_card_answers_shibari(level: str) -> None:
    """§T7.8 (a) step 2: under しばり seat 1 plays H2 (or JK) rather than draw 2."""
    game = std([["C2", "D9", "H4"], ["H2", "JK", "S7"], ["H5", "C8", "D3"],
                ["S10", "H12", "C6"]], "C7")
    game.play(0, ["C2"], 0.0)
    action = policy(level, 1).act(game.view(1), [])
    assert action is not None and action["type"] == "play"
    assert action["cards"][0] in ("H2", "JK")


@pytest.mark.parametrize("level", SMART)
def test_t7_2_a_jack_names_its_own_suit_or_its_pair(level: str) -> None:
    """standard: D11 on D3 may name D or H; the rest of the hand is hearts."""
    game = std([["D11", "H4", "H6", "S13"], ["C3", "C4", "C5"], ["S3", "S4", "S5"]], "D3")
    action = policy(level, 1).act(game.view(0), [])
    assert action == {"type": "play", "cards": ["D11"], "suit": "H"}


@pytest.mark.parametrize("level", SMART)
def test_t8_3_declares_yaku(level: str) -> None:
    """§T8.4 (c): a full house at the start of its turn is declared."""
    game = std([["S3", "H3", "D3", "C9", "S9"], ["C4", "C5"], ["D4", "D6"]], "H7")
    assert policy(level, 1).act(game.view(0), []) == {"type": "yaku"}


@pytest.mark.parametrize("level", SMART)
def test_t10_goes_out_when_it_can(level: str) -> None:
    """A stop (au) and going out with a declared last one (standard) are always played."""
    stop = au([["H7"], ["C3", "S5"], ["S10", "H13"]], "H9")
    assert policy(level, 1).act(stop.view(0), []) == {"type": "play", "cards": ["H7"]}
    out = std([["S4"], ["C3", "D5"], ["H6", "C6"]], "S7", last_one=[0])
    assert policy(level, 1).act(out.view(0), []) == {"type": "play", "cards": ["S4"]}


def test_strong_counts_exposed_cards_and_avoids_a_sure_dobon() -> None:
    """standard: seat 1 declared 役 with four aces (§T8.3: its cards stay exposed) and kept
    them; after seat 2's draw (§T13.3: a draw ends every run) a 4 from seat 0 would be
    dobon'd for sure. Strong plays C3 instead; normal, which remembers nothing, sheds the
    higher C4."""
    game = std([["C4", "C3", "H13"], ["S1", "H1", "D1", "C1", "C9"], ["D9", "D2", "D6"]],
               "C5", first=1)
    game.declare_yaku(1, 0.0)
    game.play(1, ["C9"], 0.5)
    game.draw(2, 1.0)
    view = game.view(0)
    assert view["exposed"][1] == ["S1", "H1", "D1", "C1"]
    assert policy("strong", 1).act(view, []) == {"type": "play", "cards": ["C3"]}
    assert policy("normal", 1).act(view, []) == {"type": "play", "cards": ["C4"]}
