"""Random playouts of both presets at every seat count (§T20.11).

Seats pick random legal actions (dobons, returns, declines, last one and 役 by any seat
included) and time jumps to deadlines. On every step: only ``IllegalAction`` is ever
raised, the cards are conserved (52 or 54), and what is listed is accepted; sometimes a
listed action goes through the checked path as a plain dict, and random actions of any
seat, legal or not, are tried on a copy: refused ones raise IllegalAction and change
nothing, accepted ones were listed. Every round ends, and its
settlement is recomputed here from the final hands by the formulas of §T15/§T16 (written
apart from the engine's). Round trips: ``to_dict`` -> JSON -> ``from_dict`` at random
points, then both copies play the same actions and must give the same events.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from typing import Any

import pytest

from game.rules.trump import Game, IllegalAction

MAX_STEPS = 50_000  # random au rounds of 2 seats can run to thousands of steps
SEATS = [("au", n) for n in (2, 3, 4)] + [("standard", n) for n in (3, 4, 5, 6)]
SUITS = "SHDC"


def number(code: str) -> int:
    return 0 if code == "JK" else int(code[1:])


def au_value(code: str) -> int:
    n = number(code)
    return 10 if n in (1, 11, 12, 13) else n


def au_points(cards: list[str]) -> int:
    return sum(au_value(c) for c in cards) * 2 ** sum(number(c) == 2 for c in cards)


def base(cards: list[str]) -> int:
    return sum(min(number(c), 10) for c in cards)


def pack(preset: str) -> Counter[str]:
    cards = Counter(f"{s}{n}" for s in SUITS for n in range(1, 14))
    if preset == "standard":
        cards["JK"] = 2
    return cards


def all_cards(g: Game) -> Counter[str]:
    """Every card of the round wherever it is (§T20.11)."""
    d = g.to_dict()
    cards: Counter[str] = Counter()
    for h in d["hands"] + d["out"]:
        cards.update(h)
    cards.update(d["deck"])
    cards.update(d["discards"])
    cards[d["top"]] += 1
    return cards


def random_action(g: Game, rng: random.Random, seat: int) -> dict[str, Any]:
    actions = g.legal_actions(seat)
    rare = [a for a in actions if a["type"] in ("dobon", "return", "yaku", "last_one")]
    if rare and rng.random() < 0.6:
        return rng.choice(rare)
    plays = [a for a in actions if a["type"] == "play"]
    if plays and rng.random() < 0.7:  # uniform draws make rounds of thousands of steps
        return rng.choice(plays)
    doing = [a for a in actions if a["type"] != "decline"]
    action = rng.choice(doing if doing and rng.random() < 0.8 else actions)
    if action["type"] == "bid":
        return {"type": "bid", "amount": rng.randint(action["min"], 12)}
    return action


def step(g: Game, rng: random.Random, now: float) -> tuple[float, list[dict[str, Any]]]:
    deadline = g.next_deadline
    seats = [s for s in range(g.players) if g.legal_actions(s)]
    if not seats or rng.random() < 0.05:
        assert deadline is not None, "nobody can act and nothing is pending"
        now = max(now, deadline)
        return now, g.advance(now)
    if deadline is not None:
        now = min(deadline, now + rng.random() * (deadline - now))
    seat = rng.choice(seats)
    action = random_action(g, rng, seat)
    if rng.random() < 0.2:
        action = copy.deepcopy(dict(action))  # the checked path
    return now, g.apply(seat, action, now)


def dense_setup(rng: random.Random, preset: str, players: int) -> Game:
    """Hands of small cards so that dobons, chains and returns are common."""
    cards = [c for c in pack(preset).elements()
             if c == "JK" or number(c) <= 6 or rng.random() < 0.15]
    rng.shuffle(cards)
    size = min(rng.choice([2, 3, 4, 5]), (len(cards) - 1) // players)
    hands = [cards[i * size:(i + 1) * size] for i in range(players)]
    first = cards[players * size]
    deck = cards[players * size + 1:]
    kwargs: dict[str, Any] = {}
    first_player: int | None = rng.randrange(players)
    if preset == "standard":
        if rng.random() < 0.5:
            first_player = None
        elif rng.random() < 0.5:
            assert first_player is not None
            bids = [rng.randint(1, 5) for _ in range(players)]
            bids[first_player] = 9
            kwargs["bids"] = bids
        kwargs["match"] = {"streaks": [rng.choice([0, 2, 3]) for _ in range(players)]}
    return Game.from_setup(hands=hands, first_card=first, deck=deck, first_player=first_player,
                           preset=preset, seed=rng.randrange(1000), **kwargs)


def new_round(rng: random.Random, preset: str, players: int) -> Game:
    if rng.random() < 0.5:
        return dense_setup(rng, preset, players)
    first = rng.randrange(players) if preset == "au" else None
    return Game.new(players=players, first_player=first, seed=rng.randrange(2**32),
                    preset=preset, timeout=rng.choice([5.0, 10.0]), now=rng.random() * 50)


def check_settlement(g: Game, start: Counter[str]) -> None:
    """§T15 / §T16 recomputed from the final state, apart from the engine's settle code."""
    r = g.result
    assert r is not None
    d = g.to_dict()
    hands = d["hands"]
    n = g.players
    rd = r.to_dict()
    assert rd["deltas"] == rd["scores"]
    if g.preset == "au":
        assert sum(r.deltas) == 0 and rd["score_order"] == "high"
        paid = [0] * n
        for payer, payee, p in r.payments:
            paid[payer] -= p
            paid[payee] += p
        assert paid == r.deltas
        if r.kind == "agari":
            (w,) = r.winners
            expected = [(s, w, au_points(hands[s])) for s in range(n)
                        if s != w and au_points(hands[s])]
            assert [tuple(p) for p in r.payments] == expected
        elif r.kind in ("dobon", "return"):
            chain = rd["chain"]
            w = chain[-1][0]
            loser = chain[-2][0] if len(chain) > 1 else d["latest"][0]
            cards = hands[w] + hands[loser] + [d["top"]]
            pts = au_points(cards) * 2 ** len(chain)
            assert r.winners == [w] and r.losers == [loser]
            assert r.deltas[loser] == -pts and r.deltas[w] == pts
        else:
            assert r.payments == [] and r.winners == []
    else:
        assert rd["score_order"] == "low" and r.payments == []
        losers, winners = set(r.losers), set(r.winners)
        b = [base(h) for h in hands]
        assert r.hand_points == b
        bonus = [0] * n
        for seat, _name, p in r.bonuses or []:
            bonus[seat] += p
        w = max(b[s] for s in range(n) if s not in losers)
        for s in range(n):
            if s in losers:
                own = w * len(winners) * 2 if r.kind == "dobon" else w * 6
            else:
                own = b[s]
            assert r.scores[s] == own + bonus[s], (s, rd)
        if r.kind in ("agari", "deck_out"):
            assert not losers
        for s in winners:
            assert not hands[s] or r.kind == "agari" and False or not hands[s]


