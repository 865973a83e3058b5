"""Room pages: who sees what, who may do what, and that forged posts change nothing."""

from __future__ import annotations

import pytest
from django.urls import NoReverseMatch, reverse

from game.models import Game, Room
from game.services import rooms

pytestmark = pytest.mark.django_db


@pytest.fixture
def room(alice, bob) -> Room:
    room = rooms.create_room(alice, name="Tea room")
    rooms.take_seat(room, bob, 1)
    return room


@pytest.fixture
def private_room(alice, bob) -> Room:
    room = rooms.create_room(alice, name="Secret den", is_public=False)
    rooms.take_seat(room, bob, 1)
    return room


def _seats(room: Room) -> dict[int, str]:
    return {m.seat_index: m.user.username for m in room.memberships.select_related("user")}


def _state(room: Room) -> tuple:
    room.refresh_from_db()
    return (
        room.name,
        room.owner_id,
        room.seat_count,
        room.timeout_seconds,
        room.is_public,
        _seats(room),
    )


def _messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def _url(name: str, room: Room, *args: int) -> str:
    return reverse(f"game:{name}", args=[room.pk, *args])


# -- seeing --------------------------------------------------------------------------


def test_room_page_shows_seats_clockwise_r1_1(client, alice, room):
    client.force_login(alice)
    response = client.get(_url("room", room))
    assert response.status_code == 200
    seats = response.context["seats"]
    assert [s.index for s in seats] == [0, 1, 2, 3]
    assert [s.membership.user.username if s.membership else None for s in seats] == [
        "alice",
        "bob",
        None,
        None,
    ]
    html = response.content.decode()
    assert html.index("alice") < html.index("bob")
    assert 'id="table"' in html and f'data-room-id="{room.pk}"' in html and "data-ws-url=" in html


def test_a_seat_played_by_a_program_is_marked_in_the_seat_list(client, alice, room):
    """docs/bots-api.md: a member's seat is a program's while a token socket is open."""
    client.force_login(alice)
    assert 'data-testid="seat-program"' not in client.get(_url("room", room)).content.decode()
    room.memberships.filter(user__username="bob").update(program_sockets=1)
    html = client.get(_url("room", room)).content.decode()
    assert html.count('data-testid="seat-program"') == 1
    assert 'data-kind="program"' in html


def test_anonymous_visitor_is_sent_to_log_in(client, room):
    for url in (
        _url("room", room),
        _url("room_settings", room),
        reverse("game:join", args=[room.invite_code]),
    ):
        response = client.get(url)
        assert response.status_code == 302
        assert response.url.startswith(reverse("accounts:login"))


def test_anonymous_post_changes_nothing(client, room):
    before = _state(room)
    response = client.post(_url("take_seat", room), {"seat_index": 2})
    assert response.status_code == 302 and response.url.startswith(reverse("accounts:login"))
    assert _state(room) == before


def test_outsider_sees_a_public_room(client, mallory, room):
    client.force_login(mallory)
    assert client.get(_url("room", room)).status_code == 200


def test_outsider_cannot_see_private_room(client, mallory, private_room):
    client.force_login(mallory)
    assert client.get(_url("room", private_room)).status_code == 404


def test_outsider_cannot_act_on_private_room(client, mallory, private_room):
    client.force_login(mallory)
    before = _state(private_room)
    assert client.post(_url("take_seat", private_room), {"seat_index": 2}).status_code == 404
    assert client.get(_url("leave_room", private_room)).status_code == 404
    assert client.get(_url("room_settings", private_room)).status_code == 404
    assert _state(private_room) == before


def test_members_see_their_private_room(client, bob, private_room):
    client.force_login(bob)
    assert client.get(_url("room", private_room)).status_code == 200


def test_private_room_404_looks_like_a_missing_room(client, mallory, private_room):
    client.force_login(mallory)
    assert client.get(reverse("game:room", args=[private_room.pk + 1000])).status_code == 404


def test_invite_link_shown_to_members_only(client, alice, bob, mallory, room):
    client.force_login(bob)
    assert room.invite_code in client.get(_url("room", room)).content.decode()
    client.force_login(mallory)
    assert room.invite_code not in client.get(_url("room", room)).content.decode()


def test_owner_without_a_seat_still_sees_the_private_room_and_invite(
    client, alice, bob, private_room
):
    rooms.leave_room(private_room, alice)
    private_room.refresh_from_db()
    private_room.owner = alice
    private_room.save()
    client.force_login(alice)
    response = client.get(_url("room", private_room))
    assert response.status_code == 200
    assert private_room.invite_code in response.content.decode()


