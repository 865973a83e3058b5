"""CPU players in rooms: the owner seats and unseats them between games, every refusal
changes nothing, CPU seats are marked on the page and in what clients are sent, and
"play now against CPU" goes from the lobby to a running game in one POST."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse
from play_helpers import NOW, make_room, position, started

from game.models import Game, GamePlayer, Membership, Room
from game.services import play, rooms
from game.services.rooms import RoomError

pytestmark = pytest.mark.django_db


@pytest.fixture
def room(alice, bob) -> Room:
    """alice (owner) on seat 0, bob on seat 1, seats 2 and 3 free."""
    return make_room(alice, bob)


def seating(room: Room) -> dict[int, str]:
    """Seat → "user:<name>" or "cpu:<level>", with points: the whole seating to compare."""
    return {
        m.seat_index: (f"cpu:{m.cpu_level}" if m.is_cpu else f"user:{m.user.username}", m.points)
        for m in Membership.objects.filter(room=room).select_related("user")
    }


# -- the service ---------------------------------------------------------------------------------


def test_owner_puts_a_cpu_of_a_chosen_level_on_a_free_seat(room, alice):
    membership = rooms.add_cpu(room, alice, 2, "strong")
    assert membership.user is None and membership.cpu_level == "strong"
    assert seating(room)[2] == ("cpu:strong", 0)
    assert membership.display_name == "CPU 3 (強い)"


def test_owner_removes_a_cpu_and_the_seat_is_free_again(room, alice):
    rooms.add_cpu(room, alice, 3, "easy")
    rooms.remove_cpu(room, alice, 3)
    assert 3 not in seating(room)
    rooms.add_cpu(room, alice, 3, "normal")
    assert seating(room)[3] == ("cpu:normal", 0)


def test_a_cpu_seat_pushes_the_room_panel(
    room, alice, settings, django_capture_on_commit_callbacks
):
    # A layer this test can listen on, whatever REDIS_URL configures.
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(play.room_group(room.pk), channel)
    with django_capture_on_commit_callbacks(execute=True):
        rooms.add_cpu(room, alice, 2, "easy")
    pushed = async_to_sync(layer.receive)(channel)
    assert pushed["type"] == "room.panel"
    seat = pushed["room"]["seats"][2]
    assert (seat["index"], seat["kind"], seat["level"], seat["points"]) == (2, "cpu", "easy", 0)
    assert seat["username"].startswith("CPU 3")
    with django_capture_on_commit_callbacks(execute=True):
        rooms.remove_cpu(room, alice, 2)
    assert async_to_sync(layer.receive)(channel)["room"]["seats"][2] is None


def test_only_the_owner_may_add_or_remove_a_cpu(room, alice, bob):
    rooms.add_cpu(room, alice, 2, "easy")
    before = seating(room)
    with pytest.raises(PermissionDenied):
        rooms.add_cpu(room, bob, 3, "easy")
    with pytest.raises(PermissionDenied):
        rooms.remove_cpu(room, bob, 2)
    assert seating(room) == before


def test_cpus_join_and_leave_only_between_games(room, alice):
    rooms.add_cpu(room, alice, 2, "easy")
    play.start_game(room, alice, now=NOW)
    before = seating(room)
    with pytest.raises(RoomError, match="ゲームとゲームの間"):
        rooms.add_cpu(room, alice, 3, "easy")
    with pytest.raises(RoomError, match="ゲームとゲームの間"):
        rooms.remove_cpu(room, alice, 2)
    assert seating(room) == before


def test_a_cpu_cannot_take_a_taken_seat(room, alice):
    rooms.add_cpu(room, alice, 2, "easy")
    before = seating(room)
    for taken in (1, 2):  # a person's seat, a CPU's seat
        with pytest.raises(RoomError, match="すでに誰かが座っています"):
            rooms.add_cpu(room, alice, taken, "normal")
    assert seating(room) == before


def test_bad_levels_and_seats_are_refused(room, alice):
    before = seating(room)
    with pytest.raises(RoomError, match="弱い・普通・強い"):
        rooms.add_cpu(room, alice, 2, "godlike")
    with pytest.raises(RoomError, match="その席はありません"):
        rooms.add_cpu(room, alice, 4, "easy")
    with pytest.raises(RoomError, match="その席にCPUはいません"):
        rooms.remove_cpu(room, alice, 1)  # bob is no CPU
    assert seating(room) == before


def test_a_seat_is_a_person_or_a_cpu_never_both_nor_neither(room, alice, carol):
    for fields in ({"user": carol, "cpu_level": "easy"}, {}):
        with pytest.raises(IntegrityError), transaction.atomic():
            Membership.objects.create(room=room, seat_index=3, **fields)


def test_people_cannot_sit_on_a_cpu_seat(room, alice, carol):
    rooms.add_cpu(room, alice, 2, "easy")
    with pytest.raises(RoomError, match="すでに誰かが座っています"):
        rooms.take_seat(room, carol, 2)
    assert rooms.join_room(room, carol).seat_index == 3


def test_a_cpu_never_inherits_the_room(alice, bob):
    room = rooms.create_room(alice, name="alone")
    rooms.add_cpu(room, alice, 1, "easy")
    rooms.leave_room(room, alice)
    room.refresh_from_db()
    assert room.owner_id == alice.pk  # kept, as when the room is empty of people
    rooms.take_seat(room, alice, 0)
    rooms.take_seat(room, bob, 2)  # seated after the CPU
    rooms.leave_room(room, alice)
    room.refresh_from_db()
    assert room.owner_id == bob.pk


def test_cpu_seats_are_marked_in_the_room_panel(room, alice):
    rooms.add_cpu(room, alice, 3, "normal")
    panel = play.room_info(room)
    seats = panel["seats"]
    assert seats[0] == {"index": 0, "username": "alice", "points": 0, "kind": "human"}
    assert seats[2] is None
    assert seats[3] == {
        "index": 3, "username": "CPU 4 (普通)", "points": 0, "kind": "cpu", "level": "normal"
    }
    kinds = {row["username"]: row["kind"] for row in panel["standings"]}
    assert kinds == {"alice": "human", "bob": "human", "CPU 4 (普通)": "cpu"}


def test_standings_count_a_cpus_finished_games_on_its_seat(room, alice):
    """As the room's history counts them: the aborted game and the running one do not
    count, the finished one does, for the people and for the CPU on its seat."""
    rooms.add_cpu(room, alice, 2, "strong")
    game = play.start_game(room, alice, now=NOW)
    play.abort_game(game, alice, now=NOW)
    # §R8: alice goes out with her last card and nobody can dobon 5 points.
    game = started(room, alice, position([["R5"], ["B1", "G7"], ["Y9", "Y8"]]))
    play.perform_action(game, alice, {"type": "play", "cards": ["R5"]}, now=NOW + 1)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    play.start_game(room, alice, now=NOW + 2)
    games = {row["username"]: row["games"] for row in play.room_info(room)["standings"]}
    assert games == {"alice": 1, "bob": 1, "CPU 3 (強い)": 1}


def test_cpu_seats_are_marked_in_the_game_and_its_pushes(room, alice, bob):
    rooms.add_cpu(room, alice, 2, "strong")
    game = play.start_game(room, alice, now=NOW)
    players = play.table_for(room, alice)["players"]
    assert [p["kind"] for p in players] == ["human", "human", "cpu"]
    assert players[2] == {
        "seat": 2, "username": "CPU 3 (強い)", "room_seat": 2, "kind": "cpu", "level": "strong"
    }
    row = GamePlayer.objects.get(game=game, seat=2)
    assert (row.user_id, row.cpu_level, row.username) == (None, "strong", "CPU 3 (強い)")
    change = play.TableChange(
        room.pk, game.pk, game.number, game.version, game.status,
        play.Engine.from_dict(game.state), [], play.seats_of(game),
    )
    pushes = play.build_pushes(change)
    # One push per person and one for the watchers: nothing is sent "to" a CPU.
    assert [group for group, _ in pushes] == [
        play.user_group(alice.pk), play.user_group(bob.pk), play.watch_group(room.pk)
    ]
    assert all(push["players"][2]["kind"] == "cpu" for _, push in pushes)


# -- the pages -----------------------------------------------------------------------------------


def signed_in(user, csrf: bool = False) -> Client:
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(user)
    return client


def test_owner_adds_and_removes_a_cpu_from_the_room_page(room, alice):
    client = signed_in(alice)
    page = client.get(room.get_absolute_url())
    assert reverse("game:add_cpu", args=[room.pk]).encode() in page.content
    response = client.post(
        reverse("game:add_cpu", args=[room.pk]), {"seat_index": 2, "level": "easy"}, follow=True
    )
    assert seating(room)[2] == ("cpu:easy", 0)
    html = response.content.decode()
    assert 'data-kind="cpu" data-level="easy"' in html and "CPU 3 (弱い)" in html
    client.post(reverse("game:remove_cpu", args=[room.pk, 2]))
    assert 2 not in seating(room)


def test_others_get_403_and_change_nothing(room, alice, bob):
    rooms.add_cpu(room, alice, 2, "easy")
    before = seating(room)
    client = signed_in(bob)
    add = client.post(reverse("game:add_cpu", args=[room.pk]), {"seat_index": 3, "level": "easy"})
    remove = client.post(reverse("game:remove_cpu", args=[room.pk, 2]))
    assert (add.status_code, remove.status_code) == (403, 403)
    assert reverse("game:add_cpu", args=[room.pk]).encode() not in client.get(
        room.get_absolute_url()
    ).content
    assert seating(room) == before


def test_forged_and_get_requests_change_nothing(room, alice):
    url = reverse("game:add_cpu", args=[room.pk])
    forged = signed_in(alice, csrf=True).post(url, {"seat_index": 2, "level": "easy"})
    assert forged.status_code == 403
    assert signed_in(alice).get(url).status_code == 405
    assert 2 not in seating(room)


def test_bad_form_input_is_explained_and_changes_nothing(room, alice):
    client = signed_in(alice)
    before = seating(room)
    for data in ({"seat_index": 2, "level": "godlike"}, {"seat_index": "x", "level": "easy"},
                 {"seat_index": 9, "level": "easy"}, {"seat_index": 1, "level": "easy"}):
        response = client.post(reverse("game:add_cpu", args=[room.pk]), data, follow=True)
        assert response.status_code == 200
        assert [m.level_tag for m in response.context["messages"]] == ["error"]
    assert seating(room) == before


def test_mid_game_the_page_offers_no_cpu_changes_and_refuses_them(room, alice):
    rooms.add_cpu(room, alice, 2, "easy")
    play.start_game(room, alice, now=NOW)
    client = signed_in(alice)
    assert b"remove-cpu-2" not in client.get(room.get_absolute_url()).content
    response = client.post(reverse("game:remove_cpu", args=[room.pk, 2]), follow=True)
    assert [str(m) for m in response.context["messages"]] == [
        "CPUの追加と削除はゲームとゲームの間にだけできます。"
    ]
    assert seating(room)[2] == ("cpu:easy", 0)


# -- play now against CPU ------------------------------------------------------------------------


def test_play_now_creates_a_private_room_with_three_cpus_and_starts_the_game(alice):
    client = signed_in(alice)
    lobby = client.get(reverse("game:lobby"))
    assert reverse("game:play_against_cpu").encode() in lobby.content
    response = client.post(reverse("game:play_against_cpu"), {"level": "strong"})
    room = Room.objects.get(owner=alice)
    assert response.status_code == 302 and response["Location"] == room.get_absolute_url()
    assert not room.is_public and room.seat_count == 4
    assert seating(room) == {
        0: ("user:alice", 0), 1: ("cpu:strong", 0), 2: ("cpu:strong", 0), 3: ("cpu:strong", 0)
    }
    game = Game.objects.get(room=room)
    assert game.status == Game.Status.RUNNING
    levels = list(game.players.order_by("seat").values_list("cpu_level", flat=True))
    assert levels == [None, "strong", "strong", "strong"]
    # The room page shows the running table to its only person.
    assert play.table_for(room, alice)["seat"] == 0


def test_play_now_defaults_to_normal_cpus(alice):
    signed_in(alice).post(reverse("game:play_against_cpu"))
    room = Room.objects.get(owner=alice)
    assert {m.cpu_level for m in room.memberships.filter(user__isnull=True)} == {"normal"}


def test_play_now_refuses_a_bad_level_and_creates_nothing(alice):
    client = signed_in(alice)
    response = client.post(reverse("game:play_against_cpu"), {"level": "godlike"}, follow=True)
    assert [m.level_tag for m in response.context["messages"]] == ["error"]
    assert not Room.objects.exists() and not Game.objects.exists()
    assert client.get(reverse("game:play_against_cpu")).status_code == 405
    assert signed_in(alice, csrf=True).post(reverse("game:play_against_cpu")).status_code == 403
    assert not Room.objects.exists()


def test_the_admin_lists_and_opens_cpu_seats(room, alice, client, django_user_model, password):
    boss = django_user_model.objects.create_superuser("boss", "boss@example.com", password)
    client.force_login(boss)
    rooms.add_cpu(room, alice, 2, "strong")
    game = play.start_game(room, alice, now=NOW)
    cpu_seat = Membership.objects.get(room=room, cpu_level="strong")
    cpu_player = GamePlayer.objects.get(game=game, cpu_level="strong")
    pages = [
        reverse("admin:game_membership_changelist"),
        reverse("admin:game_membership_change", args=[cpu_seat.pk]),
        reverse("admin:game_room_change", args=[room.pk]),
        reverse("admin:game_gameplayer_changelist"),
        reverse("admin:game_gameplayer_change", args=[cpu_player.pk]),
        reverse("admin:game_game_change", args=[game.pk]),
    ]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        assert "CPU 3" in response.content.decode() or "strong" in response.content.decode()