CODES = [f"{s}{n}" for s in SUITS for n in range(1, 14)] + ["JK"]


def random_candidate(g: Game, rng: random.Random) -> dict[str, Any]:
    """Any action at all, legal or not (shapes stay mostly valid, so rules are reached)."""
    kind = rng.choice(["play", "play", "play", "draw", "dobon", "return", "decline", "bid",
                       "last_one", "yaku", "pass"])
    action: dict[str, Any] = {"type": kind}
    if kind == "play":
        action["cards"] = [rng.choice(CODES)]
        if rng.random() < 0.5:
            action["suit"] = rng.choice("SHDC")
        if rng.random() < 0.2:
            action["last_one"] = True
    elif kind == "dobon" and (g.preset == "standard" or rng.random() < 0.1):
        action["count"] = rng.randint(0, 4)
    elif kind == "bid":
        action["amount"] = rng.choice([0, 1, 5, 999, 1000])
    return action


def probe(g: Game, rng: random.Random, now: float) -> None:
    """§T20.3/§T20.4: a refused action raises IllegalAction and changes nothing; an accepted
    one was listed."""
    seat = rng.randrange(g.players)
    action = random_candidate(g, rng)
    twin = Game.from_dict(g.to_dict())
    before = twin.to_dict()
    try:
        twin.apply(seat, action, now)
    except IllegalAction:
        assert twin.to_dict() == before
        return
    listed = [dict(a) for a in g.legal_actions(seat)]
    if action["type"] == "bid":  # the descriptor stands for every amount in its range
        assert {"type": "bid", "min": 1, "max": 999} in listed and 1 <= action["amount"] <= 999
        return
    plain = {k: v for k, v in action.items() if not (k == "last_one" and v is False)}
    assert plain in [{k: (list(v) if isinstance(v, list) else v) for k, v in a.items()}
                     for a in listed], (action, listed)


