"""One channel-layer message per committed move, handed out in-process (issue #22).

Before, a move was one group send per seated user (the user's group: their seat's view)
and one to the room's watchers group: five PUBLISHes for a table of four, and every
process with a socket in any of those groups received each of them, where each socket
unpacked it and most threw it away (a user's group reaches their sockets in every room).

Now every server process has one fan-out channel, made when its first socket enters a
room, and that channel is in a room's fan-out group exactly while the process has a
socket in the room: joined on the first, left on the last. A move is packed (`packed`)
into one message for that group carrying every seat's private push and the watchers'
push. Each process that receives it hands each of its sockets in the room what is its
own (`own_push`): a seated user's sockets get their seat's push, every other socket the
watchers'. The process that committed the move hands it to its own sockets directly
(`Fanout.publish`) and skips its copy when it comes back through the layer (`origin`);
a Celery worker or beat has no sockets and just publishes.

On the layer a move travels sealed (`sealed`): the seats' and watchers' pushes as one
JSON body (orjson, encoded once by the sender), beside the few fields a receiver decides
on (type, room, origin). The layer's msgpack then packs a short envelope and a byte
string instead of five nested views, and a process opens the body (`opened`) only when
it hands the move out: its own copy coming back is dropped unopened (issue #22: the
nested msgpack of every move, packed once and unpacked by every process, the sender's
own wasted copy included, cost daphne ~0.2 ms a move, sealed ~0.07 ms;
docs/performance.md). An unsealed move (from older code) is still read; a process still
on that older code cannot open a sealed one, and its sockets resume from the gap
(docs/protocol.md) until it is restarted.

`DOBON_PROCESS_FANOUT=false` sends the pushes as before (a user group per seat, the
watchers' group), for comparing the two or for the first step of a rolling upgrade: a
process still on the old code only listens to those groups (docs/performance.md).

Imports nothing of ours but the group names: the services publish through it
(game/services/play.py, game/live/sender.py), the sockets register with it
(game/live/consumers.py).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
import weakref
from typing import Any, Protocol

import orjson
from django.conf import settings

from game import logs
from game.live.groups import fanout_group

log = logging.getLogger(__name__)

Push = tuple[str, dict[str, Any]]  # (group, channel message)

MOVE = "game.move"  # the packed message of one move: every seat's push and the watchers'
PRIVATE, PUBLIC = "game.private", "game.public"  # one seat's push; the watchers' push


def enabled() -> bool:
    return bool(settings.DOBON_PROCESS_FANOUT)


# -- packing: what a move sends ----------------------------------------------------------


def packed(pushes: list[Push]) -> list[Push]:
    """`pushes` with each move's seat and watcher pushes (game/services/play.py's
    `build_pushes`) packed into one message to its room's fan-out group, where the
    move's first push was; other messages unchanged. As given when the fan-out is off."""
    if not enabled():
        return list(pushes)
    result: list[Push] = []
    moves: dict[tuple[int, int, int], dict[str, Any]] = {}
    for group, message in pushes:
        if message.get("type") not in (PRIVATE, PUBLIC):
            result.append((group, message))
            continue
        # By the game's own change count: a private change keeps the public version.
        change = message["change"] if "change" in message else message["version"]
        key = (message["room"], message["game"], change)
        move = moves.get(key)
        if move is None:
            move = moves[key] = {"type": MOVE, "room": key[0], "private": [], "public": None}
            result.append((fanout_group(key[0]), move))
        if message["type"] == PRIVATE:
            move["private"].append(message)
        else:
            move["public"] = message
    return result


def sealed(move: dict[str, Any], origin: str | None = None) -> dict[str, Any]:
    """`move` (from `packed`) as it goes on the layer: its pushes in one JSON body,
    with `origin` when the sender hands the move to its own sockets itself."""
    body = {key: value for key, value in move.items() if key not in ("type", "room")}
    message: dict[str, Any] = {"type": MOVE, "room": move["room"],
                               "body": orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS)}
    if origin is not None:
        message["origin"] = origin
    return message


def opened(message: dict[str, Any]) -> dict[str, Any]:
    """A move from the layer with its body opened. A move sent unsealed (by a process
    on the code before `sealed`, during a rolling restart) is already open."""
    if "body" not in message:
        return message
    envelope = {key: value for key, value in message.items() if key != "body"}
    return {**envelope, **orjson.loads(message["body"])}


def own_push(move: dict[str, Any], user_id: int | None) -> dict[str, Any] | None:
    """What a socket of `user_id` gets of `move`: its seat's push if the user has a seat,
    else the watchers' push. The one place a socket's share is chosen."""
    if user_id is None:
        return None
    private: list[dict[str, Any]] = move["private"]
    public: dict[str, Any] | None = move["public"]
    return next((push for push in private if push["user"] == user_id), public)