def test_start_button_only_for_the_owner_when_live_play_is_wired(client, alice, bob, room):
    client.force_login(alice)
    owner_page = client.get(_url("room", room))
    client.force_login(bob)
    member_page = client.get(_url("room", room))
    assert member_page.context["start_url"] == ""
    assert 'data-testid="start-game"' not in member_page.content.decode()
    try:
        start_url = reverse("game:start", args=[room.pk])
    except NoReverseMatch:  # live play not wired yet: the page works without the button
        assert owner_page.context["start_url"] == ""
    else:
        assert owner_page.context["start_url"] == start_url
        assert f'action="{start_url}"' in owner_page.content.decode()


# -- seats ---------------------------------------------------------------------------


def test_take_a_free_seat(client, carol, room):
    client.force_login(carol)
    response = client.post(_url("take_seat", room), {"seat_index": 3}, follow=True)
    assert _seats(room) == {0: "alice", 1: "bob", 3: "carol"}
    assert any("4" in m for m in _messages(response))


def test_take_the_first_free_seat_when_no_seat_is_named(client, carol, room):
    client.force_login(carol)
    client.post(_url("take_seat", room), {})
    assert _seats(room) == {0: "alice", 1: "bob", 2: "carol"}


@pytest.mark.parametrize(
    "forged",
    [
        {"seat_index": 1},
        {"seat_index": 9},
        {"seat_index": 5},
        {"seat_index": "x"},
        {"seat_index": -1},
    ],
)
def test_forged_seat_posts_change_nothing(client, carol, room, forged):
    client.force_login(carol)
    before = _state(room)
    response = client.post(_url("take_seat", room), forged, follow=True)
    assert response.status_code == 200
    assert _state(room) == before
    assert [m.level_tag for m in response.context["messages"]] == ["error"]


def test_take_seat_needs_post(client, carol, room):
    client.force_login(carol)
    assert client.get(_url("take_seat", room)).status_code == 405


def test_post_without_csrf_token_is_refused(alice, carol, room):
    from django.test import Client

    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(carol)
    before = _state(room)
    assert csrf_client.post(_url("take_seat", room), {"seat_index": 2}).status_code == 403
    assert _state(room) == before


def test_leave_asks_for_confirmation_then_leaves(client, bob, room):
    client.force_login(bob)
    confirm = client.get(_url("leave_room", room))
    assert confirm.status_code == 200
    assert _seats(room) == {0: "alice", 1: "bob"}
    assert f'action="{_url("leave_room", room)}"' in confirm.content.decode()
    response = client.post(_url("leave_room", room))
    assert response.status_code == 302 and response.url == reverse("game:lobby")
    assert _seats(room) == {0: "alice"}


def test_the_owners_leave_note_says_who_owns_the_room_next(client, alice, bob, room):
    """rooms.leave_room: the longest-seated person takes over; with only CPUs left (they
    cannot own a room), the owner stays the owner, and the page says so."""
    client.force_login(alice)
    client.cookies["django_language"] = "en"
    assert "the member seated longest becomes the new owner" in client.get(
        _url("leave_room", room)).content.decode()
    rooms.leave_room(room, bob)
    rooms.add_cpu(room, alice, 1, "easy")
    page = client.get(_url("leave_room", room)).content.decode()
    assert "nobody else sits here: you stay the owner" in page
    assert "seated longest" not in page


def test_leave_without_a_seat_changes_nothing(client, carol, room):
    client.force_login(carol)
    before = _state(room)
    response = client.post(_url("leave_room", room), follow=True)
    assert _state(room) == before
    assert [m.level_tag for m in response.context["messages"]] == ["error"]


def test_owner_leaving_hands_the_room_to_the_longest_seated(client, alice, bob, carol, room):
    rooms.take_seat(room, carol, 2)
    client.force_login(alice)
    client.post(_url("leave_room", room))
    room.refresh_from_db()
    assert room.owner == bob


# -- the owner's powers -------------------------------------------------------------


SETTINGS = {"name": "Night room", "seat_count": 6, "timeout_seconds": 30}


def test_owner_edits_settings(client, alice, room):
    client.force_login(alice)
    assert client.get(_url("room_settings", room)).status_code == 200
    response = client.post(_url("room_settings", room), SETTINGS)
    assert response.status_code == 302
    room.refresh_from_db()
    assert (room.name, room.seat_count, room.timeout_seconds, room.is_public) == (
        "Night room",
        6,
        30,
        False,  # an unticked checkbox is "private"
    )


def test_member_cannot_edit_settings(client, bob, room):
    client.force_login(bob)
    before = _state(room)
    assert client.get(_url("room_settings", room)).status_code == 403
    assert client.post(_url("room_settings", room), SETTINGS).status_code == 403
    assert _state(room) == before


