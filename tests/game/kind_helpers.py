"""Rooms that switch game kinds, for the tests of issue #33 item 2 (a room's history per
game kind): a trump au dobon on a fixed deal, a trump standard round played by the clock."""

from __future__ import annotations

from typing import Any

from game.models import Game, Room
from game.services import clock, fixed_setups, play


def switch(room: Room, game_kind: str, preset: str = "au") -> Room:
    """The room plays `game_kind` (and `preset`) from its next game."""
    Room.objects.filter(pk=room.pk).update(game_kind=game_kind, trump_preset=preset)
    room.refresh_from_db()
    return room


def finish_by_clock(game: Game, now: float) -> Game:
    """Every seat times out until the round ends (§T18: the clock plays for them)."""
    for step in range(2000):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            return game
        clock.expire_due_games(now=now + step * 10)
    raise AssertionError("the round did not end")


def play_trump_au_dobon(room: Room, people: list[Any], now: float) -> Game:
    """§T13 (au): people[0] plays D10; people[2] holds S4 H6 (4 + 6 = 10) and dobons."""
    setup = fixed_setups.FixedSetup(
        hands=[["D10", "S3", "H7"], ["C13", "H12"], ["S4", "H6"], ["C9", "D2"]],
        first_card="D6", first_player=0,
        deck=["S9", "D1", "C3", "H13", "S4", "H6", "C1", "D8", "S10", "H10"])
    game = fixed_setups.start_fixed_game(room, people[0], setup, now=now)
    play.perform_action(game, people[0], {"type": "play", "cards": ["D10"]}, now=now + 1)
    play.perform_action(game, people[2], {"type": "dobon"}, now=now + 2)
    return finish_by_clock(game, now + 3)


def play_standard_round(room: Room, owner: Any, now: float) -> Game:
    """A trump standard round from a shuffled deal, every move the clock's."""
    return finish_by_clock(play.start_game(room, owner, now=now), now)