def check_derived(g: Game) -> None:
    """White-box: what the engine keeps up to date equals what it derives on load."""
    fresh = Game.from_dict(g.to_dict())
    names = ["_sums", "_masks", "_match", "_next", "_back"]
    if g.preset == "standard":
        names += ["_jks", "_pre", "_at", "_since", "_run_j"]
    for name in names:
        assert getattr(g, name) == getattr(fresh, name), name


def play_round(g: Game, rng: random.Random, trips: bool = False) -> int:
    start = all_cards(g)
    probes = random.Random(repr(g.to_dict()["hands"]))  # apart: the round's choices stay
    size = 54 if g.preset == "standard" else 52
    assert sum(start.values()) <= size
    now = 0.0
    for steps in range(MAX_STEPS):
        if g.phase == "finished":
            check_settlement(g, start)
            return steps
        if trips and rng.random() < 0.05:
            saved = json.loads(json.dumps(g.to_dict()))
            twin = Game.from_dict(saved)
            assert twin.to_dict() == saved
            seed = rng.randrange(2**32)
            a_rng, b_rng = random.Random(seed), random.Random(seed)
            a_now = b_now = now
            for _ in range(rng.randrange(1, 30)):
                if g.phase == "finished":
                    break
                a_now, a_ev = step(g, a_rng, a_now)
                b_now, b_ev = step(twin, b_rng, b_now)
                assert a_ev == b_ev
                assert json.dumps(a_ev)  # JSON-safe
            assert g.to_dict() == twin.to_dict()
            now = a_now
            continue
        now, events = step(g, rng, now)
        assert all("type" in e and "to" in e for e in events)
        assert all_cards(g) == start
        if steps % 4 == 0:
            check_derived(g)
        if g.phase != "finished" and probes.random() < 0.2:
            probe(g, probes, now)
    raise AssertionError("the round did not end")


@pytest.mark.parametrize(("preset", "players"), SEATS)
def test_t20_11_random_playouts_end_conserve_and_settle(preset: str, players: int) -> None:
    rng = random.Random(f"{preset}-{players}")
    kinds: Counter[str] = Counter()
    for _ in range(150):
        g = new_round(rng, preset, players)
        try:
            play_round(g, rng)
        except IllegalAction as err:  # pragma: no cover - a listed action was refused
            raise AssertionError(f"listed action refused: {err.code}") from err
        assert g.result is not None
        kinds[g.result.kind] += 1
    assert kinds["dobon"] > 0 and kinds["agari"] > 0, kinds
    if (preset, players) not in (("au", 2), ("au", 3)):  # au returns are rare with few seats
        assert kinds["return"] > 0, kinds


@pytest.mark.parametrize(("preset", "players"), SEATS)
def test_t20_11_round_trip_at_random_points_plays_on_identically(preset: str,
                                                                 players: int) -> None:
    rng = random.Random(f"trip-{preset}-{players}")
    for _ in range(60):
        g = new_round(rng, preset, players)
        play_round(g, rng, trips=True)
