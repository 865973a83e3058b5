"""Access that follows changes: tell open sockets when who-may-see-what changed.

Sent after the change commits, to the groups the live table's sockets are in
(game/live/consumers.py handles each message type):

- `access.check` to a room's group: the room's access rule changed (it turned private,
  its invite code was rotated); every socket re-checks its user and closes with 4408
  if the user may no longer see the room.
- `access.revoked` to a user's group: that user was removed from a room; their sockets
  in that room close with 4408.
- `session.ended` to a user's group: a session ended (logout; `session_key` names it)
  or every session did (password change: no `session_key`); those sockets close with 4401.

Close codes are in docs/protocol.md ("Connecting").
"""

from __future__ import annotations

import logging
from importlib import import_module
from typing import Any

from django.conf import settings
from django.db import transaction

from game.live import sender
from game.live.groups import room_group, user_group
from game.services.invites import invited_room_ids

log = logging.getLogger(__name__)

CLOSE_ACCESS_REVOKED = 4408
CLOSE_SESSION_ENDED = 4401


def notify_access_changed(room_id: int) -> None:
    """After commit: every socket of the room re-checks whether its user may still see it."""
    message = {"type": "access.check", "room": room_id}
    transaction.on_commit(lambda: _send(room_group(room_id), message))


def notify_removed(room_id: int, user_id: int) -> None:
    """After commit: the removed user's sockets in this room close."""
    message = {"type": "access.revoked", "room": room_id}
    transaction.on_commit(lambda: _send(user_group(user_id), message))


def notify_session_ended(user_id: int, session_key: str | None) -> None:
    """After commit: the sockets of this session (or of every session of the user, when
    `session_key` is None) close."""
    message = {"type": "session.ended", "session_key": session_key}
    transaction.on_commit(lambda: _send(user_group(user_id), message))


def session_matches(message: dict[str, Any], session_key: str | None) -> bool:
    """Whether a `session.ended` message concerns a socket opened with `session_key`."""
    ended = message.get("session_key")
    return ended is None or ended == session_key


def _send(group: str, message: dict[str, Any]) -> None:
    try:
        sender.send([(group, message)])
    except Exception:  # the change is committed; a lost notice must not turn it into a 500
        log.exception("access notice to %s failed", group)


def current_invites(session_key: str | None) -> dict[int, str]:
    """The invites stored in a session as they are now in the session store (a socket's
    own copy of its session was read when it connected)."""
    if not session_key:
        return {}
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    return invited_room_ids(store)
