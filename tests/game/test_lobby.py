"""The lobby, creating a room, and joining by invite link or typed code."""

from __future__ import annotations

import pytest
from django.urls import reverse

from game.models import Game, Room
from game.services import rooms

pytestmark = pytest.mark.django_db

LOBBY = reverse("game:lobby")


def _names(rooms_list) -> list[str]:
    return [room.name for room in rooms_list]


def test_lobby_empty_states(client, mallory):
    client.force_login(mallory)
    response = client.get(LOBBY)
    assert response.status_code == 200
    assert list(response.context["my_rooms"]) == []
    assert list(response.context["public_page"].object_list) == []
    assert response.content.decode().count('class="empty-state"') == 2


def test_lobby_lists_public_rooms_with_seats_and_game_state(client, alice, bob, mallory):
    open_room = rooms.create_room(alice, name="Open table")
    rooms.take_seat(open_room, bob, 1)
    busy = rooms.create_room(bob, name="Busy table", seat_count=2)
    Game.objects.create(room=busy, number=1, state={})
    rooms.create_room(alice, name="Hidden table", is_public=False)
    client.force_login(mallory)
    response = client.get(LOBBY)
    public = {room.name: room for room in response.context["public_page"].object_list}
    assert set(public) == {"Open table", "Busy table"}
    assert (public["Open table"].seats_taken, public["Open table"].seats_free) == (2, 2)
    assert public["Open table"].game_on is False
    assert (public["Busy table"].seats_taken, public["Busy table"].game_on) == (1, True)
    html = response.content.decode()
    assert "Hidden table" not in html
    assert "2/4" in html


def test_lobby_lists_my_rooms_including_private_ones(client, alice, bob):
    rooms.create_room(alice, name="Alice public")
    private = rooms.create_room(bob, name="Bob private", is_public=False)
    rooms.take_seat(private, alice, 1)
    rooms.create_room(bob, name="Bob alone", is_public=False)
    client.force_login(alice)
    response = client.get(LOBBY)
    assert sorted(_names(response.context["my_rooms"])) == ["Alice public", "Bob private"]
    # Rooms listed as mine are not listed again among the public ones.
    assert _names(response.context["public_page"].object_list) == []


def test_owner_of_an_empty_room_still_finds_it_in_the_lobby(client, alice):
    room = rooms.create_room(alice, name="Quiet", is_public=False)
    rooms.leave_room(room, alice)
    client.force_login(alice)
    assert _names(client.get(LOBBY).context["my_rooms"]) == ["Quiet"]


def test_lobby_pages_through_many_public_rooms(client, alice, mallory, settings):
    # One owner makes them all: above the per-account room limits (issue 20).
    settings.DOBON_ROOMS_PER_DAY = settings.DOBON_MAX_ROOMS_PER_USER = 25
    for i in range(25):
        rooms.create_room(alice, name=f"Room {i}")
    client.force_login(mallory)
    first = client.get(LOBBY).context["public_page"]
    second = client.get(LOBBY, {"page": 2}).context["public_page"]
    assert (len(first.object_list), len(second.object_list)) == (20, 5)
    assert client.get(LOBBY, {"page": "junk"}).status_code == 200


def test_create_room_with_defaults(client, alice):
    client.force_login(alice)
    page = client.get(reverse("game:create_room"))
    assert page.status_code == 200
    form = page.context["form"]
    assert (form["seat_count"].value(), form["timeout_seconds"].value()) == (4, 10)
    assert form["is_public"].value() is True
    response = client.post(
        reverse("game:create_room"),
        {"name": "Friday", "seat_count": 4, "timeout_seconds": 10, "is_public": "on"},
    )
    room = Room.objects.get()
    assert response.status_code == 302 and response.url == room.get_absolute_url()
    assert (room.name, room.owner, room.is_public) == ("Friday", alice, True)
    assert room.memberships.get().user == alice


def test_the_create_form_names_the_room_after_its_owner(client, alice):
    """Walk-through item 4: the name field starts filled in, so a first tap on Create
    makes a room (it used to say only that the field is required)."""
    client.force_login(alice)
    client.cookies["django_language"] = "en"
    page = client.get(reverse("game:create_room"))
    form = page.context["form"]
    assert form["name"].value() == "alice's room"
    assert 'value="alice&#x27;s room"' in page.content.decode()
    client.cookies["django_language"] = "ja"
    page = client.get(reverse("game:create_room"))
    assert page.context["form"]["name"].value() == "aliceのルーム"
    # Create with what the form shows: a room, not "This field is required."
    response = client.post(
        reverse("game:create_room"),
        {
            "name": page.context["form"]["name"].value(),
            "seat_count": 4,
            "timeout_seconds": 10,
            "is_public": "on",
        },
    )
    assert response.status_code == 302
    assert Room.objects.get().name == "aliceのルーム"


