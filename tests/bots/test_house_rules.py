"""CPU players under house rules (HOUSE-RULES.md §G9): every level plays every preset and
random rule sets legally to the end, never makes a false declaration under blind dobon
(§H10), and chooses a 7's swap target (§H6) itself."""

from __future__ import annotations

import random
from typing import Any

import pytest

from game.bots import LEVELS, policy
from game.bots.base import obvious, swap_choice
from game.bots.driver import play_game
from game.bots.knowledge import declaration_holds
from game.rules import PRESETS, Game


def _events_of(rules: dict[str, Any], seed: int, levels: list[str]) -> tuple[dict[str, Any],
                                                                              list[str]]:
    seen: list[str] = []

    def observe(seat: int, view: Any, events: Any, answer: Any) -> None:
        if answer is not None:
            seen.append(answer["type"])

    record = play_game([policy(lv, seed * 10 + s) for s, lv in enumerate(levels)], seed=seed,
                       house_rules=rules, observe=observe, roundtrip=seed % 2 == 0)
    return record.result, seen


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("level", LEVELS)
def test_g9_every_level_plays_every_preset_legally(preset: str, level: str) -> None:
    for seed in range(4):
        players = 2 + seed * 2
        result, _ = _events_of(dict(PRESETS[preset]), seed, [level] * players)
        assert sum(result["deltas"]) == 0


def test_g9_mixed_levels_under_random_rule_sets() -> None:
    from tests.rules.test_house_playouts import random_rules

    for seed in range(24):
        rng = random.Random(seed)
        levels = [rng.choice(LEVELS) for _ in range(rng.randrange(2, 7))]
        result, _ = _events_of(random_rules(rng), seed, levels)
        assert sum(result["deltas"]) == 0


def test_h10_cpu_players_never_declare_falsely() -> None:
    rules = dict(PRESETS["competitive"])
    for seed in range(12):
        game = Game.new(players=4, first_player=0, seed=seed, house_rules=rules)
        record = play_game([policy(LEVELS[s % 3], seed + s) for s in range(4)], seed=seed,
                           game=game)
        assert record.result is not None
        assert game.view(None)["dobon_rights_lost"] == []  # nobody ever declared falsely


def _blind_view(hand: list[str], points: int, legal: list[dict[str, Any]]) -> dict[str, Any]:
    return {"seat": 1, "hand": hand, "phase": "agari_wait", "turn": None,
            "last_play": {"seat": 0, "cards": ["R5"], "points": points},
            "house_rules": {"blind_dobon": True}, "legal_actions": legal,
            "hand_counts": [0, len(hand), 3], "direction": 1}


def test_h10_obvious_declares_only_a_true_dobon_and_declines_a_bare_wait() -> None:
    legal = [{"type": "dobon"}, {"type": "decline"}]
    assert obvious(legal, _blind_view(["Y1", "Y4"], 5, legal)) == {"type": "dobon"}
    assert obvious(legal, _blind_view(["Y1", "Y5"], 5, legal)) == {"type": "decline"}
    for level in LEVELS:
        view = _blind_view(["Y1", "Y5"], 5, legal)
        assert policy(level, 1).act(view, []) == {"type": "decline"}


def test_h8_h9_declaration_holds_follows_the_rules() -> None:
    view = _blind_view(["B2", "G3"], 6, [])
    assert not declaration_holds(view)
    assert declaration_holds(view | {"house_rules": {"arithmetic_dobon": True}})
    view = _blind_view(["B+2"], 20, [])
    assert declaration_holds(view)
    assert not declaration_holds(view | {"house_rules": {"number_only_dobon": True}})


def test_h6_normal_and_strong_swap_with_the_seat_closest_to_going_out() -> None:
    g = Game.from_setup(hands=[["R7", "G3", "G9"], ["Y1", "Y2", "Y9"], ["B4"], ["G1", "Y6"]],
                        first_card="R5", deck=["G1"] * 20, first_player=0,
                        house_rules={"seven_zero": True})
    g.apply(0, {"type": "play", "cards": ["R7"]}, 0.0)
    view = g.view(0)
    assert swap_choice(view["legal_actions"], view) == {"type": "swap", "target": 2}
    for level in ("normal", "strong"):
        assert policy(level, 3).act(view, []) == {"type": "swap", "target": 2}
    assert policy("easy", 3).act(view, []) in view["legal_actions"]


def test_h8_strong_and_normal_see_the_danger_of_two_card_hands() -> None:
    from game.bots.knowledge import Table

    view = {"seat": 0, "hand": ["R1", "R2", "R3"], "hand_counts": [3, 2, 7, 7],
            "house_rules": {"arithmetic_dobon": True}, "direction": 1}
    plain = Table(view | {"house_rules": {}}, None).danger(12)
    four_ops = Table(view, None).danger(12)  # 2 × 6, 3 × 4, 20 − 8, ... also make 12
    assert four_ops > plain > 0
