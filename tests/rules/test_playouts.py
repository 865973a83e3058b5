"""Random playouts over 2-8 seats, checking invariants on every step.

Like OpenSpiel's random simulation test: many seeded games are played to the end by
seats picking random legal actions (cut-ins, dobons and declines by any seat included)
and by time jumping to deadlines. On every step: the 112 cards are conserved, the
public attributes agree with each other, and views hide what §R15 hides; on sampled
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
    # Uniform choices would make dobons and returns rare: prefer them, and prefer doing
    # something to declining.
    rare = [a for a in actions if a["type"] in ("dobon", "return")]
    doing = [a for a in actions if a["type"] != "decline"]
    if rare and rng.random() < 0.5:
        action = rng.choice(rare)
    else:
        action = rng.choice(doing if doing and rng.random() < 0.8 else actions)
    return now, g.apply(seat, action, now)


def new_game(rng: random.Random, players: int) -> Game:
    return Game.new(players=players, first_player=rng.randrange(players),
                    seed=rng.randrange(2**32), rate=rng.choice([1, 2, 4]),
                    timeout=rng.choice([5.0, 10.0, 60.0]), now=rng.random() * 100)


def dense_game(rng: random.Random, players: int) -> Game:
    """A set-up game dealt from a few kinds of card only, so hands often tie in points:
    dobons, several declarers and returns become common."""
    if rng.random() < 0.5:
        kinds = rng.sample(CODES, rng.randrange(2, 5))
    else:  # every card worth the same: 20-point action cards, or one number in 4 colours
        same = rng.choice([[c + x for c in "RBGY" for x in ("S", "R", "+2")],
                           [c + str(rng.randrange(10)) for c in "RBGY"]])
        kinds = rng.sample(same, rng.randrange(2, 5))
    cards = [rng.choice(kinds) for _ in range(players * 5 + rng.randrange(20, 80))]
    hands = [cards[s * 5:(s + 1) * 5] for s in range(players)]
    return Game.from_setup(hands=hands, first_card=cards[players * 5],
                           deck=cards[players * 5 + 1:], first_player=rng.randrange(players),
                           seed=rng.randrange(2**32), timeout=rng.choice([5.0, 10.0]))


# ---------------------------------------------------------------- invariants

def card_total(g: Game) -> int:
    return sum(len(g.hand(s)) for s in range(g.players)) + g.deck_count + g.discard_count


def check_cards_conserved(g: Game, total: int = DECK_SIZE) -> None:
    assert card_total(g) == total
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
    """The same game with every card hidden from ``seat`` dealt differently (§R15)."""
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
    """Legal-looking and illegal actions: every count of each identical group of the hand,
    every sub-multiset of its F cards (several orders), and odd ones."""
    hand = g.hand(seat)
    plays: list[list[str]] = []
    for code, count in Counter(c for c in hand if not c.endswith("F")).items():
        plays += [[code] * k for k in range(1, count + 1)]
    forces = Counter(c for c in hand if c.endswith("F"))
    for take in itertools.product(*(range(n + 1) for n in forces.values())):
        cards = [c for c, t in zip(forces, take, strict=True) for _ in range(t)]
        for last in set(cards):
            rest = list(cards)
            rest.remove(last)
            rng.shuffle(rest)
            plays.append(rest + [last])
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

def run_playout(seed: int, players: int, deep_every: int, dense: bool = False) -> Counter[str]:
    rng = random.Random(seed)
    g = dense_game(rng, players) if dense else new_game(rng, players)
    total = card_total(g)
    assert dense or total == DECK_SIZE
    now = 0.0
    kinds: Counter[str] = Counter()
    for step in range(MAX_STEPS):
        check_cards_conserved(g, total)
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


@pytest.mark.parametrize("players", range(2, 9))
def test_dense_playouts_keep_invariants(players: int) -> None:
    """Few kinds of card: ties in points make the dobon and return paths common."""
    seen: Counter[str] = Counter()
    for seed in range(15):
        seen += run_playout(seed * 100 + players, players, deep_every=6, dense=True)
    assert seen["finished"] == 15


def test_playouts_reach_every_ending_and_chance() -> None:
    """The drivers really exercise the rare paths the invariants are meant to cover."""
    seen: Counter[str] = Counter()
    for seed in range(100):
        seen += run_playout(10_000 + seed, 2 + seed % 7, deep_every=50)
        seen += run_playout(20_000 + seed, 2 + seed % 7, deep_every=50, dense=True)
    for kind in ("agari", "dobon", "return", "deck_out", "cut_in", "chance", "take",
                 "choose", "timeout", "decline"):
        assert seen[kind] > 0, f"no playout reached {kind}"
    assert seen["return"] >= 5 and seen["dobon"] >= 50
