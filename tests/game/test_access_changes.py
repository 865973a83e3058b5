"""Issue 11: access that follows changes, seen from open sockets.

Personas: alice owns the room, bob and carol sit in it, mallory is an outsider (at
times holding the invite link), and nobody signed in is "anonymous". Each change that
takes access away closes the affected sockets at once with the documented code
(docs/protocol.md: 4408 access revoked, 4401 session ended) and leaves everyone else's
socket open and working.
"""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client
from django.urls import reverse
from play_helpers import make_room

from dobon_site.asgi import application
from game.models import Room
from game.services import rooms

pytestmark = pytest.mark.django_db(transaction=True)

ACCESS_REVOKED, SESSION_ENDED, NOT_VISIBLE = 4408, 4401, 4404


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def invited(user: Any, room: Room) -> Client:
    """A session that opened the room's invite link but did not sit down."""
    client = signed_in(user)
    client.get(reverse("game:join", args=[room.invite_code]))
    return client


async def connect(client: Client | None, room_id: int, origin: bytes = b"http://testserver"):
    headers = [(b"origin", origin)]
    if client is not None:
        cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
        headers.append((b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode()))
    socket = WebsocketCommunicator(application, f"/ws/rooms/{room_id}/", headers=headers)
    connected, _ = await socket.connect()
    return socket, connected


async def open_table(client: Client, room_id: int) -> WebsocketCommunicator:
    """A socket that connected and got its first table."""
    socket, connected = await connect(client, room_id)
    assert connected
    assert (await socket.receive_json_from(3))["type"] == "state"
    return socket


async def closed_with(socket: WebsocketCommunicator) -> int:
    while True:
        message = await socket.receive_output(3)
        if message["type"] == "websocket.close":
            return int(message["code"])


async def still_open(*sockets: WebsocketCommunicator) -> None:
    """No close arrived (room panels and presence may), and the socket still answers a
    sync with the table."""
    for socket in sockets:
        while not await socket.receive_nothing(0.3):
            message = await socket.receive_output(1)
            assert message["type"] == "websocket.send", message
        await socket.send_json_to({"type": "sync"})
        while (await socket.receive_json_from(3))["type"] != "state":
            pass


async def refused_on_connect(client: Client, room_id: int) -> int:
    socket, connected = await connect(client, room_id)
    assert connected  # accepted first, then closed with the code
    return await closed_with(socket)


# -- a room turns private --------------------------------------------------------------------


async def test_turning_private_closes_an_outsiders_socket_and_keeps_the_rest(
    alice, bob, carol, mallory
):
    room = await sync_to_async(make_room)(alice, bob)
    owner, member = await sync_to_async(signed_in)(alice), await sync_to_async(signed_in)(bob)
    outsider = await sync_to_async(signed_in)(mallory)
    guest = await sync_to_async(invited)(carol, room)  # holds the current invite
    sockets = [await open_table(c, room.pk) for c in (owner, member, outsider, guest)]

    data = {"name": "table", "seat_count": 4, "timeout_seconds": 10}  # is_public unticked
    response = await sync_to_async(owner.post)(
        reverse("game:room_settings", args=[room.pk]), data
    )
    assert response.status_code == 302

    assert await closed_with(sockets[2]) == ACCESS_REVOKED
    await still_open(sockets[0], sockets[1], sockets[3])
    assert await refused_on_connect(outsider, room.pk) == NOT_VISIBLE
    for socket in sockets:
        await socket.disconnect()


async def test_settings_that_keep_a_room_public_close_nothing(alice, mallory):
    room = await sync_to_async(make_room)(alice)
    outsider = await open_table(await sync_to_async(signed_in)(mallory), room.pk)
    await sync_to_async(rooms.update_room_settings)(
        room, alice, name="renamed", seat_count=4, timeout_seconds=20, is_public=True
    )
    await still_open(outsider)
    await outsider.disconnect()


# -- a member is removed -------------------------------------------------------------------


