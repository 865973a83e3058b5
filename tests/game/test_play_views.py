"""The start-game endpoint: POST only, owner only, back to the room with a message."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse
from play_helpers import make_room

from game.models import Game

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""


@pytest.fixture
def room(alice, bob):
    return make_room(alice, bob)


def start_url(room) -> str:
    return reverse("game:start", kwargs={"room_id": room.pk})


def test_the_owner_starts_a_game_and_returns_to_the_room(client, room, alice):
    client.force_login(alice)
    response = client.post(start_url(room))
    assert response.status_code == 302
    assert response["Location"] == reverse("game:room", kwargs={"room_id": room.pk})
    game = Game.objects.get(room=room)
    assert game.status == "running" and game.started_by == alice
    assert [m.level_tag for m in get_messages(response.wsgi_request)] == ["success"]


def test_a_second_start_is_refused_with_a_message(client, room, alice):
    client.force_login(alice)
    client.post(start_url(room))
    response = client.post(start_url(room), follow=False)
    assert response.status_code == 302
    texts = [str(m) for m in get_messages(response.wsgi_request)]
    assert texts[-1] == "このルームではすでにゲームが進行中です。"
    assert Game.objects.filter(room=room).count() == 1


def test_anyone_but_the_owner_gets_403(client, room, bob, mallory):
    for person in (bob, mallory):
        client.force_login(person)
        assert client.post(start_url(room)).status_code == 403
    assert not Game.objects.exists()


def test_outsider_posting_start_to_a_private_room_gets_404(client, alice, bob, mallory):
    private = make_room(alice, bob, is_public=False)
    client.force_login(mallory)
    assert client.post(start_url(private)).status_code == 404
    assert not Game.objects.exists()


def test_start_is_post_only(client, room, alice):
    client.force_login(alice)
    assert client.get(start_url(room)).status_code == 405
    assert not Game.objects.exists()


def test_anonymous_is_sent_to_log_in(client, room):
    response = client.post(start_url(room))
    assert response.status_code == 302 and "login" in response["Location"]
    assert not Game.objects.exists()


def test_no_such_room_is_404(client, alice):
    client.force_login(alice)
    assert client.post(reverse("game:start", kwargs={"room_id": 999_999})).status_code == 404
