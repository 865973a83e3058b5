"""The admin: every model's list and change pages load, and the two repair actions work."""

from __future__ import annotations

import pytest
from django.contrib.admin.sites import site
from django.urls import reverse
from django.utils import timezone

from game.models import Game, GameEvent, GamePlayer, Membership, Room
from game.services import rooms

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, django_user_model, password):
    boss = django_user_model.objects.create_superuser("boss", "boss@example.com", password)
    client.force_login(boss)
    client.boss = boss
    return client


@pytest.fixture
def room(alice, bob) -> Room:
    room = rooms.create_room(alice, name="Tea room")
    rooms.take_seat(room, bob, 1)
    return room


@pytest.fixture
def game(room, alice, bob) -> Game:
    game = Game.objects.create(
        room=room,
        number=1,
        state={"phase": "turn"},
        version=7,
        event_count=1,  # the one event logged below
        next_deadline=timezone.now(),
        started_by=alice,
    )
    for seat, user in enumerate([alice, bob]):
        GamePlayer.objects.create(
            game=game, seat=seat, room_seat_index=seat, user=user, username=user.username
        )
    GameEvent.objects.create(game=game, seq=0, version=1, data={"type": "turn", "to": None})
    return game


def _admin_url(model, action: str, *args) -> str:
    meta = model._meta
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_{action}", args=args)


def test_every_game_model_is_registered():
    for model in (Room, Membership, Game, GamePlayer, GameEvent):
        assert site.is_registered(model)


@pytest.mark.parametrize("model", [Room, Membership, Game, GamePlayer, GameEvent])
def test_changelist_loads(admin_client, game, model):
    response = admin_client.get(_admin_url(model, "changelist"))
    assert response.status_code == 200
    assert response.context["cl"].result_count >= 1


@pytest.mark.parametrize("model", [Room, Membership, Game, GamePlayer, GameEvent])
def test_change_form_loads(admin_client, game, model):
    obj = model.objects.first()
    assert admin_client.get(_admin_url(model, "change", obj.pk)).status_code == 200


@pytest.mark.parametrize("model", [Room, Membership, Game, GamePlayer, GameEvent])
def test_changelist_search_and_filters_work(admin_client, game, model):
    response = admin_client.get(_admin_url(model, "changelist"), {"q": "Tea"})
    assert response.status_code == 200


def test_room_changelist_shows_seats_taken(admin_client, room):
    response = admin_client.get(_admin_url(Room, "changelist"))
    assert response.context["cl"].result_list[0]._seats_taken == 2


def test_room_change_form_has_membership_inline(admin_client, room):
    response = admin_client.get(_admin_url(Room, "change", room.pk))
    assert any(fs.opts.model is Membership for fs in response.context["inline_admin_formsets"])


def test_game_change_form_has_players_inline(admin_client, game):
    response = admin_client.get(_admin_url(Game, "change", game.pk))
    (players,) = response.context["inline_admin_formsets"]
    assert players.opts.model is GamePlayer


def test_events_are_read_only(admin_client, game):
    event = GameEvent.objects.get()
    url = _admin_url(GameEvent, "change", event.pk)
    response = admin_client.post(url, {"seq": 5, "version": 9, "data": "{}"})
    assert response.status_code == 403
    event.refresh_from_db()
    assert (event.seq, event.data["type"]) == (0, "turn")
    assert admin_client.get(_admin_url(GameEvent, "add")).status_code == 403


def test_reset_deck_out_counter_action_r12_3(admin_client, room, bob):
    other = rooms.create_room(bob, name="Other room")
    Room.objects.update(deck_out_streak=3)
    response = admin_client.post(
        _admin_url(Room, "changelist"),
        {"action": "reset_deck_out_counter", "_selected_action": [room.pk]},
        follow=True,
    )
    assert response.status_code == 200
    room.refresh_from_db()
    other.refresh_from_db()
    assert (room.deck_out_streak, other.deck_out_streak) == (0, 3)


def test_abort_running_game_action(admin_client, game):
    finished = Game.objects.create(
        room=game.room, number=2, state={}, status=Game.Status.FINISHED, version=3
    )
    response = admin_client.post(
        _admin_url(Game, "changelist"),
        {"action": "abort_running_games", "_selected_action": [game.pk, finished.pk]},
        follow=True,
    )
    assert response.status_code == 200
    game.refresh_from_db()
    finished.refresh_from_db()
    assert game.status == Game.Status.ABORTED
    assert game.next_deadline is None
    assert game.version == 8
    assert game.room.running_game() is None
    assert (finished.status, finished.version) == (Game.Status.FINISHED, 3)
    levels = [m.level_tag for m in response.context["messages"]]
    assert levels == ["success", "warning"]