async def test_removing_a_member_closes_their_socket_and_rotates_the_invite(
    alice, bob, carol, mallory
):
    room = await sync_to_async(make_room)(alice, bob, carol, is_public=False)
    owner = await sync_to_async(signed_in)(alice)
    removed = await sync_to_async(invited)(bob, room)  # came in by the link, then sat down
    staying = await sync_to_async(signed_in)(carol)
    guest = await sync_to_async(invited)(mallory, room)
    bob_socket, carol_socket, guest_socket, alice_socket = [
        await open_table(c, room.pk) for c in (removed, staying, guest, owner)
    ]
    old_code = room.invite_code

    response = await sync_to_async(owner.post)(
        reverse("game:remove_member", args=[room.pk, bob.pk])
    )
    assert response.status_code == 302

    assert await closed_with(bob_socket) == ACCESS_REVOKED
    # The code rotated, so the invited outsider's session no longer counts either.
    assert await closed_with(guest_socket) == ACCESS_REVOKED
    await still_open(carol_socket, alice_socket)
    assert (await sync_to_async(Room.objects.get)(pk=room.pk)).invite_code != old_code
    assert await refused_on_connect(removed, room.pk) == NOT_VISIBLE
    assert await refused_on_connect(guest, room.pk) == NOT_VISIBLE
    for socket in (carol_socket, alice_socket):
        await socket.disconnect()


async def test_a_member_removed_from_a_public_room_is_disconnected_too(alice, bob):
    """Removal closes the removed member's socket even where they may still watch:
    they reconnect as a spectator if they like."""
    room = await sync_to_async(make_room)(alice, bob)
    socket = await open_table(await sync_to_async(signed_in)(bob), room.pk)
    await sync_to_async(rooms.remove_member)(room, alice, bob.pk)
    assert await closed_with(socket) == ACCESS_REVOKED


async def test_removal_from_another_room_leaves_this_rooms_socket_open(alice, bob):
    here = await sync_to_async(make_room)(alice, bob)
    elsewhere = await sync_to_async(make_room)(alice, bob)
    socket = await open_table(await sync_to_async(signed_in)(bob), here.pk)
    await sync_to_async(rooms.remove_member)(elsewhere, alice, bob.pk)
    await still_open(socket)
    await socket.disconnect()


# -- the owner rotates the invite code ---------------------------------------------------------


async def test_rotating_the_invite_closes_sockets_that_came_through_the_old_one(
    alice, bob, mallory
):
    room = await sync_to_async(make_room)(alice, bob, is_public=False)
    owner, member = await sync_to_async(signed_in)(alice), await sync_to_async(signed_in)(bob)
    guest = await sync_to_async(invited)(mallory, room)
    alice_socket, bob_socket, guest_socket = [
        await open_table(c, room.pk) for c in (owner, member, guest)
    ]
    response = await sync_to_async(owner.post)(reverse("game:rotate_invite", args=[room.pk]))
    assert response.status_code == 302
    assert await closed_with(guest_socket) == ACCESS_REVOKED
    await still_open(alice_socket, bob_socket)
    assert await refused_on_connect(guest, room.pk) == NOT_VISIBLE
    # The new link lets the same person back in.
    fresh = await sync_to_async(Room.objects.get)(pk=room.pk)
    await sync_to_async(guest.get)(reverse("game:join", args=[fresh.invite_code]))
    again = await open_table(guest, room.pk)
    for socket in (alice_socket, bob_socket, again):
        await socket.disconnect()


# -- logout and password change -----------------------------------------------------------------


async def test_logging_out_closes_that_sessions_sockets_only(alice, bob):
    room = await sync_to_async(make_room)(alice, bob)
    laptop, phone = await sync_to_async(signed_in)(bob), await sync_to_async(signed_in)(bob)
    other = await sync_to_async(signed_in)(alice)
    laptop_socket, phone_socket, alice_socket = [
        await open_table(c, room.pk) for c in (laptop, phone, other)
    ]
    response = await sync_to_async(laptop.post)(reverse("accounts:logout"))
    assert response.status_code == 302
    assert await closed_with(laptop_socket) == SESSION_ENDED
    await still_open(phone_socket, alice_socket)
    for socket in (phone_socket, alice_socket):
        await socket.disconnect()


