"""Live play that nobody can stall (issue #22), over the ASGI application in-process:
every committed move is announced even when its sender closes at once; a crowd of
sockets and watchers in one room costs one presence frame per change window and one
encoded watchers' frame per move, and does not hold up another room; a room's watchers
are capped."""

from __future__ import annotations

import asyncio
import time

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from play_helpers import LIVE_HANDS, started_live_table
from socket_helpers import closed_with, next_state, open_socket, presence_of

from game.live import consumers
from game.live.presence import registry

pytestmark = pytest.mark.django_db(transaction=True)

HANDS = LIVE_HANDS


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""


started_table = started_live_table


async def test_a_move_whose_sender_closes_at_once_reaches_every_other_seat(
    alice, bob, carol, dave
):
    """The move is committed: the process that committed it announces it, whatever
    became of the sender's socket (before: 22 of 22 such moves were never pushed)."""
    room, game = await sync_to_async(started_table)(alice, bob, carol, dave)
    others = {}
    for user in (alice, carol, dave):
        others[user.username] = await open_socket(user, room.pk)
        await next_state(others[user.username])
    sender = await open_socket(bob, room.pk)
    _, state = await next_state(sender)
    version = state["version"]
    await sender.send_json_to({"type": "action", "action": {"type": "draw"}})
    await sender.disconnect()  # gone before its move is through
    for name, socket in others.items():
        _, pushed = await next_state(socket, timeout=5)
        assert pushed["version"] == version + 1, name
        assert [e["type"] for e in pushed["events"]][:1] == ["draw"], name
    for socket in others.values():
        await socket.disconnect()


def make_users(prefix: str, n: int):
    User = get_user_model()
    return [User.objects.create_user(f"{prefix}{i:03}", password="x") for i in range(n)]


async def test_a_crowd_in_one_room_costs_one_presence_frame_and_one_encoding_per_move(
    alice, bob, carol, dave, mallory, monkeypatch
):
    """40 watchers and 8 sockets of one player join a running table within one presence
    window: the players see one presence frame for all of them (plus the first one),
    each move is encoded once for all watchers, and a move in another room meanwhile
    is served at once."""
    crowd_room, game = await sync_to_async(started_table)(alice, bob, carol, dave)
    quiet_room, _ = await sync_to_async(started_table)(mallory, carol)
    watchers = await sync_to_async(make_users)("w", 40)
    reg = registry()
    clock = FakeMonotonic()
    reg.monotonic, reg.sleep = clock, clock.sleep
    observer = await open_socket(alice, crowd_room.pk)
    await next_state(observer)
    assert await presence_of(observer) == ["alice"]
    crowd = [await open_socket(bob, crowd_room.pk) for _ in range(8)]
    crowd += [await open_socket(user, crowd_room.pk) for user in watchers]
    for socket in crowd:
        await next_state(socket)
    # Meanwhile a move in the quiet room goes through at once.
    quiet_players = [await open_socket(u, quiet_room.pk) for u in (mallory, carol)]
    for socket in quiet_players:
        _, before = await next_state(socket)
    started = time.monotonic()
    await quiet_players[1].send_json_to({"type": "action", "action": {"type": "draw"}})
    _, moved = await next_state(quiet_players[0], timeout=5)
    assert moved["version"] == before["version"] + 1
    assert time.monotonic() - started < 2.0, "another room's crowd held up this move"
    # No presence frame for the crowd until the window is over; then exactly one.
    assert not await has_presence(observer)
    clock.now += 1.0
    names = await presence_of(observer)
    assert names == sorted(["alice", "bob", *(u.username for u in watchers)])
    clock.now += 5.0
    assert not await has_presence(observer)
    # One move, 40 watchers (and bob's 8 sockets, which get his seat's own view).
    encoded = []
    original = consumers.push_state
    monkeypatch.setattr(consumers, "push_state", lambda push: encoded.append(push["seat"])
                        or original(push))
    await crowd[0].send_json_to({"type": "action", "action": {"type": "draw"}})
    for socket in (observer, *crowd):
        _, state = await next_state(socket, timeout=5)
        assert state["events"][0]["type"] == "draw"
    assert encoded.count(None) == 1, "the watchers' frame is built and encoded once"
    for socket in (observer, *crowd, *quiet_players):
        await socket.disconnect()


async def has_presence(socket, seconds: float = 0.3) -> bool:
    """Whether a presence frame arrives within `seconds` (other frames are skipped)."""
    while not await socket.receive_nothing(seconds):
        if (await socket.receive_json_from(1))["type"] == "presence":
            return True
    return False


class FakeMonotonic:
    def __init__(self) -> None:
        self.now = 5000.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        until = self.now + seconds
        while self.now < until:
            await asyncio.sleep(0.005)


async def test_a_rooms_watchers_are_capped_and_members_always_get_in(
    alice, bob, carol, dave, mallory, settings
):
    settings.DOBON_WS_MAX_WATCHERS_PER_ROOM = 2
    room, _ = await sync_to_async(started_table)(alice, bob)
    outsiders = await sync_to_async(make_users)("o", 3)
    first = [await open_socket(user, room.pk) for user in outsiders[:2]]
    for socket in first:
        await next_state(socket)
    refused = await open_socket(outsiders[2], room.pk)
    assert await closed_with(refused) == 4412
    member = await open_socket(bob, room.pk)
    _, state = await next_state(member)
    assert state["seat"] is not None
    await first[0].disconnect()
    later = await open_socket(outsiders[2], room.pk)
    _, state = await next_state(later)
    assert state["seat"] is None
    for socket in (first[1], member, later):
        await socket.disconnect()


async def test_an_address_refused_as_a_watcher_is_told_to_retry_before_any_work(
    alice, bob, settings
):
    """After a 4412 the same address asking for the same room is refused 4411 at
    admission (no session, user or room read) until the time is up; a member from
    another address still gets in, and the refused address may watch other rooms."""
    settings.DOBON_WS_MAX_WATCHERS_PER_ROOM = 1
    room, _ = await sync_to_async(started_table)(alice, bob)
    other_room, _ = await sync_to_async(started_table)(alice, bob)
    outsiders = await sync_to_async(make_users)("o", 3)
    watcher = await open_socket(outsiders[0], room.pk, address="198.51.100.1")
    await next_state(watcher)
    refused = await open_socket(outsiders[1], room.pk, address="198.51.100.2")
    assert await closed_with(refused) == 4412
    again = await open_socket(outsiders[2], room.pk, address="198.51.100.2")
    assert await closed_with(again) == 4411
    elsewhere = await open_socket(outsiders[2], other_room.pk, address="198.51.100.2")
    _, state = await next_state(elsewhere)
    assert state["seat"] is None
    member = await open_socket(bob, room.pk, address="203.0.113.9")
    _, state = await next_state(member)
    assert state["seat"] is not None
    for socket in (watcher, elsewhere, member):
        await socket.disconnect()
