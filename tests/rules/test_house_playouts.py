"""Random playouts under house rules (HOUSE-RULES.md §G9): every preset of §7 and random
combinations of the sixteen keys.

Whatever seats do (random legal actions, cut-ins, dobons, declines, time jumping to
deadlines), nothing raises but ``IllegalAction``, every game ends, the 112 cards are
conserved (reshuffles included, §H12), payments (false-dobon penalties included, §H10)
sum to zero, views hide what §R15 hides, listed actions are accepted and accepted actions
are listed, and the state round trip (JSON included) plays on identically.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from typing import Any

import pytest

from game.rules import PRESETS, Game, HouseRules, IllegalAction
from game.rules.dobon_uno.house import CUT_IN_MODES, MULTI_DOBON_MODES, STACKING_MODES

from .test_playouts import (
    CODES,
    DECK_SIZE,
    candidate_actions,
    card_total,
    hidden_permutation,
)

MAX_STEPS = 50_000  # reshuffling random games have a long tail (ends seen up to ~8,000)
PUBLIC = {"play", "draw", "take", "pass", "color", "turn", "choose", "agari", "dobon",
          "return", "timeout", "finished", "swap", "rotate", "choose_swap", "reshuffle",
          "false_declaration", "dobon_void"}
PRIVATE = {"drawn", "chance", "decline", "hand"}


def canon(action: dict[str, Any]) -> tuple[Any, ...]:
    """Plays as their set of cards and last card; swaps by target (§H6.4)."""
    if action["type"] == "play":
        return ("play", tuple(sorted(action["cards"])), action["cards"][-1])
    if action["type"] == "swap":
        return ("swap", action["target"])
    return (action["type"], action.get("color"))


def random_rules(rng: random.Random) -> dict[str, Any]:
    """A random subset of the keys, each at a random allowed value."""
    values: dict[str, list[Any]] = {
        "hand_size": list(range(3, 11)), "cut_in": list(CUT_IN_MODES),
        "stacking": list(STACKING_MODES), "stack_cut_in": [True, False],
        "action_finish": [True, False], "mixed_color_multi": [True, False],
        "seven_zero": [True, False], "draw_until_playable": [True, False],
        "arithmetic_dobon": [True, False], "number_only_dobon": [True, False],
        "blind_dobon": [True, False], "multi_dobon": list(MULTI_DOBON_MODES),
        "reshuffle": [True, False], "rate_cap": [None, 1, 8, 1024],
        "session_games": [None, 20], "session_target": [None, 500],
    }
    keys = rng.sample(sorted(values), rng.randrange(1, len(values) + 1))
    return {k: rng.choice(values[k]) for k in keys}


def new_game(rng: random.Random, players: int, rules: dict[str, Any]) -> Game:
    return Game.new(players=players, first_player=rng.randrange(players),
                    seed=rng.randrange(2**32), rate=rng.choice([1, 2]),
                    timeout=rng.choice([5.0, 10.0]), now=rng.random() * 100,
                    house_rules=rules)


def dense_game(rng: random.Random, players: int, rules: dict[str, Any]) -> Game:
    """Few kinds of card (7s and 0s among them): dobons, swaps and returns are common.

    Without reshuffling (§H12): a small deck of a few kinds, reshuffled again and again,
    can go round for ever (drawing R7 until playable and playing it); the full deck of
    ``new_game`` is where §H12 is played."""
    rules = rules | {"reshuffle": False}
    kinds = rng.sample(CODES, rng.randrange(2, 5)) + rng.sample(["R7", "B0", "G7", "Y0"], 1)
    cards = [rng.choice(kinds) for _ in range(players * 4 + rng.randrange(10, 60))]
    hands = [cards[s * 4:(s + 1) * 4] for s in range(players)]
    return Game.from_setup(hands=hands, first_card=cards[players * 4],
                           deck=cards[players * 4 + 1:], first_player=rng.randrange(players),
                           seed=rng.randrange(2**32), timeout=5.0, house_rules=rules)


def step(g: Game, rng: random.Random, now: float) -> tuple[float, list[dict[str, Any]]]:
    deadline = g.next_deadline
    seats = [s for s in range(g.players) if g.legal_actions(s)]
    if not seats or rng.random() < 0.04:
        assert deadline is not None, "nobody can act and nothing is pending"
        now = max(now, deadline)
        return now, g.advance(now)
    if deadline is not None:
        now = min(deadline, now + rng.random() * (deadline - now))
    seat = rng.choice(seats)
    actions = g.legal_actions(seat)
    rare = [a for a in actions if a["type"] in ("dobon", "return", "swap")]
    doing = [a for a in actions if a["type"] != "decline"]
    if rare and rng.random() < 0.3:
        action = rng.choice(rare)
    else:
        action = rng.choice(doing if doing and rng.random() < 0.8 else actions)
    return now, g.apply(seat, action, now)


def check_events(events: list[dict[str, Any]], players: int) -> None:
    for e in events:
        assert "type" in e and "to" in e and "seat" in e
        json.dumps(e)
        if e["type"] in PRIVATE:
            assert e["to"] in range(players), e
        else:
            assert e["type"] in PUBLIC and e["to"] is None, e


def check_attributes(g: Game) -> None:
    phase = g.phase
    assert (g.turn is not None) == (phase == "turn")
    assert (g.chooser is not None) == (phase in ("color", "swap"))
    assert g.pending_draw >= 0
    if phase in ("turn", "color", "swap"):
        assert g.next_deadline is not None
    assert (g.result is not None) == (phase == "finished")


def check_actions(g: Game, seat: int, rng: random.Random, now: float) -> None:
    """§G8: every listed action is accepted; whatever is accepted is listed (as a set of
    cards with its last card: §H5.4 accepts any order whose first card matches)."""
    legal = g.legal_actions(seat)
    listed = [a["cards"] for a in legal if a["type"] == "play"]
    allowed = {canon(a) for a in legal}
    assert len(allowed) == len(legal), "legal_actions lists an action twice"
    for action in legal:
        g.copy().apply(seat, action, now)
    before = g.to_dict()
    candidates = candidate_actions(g, seat, rng) + [
        {"type": "swap", "target": t} for t in (-1, *range(g.players), g.players, "1")]
    for action in candidates:
        h = g.copy()
        try:
            h.apply(seat, action, now)
        except IllegalAction:
            assert action["type"] != "play" or action["cards"] not in listed
            assert h.to_dict() == before, f"refused {action} changed the game (G7)"
            continue
        assert canon(action) in allowed, f"{action} accepted but not listed"
    assert g.to_dict() == before


def check_round_trip(g: Game, rng: random.Random, now: float) -> None:
    """§G2: to_dict / from_dict (through JSON) plays on identically."""
    if g.phase == "finished":
        return
    h = Game.from_dict(json.loads(json.dumps(g.to_dict())))
    assert type(h) is type(g) and h.to_dict() == g.to_dict() and h.house_rules == g.house_rules
    a, b = g.copy(), h
    for _ in range(5):
        if a.phase == "finished":
            break
        seed = rng.random()
        na, ea = step(a, random.Random(seed), now)
        nb, eb = step(b, random.Random(seed), now)
        assert (na, ea) == (nb, eb)
        now = na


def check_views(g: Game, rng: random.Random) -> None:
    """§R15 and §G3: a view shows the rules, and does not change when hidden cards move."""
    for seat in [None, *range(g.players)]:
        view = g.view(seat)
        json.dumps(view)
        assert view["house_rules"] == g.house_rules
        assert len(view["house_rules"]) == 16
        assert hidden_permutation(g, seat, rng).view(seat) == view


def check_finished(g: Game, total: int) -> None:
    r = g.result
    assert g.phase == "finished" and r is not None
    assert sum(r.deltas) == 0
    deltas = [0] * g.players
    for payer, payee, pts in r.payments:
        assert pts > 0 and payer != payee
        deltas[payer] -= pts
        deltas[payee] += pts
    assert deltas == list(r.deltas)
    if r.kind == "deck_out":
        assert g.deck_count == 0
        assert all(p[2] == 20 * g.rate for p in r.payments)  # §H10.3.4 penalties only
    assert all(not g.legal_actions(s) for s in range(g.players))
    assert card_total(g) == total


def run(seed: int, players: int, rules: dict[str, Any], dense: bool,
        deep_every: int) -> Counter[str]:
    rng = random.Random(seed)
    g = dense_game(rng, players, rules) if dense else new_game(rng, players, rules)
    assert dense or g.house_rules == HouseRules.from_mapping(rules).to_dict()
    total = card_total(g)
    assert dense or total == DECK_SIZE
    now, seen = 0.0, Counter[str]()
    for i in range(MAX_STEPS):
        assert card_total(g) == total
        check_attributes(g)
        if i % deep_every == 0:
            check_views(g, rng)
            check_round_trip(g, rng, now)
            for seat in range(players):
                check_actions(g, seat, rng, now)
        if g.phase == "finished":
            break
        now, events = step(g, rng, now)
        check_events(events, players)
        seen.update(e["type"] for e in events)
    check_finished(g, total)
    seen[g.result.kind.value if g.result else "unfinished"] += 1
    return seen


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_g9_presets_keep_invariants(preset: str) -> None:
    seen: Counter[str] = Counter()
    for seed in range(16):
        players = 2 + seed % 7
        seen += run(seed, players, dict(PRESETS[preset]), dense=False, deep_every=9)
        seen += run(seed, players, dict(PRESETS[preset]), dense=True, deep_every=9)
    assert seen["finished"] == 32


@pytest.mark.parametrize("chunk", range(6))
def test_g9_random_combinations_keep_invariants(chunk: int) -> None:
    seen: Counter[str] = Counter()
    for i in range(20):
        seed = chunk * 1000 + i
        rules = random_rules(random.Random(seed))
        seen += run(seed, 2 + i % 7, rules, dense=i % 2 == 1, deep_every=11)
    assert seen["finished"] == 20


def test_g9_playouts_reach_every_house_rule_path() -> None:
    """The drivers really reach swaps, rotations, reshuffles, false declarations, void
    dobons and §H7's automatic play."""
    seen: Counter[str] = Counter()
    for seed in range(60):
        rules = dict(PRESETS[sorted(PRESETS)[seed % 4]])
        seen += run(50_000 + seed, 3 + seed % 6, rules, dense=True, deep_every=1000)
        rules |= {"seven_zero": True, "reshuffle": True, "blind_dobon": seed % 3 == 0,
                  "multi_dobon": "nearest"}
        seen += run(60_000 + seed, 3 + seed % 6, rules, dense=True, deep_every=1000)
        seen += run(70_000 + seed, 2 + seed % 7, rules, dense=False, deep_every=1000)
    for kind in ("swap", "rotate", "choose_swap", "reshuffle", "false_declaration",
                 "dobon_void", "hand", "dobon", "return", "agari", "deck_out"):
        assert seen[kind] > 0, f"no playout reached {kind}"


def test_g4_copy_is_independent() -> None:
    g = Game.new(players=4, first_player=0, seed=3, house_rules=dict(PRESETS["party"]))
    h = g.copy()
    d = copy.deepcopy(g.to_dict())
    seat = g.turn
    assert seat is not None
    h.apply(seat, h.legal_actions(seat)[0], 0.0)
    assert g.to_dict() == d
