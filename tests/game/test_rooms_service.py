"""game.services.rooms: seats, leaving, ownership and the owner's powers."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from game.models import Game, Membership, Room
from game.services import rooms
from game.services.rooms import RoomError

pytestmark = pytest.mark.django_db


def _seats(room: Room) -> dict[int, str]:
    return {m.seat_index: m.user.username for m in room.memberships.select_related("user")}


def _start(room: Room) -> Game:
    return Game.objects.create(room=room, number=1, state={})


@pytest.fixture
def room(alice) -> Room:
    return rooms.create_room(alice, name="Tea room")


def test_create_room_seats_the_owner_at_seat_0(alice, room):
    assert room.owner == alice
    assert (room.seat_count, room.timeout_seconds, room.is_public) == (4, 10, True)
    assert _seats(room) == {0: "alice"}


def test_create_room_refuses_blank_name_and_bad_settings(alice):
    for kwargs in (
        {"name": "  "},
        {"name": "x", "seat_count": 9},
        {"name": "x", "timeout_seconds": 4},
    ):
        with pytest.raises(RoomError):
            rooms.create_room(alice, **kwargs)
    assert not Room.objects.exists()


def test_take_seat_on_a_free_seat(room, bob):
    rooms.take_seat(room, bob, 2)
    assert _seats(room) == {0: "alice", 2: "bob"}


def test_cannot_take_an_occupied_seat(room, bob):
    with pytest.raises(RoomError):
        rooms.take_seat(room, bob, 0)
    assert _seats(room) == {0: "alice"}


@pytest.mark.parametrize("seat_index", [4, 7, -1])
def test_cannot_take_a_seat_the_room_does_not_have(room, bob, seat_index):
    with pytest.raises(RoomError):
        rooms.take_seat(room, bob, seat_index)
    assert _seats(room) == {0: "alice"}


def test_join_room_takes_the_first_free_seat_clockwise_r1_1(room, bob, carol, dave):
    rooms.take_seat(room, bob, 1)
    rooms.join_room(room, carol)
    rooms.join_room(room, dave)
    assert _seats(room) == {0: "alice", 1: "bob", 2: "carol", 3: "dave"}


def test_join_room_keeps_the_seat_already_held(room, bob):
    rooms.take_seat(room, bob, 3)
    assert rooms.join_room(room, bob).seat_index == 3
    assert _seats(room) == {0: "alice", 3: "bob"}


def test_join_a_full_room_is_refused(alice, bob, carol):
    room = rooms.create_room(alice, name="Pair", seat_count=2)
    rooms.join_room(room, bob)
    with pytest.raises(RoomError):
        rooms.join_room(room, carol)
    assert _seats(room) == {0: "alice", 1: "bob"}


def test_a_member_moves_to_another_free_seat(room, bob):
    rooms.take_seat(room, bob, 1)
    rooms.take_seat(room, bob, 3)
    assert _seats(room) == {0: "alice", 3: "bob"}


def test_no_seat_changes_while_a_game_runs(room, bob):
    rooms.take_seat(room, bob, 1)
    _start(room)
    with pytest.raises(RoomError):
        rooms.take_seat(room, bob, 3)
    assert _seats(room) == {0: "alice", 1: "bob"}


def test_a_newcomer_may_sit_down_during_a_game_for_the_next_one(room, bob):
    _start(room)
    rooms.take_seat(room, bob, 1)
    assert _seats(room) == {0: "alice", 1: "bob"}


def test_leave_room_frees_the_seat(room, bob):
    rooms.take_seat(room, bob, 1)
    rooms.leave_room(room, bob)
    assert _seats(room) == {0: "alice"}


def test_leaving_without_a_seat_is_refused(room, bob):
    with pytest.raises(RoomError):
        rooms.leave_room(room, bob)


def test_leaving_during_a_game_frees_the_seat_but_not_the_game_seat(room, bob):
    """Issue 4: a seat whose user left mid-game keeps playing by timeouts."""
    rooms.take_seat(room, bob, 1)
    game = _start(room)
    game.players.create(seat=1, room_seat_index=1, user=bob, username="bob")
    rooms.leave_room(room, bob)
    assert _seats(room) == {0: "alice"}
    assert game.players.get(seat=1).user == bob


def test_cannot_change_seats_while_a_game_runs(room, bob):
    rooms.take_seat(room, bob, 1)
    _start(room)
    with pytest.raises(RoomError):
        rooms.take_seat(room, bob, 2)
    assert _seats(room) == {0: "alice", 1: "bob"}


def test_owner_leaving_passes_ownership_to_the_longest_seated_member(room, bob, carol):
    # carol sits on a lower seat but arrived later: seniority counts, not seat order.
    rooms.take_seat(room, bob, 3)
    rooms.take_seat(room, carol, 1)
    Membership.objects.filter(user=carol).update(joined_at=room.created_at + timedelta(hours=1))
    rooms.leave_room(room, room.owner)
    room.refresh_from_db()
    assert room.owner.username == "bob"


def test_owner_of_an_empty_room_stays_owner(room, alice):
    rooms.leave_room(room, alice)
    room.refresh_from_db()
    assert room.owner == alice
    assert not room.memberships.exists()
    assert Room.objects.filter(pk=room.pk).exists()


def test_a_member_leaving_does_not_change_the_owner(room, alice, bob):
    rooms.take_seat(room, bob, 1)
    rooms.leave_room(room, bob)
    room.refresh_from_db()
    assert room.owner == alice


def test_an_ownerless_room_is_adopted_by_whoever_sits_down(room, alice, bob):
    alice.delete()
    room.refresh_from_db()
    assert room.owner is None
    rooms.take_seat(room, bob, 2)
    room.refresh_from_db()
    assert room.owner == bob


def test_update_room_settings(room, alice):
    rooms.update_room_settings(
        room, alice, name="Night room", seat_count=6, timeout_seconds=30, is_public=False
    )
    room.refresh_from_db()
    assert (room.name, room.seat_count, room.timeout_seconds, room.is_public) == (
        "Night room",
        6,
        30,
        False,
    )


def test_only_the_owner_updates_settings(room, bob):
    rooms.take_seat(room, bob, 1)
    with pytest.raises(PermissionDenied):
        rooms.update_room_settings(
            room, bob, name="Mine now", seat_count=4, timeout_seconds=10, is_public=True
        )
    room.refresh_from_db()
    assert room.name == "Tea room"


def test_settings_do_not_change_while_a_game_runs(room, alice):
    _start(room)
    with pytest.raises(RoomError):
        rooms.update_room_settings(
            room, alice, name="Tea room", seat_count=5, timeout_seconds=10, is_public=True
        )
    room.refresh_from_db()
    assert room.seat_count == 4


def test_seat_count_cannot_drop_below_an_occupied_seat(room, alice, bob):
    rooms.take_seat(room, bob, 3)
    with pytest.raises(RoomError) as caught:
        rooms.update_room_settings(
            room, alice, name="Tea room", seat_count=3, timeout_seconds=10, is_public=True
        )
    assert caught.value.field == "seat_count"
    room.refresh_from_db()
    assert room.seat_count == 4
    # Exactly enough seats for seat index 3 is fine.
    rooms.update_room_settings(
        room, alice, name="Tea room", seat_count=4, timeout_seconds=10, is_public=True
    )


def test_seat_count_may_drop_to_the_highest_occupied_seat(room, alice, bob):
    rooms.take_seat(room, bob, 1)
    rooms.update_room_settings(
        room, alice, name="Tea room", seat_count=2, timeout_seconds=10, is_public=True
    )
    room.refresh_from_db()
    assert room.seat_count == 2


def test_owner_removes_a_member(room, alice, bob):
    rooms.take_seat(room, bob, 1)
    rooms.remove_member(room, alice, bob.pk)
    assert _seats(room) == {0: "alice"}


def test_only_the_owner_removes_members(room, bob, carol):
    rooms.take_seat(room, bob, 1)
    rooms.take_seat(room, carol, 2)
    with pytest.raises(PermissionDenied):
        rooms.remove_member(room, bob, carol.pk)
    assert _seats(room) == {0: "alice", 1: "bob", 2: "carol"}


def test_remove_member_refuses_self_and_strangers(room, alice, bob, mallory):
    rooms.take_seat(room, bob, 1)
    for user_id in (alice.pk, mallory.pk, 999_999):
        with pytest.raises(RoomError):
            rooms.remove_member(room, alice, user_id)
    assert _seats(room) == {0: "alice", 1: "bob"}


def test_owner_may_remove_a_member_during_a_game(room, alice, bob):
    rooms.take_seat(room, bob, 1)
    _start(room)
    rooms.remove_member(room, alice, bob.pk)
    assert _seats(room) == {0: "alice"}


def test_transfer_ownership_to_a_member(room, alice, bob):
    rooms.take_seat(room, bob, 1)
    rooms.transfer_ownership(room, alice, bob.pk)
    room.refresh_from_db()
    assert room.owner == bob
    assert _seats(room) == {0: "alice", 1: "bob"}


def test_transfer_ownership_only_to_a_seated_member(room, alice, mallory):
    with pytest.raises(RoomError):
        rooms.transfer_ownership(room, alice, mallory.pk)
    with pytest.raises(RoomError):
        rooms.transfer_ownership(room, alice, alice.pk)
    room.refresh_from_db()
    assert room.owner == alice


def test_only_the_owner_transfers_ownership(room, bob):
    rooms.take_seat(room, bob, 1)
    with pytest.raises(PermissionDenied):
        rooms.transfer_ownership(room, bob, bob.pk)
    room.refresh_from_db()
    assert room.owner.username == "alice"


def test_reset_deck_out_streak_r12_3(room):
    Room.objects.filter(pk=room.pk).update(deck_out_streak=3)
    rooms.reset_deck_out_streak(room)
    room.refresh_from_db()
    assert room.deck_out_streak == 0
    assert room.next_rate == 1


def test_visibility_of_private_rooms(alice, bob, mallory):
    private = rooms.create_room(alice, name="Secret", is_public=False)
    rooms.take_seat(private, bob, 1)
    assert rooms.can_view_room(private, alice)
    assert rooms.can_view_room(private, bob)
    assert not rooms.can_view_room(private, mallory)
    assert rooms.can_view_room(private, mallory, {private.pk: private.invite_code})
    # An invite counts only with the room's current code (issue 11: rotated codes).
    assert not rooms.can_view_room(private, mallory, {private.pk: "an-old-code"})


def test_find_room_by_code_accepts_the_code_or_the_whole_link(room):
    assert rooms.find_room_by_code(room.invite_code) == room
    assert rooms.find_room_by_code(f"  https://dobon.example/join/{room.invite_code}/ ") == room
    assert rooms.find_room_by_code("nope") is None
    assert rooms.find_room_by_code("") is None


def test_with_occupancy_counts_every_seat_not_just_the_users(room, alice, bob):
    rooms.take_seat(room, bob, 1)
    _start(room)
    mine = rooms.with_occupancy(rooms.rooms_of(alice)).get()
    assert (mine.seats_taken, mine.seats_free, mine.game_on) == (2, 2, True)


# -- issue 20: limits per account ----------------------------------------------------------------


def test_rooms_created_per_day_are_limited(alice, settings):
    """The finding: nothing limited rooms (1,000 public rooms in 19 s filled the lobby)."""
    settings.DOBON_ROOMS_PER_DAY = 3
    for n in range(3):
        rooms.create_room(alice, name=f"room {n}")
    with pytest.raises(rooms.RoomError, match="24"):
        rooms.create_room(alice, name="one too many")
    assert Room.objects.filter(owner=alice).count() == 3


def test_rooms_owned_are_limited(alice, settings):
    settings.DOBON_MAX_ROOMS_PER_USER = 2
    rooms.create_room(alice, name="a")
    rooms.create_room(alice, name="b")
    with pytest.raises(rooms.RoomError, match="2"):
        rooms.create_room(alice, name="c")


def test_the_room_form_says_why_a_room_is_refused(alice, client, settings):
    settings.DOBON_ROOMS_PER_DAY = 0
    client.force_login(alice)
    response = client.post(reverse("game:create_room"),
                           {"name": "flood", "seat_count": 4, "timeout_seconds": 10,
                            "is_public": "on"})
    assert response.status_code == 200
    assert not Room.objects.filter(name="flood").exists()
    assert "24" in response.content.decode()
