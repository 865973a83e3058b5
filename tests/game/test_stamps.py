"""Issue 21, stamps [スタンプ]: a seated player's quick reaction reaches everyone in the
room (watchers too), one per 1.5 s per seat, never stored; watchers and rooms with
stamps off are refused politely."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from play_helpers import make_room
from socket_helpers import FakeClock, next_frame, next_state, open_socket, quiet

from game.live.consumers import RoomConsumer
from game.models import GameEvent, Room
from game.services import stamps

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr(RoomConsumer, "stamp_limiter", stamps.StampLimiter(clock=fake))
    return fake


async def _open(user, room_id):
    socket = await open_socket(user, room_id)
    await next_state(socket)
    return socket


async def test_a_stamp_reaches_every_socket_in_the_room_and_is_not_stored(
    alice, bob, mallory, clock
):
    room = await sync_to_async(make_room)(alice, bob)
    a, b, watcher = [await _open(u, room.pk) for u in (alice, bob, mallory)]
    await a.send_json_to({"type": "stamp", "stamp": "nice"})
    for socket in (a, b, watcher):
        frame = await next_frame(socket)
        assert frame == {"type": "stamp", "stamp": "nice", "username": "alice", "room_seat": 0}
    assert await sync_to_async(GameEvent.objects.count)() == 0
    for socket in (a, b, watcher):
        await socket.disconnect()


async def test_one_stamp_per_one_and_a_half_seconds_per_seat(alice, bob, clock):
    room = await sync_to_async(make_room)(alice, bob)
    a, b = await _open(alice, room.pk), await _open(bob, room.pk)
    await a.send_json_to({"type": "stamp", "stamp": "hello"})
    assert (await next_frame(b))["stamp"] == "hello"
    await next_frame(a)
    clock.advance(1.0)
    await a.send_json_to({"type": "stamp", "stamp": "wow"})
    refusal = await next_frame(a)
    assert refusal["type"] == "error" and refusal["code"] == "stamp_too_soon"
    assert refusal["message"]
    await quiet(b)
    # Another seat is not held back by alice's limit.
    await b.send_json_to({"type": "stamp", "stamp": "sorry"})
    assert (await next_frame(a))["username"] == "bob"
    assert (await next_frame(b))["username"] == "bob"  # the sender sees it too
    clock.advance(0.5)
    await a.send_json_to({"type": "stamp", "stamp": "wow"})
    assert (await next_frame(b))["stamp"] == "wow"
    for socket in (a, b):
        await socket.disconnect()


async def test_a_watcher_cannot_send_a_stamp(alice, mallory, clock):
    room = await sync_to_async(make_room)(alice)
    a, watcher = await _open(alice, room.pk), await _open(mallory, room.pk)
    await watcher.send_json_to({"type": "stamp", "stamp": "nice"})
    refusal = await next_frame(watcher)
    assert refusal["code"] == "stamp_watcher"
    await quiet(a)
    for socket in (a, watcher):
        await socket.disconnect()


async def test_the_room_setting_turns_stamps_off(alice, bob, clock):
    room = await sync_to_async(make_room)(alice, bob)
    await sync_to_async(Room.objects.filter(pk=room.pk).update)(stamps_enabled=False)
    a, b = await _open(alice, room.pk), await _open(bob, room.pk)
    await a.send_json_to({"type": "stamp", "stamp": "nice"})
    assert (await next_frame(a))["code"] == "stamps_off"
    await quiet(b)
    for socket in (a, b):
        await socket.disconnect()


async def test_only_the_fixed_set_no_free_text(alice, bob, clock):
    room = await sync_to_async(make_room)(alice, bob)
    a, b = await _open(alice, room.pk), await _open(bob, room.pk)
    await a.send_json_to({"type": "stamp", "stamp": "<b>hi</b>"})
    assert (await next_frame(a))["code"] == "unknown_stamp"
    await quiet(b)
    for socket in (a, b):
        await socket.disconnect()


def test_the_limiter_counts_per_room_and_user():
    fake = FakeClock()
    limiter = stamps.StampLimiter(clock=fake)
    assert limiter.allow(1, 1) and not limiter.allow(1, 1)
    assert limiter.allow(2, 1) and limiter.allow(1, 2)
    fake.advance(1.49)
    assert not limiter.allow(1, 1)
    fake.advance(0.01)
    assert limiter.allow(1, 1)


async def test_the_stamp_limit_holds_over_two_server_processes(alice, bob, clock, monkeypatch,
                                                               redis_url):
    """Issue #31: one socket on each of two daphnes sent twice the allowance, each process
    counting its own. With Redis the seat's limit is counted there too (each process
    keeps its own StampLimiter; the second stands for the other daphne)."""
    room = await sync_to_async(make_room)(alice, bob)
    a, b = await _open(alice, room.pk), await _open(bob, room.pk)
    await a.send_json_to({"type": "stamp", "stamp": "hello"})
    assert (await next_frame(b))["stamp"] == "hello"
    await next_frame(a)
    other_process = stamps.StampLimiter(clock=clock)
    monkeypatch.setattr(RoomConsumer, "stamp_limiter", other_process)
    second = await _open(alice, room.pk)
    clock.advance(1.0)
    await second.send_json_to({"type": "stamp", "stamp": "wow"})
    refusal = await next_frame(second)
    assert refusal["type"] == "error" and refusal["code"] == "stamp_too_soon"
    await quiet(b)
    clock.advance(0.5)
    await second.send_json_to({"type": "stamp", "stamp": "wow"})
    assert (await next_frame(b))["stamp"] == "wow"
    for socket in (a, b, second):
        await socket.disconnect()
