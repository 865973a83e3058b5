"""The admin and match history (issues 8 and 11): a game's page shows a readable
settlement, timeline and replay link; the raw engine state of a running game (hands,
deck order, generator state) is shown to superusers only, never to staff who merely
may view games."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from game.models import GameEvent
from game.services import play
from tests.game.history_helpers import play_dobon
from tests.game.play_helpers import NOW, make_room, position, started

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser(django_user_model):
    return django_user_model.objects.create_superuser("boss", "boss@example.com", "x")


@pytest.fixture
def viewer(django_user_model):
    """Staff with only the "view game" and "view game event" permissions."""
    user = django_user_model.objects.create_user("steve", password="x", is_staff=True)
    user.user_permissions.add(
        Permission.objects.get(codename="view_game"),
        Permission.objects.get(codename="view_gameevent"),
    )
    return user


@pytest.fixture
def running(alice, bob):
    room = make_room(alice, bob)
    game = started(room, alice, position([["R5", "G7"], ["B9", "B8"]], first_player=0))
    # A draw puts a private "drawn" event with the card's identity in the log.
    play.perform_action(game, alice, {"type": "draw"}, now=NOW + 1)
    game.refresh_from_db()
    return game


def _change_page(client, user, game):
    client.force_login(user)
    return client.get(reverse("admin:game_game_change", args=[game.pk])).content.decode()


def test_superuser_sees_the_running_games_hidden_state(client, superuser, running):
    html = _change_page(client, superuser, running)
    hand = running.state["hands"][0]
    assert "rng" in html and "&quot;deck&quot;" in html
    assert all(card in html for card in hand)


def test_view_only_staff_sees_public_information_only(client, viewer, running):
    """R15.2: staff who may only view games never see hands, deck order or generator."""
    html = _change_page(client, viewer, running)
    assert "rng" not in html and "&quot;deck&quot;" not in html and "&quot;hands&quot;" not in html
    assert "field-initial_state" not in html and "field-state" not in html
    assert "field-timeline_summary" in html  # the public timeline is there
    drawn = running.events.get(data__type="drawn")
    events = client.get(reverse("admin:game_gameevent_changelist")).content.decode()
    assert reverse("admin:game_gameevent_change", args=[drawn.pk]) not in events
    page = client.get(reverse("admin:game_gameevent_change", args=[drawn.pk]))
    assert page.status_code in (302, 404)  # not found for this user
    assert GameEvent.objects.filter(pk=drawn.pk).exists()


def test_finished_game_page_has_settlement_timeline_and_replay_link(client, viewer,
                                                                    alice, bob, carol, dave):
    room = make_room(alice, bob, carol, dave)
    game = play_dobon(room, [alice, bob, carol, dave])
    client.cookies["django_language"] = "en"
    html = _change_page(client, viewer, game)
    assert game.get_absolute_url() in html
    assert "T = 12 + 5 + 17 + 17 = 51" in html
    assert "declares DOBON on alice" in html
