"""The room setting `rated` (issue #34 item 2) and `manage.py rebuild_ratings`."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from game.models import Rating, RatingChange, Room
from game.services import play
from tests.game.history_helpers import play_agari, play_dobon
from tests.game.play_helpers import NOW, make_room

pytestmark = pytest.mark.django_db

SETTINGS = {"name": "table", "seat_count": 4, "timeout_seconds": 20, "is_public": "on",
            "stamps_enabled": "on"}


def test_a_new_room_is_rated_by_default(client, alice):
    client.force_login(alice)
    client.post(reverse("game:create_room"), {**SETTINGS, "rated": "on"})
    assert Room.objects.get(owner=alice).rated is True
    assert Room._meta.get_field("rated").default is True


def test_the_owner_turns_rating_off_between_games(client, people):
    room = make_room(*people)
    client.force_login(people[0])
    client.post(reverse("game:room_settings", args=[room.pk]), SETTINGS)  # box unticked
    room.refresh_from_db()
    assert room.rated is False
    play_agari(room, people)
    assert not Rating.objects.exists()


def test_rated_cannot_change_during_a_game(client, people):
    room = make_room(*people)
    play.start_game(room, people[0], now=NOW)
    client.force_login(people[0])
    client.post(reverse("game:room_settings", args=[room.pk]), SETTINGS)
    room.refresh_from_db()
    assert room.rated is True


def test_the_lobby_and_the_room_say_whether_games_are_rated(client, alice, bob):
    Room.objects.create(name="ranked", owner=bob)
    casual = Room.objects.create(name="casual", owner=bob, rated=False)
    client.force_login(alice)
    page = client.get(reverse("game:lobby")).content.decode()
    rows = page.split('class="room-item"')[1:]
    ranked_row = next(r for r in rows if ">ranked<" in r)
    casual_row = next(r for r in rows if ">casual<" in r)
    assert 'class="badge badge-rated" data-testid="room-rated"' in ranked_row
    assert 'data-testid="room-rated"' in casual_row and "badge-rated" not in casual_row
    room_page = client.get(casual.get_absolute_url()).content.decode()
    assert 'data-testid="room-rated"' in room_page and "badge-rated" not in room_page


def test_rebuild_ratings_gives_the_same_numbers(people):
    room = make_room(*people)
    play_agari(room, people)
    play_dobon(room, people, now=NOW + 100)
    before = sorted(Rating.objects.values_list("user_id", "mu", "sigma", "games"))
    changes = sorted(RatingChange.objects.values_list("game_id", "seat", "mu_before", "mu"))
    out = StringIO()
    call_command("rebuild_ratings", stdout=out)
    assert "rated 2 games; 4 rating lines" in out.getvalue()
    assert sorted(Rating.objects.values_list("user_id", "mu", "sigma", "games")) == before
    assert sorted(RatingChange.objects.values_list("game_id", "seat", "mu_before", "mu")) == (
        changes)
