"""Watchers (issue #31, item 9): 50 accounts could fill a public room's 300 watcher places
so that nobody else might watch. An account now holds at most
DOBON_WS_MAX_WATCHER_SOCKETS_PER_ACCOUNT watcher sockets in a room, and
DOBON_WS_WATCHER_PLACES_FOR_GUESTS places are kept for the room's invited guests.
Counted over every process: with REDIS_URL set these run against Redis."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings as django_settings
from django.test import Client
from play_helpers import make_room
from socket_helpers import next_state, open_socket

from game.services import play

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _caps(settings):
    settings.CELERY_BROKER_URL = ""
    settings.DOBON_WS_MAX_WATCHERS_PER_ROOM = 20
    settings.DOBON_WS_MAX_WATCHER_SOCKETS_PER_ACCOUNT = 2
    settings.DOBON_WS_WATCHER_PLACES_FOR_GUESTS = 2


async def refused_code(socket) -> int | None:
    """4412 when the server closed the socket; None when it sent a table."""
    message = await socket.receive_output(3)
    if message["type"] == "websocket.close":
        return message["code"]
    return None


def make_users(prefix: str, n: int) -> list:
    from django.contrib.auth import get_user_model

    return [get_user_model().objects.create_user(f"{prefix}{i}", password="x") for i in range(n)]


async def test_an_account_holds_a_few_watcher_sockets_per_room(alice, bob, mallory):
    room = await sync_to_async(make_room)(alice, bob)
    await sync_to_async(play.start_game)(room, alice)
    kept = [await open_socket(mallory, room.pk) for _ in range(2)]
    for socket in kept:
        assert await refused_code(socket) is None
    third = await open_socket(mallory, room.pk)
    assert await refused_code(third) == 4412
    # Members are never counted as watchers.
    tabs = [await open_socket(bob, room.pk) for _ in range(3)]
    for socket in tabs:
        _, state = await next_state(socket)
        assert state["seat"] is not None
    for socket in (*kept, *tabs):
        await socket.disconnect()


async def test_a_crowd_of_accounts_leaves_the_invited_guests_places(alice, bob, mallory):
    """9 accounts × 2 sockets take the 18 places open to anyone (20 less 2 kept): the
    next outsider is refused, an invited guest gets in."""
    room = await sync_to_async(make_room)(alice, bob)
    crowd = await sync_to_async(make_users)("c", 10)
    sockets = []
    for user in crowd[:9]:
        for _ in range(2):
            socket = await open_socket(user, room.pk)
            assert await refused_code(socket) is None
            sockets.append(socket)
    outsider = await open_socket(crowd[9], room.pk)
    assert await refused_code(outsider) == 4412
    guest_session = await sync_to_async(invited_session)(mallory, room)
    guest = await open_socket(mallory, room.pk, session=guest_session)
    assert await refused_code(guest) is None
    for socket in (*sockets, guest):
        await socket.disconnect()


def invited_session(user, room) -> str:
    client = Client()
    client.force_login(user)
    assert client.get(f"/join/{room.invite_code}/").status_code == 302
    return client.cookies[django_settings.SESSION_COOKIE_NAME].value
