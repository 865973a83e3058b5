"""Sealed bids stay sealed from staff (issue #31, item 2; TRUMP-RULES.md §T19.3: nobody
sees another seat's bid before the auction closes). Staff who are not superusers read a
running game's public side only: no field, list column, search, filter or lookup of its
events, states or steps shows what a seated player could not see. A refused lookup
answers 400, as the existing refusals on `state` do."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from game.models import Game, GameEvent
from game.services import play
from tests.game.play_helpers import make_room

pytestmark = pytest.mark.django_db

SECRET_BID = 777


@pytest.fixture
def viewer(django_user_model):
    """Staff with every "view" permission of the game app and nothing else."""
    user = django_user_model.objects.create_user("steve", password="x", is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(
        content_type__app_label="game", codename__startswith="view_"))
    return user


@pytest.fixture
def superuser(django_user_model):
    return django_user_model.objects.create_superuser("boss", "boss@example.com", "x")


@pytest.fixture
def auction(alice, bob, carol):
    """A standard round in its auction (§T4): bob has bid 777, the others not yet."""
    room = make_room(alice, bob, carol, game_kind="trump_dobon", trump_preset="standard",
                     timeout_seconds=60, seat_count=3)
    game = play.start_game(room, alice, now=time.time())
    play.perform_action(game, bob, {"type": "bid", "amount": SECRET_BID})
    game.refresh_from_db()
    assert game.state["preset"] == "standard" and game.status == Game.Status.RUNNING
    return game


def bid_event(game: Game) -> GameEvent:
    return game.events.get(data__type="bid")


def test_view_only_staff_read_no_bid_of_a_running_auction(client, viewer, auction):
    """The finding: the bid event's change page showed its step,
    `{"seat": 1, "action": {"type": "bid", "amount": 777}}`."""
    client.force_login(viewer)
    pages = [
        reverse("admin:game_gameevent_changelist"),
        reverse("admin:game_gameevent_changelist") + f"?game__id__exact={auction.pk}",
        reverse("admin:game_gameevent_change", args=[bid_event(auction).pk]),
        reverse("admin:game_game_change", args=[auction.pk]),
        reverse("admin:game_game_changelist"),
        reverse("admin:game_gameplayer_changelist"),
    ]
    for url in pages:
        response = client.get(url)
        assert response.status_code in (200, 302, 404), url
        assert str(SECRET_BID) not in response.content.decode(), url


@pytest.mark.parametrize(("admin_page", "lookup"), [
    ("gameevent", "step__action__amount__gte"),  # the finding: searching the bids
    ("gameevent", "step__action__type"),
    ("gameevent", "data__type"),
    ("gameevent", "game__events__step__action__amount__gte"),
    ("game", "events__step__action__amount__gte"),
    ("game", "events__data__cards__contains"),  # a running game's drawn cards
    ("game", "events__to_seat"),  # who holds a private event: a chance, a decline
    ("gameplayer", "game__events__step__action__amount__gte"),
])
def test_view_only_staff_cannot_look_up_events_or_steps(client, viewer, auction, admin_page,
                                                        lookup):
    client.force_login(viewer)
    response = client.get(reverse(f"admin:game_{admin_page}_changelist"), {lookup: "700"})
    assert response.status_code == 400


def test_superusers_still_read_and_look_up_everything(client, superuser, auction):
    client.force_login(superuser)
    page = client.get(reverse("admin:game_gameevent_change", args=[bid_event(auction).pk]))
    assert str(SECRET_BID) in page.content.decode()
    found = client.get(reverse("admin:game_gameevent_changelist"),
                       {"step__action__amount__gte": "700"})
    assert found.status_code == 200
    assert reverse("admin:game_gameevent_change", args=[bid_event(auction).pk]) in (
        found.content.decode())


def test_once_the_game_is_over_its_events_are_history_for_staff(client, viewer, auction,
                                                                 alice):
    """An aborted (or finished) game's log is readable like its history page."""
    play.abort_game(auction, alice)
    client.force_login(viewer)
    page = client.get(reverse("admin:game_gameevent_change", args=[bid_event(auction).pk]))
    assert page.status_code == 200 and str(SECRET_BID) in page.content.decode()