@pytest.mark.parametrize(
    "bad",
    [
        {"seat_count": 9},
        {"seat_count": 1},
        {"timeout_seconds": 4},
        {"timeout_seconds": 61},
        {"name": ""},
        {"seat_count": "many"},
    ],
)
def test_invalid_settings_show_errors_and_change_nothing(client, alice, room, bad):
    client.force_login(alice)
    before = _state(room)
    response = client.post(_url("room_settings", room), {**SETTINGS, **bad})
    assert response.status_code == 200
    assert response.context["form"].errors
    assert 'class="field-errors"' in response.content.decode()
    assert _state(room) == before


def test_seat_count_below_an_occupied_seat_is_an_error_on_the_field(client, alice, carol, room):
    rooms.take_seat(room, carol, 3)
    client.force_login(alice)
    before = _state(room)
    response = client.post(_url("room_settings", room), {**SETTINGS, "seat_count": 3})
    assert response.status_code == 200
    assert "seat_count" in response.context["form"].errors
    assert _state(room) == before


def test_settings_locked_while_a_game_runs(client, alice, room):
    Game.objects.create(room=room, number=1, state={})
    client.force_login(alice)
    before = _state(room)
    page = client.get(_url("room_settings", room))
    assert page.context["game_on"] is True
    assert "<fieldset disabled>" in page.content.decode()
    response = client.post(_url("room_settings", room), SETTINGS)
    assert response.status_code == 200 and response.context["form"].errors
    assert _state(room) == before


def test_owner_removes_a_member_after_confirming(client, alice, bob, room):
    client.force_login(alice)
    confirm = client.get(_url("remove_member", room, bob.pk))
    assert confirm.status_code == 200 and "bob" in confirm.content.decode()
    assert _seats(room) == {0: "alice", 1: "bob"}
    client.post(_url("remove_member", room, bob.pk))
    assert _seats(room) == {0: "alice"}


def test_member_cannot_remove_anyone(client, alice, bob, room):
    client.force_login(bob)
    before = _state(room)
    assert client.get(_url("remove_member", room, alice.pk)).status_code == 403
    assert client.post(_url("remove_member", room, alice.pk)).status_code == 403
    assert _state(room) == before


@pytest.mark.parametrize("who", ["mallory", "alice", "ghost"])
def test_forged_remove_changes_nothing(client, alice, mallory, room, who):
    user_id = {"mallory": mallory.pk, "alice": alice.pk, "ghost": 999_999}[who]
    client.force_login(alice)
    before = _state(room)
    response = client.post(_url("remove_member", room, user_id), follow=True)
    assert response.status_code == 200
    assert [m.level_tag for m in response.context["messages"]] == ["error"]
    assert _state(room) == before


def test_owner_hands_over_ownership_after_confirming(client, alice, bob, room):
    client.force_login(alice)
    assert client.get(_url("transfer_ownership", room, bob.pk)).status_code == 200
    room.refresh_from_db()
    assert room.owner == alice
    client.post(_url("transfer_ownership", room, bob.pk))
    room.refresh_from_db()
    assert room.owner == bob
    # alice is now an ordinary member.
    assert client.get(_url("room_settings", room)).status_code == 403


def test_member_cannot_hand_over_ownership(client, bob, room):
    client.force_login(bob)
    before = _state(room)
    assert client.post(_url("transfer_ownership", room, bob.pk)).status_code == 403
    assert _state(room) == before


def test_ownership_only_to_seated_members(client, alice, mallory, room):
    client.force_login(alice)
    before = _state(room)
    response = client.post(_url("transfer_ownership", room, mallory.pk), follow=True)
    assert [m.level_tag for m in response.context["messages"]] == ["error"]
    assert _state(room) == before


def test_owner_controls_are_not_shown_to_members(client, alice, bob, room):
    client.force_login(bob)
    html = client.get(_url("room", room)).content.decode()
    assert _url("room_settings", room) not in html
    assert _url("remove_member", room, alice.pk) not in html
    client.force_login(alice)
    html = client.get(_url("room", room)).content.decode()
    assert _url("room_settings", room) in html
    assert _url("remove_member", room, bob.pk) in html
    assert _url("transfer_ownership", room, bob.pk) in html


def test_leave_during_a_game_warns_that_the_seat_plays_on(client, bob, room, settings):
    """Issue 4: leaving mid-game is allowed; the confirm page says what happens."""
    Game.objects.create(room=room, number=1, state={})
    client.force_login(bob)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    page = client.get(_url("leave_room", room))
    assert "plays on by timeouts" in page.content.decode()
    client.post(_url("leave_room", room))
    assert not room.memberships.filter(user=bob).exists()
