"""The live table socket, `/ws/rooms/<id>/`. Thin: parse, call one service, send.

Client → server: `{"type": "action", "action": {...}}`, `{"type": "sync"}`.
Server → client: `state` (the whole table as this user may see it), `event` (one engine
event this user may see), `error` (a refusal, to the sender only). Every state and
event carries the game's version; a client that sees a gap sends `sync`.

Close codes: 4401 not signed in, 4403 private room and not a member, 4404 no room.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.db import connections
from django.utils import translation

from accounts.middleware import chosen_language
from game.messages import message_for
from game.services import play, rooms

log = logging.getLogger(__name__)

T = TypeVar("T")

# How long a push that skipped a version waits for the missing one (see deliver).
REORDER_WAIT = 0.2

CLOSE_CODES = {"anonymous": 4401, "forbidden": 4403, "no_room": 4404}


class TokenBucket:
    """`rate` messages per second on average, bursts up to `rate`."""

    def __init__(self, rate: int) -> None:
        self.rate = float(max(rate, 1))
        self.tokens = self.rate
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.rate, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True


class RoomConsumer(AsyncJsonWebsocketConsumer):
    groups: list[str] = []

    async def connect(self) -> None:
        self.room_id = int(self.scope["url_route"]["kwargs"]["room_id"])
        self.user = self.scope.get("user")
        self.language = chosen_language(self.scope.get("cookies", {}))
        self.bucket = TokenBucket(settings.DOBON_WS_MAX_MESSAGES_PER_SECOND)
        self.seen: tuple[int, int] | None = None  # (game id, version) last sent
        self.user_id: int | None = None
        self.watching = False
        self.held: dict[int, dict[str, Any]] = {}  # pushes waiting for an earlier version
        self.releaser: asyncio.Task[None] | None = None
        # Accept first: a close code sent before accepting becomes a bare HTTP 403.
        await self.accept()
        try:
            room = await in_db_thread(_watchable_room, self.room_id, self.user, self.scope)
        except play.PlayError as exc:
            await self.close(code=CLOSE_CODES.get(exc.code, 4403))
            return
        self.user_id = self.user.pk
        # Join before reading the table, so no change falls between the read and the join.
        await self.channel_layer.group_add(play.room_group(room.pk), self.channel_name)
        await self.channel_layer.group_add(play.user_group(self.user_id), self.channel_name)
        await self.channel_layer.group_add(play.watch_group(room.pk), self.channel_name)
        self.watching = True
        await self.send_table()

    async def disconnect(self, code: int) -> None:
        if self.releaser is not None:
            self.releaser.cancel()
        if self.user_id is not None:
            await self.channel_layer.group_discard(play.room_group(self.room_id), self.channel_name)
            await self.channel_layer.group_discard(play.user_group(self.user_id), self.channel_name)
            await self.watch(False)

    # -- from the client ---------------------------------------------------------------------

    async def receive(
        self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any
    ) -> None:
        if self.user_id is None:
            return
        if not self.bucket.take():
            await self.send_error("rate_limited")
            return
        size = len(bytes_data) if bytes_data is not None else len((text_data or "").encode())
        if size > settings.DOBON_WS_MAX_MESSAGE_BYTES:
            await self.send_error("too_large")
            return
        try:
            content = json.loads(text_data) if text_data is not None else None
        except ValueError:
            content = None
        if not isinstance(content, dict):
            await self.send_error("bad_json")
            return
        await self.receive_json(content)

    async def receive_json(self, content: dict[str, Any], **kwargs: Any) -> None:
        kind = content.get("type")
        if kind == "sync":
            await self.send_table(force=True)
        elif kind == "action":
            await self.act(content.get("action"))
        else:
            await self.send_error("unknown_type")

    async def act(self, action: Any) -> None:
        try:
            pushes = await in_db_thread(_act, self.room_id, self.user, action)
        except play.PlayError as exc:
            await self.send_error(exc.code)
            return
        except Exception:
            log.exception("action failed in room %s", self.room_id)
            await self.send_error("server_error")
            return
        # Sent from here, not from the database thread, which is free for the next
        # move meanwhile. No direct answer: the change arrives through the groups.
        await play.send_pushes(pushes)

    # -- to the client --------------------------------------------------------------------------

    async def send_error(self, code: str) -> None:
        with translation.override(self.language):
            message = message_for(code)
        await self.send_json({"type": "error", "code": code, "message": message})

    async def send_table(self, force: bool = False) -> None:
        try:
            state = await in_db_thread(_table, self.room_id, self.user, self.scope)
        except play.PlayError:  # the room vanished (or access went) while connected
            await self.close(code=4404)
            return
        if state["game"] is not None:
            key = (state["game"], state["version"])
            if not force and self.seen is not None and key <= self.seen:
                return
            self.seen = key
        await self.send_json(state)
        await self.watch_unless_playing(state)

    async def deliver(self, push: dict[str, Any]) -> None:
        """Send a pushed change in version order, unless this socket already has it.

        Consecutive versions may be committed by different processes (two daphnes, a
        Celery worker), so version n+1 can overtake version n on its way here. A push
        that skips a version waits up to REORDER_WAIT for the missing one; then it goes
        out anyway (the client sees the gap and resyncs)."""
        key = (push["game"], push["version"])
        if self.seen is not None and key <= self.seen:
            return
        if self.seen is not None and key[0] == self.seen[0] and key[1] > self.seen[1] + 1:
            self.held[key[1]] = push
            if self.releaser is None:
                self.releaser = asyncio.create_task(self.release_held_later())
            return
        await self.send_push(push)
        while self.seen is not None and self.seen[1] + 1 in self.held:
            await self.send_push(self.held.pop(self.seen[1] + 1))

    async def release_held_later(self) -> None:
        await asyncio.sleep(REORDER_WAIT)
        self.releaser = None
        held, self.held = self.held, {}
        for version in sorted(held):
            push = held[version]
            if self.seen is None or (push["game"], version) > self.seen:
                await self.send_push(push)

    async def send_push(self, push: dict[str, Any]) -> None:
        self.seen = (push["game"], push["version"])
        for event in push["events"]:
            await self.send_json(
                {"type": "event", "game": push["game"], "version": push["version"], "event": event}
            )
        view = push["view"]
        state = {
            "type": "state", "game": push["game"], "number": push["number"],
            "version": push["version"], "status": push["status"], "seat": push["seat"],
            "view": view, "deadline": play.deadline_of(view), "players": push["players"],
            "server_time": time.time(),
        }
        if push.get("room_info") is not None:
            state["room"] = push["room_info"]
        await self.send_json(state)
        await self.watch_unless_playing(state)

    async def watch_unless_playing(self, state: dict[str, Any]) -> None:
        """Players of the running game get their own view through their user group; only
        the others need the watchers' copy (which players would just throw away)."""
        playing = state["seat"] is not None and state["status"] == "running"
        await self.watch(not playing)

    async def watch(self, on: bool) -> None:
        if on == self.watching:
            return
        if on:
            await self.channel_layer.group_add(play.watch_group(self.room_id), self.channel_name)
        else:
            await self.channel_layer.group_discard(
                play.watch_group(self.room_id), self.channel_name
            )
        self.watching = on

    # -- from the groups (channel message types) -------------------------------------------------

    async def game_private(self, push: dict[str, Any]) -> None:
        # The user group reaches this user's sockets in every room: keep this room's.
        if push["room"] == self.room_id:
            await self.deliver(push)

    async def game_public(self, push: dict[str, Any]) -> None:
        # Players get their own view through their user group; this one is for watchers.
        if self.user_id not in push["seated"]:
            await self.deliver(push)

    async def table_sync(self, message: dict[str, Any]) -> None:
        await self.send_table(force=True)


