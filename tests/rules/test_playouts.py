"""Random playouts over 2-8 seats, checking invariants on every step.

Like OpenSpiel's random simulation test: many seeded games are played to the end by
seats picking random legal actions (cut-ins, dobons and declines by any seat included)
and by time jumping to deadlines. On every step: the 112 cards are conserved, the
public attributes agree with each other, and views hide what R15 hides; on sampled
steps every listed action is accepted and every unlisted candidate is refused without
changing the game. At the end the game is finished and the deltas sum to zero.
"""

from __future__ import annotations

import copy
import itertools
import json
import random
from collections import Counter
from typing import Any

import pytest

from game.rules import Game, IllegalAction

DECK_SIZE = 112
CODES = (
    [c + str(n) for c in "RBGY" for n in range(10)]
    + [c + s for c in "RBGY" for s in ("S", "R", "+2", "F")]
    + ["W", "W+4"]
)
PUBLIC_EVENT_TYPES = {"play", "draw", "take", "pass", "color", "turn", "choose", "agari",
                      "dobon", "return", "timeout", "finished"}
PRIVATE_EVENT_TYPES = {"drawn", "chance", "decline"}
MAX_STEPS = 4000


# ---------------------------------------------------------------- the random driver

def actors(g: Game) -> list[int]:
    """Seats that may act now."""
    return [s for s in range(g.players) if g.legal_actions(s)]


def random_step(g: Game, rng: random.Random, now: float,
                jump: float = 0.04) -> tuple[float, list[dict[str, Any]]]:
    """One random step: some seat acts at a time before the next deadline, or time jumps
    (with probability ``jump``) to the next deadline.

    Returns the new time and the events.
    """
    deadline = g.next_deadline
    seats = actors(g)
    if not seats or rng.random() < jump:
        assert deadline is not None, "nobody can act and nothing is pending"
        now = max(now, deadline)
        return now, g.advance(now)
    if deadline is not None:
        now = min(deadline, now + rng.random() * (deadline - now))
    seat = rng.choice(seats)
    actions = g.legal_actions(seat)
    # Declining everything would make cut-ins and dobons rare: prefer doing something.
    doing = [a for a in actions if a["type"] != "decline"]
    action = rng.choice(doing if doing and rng.random() < 0.8 else actions)
    return now, g.apply(seat, action, now)


def new_game(rng: random.Random, players: int) -> Game:
    return Game.new(players=players, first_player=rng.randrange(players),
                    seed=rng.randrange(2**32), rate=rng.choice([1, 2, 4]),
                    timeout=rng.choice([5.0, 10.0, 60.0]), now=rng.random() * 100)


# ---------------------------------------------------------------- invariants

def check_cards_conserved(g: Game) -> None:
    in_hands = sum(len(g.hand(s)) for s in range(g.players))
    assert in_hands + g.deck_count + g.discard_count == DECK_SIZE
    assert len(g.discards) == g.discard_count and g.discards[-1] == g.top


def check_attributes(g: Game) -> None:
    phase = g.phase
    assert (g.turn is not None) == (phase == "turn")
    assert (g.chooser is not None) == (phase == "color")
    assert g.direction in (1, -1)
    assert g.pending_draw >= 0 and g.pending_draw % 2 == 0
    if phase in ("turn", "color"):
        assert g.next_deadline is not None
    if phase == "turn" and g.color is None:
        assert g.top == "W+4" and g.pending_draw > 0, "only F facing a first-card W+4"
    if phase == "finished":
        assert g.next_deadline is None and g.result is not None
    else:
        assert g.result is None


def check_events(events: list[dict[str, Any]], players: int) -> None:
    for e in events:
        assert "type" in e and "to" in e and "seat" in e
        json.dumps(e)
        if e["type"] in PRIVATE_EVENT_TYPES:
            assert e["to"] in range(players), f"{e['type']} must be private"
        else:
            assert e["type"] in PUBLIC_EVENT_TYPES and e["to"] is None, e


def hidden_permutation(g: Game, seat: int | None, rng: random.Random) -> Game:
    """The same game with every card hidden from ``seat`` dealt differently (R15)."""
    d = copy.deepcopy(g.to_dict())
    view = g.view(seat)
    hidden = [s for s in range(g.players) if s != seat and view["revealed"][s] is None]
    pool = [c for s in hidden for c in d["hands"][s]] + d["deck"]
    rng.shuffle(pool)
    for s in hidden:
        size = len(d["hands"][s])
        d["hands"][s], pool = pool[:size], pool[size:]
    d["deck"] = pool
    return Game.from_dict(d)


