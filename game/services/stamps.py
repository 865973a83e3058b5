"""Stamps [スタンプ]: a fixed set of quick reactions a seated player shows the table.

A stamp is a moment, not a fact of the game: it is checked here, broadcast to the room
group by the socket (game/live/consumers.py) and never stored (no GameEvent, no history).
There is no free text, so there is nothing to moderate. The owner may turn stamps off
(`Room.stamps_enabled`); people who only watch see them and cannot send them.

The rate limit is one stamp per `STAMP_INTERVAL` seconds per seat (the user in the room,
over all their sockets in one process). Time is an input (`clock`), so tests move it
instead of sleeping.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from game.models import Membership, Room
from game.services.play import PlayError

# The set, in the order the table shows them. The words are the client's (strings.js):
# a stamp travels as its id.
STAMPS = ("hello", "nice", "dobon", "sorry", "wait", "gg", "smile", "wow")
STAMP_INTERVAL = 1.5

Clock = Callable[[], float]


class StampLimiter:
    """One stamp per `interval` seconds per (room, user), in this process; with Redis
    the socket also checks the same limit over every process (game/live/presence.py),
    on this clock: wall-clock time, which all processes share."""

    def __init__(self, interval: float = STAMP_INTERVAL, clock: Clock = time.time) -> None:
        self.interval, self.clock = interval, clock
        self.last: dict[tuple[int, int], float] = {}

    def allow(self, room_id: int, user_id: int) -> bool:
        if not self.ready(room_id, user_id):
            return False
        self.note(room_id, user_id)
        return True

    def ready(self, room_id: int, user_id: int) -> bool:
        """Whether a stamp may go now (nothing is noted)."""
        last = self.last.get((room_id, user_id))
        return last is None or self.clock() - last >= self.interval

    def note(self, room_id: int, user_id: int) -> None:
        """A stamp went now."""
        now = self.clock()
        self.last[(room_id, user_id)] = now
        if len(self.last) > 10_000:  # forget the old ones now and then
            self.last = {k: t for k, t in self.last.items() if now - t < self.interval}


def check_stamp(room_id: int, user: Any, stamp: Any) -> dict[str, Any]:
    """The stamp as the room is told it, or PlayError: `unknown_stamp`, `stamps_off`,
    `stamp_watcher` (watchers see stamps, they do not send them)."""
    if stamp not in STAMPS:
        raise PlayError("unknown_stamp")
    room = Room.objects.filter(pk=room_id).only("stamps_enabled").first()
    if room is None:
        raise PlayError("no_room")
    if not room.stamps_enabled:
        raise PlayError("stamps_off")
    seat = (
        Membership.objects.filter(room_id=room_id, user_id=user.pk)
        .values_list("seat_index", flat=True)
        .first()
    )
    if seat is None:
        raise PlayError("stamp_watcher")
    return {"stamp": stamp, "username": user.username, "room_seat": seat}