def test_create_private_room(client, alice):
    client.force_login(alice)
    client.post(
        reverse("game:create_room"), {"name": "Secret", "seat_count": 8, "timeout_seconds": 60}
    )
    room = Room.objects.get()
    assert (room.is_public, room.seat_count, room.timeout_seconds) == (False, 8, 60)


@pytest.mark.parametrize(
    "bad",
    [
        {"seat_count": 1},
        {"seat_count": 9},
        {"timeout_seconds": 4},
        {"timeout_seconds": 61},
        {"name": ""},
        {"name": "   "},
        {"name": "x" * 61},
    ],
)
def test_create_room_shows_errors_and_creates_nothing(client, alice, bad):
    client.force_login(alice)
    data = {"name": "Friday", "seat_count": 4, "timeout_seconds": 10, **bad}
    response = client.post(reverse("game:create_room"), data)
    assert response.status_code == 200
    assert response.context["form"].errors
    assert 'class="field-errors"' in response.content.decode()
    assert not Room.objects.exists()


def test_invite_link_lets_an_outsider_see_a_private_room(client, alice, mallory):
    room = rooms.create_room(alice, name="Secret", is_public=False)
    client.force_login(mallory)
    assert client.get(room.get_absolute_url()).status_code == 404
    response = client.get(reverse("game:join", args=[room.invite_code]))
    assert response.status_code == 302 and response.url == room.get_absolute_url()
    assert client.get(room.get_absolute_url()).status_code == 200
    # Following the link does not seat anyone: taking a seat is a deliberate POST.
    assert not room.memberships.filter(user=mallory).exists()
    client.post(reverse("game:take_seat", args=[room.pk]), {})
    assert room.memberships.get(user=mallory).seat_index == 1


def test_invite_link_with_a_wrong_code_is_404(client, mallory):
    client.force_login(mallory)
    assert client.get(reverse("game:join", args=["not-a-code"])).status_code == 404


def test_anonymous_invitee_logs_in_and_comes_back_to_the_invite(client, alice, bob, password):
    room = rooms.create_room(alice, name="Secret", is_public=False)
    invite = reverse("game:join", args=[room.invite_code])
    response = client.get(invite)
    assert response.status_code == 302
    login_url = response.url
    assert "next=" in login_url
    response = client.post(login_url, {"username": "bob", "password": password})
    assert response.status_code == 302 and response.url == invite


def test_join_by_typed_code(client, alice, mallory):
    room = rooms.create_room(alice, name="Secret", is_public=False)
    client.force_login(mallory)
    response = client.post(reverse("game:join_by_code"), {"code": f" {room.invite_code} "})
    assert response.status_code == 302
    assert response.url == reverse("game:join", args=[room.invite_code])
    assert client.get(response.url).url == room.get_absolute_url()
    assert client.get(room.get_absolute_url()).status_code == 200


def test_join_by_pasting_the_whole_link(client, alice, mallory):
    room = rooms.create_room(alice, name="Secret", is_public=False)
    client.force_login(mallory)
    link = f"http://testserver/join/{room.invite_code}/"
    response = client.post(reverse("game:join_by_code"), {"code": link})
    assert response.url == reverse("game:join", args=[room.invite_code])


@pytest.mark.parametrize("code", ["", "wrong-code", "../../admin"])
def test_join_by_unknown_code_shows_an_error(client, alice, mallory, code):
    rooms.create_room(alice, name="Secret", is_public=False)
    client.force_login(mallory)
    response = client.post(reverse("game:join_by_code"), {"code": code})
    assert response.status_code == 200
    assert "code" in response.context["form"].errors
    assert 'class="field-errors"' in response.content.decode()


def test_lobby_has_the_join_form_and_create_link(client, alice):
    client.force_login(alice)
    html = client.get(LOBBY).content.decode()
    assert f'action="{reverse("game:join_by_code")}"' in html
    assert reverse("game:create_room") in html
