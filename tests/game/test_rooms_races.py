"""Concurrent room changes on PostgreSQL: the room row lock keeps the seats consistent
where the unique constraints alone could not."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.db.models import Max

from game.models import Room
from game.services import rooms
from game.services.rooms import RoomError

pytestmark = pytest.mark.django_db(transaction=True)


def _at_once(*calls: Callable[[], Any]) -> list[Any]:
    """Run the calls in threads released together; return each result or exception."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            results[i] = call()
        except Exception as exc:  # noqa: BLE001 - the test inspects what each got
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    return results


def test_people_joining_at_once_each_get_their_own_free_seat(
    alice, bob, carol, dave, postgres_only
):
    room = rooms.create_room(alice, name="Rush hour")
    results = _at_once(*(lambda u=u: rooms.join_room(room, u) for u in (bob, carol, dave)))
    assert not [r for r in results if isinstance(r, Exception)], results
    assert sorted(room.memberships.values_list("seat_index", flat=True)) == [0, 1, 2, 3]


def test_two_people_racing_for_one_seat_one_wins(alice, bob, carol, postgres_only):
    room = rooms.create_room(alice, name="Last chair")
    results = _at_once(
        lambda: rooms.take_seat(room, bob, 2), lambda: rooms.take_seat(room, carol, 2)
    )
    errors = [r for r in results if isinstance(r, RoomError)]
    assert len(errors) == 1, results
    assert room.memberships.filter(seat_index=2).count() == 1


def test_shrinking_the_room_while_someone_sits_down_keeps_every_seat_inside(
    alice, bob, postgres_only
):
    room = rooms.create_room(alice, name="Shrinking", seat_count=6)
    _at_once(
        lambda: rooms.update_room_settings(
            room, alice, name="Shrinking", seat_count=2, timeout_seconds=10, is_public=True
        ),
        lambda: rooms.take_seat(room, bob, 5),
    )
    room = Room.objects.get(pk=room.pk)
    highest = room.memberships.aggregate(h=Max("seat_index"))["h"]
    assert highest < room.seat_count
