"""Which seats are programs: a member's seat plays as a program while at least one
token-client socket of that member is open in the room (docs/bots-api.md).

The count lives on the membership (`program_sockets`), so every process and the
sweep see the same answer in the queries they already make. Sockets count themselves
in on connect and out on disconnect; the panel is pushed when the answer changes.

A process that dies with token sockets open cannot count them out. Their entries in
the socket registry (game/live/presence.py) then stop being refreshed and expire, and
`forget_dead_programs`, run by every server process's registry refresh, clears a count
whose member has no live program socket left in the room. A socket enters the
registry before it is counted and leaves it before it is counted out, and a count is
cleared only if it did not change since it was read: so a socket that connects
meanwhile is never cleared away.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Protocol

from asgiref.sync import sync_to_async
from django.db import transaction
from django.db.models import F
from django.db.models.functions import Greatest

from game.models import Membership
from game.services.panel import notify_room_panel_on_commit


class ProgramSockets(Protocol):
    """Where live program sockets are counted (the socket registry's store)."""

    async def program_users(self, room_id: int, now: float) -> set[int]: ...


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


def counted_programs() -> dict[int, list[tuple[int, int]]]:
    """Room id: [(user id, count)] of every membership counted as a program."""
    rooms: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for room_id, user_id, count in Membership.objects.filter(
        program_sockets__gt=0, user__isnull=False
    ).values_list("room_id", "user_id", "program_sockets"):
        rooms[room_id].append((user_id, count))
    return rooms


def clear_if_unchanged(room_id: int, user_id: int, count: int) -> bool:
    with transaction.atomic():
        stale = Membership.objects.filter(room_id=room_id, user_id=user_id,
                                          program_sockets=count)
        cleared = stale.update(program_sockets=0)
        if cleared:
            notify_room_panel_on_commit(room_id)
    return bool(cleared)


async def forget_dead_programs(store: ProgramSockets, now: float) -> int:
    """Clear the counts of members with no live program socket in their room (left by
    a process that died); returns how many were cleared."""
    cleared = 0
    for room_id, counted in (await sync_to_async(counted_programs)()).items():
        live = await store.program_users(room_id, now)
        for user_id, count in counted:
            if user_id not in live:
                cleared += await sync_to_async(clear_if_unchanged)(room_id, user_id, count)
    return cleared
