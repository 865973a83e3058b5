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
    """§R15.2: staff who may only view games never see hands, deck order or generator."""
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


# -- issue 20: view-only staff change nothing and filter on nothing hidden ------------------


@pytest.fixture
def room_viewer(viewer):
    viewer.user_permissions.add(Permission.objects.get(codename="view_room"))
    return viewer


def test_view_only_staff_cannot_abort_a_game(client, viewer, running):
    """The finding: the "abort" action ran for staff who may only view."""
    client.force_login(viewer)
    listing = client.get(reverse("admin:game_game_changelist")).content.decode()
    assert "abort_running_games" not in listing  # not offered
    client.post(reverse("admin:game_game_changelist"),
                {"action": "abort_running_games", "_selected_action": [running.pk]})
    running.refresh_from_db()
    assert running.status == "running"


def test_view_only_staff_cannot_reset_the_deck_out_counter(client, room_viewer, running):
    room = running.room
    type(room).objects.filter(pk=room.pk).update(deck_out_streak=3)
    client.force_login(room_viewer)
    listing = client.get(reverse("admin:game_room_changelist"))
    assert listing.status_code == 200
    assert "reset_deck_out_counter" not in listing.content.decode()
    client.post(reverse("admin:game_room_changelist"),
                {"action": "reset_deck_out_counter", "_selected_action": [room.pk]})
    room.refresh_from_db()
    assert room.deck_out_streak == 3


@pytest.mark.parametrize("lookup", [
    "state__hands__0__contains",
    "state__deck__0",
    "state__icontains",
    "initial_state__hands__0__contains",
])
def test_view_only_staff_cannot_filter_games_on_their_hidden_state(client, viewer, running,
                                                                    lookup):
    """The finding: changelist filters on `state` read hidden hands and the deck's next
    cards a yes/no at a time (48 requests)."""
    client.force_login(viewer)
    card = running.state["hands"][1][0]
    value = f'"{card}"' if "hands" in lookup and lookup.endswith("contains") else card
    response = client.get(reverse("admin:game_game_changelist"), {lookup: value})
    # Django answers a disallowed lookup with its "?e=1" redirect (or 400): no listing.
    assert response.status_code in (302, 400)
    if response.status_code == 302:
        assert "e=1" in response["Location"]


def test_view_only_staff_cannot_filter_events_on_a_running_games_state(client, viewer, running):
    client.force_login(viewer)
    card = running.state["hands"][1][0]
    response = client.get(reverse("admin:game_gameevent_changelist"),
                          {"game__state__hands__1__contains": f'"{card}"'})
    assert response.status_code in (302, 400)


def test_superuser_may_still_filter_on_the_state(client, superuser, running):
    client.force_login(superuser)
    response = client.get(reverse("admin:game_game_changelist"),
                          {"state__deck__0": running.state["deck"][0]})
    assert response.status_code == 200
