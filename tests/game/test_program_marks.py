"""A seat is a program's while a token socket of its member is open (docs/bots-api.md).
A server process that dies with token sockets open leaves their counts behind; the
registry refresh clears them once those sockets' registry entries expired, and never
clears a count that a live socket holds or that changed since it was read."""

from __future__ import annotations

import time

import pytest
from asgiref.sync import sync_to_async
from bot_helpers import new_key, open_token_socket
from django.conf import settings
from play_helpers import make_room

from game.live import presence
from game.live.presence import Entry, MemoryStore, RedisStore
from game.models import Membership
from game.services import programs

pytestmark = pytest.mark.django_db(transaction=True)


def bob_seated(alice, bob):
    room = make_room(alice, seats=[0])
    Membership.objects.create(room=room, user=bob, seat_index=1)
    return room


def count_of(room, user) -> int:
    return Membership.objects.get(room=room, user=user).program_sockets


async def test_a_count_left_by_a_dead_process_is_cleared(alice, bob):
    room = await sync_to_async(bob_seated)(alice, bob)
    await sync_to_async(Membership.objects.filter(user=bob).update)(program_sockets=2)
    assert await programs.forget_dead_programs(MemoryStore(), time.time()) == 1
    assert await sync_to_async(count_of)(room, bob) == 0


async def test_a_live_token_socket_keeps_its_count_until_its_entry_expires(alice, bob):
    room = await sync_to_async(bob_seated)(alice, bob)
    socket = await open_token_socket(await sync_to_async(new_key)(bob), room.pk)
    await socket.receive_json_from(3)
    store = presence.registry().store
    now = time.time()
    assert await programs.forget_dead_programs(store, now) == 0
    assert await sync_to_async(count_of)(room, bob) == 1
    # Its process died: nobody refreshes the entry, which expires after the TTL.
    later = now + settings.DOBON_WS_SOCKET_TTL + 1
    assert await programs.forget_dead_programs(store, later) == 1
    assert await sync_to_async(count_of)(room, bob) == 0
    await socket.disconnect()
    assert await sync_to_async(count_of)(room, bob) == 0  # counted out, never below zero


async def test_a_browser_socket_does_not_keep_a_program_count(alice, bob):
    """Only token sockets are programs': bob's browser tab does not hold the count."""
    room = await sync_to_async(bob_seated)(alice, bob)
    await sync_to_async(Membership.objects.filter(user=bob).update)(program_sockets=1)
    store = MemoryStore()
    now = time.time()
    await store.admit(Entry("browser.1", bob.pk, bob.username, room.pk), 8, now, 30)
    assert await programs.forget_dead_programs(store, now) == 1
    assert await sync_to_async(count_of)(room, bob) == 0


def test_a_count_that_changed_since_it_was_read_is_left_alone(alice, bob):
    """A socket that connected between the read and the clear keeps its count."""
    room = bob_seated(alice, bob)
    Membership.objects.filter(user=bob).update(program_sockets=2)
    assert programs.clear_if_unchanged(room.pk, bob.pk, 1) is False
    assert count_of(room, bob) == 2
    assert programs.clear_if_unchanged(room.pk, bob.pk, 2) is True
    assert count_of(room, bob) == 0


async def test_the_memory_store_lists_the_users_of_live_program_sockets_only():
    await lists_live_program_users(MemoryStore())


async def test_the_redis_store_lists_the_users_of_live_program_sockets_only(redis_url):
    await lists_live_program_users(RedisStore(redis_url))


async def lists_live_program_users(store: presence.Store) -> None:
    room_id, now = 900_000 + int(time.time()) % 1000, time.time()
    await store.admit(Entry("c.program", 11, "bot", room_id, program=True), 8, now, 30)
    await store.admit(Entry("c.browser", 12, "person", room_id), 8, now, 30)
    await store.admit(Entry("c.old", 13, "gone", room_id, program=True), 8, now - 40, 30)
    assert await store.program_users(room_id, now) == {11}
    assert await store.online(room_id, now) == ["bot", "person"]
    await store.forget(Entry("c.program", 11, "bot", room_id, program=True))
    assert await store.program_users(room_id, now) == set()