def check_views_hide_cards(g: Game, rng: random.Random) -> None:
    """A view must not change when cards it may not see are dealt differently."""
    for seat in [None, *range(g.players)]:
        view = g.view(seat)
        json.dumps(view)
        assert hidden_permutation(g, seat, rng).view(seat) == view
        if seat is None:
            assert "hand" not in view and view["legal_actions"] == [] and view["chances"] == []
        else:
            assert view["hand"] == g.hand(seat)


def canon(action: dict[str, Any]) -> tuple[Any, ...]:
    """Plays compare as multisets plus their last card (the colour an F play ends on)."""
    if action["type"] == "play":
        return ("play", tuple(sorted(action["cards"])), action["cards"][-1])
    if action["type"] == "color":
        return ("color", action["color"])
    return (action["type"],)


def candidate_actions(g: Game, seat: int, rng: random.Random) -> list[dict[str, Any]]:
    """Legal-looking and illegal actions: every identical group of the hand, F orders, odd ones."""
    hand = g.hand(seat)
    groups: dict[str, list[str]] = {}
    for code in hand:
        groups.setdefault("F" if code.endswith("F") else code, []).append(code)
    plays: list[list[str]] = []
    for cards in groups.values():
        for k in range(1, len(cards) + 1):
            for combo in set(itertools.combinations(sorted(cards), k)):
                plays += [list(p) for p in set(itertools.permutations(combo))]
    if len(hand) >= 2:
        plays.append(rng.sample(hand, 2))
    plays.append([rng.choice(CODES)])
    simple = [{"type": t} for t in ("draw", "pass", "dobon", "return", "decline", "take")]
    colours = [{"type": "color", "color": c} for c in ("R", "B", "G", "Y", "P")]
    return [{"type": "play", "cards": p} for p in plays] + simple + colours


def check_action_sets(g: Game, seat: int, rng: random.Random, now: float) -> None:
    """Listed actions are accepted; unlisted candidates are refused and change nothing."""
    legal = g.legal_actions(seat)
    allowed = {canon(a) for a in legal}
    assert len(allowed) == len(legal), "legal_actions lists an action twice"
    if ("draw",) in allowed and g.pending_draw:
        allowed.add(("take",))  # "take" is the explicit alias of drawing a stack
    for action in legal:
        g.copy().apply(seat, action, now)
    before = g.to_dict()
    for action in candidate_actions(g, seat, rng):
        if canon(action) in allowed:
            g.copy().apply(seat, action, now)
            continue
        with pytest.raises(IllegalAction):
            g.apply(seat, action, now)
    assert g.to_dict() == before


def check_finished(g: Game) -> None:
    r = g.result
    assert g.phase == "finished" and r is not None
    assert sum(r.deltas) == 0
    totals = [0] * g.players
    for payer, payee, pts in r.payments:
        assert pts > 0 and payer != payee
        totals[payer] -= pts
        totals[payee] += pts
    assert totals == list(r.deltas)
    assert 0 <= r.next_first_player < g.players
    assert len(r.hand_points) == g.players
    if r.kind == "deck_out":
        assert g.deck_count == 0 and r.payments == []
    assert all(not g.legal_actions(s) for s in range(g.players))


# ---------------------------------------------------------------- the playouts

def run_playout(seed: int, players: int, deep_every: int) -> Counter[str]:
    rng = random.Random(seed)
    g = new_game(rng, players)
    now = 0.0
    kinds: Counter[str] = Counter()
    for step in range(MAX_STEPS):
        check_cards_conserved(g)
        check_attributes(g)
        if step % deep_every == 0:
            check_views_hide_cards(g, rng)
            for seat in range(players):
                check_action_sets(g, seat, rng, now)
        if g.phase == "finished":
            break
        now, events = random_step(g, rng, now)
        check_events(events, players)
        kinds.update(e["type"] for e in events)
        kinds.update("cut_in" for e in events if e.get("cut_in"))
    check_finished(g)
    kinds[g.result.kind if g.result else "unfinished"] += 1
    return kinds


@pytest.mark.parametrize("players", range(2, 9))
def test_random_playouts_keep_invariants(players: int) -> None:
    seen: Counter[str] = Counter()
    for seed in range(12):
        seen += run_playout(seed * 100 + players, players, deep_every=7)
    assert seen["play"] > 0 and seen["finished"] == 12


def test_playouts_reach_every_ending_and_chance() -> None:
    """The driver really exercises the rare paths the invariants are meant to cover."""
    seen: Counter[str] = Counter()
    for seed in range(150):
        seen += run_playout(10_000 + seed, 2 + seed % 7, deep_every=40)
    for kind in ("agari", "dobon", "return", "deck_out", "cut_in", "chance", "take",
                 "choose", "timeout", "decline"):
        assert seen[kind] > 0, f"no playout reached {kind}"
