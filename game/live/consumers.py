"""The live table socket, `/ws/rooms/<id>/`: protocol v2 (docs/protocol.md).

Thin: parse, call one service, send. Client → server: `action`, `sync` (plain or
resuming from a version), `stamp`. Server → client: `state` (the table as this user may
see it, with the events since the version the client had), `presence`, `stamp`, `error`.

No socket can stall the others:
- a message is counted against the rate limit when it arrives, not when its work is
  done: `receive` never waits for the database; moves and syncs queue per socket and
  run on database thread pools (reads and moves apart), so pushes to this socket and
  every other socket's messages go on meanwhile;
- at most one `sync` per socket is queued or running, and syncs (whole-table reads) wait
  for their user's and their client address's budgets in this process
  (game/live/budgets.py); messages count against their address's and their user's
  budgets too, before parsing, so a crowd of sockets is held like one client; a flood
  closes the socket (4429), and so do syncs sent again and again while the socket's
  previous one is pending; the flooding address then sits out a while (4411, at
  admission);
- a new socket is admitted per client address and per process before any database work
  (game/live/admission.py: 4410, 4411, 4503), then against its user's cap,
  `DOBON_WS_MAX_SOCKETS_PER_USER` browser sockets over all processes, and apart from
  those `DOBON_WS_MAX_PROGRAM_SOCKETS_PER_USER` token sockets (4409), before the room is
  read; a room takes at most `DOBON_WS_MAX_WATCHERS_PER_ROOM` sockets of non-members
  (4412). A socket stops counting the moment its client closes (game/live/transport.py);
- a move, once sent, is applied and announced whatever happens to its socket: the work
  runs in a task of its own, not in the socket's;
- a client that does not read is dropped when its send buffer passes
  `DOBON_WS_MAX_SEND_BUFFER` (4499).

Close codes are the table of docs/protocol.md; access that goes away while connected
(room turned private, removal, rotated invite, logout, new password) closes the socket
at once with 4408 or 4401 (game/services/access.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import itertools
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import orjson
from asgiref.sync import sync_to_async
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import translation

from accounts.middleware import chosen_language
from game import json_values, logs, metrics
from game.live import admission, drain, fanout, groups, memory, transport
from game.live.admission import client_address
from game.live.budgets import Budget, ProcessBudgets
from game.live.presence import Entry, Join, Registry, registry
from game.live.shared_reads import SharedReads
from game.messages import message_for
from game.models import Membership
from game.services import access, lean_moves, panel, play, programs, rooms, stamps

log = logging.getLogger(__name__)

T = TypeVar("T")

# How long a push that skipped a version waits for the missing one (see deliver).
REORDER_WAIT = 0.2
# Moves a socket may have waiting for the database; more answer rate_limited.
MAX_QUEUED_ACTIONS = 4
# A socket's own message limit: this many a second, in bursts of as many.
MESSAGES_PER_SOCKET = "DOBON_WS_MAX_MESSAGES_PER_SECOND"

CLOSE_ANONYMOUS = 4401
CLOSE_NOT_FOUND = 4404  # no such room, or not yours to see: one code, as HTTP's 404
CLOSE_TOO_MANY_SOCKETS = 4409
CLOSE_ROOM_FULL = 4412  # the room's watcher cap
CLOSE_TOO_LARGE = 4413
CLOSE_FLOOD = 4429
CLOSE_NOT_READING = 4499
CLOSE_CODES = {"anonymous": CLOSE_ANONYMOUS, "forbidden": CLOSE_NOT_FOUND,
               "no_room": CLOSE_NOT_FOUND}

Clock = Callable[[], float]


class ClientGone(Exception):
    """The client left before its table could be read (nothing was read or spent)."""


class FloodWatch:
    """Refusals by the rate limit "in a row": since the first refusal, the client never
    stayed within the limit for a whole second. `flooding` once that lasted `seconds`."""

    def __init__(self, seconds: float, clock: Clock) -> None:
        self.seconds, self.clock = seconds, clock
        self.since: float | None = None
        self.last: float | None = None

    def refused(self) -> bool:
        """Count a refusal; True when the flood has lasted long enough to close."""
        now = self.clock()
        if self.since is None or (self.last is not None and now - self.last >= 1.0):
            self.since = now
        self.last = now
        return now - self.since >= self.seconds

    def accepted(self) -> None:
        if self.last is not None and self.clock() - self.last >= 1.0:
            self.since = self.last = None


class RoomConsumer(AsyncJsonWebsocketConsumer):
    groups: list[str] = []
    # The rate limiter's clock (monotonic seconds); tests replace it.
    clock: Clock = staticmethod(time.monotonic)
    reorder_wait = REORDER_WAIT
    # One per process, shared by every socket: the per-seat stamp limit (tests replace it).
    stamp_limiter = stamps.StampLimiter()
    # This process's fan-out of moves to its sockets (tests give some sockets another,
    # as if they were served by a second process).
    process_fanout: Callable[[Any], fanout.Fanout] = staticmethod(fanout.here)
    # One per process, shared by every socket: syncs per user and address, messages per
    # address (tests replace it; they move `clock` and replace `pause` instead of waiting).
    budgets = ProcessBudgets()
    # One per process: identical table reads waiting at once share one (tests replace it).
    shared_reads = SharedReads()
    pause: Callable[[float], Coroutine[Any, Any, None]] = staticmethod(asyncio.sleep)

    async def dispatch(self, message: dict[str, Any]) -> None:
        """As channels' dispatch, without its close_old_connections() before every
        message: that hop runs on the one thread-sensitive thread every socket shares,
        so a push would queue behind other sockets' queries. The database work here
        runs in `db_read` / `db_write`, which look after their own connections."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self) -> None:
        try:
            await self.connect_in_turn()
        finally:
            self.end_turn()

    def end_turn(self) -> None:
        """The next socket's turn to connect (game/live/admission.py); idempotent."""
        self.scope.get(admission.CONNECTED_KEY, lambda: None)()

    async def connect_in_turn(self) -> None:
        self.room_id = int(self.scope["url_route"]["kwargs"]["room_id"])
        logs.bind(room=self.room_id)  # this socket's lines, its tasks' and threads' too
        self.user = self.scope.get("user")
        self.language = chosen_language(self.scope.get("cookies", {}))
        self.address = client_address(self.scope)  # None: not grouped by address
        # The socket's own limit: one bucket of the live layer's one kind (budgets.Budget).
        self.bucket = Budget(MESSAGES_PER_SOCKET, MESSAGES_PER_SOCKET)
        self.flood = FloodWatch(settings.DOBON_WS_FLOOD_SECONDS, self.clock)
        self.sync_flood = FloodWatch(settings.DOBON_WS_SYNC_FLOOD_SECONDS, self.clock)
        self.oversize_in_a_row = 0
        self.closing = False  # closed by the server: nothing more is read or sent
        # (game id, version, private step) last sent: a seat's private changes keep the
        # public version and count their own steps (docs/protocol.md).
        self.seen: tuple[int, int, int] | None = None
        self.last_state: dict[str, Any] | None = None  # the table this socket shows
        self.user_id: int | None = None
        self.entry: Entry | None = None
        self.fanout: fanout.Fanout | None = None  # set once the socket is in its room
        self.session_key = getattr(self.scope.get("session"), "session_key", None)
        self.watching = False
        # Pushes waiting for an earlier one, by (version, private step).
        self.held: dict[tuple[int, int], dict[str, Any]] = {}
        self.releaser: asyncio.Task[None] | None = None
        self.jobs: deque[tuple[str, Any]] = deque()
        self.sync_in_flight = False  # queued or being answered
        self.syncing: list[dict[str, Any]] | None = None  # pushes held while a sync reads
        self.wake = asyncio.Event()
        self.worker: asyncio.Task[None] | None = None
        # A program client (accounts/token_auth.py): the token's id, counted as a program.
        self.api_token: int | None = self.scope.get("api_token")
        self.program_counted = False
        # Counting in and out takes turns: a client that closes while its socket is being
        # counted in is counted out right after (`release`, run the moment it closes).
        self.counting = asyncio.Lock()
        self.gone = self.scope.get(transport.CLOSING_KEY) or transport.Closing()
        self.gone.on_close(self.release)
        memory.start_freezing()
        # Accept first: a close code sent before accepting becomes a bare HTTP 403.
        await self.accept()
        if drain.current().draining:  # this process is stopping: come back elsewhere
            await self.close(code=drain.CLOSE_SERVICE_RESTART)
            return
        drain.current().register(self)
        transport.bound_kernel_buffer(
            self.scope.get(transport.SCOPE_KEY), settings.DOBON_WS_MAX_SEND_BUFFER
        )
        if self.scope.get("api_token_refused"):
            await self.close(code=CLOSE_ANONYMOUS, reason="invalid_token")
            return
        # The user's cap first, before the room is read (the user is known already).
        if getattr(self.user, "is_authenticated", False) and not await self.claim():
            if not self.gone.gone:
                await self.close(code=CLOSE_TOO_MANY_SOCKETS)
            return
        try:
            room, member, guest = await db_read(
                _admitted_room, self.room_id, self.user, self.scope)
        except play.PlayError as exc:
            await self.close(code=CLOSE_CODES.get(exc.code, CLOSE_NOT_FOUND))
            return
        joined = await self.join(watcher=not member, guest=guest)
        if not joined:
            if self.entry is not None:  # refused by the cap, not gone meanwhile
                admission.full_rooms.note(self.address, self.room_id)
            if not self.gone.gone:
                await self.close(code=CLOSE_ROOM_FULL)
            return
        self.user_id = self.user.pk
        logs.bind(user=self.user_id)
        # Join before reading the table, so no change falls between the read and the join.
        await self.channel_layer.group_add(groups.room_group(room.pk), self.channel_name)
        await self.channel_layer.group_add(groups.user_group(self.user_id), self.channel_name)
        await self.channel_layer.group_add(groups.watch_group(room.pk), self.channel_name)
        self.watching = True
        self.fanout = self.process_fanout(self.channel_layer)
        await self.fanout.join(self)
        if self.api_token is not None:
            self.program_counted = await db_write(
                programs.program_connected, self.room_id, self.user_id
            )
        self.worker = asyncio.get_running_loop().create_task(self.work())
        # The table waits for the read threads and the sync budgets, not in a turn: a
        # client over its budget must not hold up other clients' connects.
        self.end_turn()
        if not await self.answer_sync(None):
            return  # the client left while its table waited: its disconnect cleans up
        await self.announce_presence(joined)

    async def claim(self) -> bool:
        """Count this socket against its user's cap (over every process)."""
        entry = Entry(self.channel_name, self.user.pk, self.user.username, self.room_id,
                      program=self.api_token is not None)
        cap = (settings.DOBON_WS_MAX_PROGRAM_SOCKETS_PER_USER if entry.program
               else settings.DOBON_WS_MAX_SOCKETS_PER_USER)
        async with self.counting:
            if self.gone.gone or self.closing:  # the client left, or was closed: count nothing
                return False
            if not await sockets().claim(entry, self, cap):
                return False
            self.entry = entry
            self.budgets.socket_opened(entry.user_id, self.clock())
        return True

    async def join(self, watcher: bool, guest: bool = False) -> Join:
        """Count this (claimed) socket in its room, against the watcher caps if its user
        is not a member: the room's (less the places kept for the room's invited guests,
        unless this is one) and its account's (issue #31: 50 accounts filled a room's 300
        places so that nobody else could watch)."""
        cap = settings.DOBON_WS_MAX_WATCHERS_PER_ROOM
        if not guest:  # the guests' places: at most a tenth of the room's
            cap -= min(settings.DOBON_WS_WATCHER_PLACES_FOR_GUESTS, cap // 10)
        async with self.counting:
            if self.entry is None:  # released meanwhile: the client is gone
                return Join.REFUSED
            entry = dataclasses.replace(self.entry, watcher=watcher)
            joined = await sockets().join(
                entry, self, max(cap, 0), settings.DOBON_WS_MAX_WATCHER_SOCKETS_PER_ACCOUNT)
            if joined:
                self.entry = entry
            return joined

    async def release(self) -> None:
        """Stop counting this socket (idempotent): run the moment the client closes or
        drops, before the server answers its close frame, and on every close."""
        async with self.counting:
            entry, self.entry = self.entry, None
            if entry is not None:
                self.budgets.socket_closed(entry.user_id)
                await sockets().forget(entry)

    async def disconnect(self, code: int) -> None:
        for task in (self.releaser, self.worker):
            if task is not None:
                task.cancel()
        await self.release()  # counted out at once; the rest takes its turn
        async with admission.turn_to_leave(self.scope):
            await self.leave_groups()

    async def leave_groups(self) -> None:
        if self.program_counted:
            self.program_counted = False
            await db_write(programs.program_disconnected, self.room_id, self.user_id)
        if self.fanout is not None:
            await self.fanout.leave(self)
        if self.user_id is not None:
            layer, channel = self.channel_layer, self.channel_name
            await layer.group_discard(groups.room_group(self.room_id), channel)
            await layer.group_discard(groups.user_group(self.user_id), channel)
            await self.watch(False)

    async def announce_presence(self, joined: Join) -> None:
        """Everyone in the room learns when a user comes online (one debounced frame per
        room, game/live/presence.py), this socket with them; a user's second socket
        changes nothing for the others, so only it is told."""
        if joined == Join.ENTERED:
            sockets().changed(self.room_id)
        else:
            online = await sockets().online(self.room_id)
            await self.send_json({"type": "presence", "online": online})

    # -- from the client: counted on arrival ----------------------------------------------------

    async def receive(
        self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any
    ) -> None:
        # Draining (game/live/drain.py): nothing more is read; the client resumes elsewhere.
        if self.user_id is None or self.closing or drain.current().draining:
            return
        if not self.bucket.try_take(None, self.clock()) or not self.budgets.message_allowed(
            self.address, self.user_id, self.clock()
        ):
            await self.refuse_flood()
            return
        self.flood.accepted()
        size = len(bytes_data) if bytes_data is not None else len((text_data or "").encode())
        if size > settings.DOBON_WS_MAX_MESSAGE_BYTES:
            await self.refuse_oversize()
            return
        self.oversize_in_a_row = 0
        content = parse_json(text_data)
        if not isinstance(content, dict):
            await self.send_error("bad_json")
            return
        await self.receive_json(content)

    async def refuse_flood(self) -> None:
        if self.flood.refused():
            await self.close_flooding()
        else:
            await self.send_error("rate_limited")

    async def close_flooding(self) -> None:
        """Close a flood (4429); its address's next sockets are refused at admission for
        a while (4411), so reconnecting at once costs the site nothing."""
        admission.flooders.note(self.address, None)
        await self.close(code=CLOSE_FLOOD)

    async def refuse_oversize(self) -> None:
        self.oversize_in_a_row += 1
        if self.oversize_in_a_row >= settings.DOBON_WS_MAX_OVERSIZE_IN_A_ROW:
            await self.close(code=CLOSE_TOO_LARGE)
        else:
            await self.send_error("too_large")

    async def receive_json(self, content: dict[str, Any], **kwargs: Any) -> None:
        kind = content.get("type")
        if kind == "sync":
            await self.queue_sync(content)
        elif kind == "action":
            await self.queue_action(content.get("action"), content.get("version"))
        elif kind == "stamp":
            await self.send_stamp(content.get("stamp"))
        else:
            await self.send_error("unknown_type")

    async def queue_sync(self, content: dict[str, Any]) -> None:
        since: tuple[int, ...] | None = None
        if "game" in content or "version" in content:
            game, version = content.get("game"), content.get("version")
            step = content.get("private", 0)
            if not (is_int(game) and is_int(version) and is_int(step)):
                await self.send_error("bad_sync")
                return
            since = (game, version, step)
        if self.sync_in_flight:
            # One at a time: the answer to the first covers this one. No client needs
            # to ask again before its table came: doing so for DOBON_WS_SYNC_FLOOD_SECONDS
            # on end is a flood (a crowd of sockets syncing within the message limits).
            if self.sync_flood.refused():
                await self.close_flooding()
            return
        self.sync_flood.accepted()
        self.sync_in_flight = True
        self.jobs.append(("sync", since))
        self.wake.set()

    async def queue_action(self, action: Any, version: Any) -> None:
        """`version` (optional): the version the client decided on; a table that moved
        on since refuses the action as `stale` (docs/protocol.md)."""
        if version is not None and not is_int(version):
            await self.send_error("bad_action", refused(action, None))
            return
        if sum(1 for kind, _ in self.jobs if kind == "action") >= MAX_QUEUED_ACTIONS:
            await self.send_error("rate_limited", refused(action, version))
            return
        self.jobs.append(("action", (action, version, time.monotonic())))
        self.wake.set()

    async def send_stamp(self, stamp: Any) -> None:
        """A quick reaction (game/services/stamps.py): rate-limited per seat here (no
        database), then checked and shown to the whole room off the receive path; never
        stored."""
        if stamp not in stamps.STAMPS:
            await self.send_error("unknown_stamp")
        elif not await self.stamp_allowed():
            await self.send_error("stamp_too_soon")
        else:
            self.stamp_limiter.note(self.room_id, self.user_id)
            self.stamp_task = asyncio.get_running_loop().create_task(self.broadcast_stamp(stamp))

    async def stamp_allowed(self) -> bool:
        """This process's limit first (no Redis for a refusal), then, with Redis, the
        same limit over every process (issue #31)."""
        limiter = self.stamp_limiter
        return limiter.ready(self.room_id, self.user_id) and await sockets().stamp_allowed(
            self.room_id, self.user_id, limiter.clock(), limiter.interval)

    async def broadcast_stamp(self, stamp: str) -> None:
        try:
            said = await db_read(stamps.check_stamp, self.room_id, self.user, stamp)
        except play.PlayError as exc:
            await self.send_error(exc.code)
            return
        await self.channel_layer.group_send(
            groups.room_group(self.room_id), {"type": "room.stamp", **said}
        )

    # -- the socket's database work, in arrival order, off the receive path ----------------------

    async def work(self) -> None:
        while True:
            await self.wake.wait()
            self.wake.clear()
            while self.jobs:
                kind, payload = self.jobs.popleft()
                if kind == "sync" and drain.current().draining:
                    self.sync_in_flight = False  # its answer would go to a closing socket
                    continue
                try:
                    if kind == "sync":
                        await self.answer_sync(payload)
                    else:
                        await self.act(payload)
                except Exception as exc:  # keep serving the socket whatever one job did
                    log.error("%s failed in room %s", kind, self.room_id,
                              exc_info=logs.withheld(exc))
                finally:
                    if kind == "sync":
                        self.sync_in_flight = False

    async def within_sync_budget(self) -> bool:
        """Wait until this user's and this address's sync budgets allow one more table
        (True), or until the client is gone (False: nothing spent, nothing to read).
        Waiting, not refusing: the socket's sync stays queued (later ones coalesce into
        it, sync_in_flight), so a client over budget gets its table late, never lost,
        and costs nothing meanwhile. Only this socket's queue waits."""
        while not (self.gone.gone or self.closing):
            wait = self.budgets.sync_wait(self.user.pk, self.address, self.clock())
            if not wait:
                return True
            await self.pause(wait)
        return False

    async def act(self, move: tuple[Any, int | None, float]) -> None:
        """The move in a task of its own: when the socket closes meanwhile (its worker is
        cancelled), the move still commits and every seat still hears of it."""
        await asyncio.shield(detached(self.apply(move)))

    async def apply(self, move: tuple[Any, int | None, float]) -> None:
        """`move`: the action, the version the client saw, and when it arrived
        (monotonic seconds: the move's time to its pushes is a metric)."""
        action, version, received = move
        logs.bind(game=self.seen[0] if self.seen else None)  # this move's task only
        try:
            pushes, after = await act_once(self.room_id, self.user, action, version)
        except play.PlayError as exc:
            await self.send_error(exc.code, refused(action, version))
            return
        except Exception as exc:
            log.error("action failed in room %s", self.room_id, exc_info=logs.withheld(exc))
            await self.send_error("server_error", refused(action, version))
            return
        # Sent from here, not from the database thread, which is free for the next
        # move meanwhile. No direct answer: the change arrives through the groups.
        await play.send_pushes(pushes)
        metrics.moves_pushed(committed_kinds(pushes), time.monotonic() - received)
        for work in after:  # the lean path's after-commit ORM work (a CPU due soon)
            await db_write(work)

    async def answer_sync(self, since: tuple[int, int] | None) -> bool:
        """The current table, with the events since `since` when resuming, once the
        sync budgets allow it. Pushes that arrive while it is read wait, then go out
        after it if they are newer. False when the client left before it was read."""
        self.syncing = []
        try:
            frames: list[dict[str, Any]] | None = await self.shared_table(since)
        except ClientGone:
            self.syncing = None
            return False
        except play.PlayError:  # the room vanished (or access went) while connected
            self.syncing = None
            await self.close(code=CLOSE_NOT_FOUND)
            return False
        except Exception as exc:
            log.error("sync failed in room %s", self.room_id, exc_info=logs.withheld(exc))
            frames = None
        held, self.syncing = self.syncing, None
        if frames is None:
            await self.send_error("server_error")
        # The ended game's catch-up first (play.tables_for), then the current table.
        for state in frames or []:
            if state["game"] is not None:
                self.seen = position(state)
            await self.send_state(state)
        for push in sorted(held, key=position):
            await self.deliver(push)
        return True

    async def shared_table(self, since: tuple[int, int] | None) -> list[dict[str, Any]]:
        """The frames of a sync for this user (and session: its invites) and `since`:
        the current table, after an ended game's catch-up when `since` names one. Sockets
        of one user asking the same at once share one read and spend one sync of the
        budgets (game/live/shared_reads.py): a read is what costs, however many frames
        it gives. Raises ClientGone when this client left before its table was read."""
        key = (self.room_id, self.user.pk, self.session_key, since)
        for tries in itertools.count(1):
            try:
                return await self.shared_reads.read(
                    key, self.read_within_budget, _table, self.room_id, self.user,
                    self.scope, since,
                )
            except ClientGone:
                # A few tries at most: a read that keeps ending in ClientGone without this
                # socket's leaving being seen (a client that aborted mid-handshake) spun
                # the event loop at full CPU for ever (seen in test_stack_churn).
                if self.gone.gone or self.closing or tries >= 3:
                    raise
                # The socket whose read this one joined left before its budget allowed
                # the read: this socket queues a read of its own.
                await asyncio.sleep(0)

    async def read_within_budget(self, fn: Callable[..., T], *args: Any) -> T:
        if not await self.within_sync_budget():
            raise ClientGone
        return await db_read(fn, *args)

    # -- to the client --------------------------------------------------------------------------

    async def send_json(self, content: Any, close: bool = False) -> None:
        # channels' send_json skips this class's send(); every frame must pass there.
        await self.send(text_data=await self.encode_json(content), close=close)

    @classmethod
    async def encode_json(cls, content: Any) -> str:
        return encode(content)

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        """Every frame passes here: a client whose unread backlog is over the limit is
        dropped instead of making this process buffer for it without end."""
        if self.closing:
            return
        backlog = transport.unsent_bytes(self.scope.get(transport.SCOPE_KEY))
        if backlog is not None and backlog > settings.DOBON_WS_MAX_SEND_BUFFER:
            await self.drop_slow_reader(backlog)
            return
        await super().send(text_data=text_data, bytes_data=bytes_data, close=close)

    def busy(self) -> bool:
        """A move of this socket waits to run, or a push waits for an earlier version:
        the drain (game/live/drain.py) lets both finish before closing the sockets."""
        return bool(self.held) or any(kind == "action" for kind, _ in self.jobs)

    async def close_for_restart(self) -> None:
        """The process is stopping: counted out, then closed with 1012 (service
        restart); the client reconnects and resumes by version."""
        if not self.closing:
            await self.close(code=drain.CLOSE_SERVICE_RESTART)

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None:
        """Closed by the server: counted out first, so that once the client has the close
        frame it may open another socket at once."""
        self.closing = True
        await self.release()
        # A restart's 1012 is no refusal: each deploy would show as a burst of them.
        refused = isinstance(code, int) and not isinstance(code, bool)
        if refused and code != drain.CLOSE_SERVICE_RESTART:
            metrics.socket_refused(int(code))
        await super().close(code=code, reason=reason)

    async def drop_slow_reader(self, backlog: int) -> None:
        log.warning("dropping a socket that does not read (%s bytes unsent)", backlog)
        await self.close(code=CLOSE_NOT_READING)
        transport.abort(self.scope.get(transport.SCOPE_KEY))

    async def send_error(self, code: str, about: dict[str, Any] | None = None) -> None:
        """`about`: for a refused action, which one (`refused`), so that a client with
        several moves in flight can tell the answers apart (they may overtake each other)."""
        with translation.override(self.language):
            message = message_for(code)
        await self.send_json({"type": "error", "code": code, "message": message, **(about or {})})

    async def send_state(self, state: dict[str, Any], text: str | None = None) -> None:
        """Send the table `state` (or `text`, that table already encoded in this socket's
        language) and remember it."""
        if text is None:
            await self.send_json(panel.in_language(state, self.language))
        else:
            await self.send(text_data=text)
        # Remembered with the latest room panel, which a later push may leave out.
        if "room" not in state and self.last_state is not None and "room" in self.last_state:
            state = {**state, "room": self.last_state["room"]}
        self.last_state = state
        await self.watch_unless_playing(state)

    async def deliver(self, push: dict[str, Any]) -> None:
        """Send a pushed change in version order, unless this socket already has it.

        Consecutive versions may be committed by different processes (two daphnes, a
        Celery worker), so version n+1 can overtake version n on its way here. A push
        that skips a version waits up to REORDER_WAIT for the missing one; then it goes
        out anyway (its `from_version` shows the gap and the client resumes)."""
        if self.syncing is not None:
            self.syncing.append(push)
            return
        key = position(push)
        if self.seen is not None and key <= self.seen:
            return
        if self.seen is not None and key[0] == self.seen[0] and not follows(key, self.seen):
            self.held[key[1:]] = push
            if self.releaser is None:
                self.releaser = asyncio.create_task(self.release_held_later())
            return
        await self.send_push(push)
        while self.seen is not None:
            after = [k for k in self.held if follows((self.seen[0], *k), self.seen)]
            if not after:
                break
            await self.send_push(self.held.pop(after[0]))

    async def release_held_later(self) -> None:
        await asyncio.sleep(self.reorder_wait)
        self.releaser = None
        held, self.held = self.held, {}
        for at in sorted(held):
            push = held[at]
            if self.seen is None or position(push) > self.seen:
                await self.send_push(push)

    async def send_push(self, push: dict[str, Any]) -> None:
        self.seen = position(push)
        if push["seat"] is None:  # the watchers' frame: built and encoded once per process
            await self.send_state(*watch_frame(push, self.language))
        else:
            await self.send_state(push_state(push))

    async def watch_unless_playing(self, state: dict[str, Any]) -> None:
        """Players of the running game get their own view through their user group; only
        the others need the watchers' copy (which players would just throw away)."""
        playing = state["seat"] is not None and state["status"] == "running"
        await self.watch(not playing)

    async def watch(self, on: bool) -> None:
        if on == self.watching:
            return
        if on:
            await self.channel_layer.group_add(groups.watch_group(self.room_id), self.channel_name)
        else:
            await self.channel_layer.group_discard(
                groups.watch_group(self.room_id), self.channel_name
            )
        self.watching = on

    # -- from the process's fan-out (game/live/fanout.py) ----------------------------------------

    async def take_push(self, push: dict[str, Any]) -> None:
        """This socket's share of a move: its seat's push, or the watchers'."""
        if self.user_id is not None and not self.closing and push["room"] == self.room_id:
            await self.deliver(push)

    # -- from the groups (channel message types) -------------------------------------------------

    async def game_private(self, push: dict[str, Any]) -> None:
        """A seat's push sent to its user's group: with `DOBON_PROCESS_FANOUT` off, or
        from a process still on the old code during a rolling restart."""
        # The user group reaches this user's sockets in every room: keep this room's.
        if push["room"] == self.room_id:
            await self.deliver(push)

    async def game_public(self, push: dict[str, Any]) -> None:
        """The watchers' push sent to the watchers' group (as `game_private`)."""
        # Players get their own view through their user group; this one is for watchers.
        if self.user_id not in push["seated"]:
            await self.deliver(push)

    async def room_panel(self, message: dict[str, Any]) -> None:
        """Seats or settings changed: the table this socket shows, with the new panel
        and no events (nothing happened in the game)."""
        if self.last_state is None:
            return  # the connect's own table (read after joining the group) is newer
        state = {**self.last_state, "events": [], "from_version": self.last_state["version"],
                 "room": message["room"], "server_time": time.time()}
        await self.send_state(state)

    async def presence(self, message: dict[str, Any]) -> None:
        await self.send_json({"type": "presence", "online": message["online"]})

    async def room_stamp(self, message: dict[str, Any]) -> None:
        await self.send_json({"type": "stamp", "stamp": message["stamp"],
                              "username": message["username"],
                              "room_seat": message["room_seat"]})

    async def token_revoked(self, message: dict[str, Any]) -> None:
        """The user revoked a token (accounts/tokens.py): its sockets close at once."""
        if self.api_token is not None and message["token"] == self.api_token:
            await self.disconnect(CLOSE_ANONYMOUS)
            self.user_id = None
            await self.close(code=CLOSE_ANONYMOUS, reason="token_revoked")

    async def table_sync(self, message: dict[str, Any]) -> None:
        """From a process still on protocol v1 during a rolling restart."""
        await self.queue_sync({"type": "sync"})

    # -- access that follows changes (game/services/access.py) ---------------------------------

    async def access_check(self, message: dict[str, Any]) -> None:
        """The room's access rule changed: close unless this user may still see it."""
        if self.user_id is None:
            return
        try:
            await db_read(_still_watchable, self.room_id, self.user, self.session_key)
        except play.PlayError:
            await self.revoke(access.CLOSE_ACCESS_REVOKED)

    async def access_revoked(self, message: dict[str, Any]) -> None:
        if message["room"] == self.room_id:
            await self.revoke(access.CLOSE_ACCESS_REVOKED)

    async def session_ended(self, message: dict[str, Any]) -> None:
        if access.session_matches(message, self.session_key):
            await self.revoke(access.CLOSE_SESSION_ENDED)

    async def revoke(self, code: int) -> None:
        """Leave every group first, so that nothing more reaches this socket, then close."""
        await self.disconnect(code)
        self.user_id = None
        await self.close(code=code)


# -- helpers ------------------------------------------------------------------------------------


def position(frame: dict[str, Any]) -> tuple[int, int, int]:
    """Where a frame (or push) puts its recipient: game, public version, private step."""
    return frame["game"], frame["version"], frame.get("private", 0)


def follows(key: tuple[int, int, int], seen: tuple[int, int, int]) -> bool:
    """Whether `key` comes right after `seen` in one game: the next public version (from
    any private step), or the next private step of the same version."""
    return key[1] == seen[1] + 1 and key[2] == 0 or key[1] == seen[1] and key[2] == seen[2] + 1


def push_state(push: dict[str, Any]) -> dict[str, Any]:
    return play.state_frame(
        game=push["game"], number=push["number"], version=push["version"],
        status=push["status"], seat=push["seat"], view=push["view"],
        players=push["players"], events=push["events"],
        from_version=push["from_version"], room=push.get("room_info"),
        match=push.get("match"),
        game_kind=push.get("game_kind"), preset=push.get("preset"),
        private=push.get("private", 0),
    )


def committed_kinds(pushes: list[play.Push]) -> list[str]:
    """The game kind of every version a move committed (each has one watchers' push)."""
    return [message.get("game_kind") or "dobon_uno" for _, message in pushes
            if message.get("type") == "game.public"]


# (room, game, version, language): the watchers' table and its encoded frame.
_watch_frames: OrderedDict[tuple[Any, ...], tuple[dict[str, Any], str]] = OrderedDict()
WATCH_FRAMES_KEPT = 64


def watch_frame(push: dict[str, Any], language: str) -> tuple[dict[str, Any], str]:
    """The watchers' table of a move and its frame in `language`, encoded once per
    process and language however many watchers this process serves (issue #22)."""
    key = (push["room"], push["game"], push["version"], language)
    found = _watch_frames.get(key)
    if found is None:
        state = push_state(push)
        found = (state, encode(panel.in_language(state, language)))
        _watch_frames[key] = found
        while len(_watch_frames) > WATCH_FRAMES_KEPT:
            _watch_frames.popitem(last=False)
    return found


def encode(content: Any) -> str:
    """A frame's JSON text (orjson: several times faster than json for the tables)."""
    return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS, default=str).decode()


