"""Shared set-up for the live-play tests: a room, a started game, precise positions.

Room seats: alice (owner) 0, bob 1, carol 2, dave 3 → engine seats 0..3; §R3.2 makes bob
(the owner's left neighbour) the first player of the room's first game.
"""

from __future__ import annotations

import functools
from typing import Any

from rules.helpers import setup

from game.models import Game, Membership, Room
from game.rules import Game as Engine
from game.services import play

NOW = 1_700_000_000.0
A, B, C, D = 0, 1, 2, 3


def make_room(owner: Any, *others: Any, seats: list[int] | None = None, **fields: Any) -> Room:
    """A room owned by `owner`, with `owner` and `others` seated at `seats` (0, 1, …)."""
    people = [owner, *others]
    fields.setdefault("seat_count", max(4, len(people)))
    room = Room.objects.create(name="table", owner=owner, **fields)
    for person, index in zip(people, seats or range(len(people)), strict=True):
        Membership.objects.create(room=room, user=person, seat_index=index)
    return room


# The one wrapper of Engine.from_setup (tests/rules/helpers.py), on the live-play clock.
position = functools.partial(setup, now=NOW, seed=1)


def seat_cpus(room: Room, *levels: str) -> Room:
    """A CPU of each level on the room's seats 1, 2, … (seat 0 is a person's)."""
    for index, level in enumerate(levels, start=1):
        Membership.objects.create(room=room, cpu_level=level, seat_index=index)
    return room


def set_position(game: Game, engine: Engine) -> Game:
    """Replace a running game's engine state by a built position (version kept)."""
    game.state = engine.to_dict()
    game.next_deadline = play.to_datetime(engine.next_deadline)
    game.rate = engine.rate
    if game.version == 0:  # a replay starts from the position, as from a real deal
        game.initial_state = game.state
    game.save(update_fields=["state", "next_deadline", "rate", "initial_state"])
    return game


def started(room: Room, owner: Any, engine: Engine | None = None, now: float = NOW) -> Game:
    game = play.start_game(room, owner, now=now)
    if engine is not None:
        set_position(game, engine)
    return game


def engine_of(game: Game) -> Engine:
    game.refresh_from_db()
    return Engine.from_dict(game.state)


def event_types(game: Game) -> list[str]:
    return [e.data["type"] for e in game.events.order_by("seq")]


def play_action(*cards: str) -> dict[str, Any]:
    return {"type": "play", "cards": list(cards)}


# A live table for socket tests: seat 1 (bob) on turn, nobody can go out at once, a
# deck of red 9s, and a 60 s clock that starts now (sockets read real time).
LIVE_HANDS = [["G1", "G2", "B4"], ["R5", "B7", "G4"], ["Y9", "Y8", "B9"], ["G9", "G8", "Y6"]]


def started_live_table(owner: Any, *others: Any) -> tuple[Room, Game]:
    import time

    room = make_room(owner, *others)
    game = play.start_game(room, owner, now=NOW)
    engine = position(LIVE_HANDS, deck=["R9"] * 20, first_player=1, timeout=60,
                      now=time.time())
    set_position(game, engine)
    return room, game