async def test_changing_the_password_closes_every_socket_of_that_user(alice, bob, password):
    room = await sync_to_async(make_room)(alice, bob)
    laptop, phone = await sync_to_async(signed_in)(bob), await sync_to_async(signed_in)(bob)
    other = await sync_to_async(signed_in)(alice)
    laptop_socket, phone_socket, alice_socket = [
        await open_table(c, room.pk) for c in (laptop, phone, other)
    ]
    new = "a-brand-new-passphrase-913"
    response = await sync_to_async(laptop.post)(
        reverse("accounts:password_change"),
        {"old_password": password, "new_password1": new, "new_password2": new},
    )
    assert response.status_code == 302
    assert await closed_with(laptop_socket) == SESSION_ENDED
    assert await closed_with(phone_socket) == SESSION_ENDED
    await still_open(alice_socket)
    # The session that changed the password goes on (Django keeps it signed in).
    assert await open_table(laptop, room.pk)
    # The other session ended: its socket is refused as not signed in.
    assert await refused_on_connect(phone, room.pk) == SESSION_ENDED
    await alice_socket.disconnect()


async def test_a_password_set_elsewhere_closes_the_sockets_too(alice, bob):
    """The admin or `manage.py changepassword` save a new password the same way."""
    room = await sync_to_async(make_room)(alice, bob)
    socket = await open_table(await sync_to_async(signed_in)(bob), room.pk)

    def set_password() -> None:
        bob.set_password("set-by-an-admin-5512")
        bob.save()

    await sync_to_async(set_password)()
    assert await closed_with(socket) == SESSION_ENDED


# -- one close code for "no such room" and "not yours to see" -------------------------------------


async def test_outsider_and_missing_room_get_the_same_code(alice, bob, mallory):
    private = await sync_to_async(make_room)(alice, bob, is_public=False)
    outsider = await sync_to_async(signed_in)(mallory)
    hidden = await refused_on_connect(outsider, private.pk)
    missing = await refused_on_connect(outsider, private.pk + 1000)
    assert hidden == missing == NOT_VISIBLE


async def test_anonymous_is_told_to_sign_in(alice):
    room = await sync_to_async(make_room)(alice)
    socket, connected = await connect(None, room.pk)
    assert connected
    assert await closed_with(socket) == SESSION_ENDED


# -- the Origin header: scheme, host and port --------------------------------------------------


@pytest.mark.parametrize(
    "origin",
    [
        b"http://localhost:1234",  # an allowed host on another port (issue 11)
        b"https://testserver:8443",
        b"ftp://testserver",
        b"http://evil.example",
        b"null",
    ],
)
async def test_a_foreign_origin_is_refused(alice, origin):
    room = await sync_to_async(make_room)(alice)
    client = await sync_to_async(signed_in)(alice)
    socket, connected = await connect(client, room.pk, origin=origin)
    assert not connected


async def test_no_origin_header_is_refused(alice):
    room = await sync_to_async(make_room)(alice)
    socket = WebsocketCommunicator(application, f"/ws/rooms/{room.pk}/", headers=[])
    connected, _ = await socket.connect()
    assert not connected


@pytest.mark.parametrize("origin", [b"http://testserver", b"http://localhost:8000"])
async def test_the_sites_own_origins_are_accepted(alice, origin):
    room = await sync_to_async(make_room)(alice)
    client = await sync_to_async(signed_in)(alice)
    socket, connected = await connect(client, room.pk, origin=origin)
    assert connected
    assert (await socket.receive_json_from(3))["type"] == "state"
    await socket.disconnect()


async def test_origins_follow_the_setting(settings, alice):
    settings.DOBON_WS_ALLOWED_ORIGINS = ["https://dobon.example"]
    room = await sync_to_async(make_room)(alice)
    client = await sync_to_async(signed_in)(alice)
    _, refused = await connect(client, room.pk, origin=b"http://testserver")
    assert not refused
    socket, connected = await connect(client, room.pk, origin=b"https://dobon.example")
    assert connected
    await socket.disconnect()
