"""Invites a session holds: rooms a visitor may see because they came through the room's
current invite link or code (checked by `rooms.can_view_room`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from game.models import Room

INVITED_SESSION_KEY = "dobon_invites"


def invited_room_ids(session: Any) -> dict[int, str]:
    """The invites remembered in a Django session (HTTP request or websocket scope):
    room id → the invite code used. Checked against the room's current code by
    `can_view_room`."""
    if session is None:
        return {}
    stored = session.get(INVITED_SESSION_KEY, {})
    if not isinstance(stored, dict):
        return {}
    return {int(pk): str(code) for pk, code in stored.items()}


def remember_invite(session: Any, room: Room) -> None:
    """Let this session see `room` while its invite code stays the same."""
    invites = {str(pk): code for pk, code in invited_room_ids(session).items()}
    invites[str(room.pk)] = room.invite_code
    session[INVITED_SESSION_KEY] = invites


def holds_current_invite(room: Room, invites: Mapping[int, str]) -> bool:
    return invites.get(room.pk) == room.invite_code
