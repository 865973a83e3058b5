"""Test-only: start a room's game from a fixed deal (`Engine.from_setup`).

Browser tests need a known deck to play a cut-in, a stack, a dobon and a return on
purpose. Nothing in the site calls this module: no URL, no view, no task. It refuses to
run unless `settings.DOBON_TEST_SETUPS_ALLOWED` is True, which settings.py never sets
(not even from the environment); only a test's settings override does.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction

from game.models import Game, Room
from game.rules import Game as Engine
from game.services import play

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser


@dataclass(frozen=True)
class FixedSetup:
    """The arguments of `Engine.from_setup`, one hand per seated member in seat order."""

    hands: list[list[str]]
    first_card: str
    deck: list[str] = field(default_factory=list)
    first_player: int = 0
    seed: int = 0


def check_allowed() -> None:
    if getattr(settings, "DOBON_TEST_SETUPS_ALLOWED", False) is not True:
        raise ImproperlyConfigured("fixed game setups are for tests only")


def start_fixed_game(
    room: Room, by: AbstractBaseUser, setup: FixedSetup, now: float | None = None
) -> Game:
    """Like `play.start_game`, but the deal is `setup` instead of a shuffle."""
    check_allowed()
    now = time.time() if now is None else now
    with transaction.atomic():
        room = Room.objects.select_for_update().get(pk=room.pk)
        seated = list(room.memberships.select_related("user").order_by("seat_index"))
        play.check_can_start(room, by, seated)
        if len(setup.hands) != len(seated):
            raise ValueError("one hand per seated member")
        engine = Engine.from_setup(
            hands=setup.hands,
            first_card=setup.first_card,
            deck=setup.deck,
            first_player=setup.first_player,
            rate=room.next_rate,
            timeout=float(room.timeout_seconds),
            now=now,
            seed=setup.seed,
            house_rules=room.house_rules or None,
        )
        game, seats = play.do_create_game(room, by, seated, engine)
        events = play.initial_events(engine)
        play.do_append_events(game, events)
        game.save(update_fields=["event_count"])
        change = play.TableChange(
            room.pk,
            game.pk,
            game.number,
            game.version,
            game.status,
            engine,
            events,
            seats,
            room_info=play.room_info(room),
        )
        transaction.on_commit(lambda: play.notify_change(change))
    return game
