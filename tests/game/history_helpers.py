"""Games played through the real service layer for the match-history tests: fixed
positions that end in each way (going out, dobon, return, deck-out) and random games
with random legal actions and timeouts."""

from __future__ import annotations

import random
from typing import Any

from game.models import Game, Room
from game.rules import Game as Engine
from game.services import clock, play
from tests.game.play_helpers import NOW, engine_of, position, started

# Seats 0..3 = alice, bob, carol, dave (make_room's order); alice (seat 0) acts first.
AGARI = [["R5"], ["R2", "R4"], ["B9", "B8"], ["G9", "G8"]]
DOBON = [["R5", "G7"], ["R2", "R3"], ["B9", "B8"], ["G9", "G8"]]  # bob dobons alice
RETURN = [["R5", "B5"], ["R2", "R3"], ["B9", "B8"], ["G9", "G8"]]  # alice returns bob's
DECK_OUT = [["R5", "B5"], ["R2", "R4"], ["B9", "B8"], ["G9", "G8"]]


def _start(room: Room, owner: Any, hands: list[list[str]], deck: list[str] | None, now: float,
           ) -> Game:
    return started(room, owner, position(hands, deck=deck, now=now), now=now)


def play_agari(room: Room, people: list[Any], now: float = NOW) -> Game:
    """people[0] goes out with R5 (§R8): +40 at ×1."""
    game = _start(room, people[0], AGARI, None, now)
    play.perform_action(game, people[0], {"type": "play", "cards": ["R5"]}, now=now + 1)
    return _reloaded(game)


def play_dobon(room: Room, people: list[Any], now: float = NOW) -> Game:
    """people[0] plays R5; people[1] holds 5 points and dobons (§R9): 51 at ×1."""
    game = _start(room, people[0], DOBON, None, now)
    play.perform_action(game, people[0], {"type": "play", "cards": ["R5"]}, now=now + 1)
    play.perform_action(game, people[1], {"type": "dobon"}, now=now + 2)
    return _reloaded(game)


def play_return(room: Room, people: list[Any], now: float = NOW) -> Game:
    """As play_dobon, but people[0] keeps B5 (5 points) and returns it (§R10): +49."""
    game = _start(room, people[0], RETURN, None, now)
    play.perform_action(game, people[0], {"type": "play", "cards": ["R5"]}, now=now + 1)
    play.perform_action(game, people[1], {"type": "dobon"}, now=now + 2)
    play.perform_action(game, people[0], {"type": "return"}, now=now + 3)
    return _reloaded(game)


def play_deck_out(room: Room, people: list[Any], now: float = NOW) -> Game:
    """people[0] draws the deck's last card (§R12): nobody pays, the next rate doubles."""
    game = _start(room, people[0], DECK_OUT, ["G1"], now)
    play.perform_action(game, people[0], {"type": "draw"}, now=now + 1)
    return _reloaded(game)


def _reloaded(game: Game) -> Game:
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED, game.status
    return game


def play_random_game(
    room: Room, owner: Any, rng: random.Random, now: float = NOW, max_calls: int = 3000
) -> tuple[Game, dict[int, dict[str, Any]]]:
    """A whole game of random legal actions and timeouts through the service layer.
    Returns the game and the engine state saved at every version."""
    game = play.start_game(room, owner, now=now)
    users = {p.seat: p.user for p in game.players.select_related("user")}
    states = {0: engine_of(game).to_dict()}
    for _ in range(max_calls):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            return game, states
        now += rng.choice([0.3, 1.0, 2.5, 6.0, 11.0])
        _random_move(game, users, rng, now)
        game.refresh_from_db()
        states[game.version] = dict(game.state)
    raise AssertionError("the random game did not end")


def _random_move(game: Game, users: dict[int, Any], rng: random.Random, now: float) -> None:
    engine = Engine.from_dict(game.state)
    if engine.next_deadline is not None and engine.next_deadline <= now and rng.random() < 0.5:
        clock.expire_due_games(now)
        return
    engine.advance(now)  # what perform_action does first: choose among what is legal then
    choices = [(s, a) for s in range(engine.players) for a in engine.legal_actions(s)]
    if not choices:
        clock.expire_due_games(now)
        return
    seat, action = rng.choice(choices)
    play.perform_action(game, users[seat], action, now=now)