def detached(work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
    """`work` as a task that no socket owns: kept until it ends, even when the socket
    that started it is closed and its tasks are cancelled; a drain waits for it."""
    task = asyncio.get_running_loop().create_task(work)
    drain.current().track(task)
    return task


def refused(action: Any, version: Any) -> dict[str, Any]:
    """What an error frame says of the action it refuses: its `action` type and the
    `version` it was sent with, each null when the client gave none that is valid (an
    odd type is not echoed)."""
    kind = action.get("type") if isinstance(action, dict) else None
    known = isinstance(kind, str) and kind in play.ACTION_TYPES  # a list is unhashable
    return {"action": kind if known else None,
            "version": version if is_int(version) else None}


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_json(text: str | None) -> Any:
    """The message as JSON, or None when unreadable: invalid, bytes, nested too deep,
    or holding a number no store keeps (`NaN`, `Infinity`, beyond 64 bits): see
    game/json_values.py."""
    return json_values.parse(text)


def sockets() -> Registry:
    """This process's socket registry, told how presence is pushed and that each refresh
    round also clears program marks left by a process that died."""
    return registry().connect(send_presence, programs.forget_dead_programs)


async def send_presence(room_id: int, online: list[str]) -> None:
    layer = get_channel_layer()
    if layer is not None:
        await layer.group_send(groups.room_group(room_id), {"type": "presence", "online": online})


# -- database work --------------------------------------------------------------------------------

_pools: dict[str, ThreadPoolExecutor] = {}


def _pool(kind: str) -> ThreadPoolExecutor | None:
    """The thread pool for `kind` ("read" or "write") database work, or None for the
    thread-sensitive thread. SQLite (the laptop and test default) keeps the one shared
    thread: it does not take concurrent writers; PostgreSQL gets the pools."""
    if connection.vendor != "postgresql":
        return None
    if kind not in _pools:
        size = settings.DOBON_WS_READ_THREADS if kind == "read" else settings.DOBON_WS_WRITE_THREADS
        _pools[kind] = ThreadPoolExecutor(max(1, size), thread_name_prefix=f"dobon-ws-{kind}")
    return _pools[kind]


async def db_read(fn: Callable[..., T], *args: Any) -> T:
    """Reads for sockets (access checks, tables): never queued behind moves."""
    return await _in_pool("read", fn, *args)


async def db_write(fn: Callable[..., T], *args: Any) -> T:
    """Moves: never queued behind a flood of reads."""
    return await _in_pool("write", fn, *args)


async def _in_pool(kind: str, fn: Callable[..., T], *args: Any) -> T:
    pool = _pool(kind)
    run = functools.partial(_with_fresh_connections, fn, *args)
    if pool is None:
        return await sync_to_async(run)()
    return await sync_to_async(run, thread_sensitive=False, executor=pool)()


def _with_fresh_connections(fn: Callable[..., T], *args: Any) -> T:
    """As channels' database_sync_to_async: connections follow CONN_MAX_AGE (and a
    connection pool, when configured) before and after the work."""
    close_old_connections()
    try:
        return fn(*args)
    finally:
        close_old_connections()


async def act_once(
    room_id: int, user: Any, action: Any, version: int | None
) -> tuple[list[play.Push], list[Callable[[], None]]]:
    """One move, committed: its pushes and the after-commit work to run once they are
    sent. The lean path on the event loop when it is on and can do this move
    (game/services/lean_moves.py); else, or when it falls back, the ORM path in a
    database thread. Raises PlayError on refusal (either path: the same codes)."""
    if lean_moves.enabled():
        done = await lean_moves.act_in_room(room_id, user, action, version)
        if isinstance(done, lean_moves.Applied):
            return done.pushes, done.after
    return await db_write(_act, room_id, user, action, version), []


def _act(room_id: int, user: Any, action: Any, version: int | None) -> list[play.Push]:
    """One move; its pushes come back to be sent from the event loop."""
    with play.deferred_pushes() as pushes:
        play.act_in_room(room_id, user, action, version=version)
    return pushes


def _admitted_room(room_id: int, user: Any, scope: dict[str, Any]) -> tuple[Any, bool, bool]:
    """The room `user` may watch, whether they are one of its members (the watcher caps
    count the others), and whether this session holds the room's current invite (a
    guest: places are kept for them)."""
    invited = rooms.invited_room_ids(scope.get("session"))
    room = play.check_can_watch(room_id, user, invited)
    member = room.owner_id == user.pk or Membership.objects.filter(
        room_id=room.pk, user_id=user.pk
    ).exists()
    return room, member, invited.get(room.pk) == room.invite_code


def _watchable_room(room_id: int, user: Any, scope: dict[str, Any]) -> Any:
    # Reading the session is a query too, so it happens here, in the database thread.
    invited = rooms.invited_room_ids(scope.get("session"))
    return play.check_can_watch(room_id, user, invited)


def _still_watchable(room_id: int, user: Any, session_key: str | None) -> Any:
    return play.check_can_watch(room_id, user, access.current_invites(session_key))


def _table(
    room_id: int, user: Any, scope: dict[str, Any], since: tuple[int, int] | None
) -> list[dict[str, Any]]:
    room = _watchable_room(room_id, user, scope)
    return play.tables_for(room, user, since)
