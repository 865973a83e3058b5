"""House rules in live play: people answer the 7's swap (§H6.4) through the service."""

from __future__ import annotations

import pytest
from play_helpers import NOW, B, C, engine_of, make_room, play_action, set_position

from game.models import Game
from game.rules import Game as Engine
from game.services import play

pytestmark = pytest.mark.django_db

SEVEN_ZERO = {"seven_zero": True}


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""


@pytest.fixture
def room(alice, bob, carol, dave):
    return make_room(alice, bob, carol, dave, house_rules=SEVEN_ZERO)


def swap_position() -> Engine:
    """§H6 example (a): seat 1 (bob) holds a 7 and is on turn."""
    return Engine.from_setup(
        hands=[["Y1", "Y2", "Y9"], ["R7", "G3", "G9"], ["B4", "B8"], ["G1", "Y6"]],
        first_card="R5", deck=["G2", "G4", "G6", "G7"], first_player=B, rate=1,
        timeout=10.0, now=NOW, seed=1, house_rules=SEVEN_ZERO,
    )


def test_a_person_answers_the_sevens_swap(room, alice, bob):
    game = set_position(play.start_game(room, alice, now=NOW), swap_position())
    play.perform_action(game, bob, play_action("R7"), now=NOW + 1)
    assert engine_of(game).phase == "swap"
    play.perform_action(game, bob, {"type": "swap", "target": C}, now=NOW + 2)
    engine = engine_of(game)
    assert engine.phase != "swap"
    assert sorted(engine.hand(C)) == ["G3", "G9"]


@pytest.mark.parametrize("target", [None, "2", True, 1.5])
def test_a_swap_without_an_integer_target_is_a_bad_action(room, alice, bob, target):
    game = set_position(play.start_game(room, alice, now=NOW), swap_position())
    play.perform_action(game, bob, play_action("R7"), now=NOW + 1)
    with pytest.raises(play.PlayError) as info:
        play.perform_action(game, bob, {"type": "swap", "target": target}, now=NOW + 2)
    assert info.value.code == "bad_action"


def test_a_swap_by_someone_else_passes_the_engine_code_through(room, alice, bob):
    game = set_position(play.start_game(room, alice, now=NOW), swap_position())
    play.perform_action(game, bob, play_action("R7"), now=NOW + 1)
    with pytest.raises(play.ActionRefused) as info:
        play.perform_action(game, alice, {"type": "swap", "target": C}, now=NOW + 2)
    assert info.value.code == "not_swapper"
    assert Game.objects.get(pk=game.pk).version == 1