async def publish(layer: Any, move: dict[str, Any]) -> None:
    """Send a committed move from this event loop: through this process's fan-out when
    it has one (its own sockets served at once), else just to the room's group."""
    fanout = _fanouts.get(asyncio.get_running_loop())
    if fanout is None:
        await layer.group_send(fanout_group(move["room"]), sealed(move))
    else:
        await fanout.publish(move)


# -- a process's sockets ----------------------------------------------------------------------


class LocalSocket(Protocol):
    """A room socket as the fan-out sees it (game/live/consumers.py's RoomConsumer)."""

    room_id: int
    user_id: int | None

    async def take_push(self, push: dict[str, Any]) -> None: ...


class Fanout:
    """One process's fan-out channel, the rooms it serves and their local sockets."""

    def __init__(self, layer: Any) -> None:
        self.layer = layer
        self.origin = uuid.uuid4().hex  # says "mine" on the copy that comes back
        self.channel: str | None = None
        self.receiver: asyncio.Task[None] | None = None
        self.sockets: dict[int, weakref.WeakSet[Any]] = {}
        self.subscribed: set[int] = set()  # rooms whose group the channel is in
        self.following = asyncio.Lock()  # joins and leaves of groups take turns

    async def join(self, socket: LocalSocket) -> None:
        """Count `socket` in; the process's first socket in a room joins the room's group.
        Before the socket reads its table, so no move falls between the two."""
        self.sockets.setdefault(socket.room_id, weakref.WeakSet()).add(socket)
        await self._follow(socket.room_id)

    async def leave(self, socket: LocalSocket) -> None:
        """Count `socket` out (idempotent); the last one leaves the room's group."""
        local = self.sockets.get(socket.room_id)
        if local is not None:
            local.discard(socket)
            if not local:
                del self.sockets[socket.room_id]
        await self._follow(socket.room_id)

    def serves(self, room_id: int) -> bool:
        return bool(self.sockets.get(room_id))

    async def _follow(self, room_id: int) -> None:
        """Put the channel in the room's group exactly when a local socket is there."""
        async with self.following:
            wanted = enabled() and self.serves(room_id)
            if wanted and room_id not in self.subscribed:
                channel = await self._receiving()
                await self.layer.group_add(fanout_group(room_id), channel)
                self.subscribed.add(room_id)
            elif not wanted and room_id in self.subscribed:
                self.subscribed.discard(room_id)
                await self.layer.group_discard(fanout_group(room_id), self.channel)
                if not self.subscribed:
                    await self._stop_receiving()

    async def _receiving(self) -> str:
        if self.channel is None:
            self.channel = await self.layer.new_channel("fanout.")
            loop = asyncio.get_running_loop()
            self.receiver = loop.create_task(self._receive_forever(self.channel))
        return self.channel

    async def _stop_receiving(self) -> None:
        """No room left: the channel goes (a cancelled receive drops it from the layer)."""
        receiver, self.receiver, self.channel = self.receiver, None, None
        if receiver is not None:
            receiver.cancel()
            await asyncio.wait([receiver])

    async def _receive_forever(self, channel: str) -> None:
        while True:
            try:
                message = await self.layer.receive(channel)
            except asyncio.CancelledError:
                raise
            except Exception:  # a Redis hiccup: the layer reconnects; clients resync
                log.warning("fan-out receive failed", exc_info=True)
                await asyncio.sleep(0.1)
                continue
            if message.get("type") != MOVE or message.get("origin") == self.origin:
                continue  # our own move: its sockets here have it already (unopened)
            try:
                await self.hand_out(opened(message))
            except Exception as exc:  # a malformed message must not end the process's fan-out
                log.error("fan-out of a move to room %s failed", message.get("room"),
                          exc_info=logs.withheld(exc))

    async def publish(self, move: dict[str, Any]) -> None:
        """A move committed in this process: one message for the other processes, then
        this process's sockets directly. The send is tried first and alone, so that no
        socket here can hold up (or undo) the others' copy."""
        try:
            await self.layer.group_send(fanout_group(move["room"]), sealed(move, self.origin))
        except Exception:  # clients resync by version; a failed push must not undo a move
            log.exception("fan-out of room %s failed", move["room"])
        await self.hand_out(move)

    async def hand_out(self, move: dict[str, Any]) -> None:
        """Each local socket of the move's room gets its own share, in turn."""
        local = self.sockets.get(move["room"])
        if not local:
            return
        for socket in list(local):
            push = own_push(move, socket.user_id)
            if push is None:
                continue
            try:
                await socket.take_push(push)
            except Exception as exc:  # one broken socket must not keep the move from the others
                log.error("push to a socket of room %s failed", move["room"],
                          exc_info=logs.withheld(exc))


_fanouts: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Fanout] = (
    weakref.WeakKeyDictionary()
)


def here(layer: Any) -> Fanout:
    """The fan-out of the running event loop (one per server process; tests run one loop
    each, so they never share sockets)."""
    loop = asyncio.get_running_loop()
    found = _fanouts.get(loop)
    if found is None:
        found = _fanouts[loop] = Fanout(layer)
    return found
