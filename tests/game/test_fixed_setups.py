"""The test-only fixed deal: refused unless the test settings allow it."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from game.models import Game, Membership, Room
from game.rules import Game as Engine
from game.services.fixed_setups import FixedSetup, start_fixed_game

pytestmark = pytest.mark.django_db

SETUP = FixedSetup(hands=[["R5", "B3"], ["G2", "Y9"]], first_card="R7", deck=["G1"])


def _room(alice, bob) -> Room:
    room = Room.objects.create(name="fixed", owner=alice)
    Membership.objects.create(room=room, user=alice, seat_index=0)
    Membership.objects.create(room=room, user=bob, seat_index=1)
    return room


def test_fixed_setup_is_refused_by_default(alice, bob):
    room = _room(alice, bob)
    with pytest.raises(ImproperlyConfigured):
        start_fixed_game(room, alice, SETUP)
    assert not Game.objects.exists()


def test_fixed_setup_deals_the_given_hands_when_tests_allow_it(settings, alice, bob):
    settings.DOBON_TEST_SETUPS_ALLOWED = True
    game = start_fixed_game(_room(alice, bob), alice, SETUP)
    engine = Engine.from_dict(game.state)
    assert [engine.hand(0), engine.hand(1)] == SETUP.hands
    assert engine.top == "R7" and engine.deck_count == 1 and engine.turn == 0
    assert game.status == Game.Status.RUNNING and game.players.count() == 2
