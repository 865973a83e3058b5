"""The database itself refuses impossible rooms, seats and games (not just the forms)."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from game.models import Game, Membership, Room

pytestmark = pytest.mark.django_db


def _room(owner, **fields) -> Room:
    return Room.objects.create(name="Tea room", owner=owner, **fields)


def test_one_user_per_seat(alice, bob):
    room = _room(alice)
    Membership.objects.create(room=room, user=alice, seat_index=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.create(room=room, user=bob, seat_index=0)


def test_one_seat_per_user_per_room(alice):
    room = _room(alice)
    Membership.objects.create(room=room, user=alice, seat_index=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.create(room=room, user=alice, seat_index=1)


def test_same_user_may_sit_in_two_rooms(alice):
    Membership.objects.create(room=_room(alice), user=alice, seat_index=0)
    Membership.objects.create(room=_room(alice), user=alice, seat_index=0)
    assert Membership.objects.filter(user=alice).count() == 2


def test_seat_index_below_eight(alice):
    room = _room(alice, seat_count=8)
    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.create(room=room, user=alice, seat_index=8)


@pytest.mark.parametrize("seat_count", [1, 9])
def test_seat_count_outside_2_to_8_is_refused(alice, seat_count):
    with pytest.raises(IntegrityError), transaction.atomic():
        _room(alice, seat_count=seat_count)


@pytest.mark.parametrize("seat_count", [2, 8])
def test_seat_count_2_and_8_are_allowed(alice, seat_count):
    assert _room(alice, seat_count=seat_count).seat_count == seat_count


@pytest.mark.parametrize("timeout", [4, 61])
def test_timeout_outside_5_to_60_is_refused(alice, timeout):
    with pytest.raises(IntegrityError), transaction.atomic():
        _room(alice, timeout_seconds=timeout)


@pytest.mark.parametrize("timeout", [5, 60])
def test_timeout_5_and_60_are_allowed(alice, timeout):
    assert _room(alice, timeout_seconds=timeout).timeout_seconds == timeout


def test_one_running_game_per_room(alice):
    room = _room(alice)
    Game.objects.create(room=room, number=1, state={})
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.create(room=room, number=2, state={})


def test_finished_games_do_not_block_a_new_running_one(alice):
    room = _room(alice)
    Game.objects.create(room=room, number=1, state={}, status=Game.Status.FINISHED)
    Game.objects.create(room=room, number=2, state={}, status=Game.Status.ABORTED)
    Game.objects.create(room=room, number=3, state={})
    assert room.running_game().number == 3


def test_game_numbers_are_unique_in_a_room(alice):
    room = _room(alice)
    Game.objects.create(room=room, number=1, state={}, status=Game.Status.FINISHED)
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.create(room=room, number=1, state={})


def test_invite_codes_are_unique_and_unguessable(alice):
    """Issue 21 made them short and unambiguous (10 symbols of 31, shown ABCDE-FGHJK); the
    property that matters is kept: at least 48 bits of randomness per code (12 base64
    characters had 72, which nobody could read aloud)."""
    import math

    from game.models.rooms import INVITE_ALPHABET

    codes = {_room(alice).invite_code for _ in range(20)}
    assert len(codes) == 20
    assert all(len(code) * math.log2(len(set(INVITE_ALPHABET))) >= 48 for code in codes)
    assert all(set(code) <= set(INVITE_ALPHABET) for code in codes)


def test_next_rate_doubles_per_deck_out_r12_3(alice):
    room = _room(alice, deck_out_streak=3)
    assert room.next_rate == 8