async def in_db_thread(fn: Callable[..., T], *args: Any) -> T:
    """Run `fn` in the process's database thread, keeping its connection open.

    channels' database_sync_to_async closes the connection after every call
    (CONN_MAX_AGE = 0), so every move and every new socket would pay a fresh
    PostgreSQL connection (~7 ms here) on the one thread all sockets share. All
    thread-sensitive calls of a process run in that one thread, so the one connection
    kept is not a leak; a broken one is dropped before use.
    """
    return await sync_to_async(_keeping_connection)(fn, *args)


def _keeping_connection(fn: Callable[..., T], *args: Any) -> T:
    for conn in connections.all(initialized_only=True):
        if conn.connection is not None and conn.errors_occurred and not conn.is_usable():
            conn.close()
    try:
        return fn(*args)
    finally:
        # With psycopg's pool (settings: DOBON_DB_POOL) a close only hands the connection
        # back, so nothing is kept checked out by this thread between messages.
        for conn in connections.all(initialized_only=True):
            if getattr(conn, "pool", None) is not None:
                conn.close()


def _act(room_id: int, user: Any, action: Any) -> list[play.Push]:
    """One move; its pushes come back to be sent from the event loop."""
    with play.deferred_pushes() as pushes:
        play.act_in_room(room_id, user, action)
    return pushes


def _watchable_room(room_id: int, user: Any, scope: dict[str, Any]) -> Any:
    # Reading the session is a query too, so it happens here, in the database thread.
    invited = rooms.invited_room_ids(scope.get("session"))
    return play.check_can_watch(room_id, user, invited)


def _table(room_id: int, user: Any, scope: dict[str, Any]) -> dict[str, Any]:
    room = _watchable_room(room_id, user, scope)
    return play.table_for(room, user)
