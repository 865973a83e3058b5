"""Which seats are programs: a member's seat plays as a program while at least one
token-client socket of that member is open in the room (docs/bots-api.md).

The count lives on the membership (`program_sockets`), so every process and the
sweep see the same answer in the queries they already make. Sockets count themselves
in on connect and out on disconnect; the panel is pushed when the answer changes.
A process that dies with token sockets open leaves its counts behind until the member
takes a seat again (`rooms` resets the membership) or an admin clears it.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import F
from django.db.models.functions import Greatest

from game.models import Membership
from game.services.panel import notify_room_panel_on_commit


def program_connected(room_id: int, user_id: int) -> bool:
    """Count a token socket of `user_id` in; True when the user sits in the room."""
    with transaction.atomic():
        seated = Membership.objects.filter(room_id=room_id, user_id=user_id)
        changed = seated.update(program_sockets=F("program_sockets") + 1)
        if changed:
            notify_room_panel_on_commit(room_id)
    return bool(changed)


def program_disconnected(room_id: int, user_id: int) -> None:
    with transaction.atomic():
        seated = Membership.objects.filter(room_id=room_id, user_id=user_id)
        if seated.update(program_sockets=Greatest(F("program_sockets") - 1, 0)):
            notify_room_panel_on_commit(room_id)
