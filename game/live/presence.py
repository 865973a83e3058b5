"""Who has a socket open where: the per-user socket cap and the rooms' presence lists.

Every open room socket is an entry (channel name, user, username, room) with an expiry
time. Its process refreshes the expiry of its live sockets every `ttl / 3` seconds; an
entry whose process died (kill -9, lost Redis connection) stops being refreshed and
expires after `ttl`, and the next refresh of any process serving that room pushes the
shorter presence list. So a socket that died without saying goodbye cannot stay
"online", nor count against its user's cap, for longer than `ttl`.

Two stores with the same methods: Redis sorted sets (scores are expiry times) when
`REDIS_URL` is set, so every daphne process sees the same counts, and process memory
otherwise (one process serves everything then). Time is an input (`clock`), so tests
move it instead of waiting.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

log = logging.getLogger(__name__)

Clock = Callable[[], float]
PresenceSender = Callable[[int, list[str]], Awaitable[None]]
# Another task of each refresh round, given the store and the time (e.g. clearing program
# marks whose sockets died with their process: game/services/programs.py).
Round = Callable[[Any, float], Awaitable[Any]]


@dataclass(frozen=True)
class Entry:
    channel: str
    user_id: int
    username: str
    room_id: int
    program: bool = False  # a token client's socket (game/services/programs.py)

    @property
    def member(self) -> tuple[str, str, int | None]:
        """The room's record of the socket: the username for presence, the channel,
        and for a program's socket its user id (which seats play as programs)."""
        return (self.username, self.channel, self.user_id if self.program else None)

    @property
    def cap_key(self) -> str:
        """What the socket counts against: its user's browser sockets, or apart, its
        user's program sockets (issue 20: a stolen token's sockets took the owner's whole
        cap, and the owner's browser got 4409)."""
        return f"{self.user_id}:program" if self.program else str(self.user_id)


class Store(Protocol):
    async def admit(self, entry: Entry, cap: int, now: float, ttl: float) -> bool: ...
    async def forget(self, entry: Entry) -> None: ...
    async def online(self, room_id: int, now: float) -> list[str]: ...
    async def refresh(self, entries: list[Entry], now: float, ttl: float) -> None: ...
    async def purge(self, room_ids: set[int], now: float) -> set[int]: ...
    async def program_users(self, room_id: int, now: float) -> set[int]: ...


# -- process memory ---------------------------------------------------------------------


class MemoryStore:
    """One process, no Redis: dicts of expiry times."""

    def __init__(self) -> None:
        self.users: dict[str, dict[str, float]] = {}
        self.rooms: dict[int, dict[tuple[str, str, int | None], float]] = {}

    async def admit(self, entry: Entry, cap: int, now: float, ttl: float) -> bool:
        sockets = self.users.setdefault(entry.cap_key, {})
        for channel in [c for c, until in sockets.items() if until <= now]:
            del sockets[channel]
        if len(sockets) >= cap:
            return False
        sockets[entry.channel] = now + ttl
        self.rooms.setdefault(entry.room_id, {})[entry.member] = now + ttl
        return True

    async def forget(self, entry: Entry) -> None:
        self.users.get(entry.cap_key, {}).pop(entry.channel, None)
        self.rooms.get(entry.room_id, {}).pop(entry.member, None)

    async def online(self, room_id: int, now: float) -> list[str]:
        members = self.rooms.get(room_id, {})
        return sorted({member[0] for member, until in members.items() if until > now})

    async def refresh(self, entries: list[Entry], now: float, ttl: float) -> None:
        for e in entries:
            if e.channel in self.users.get(e.cap_key, {}):
                self.users[e.cap_key][e.channel] = now + ttl
            if e.member in self.rooms.get(e.room_id, {}):
                self.rooms[e.room_id][e.member] = now + ttl

    async def purge(self, room_ids: set[int], now: float) -> set[int]:
        changed = set()
        for room_id in room_ids:
            members = self.rooms.get(room_id, {})
            expired = [key for key, until in members.items() if until <= now]
            for key in expired:
                del members[key]
            if expired:
                changed.add(room_id)
        return changed

    async def program_users(self, room_id: int, now: float) -> set[int]:
        members = self.rooms.get(room_id, {})
        return {m[2] for m, until in members.items() if until > now and m[2] is not None}


# -- Redis --------------------------------------------------------------------------------

# Atomically: drop the user's expired sockets, refuse when the cap is reached, else add.
ADMIT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[5])
redis.call('EXPIRE', KEYS[2], ARGV[6])
return 1
"""


class RedisStore:
    """Shared by every process: `dobon:ws:user:<id>` (channels) and
    `dobon:ws:room:<id>` (["username", channel] members, ["username", channel, user id]
    for a program's socket), scored by expiry time."""

    def __init__(self, url: str) -> None:
        import redis.asyncio

        # A blocking pool: redis-py's default pool raises "Too many connections" past 100
        # concurrent commands (a few hundred sockets connecting at once); this one waits.
        pool = redis.asyncio.BlockingConnectionPool.from_url(url, max_connections=64, timeout=10)
        self.redis = redis.asyncio.Redis(connection_pool=pool)
        self.admit_script = self.redis.register_script(ADMIT)

    @staticmethod
    def user_key(entry: Entry) -> str:
        return f"dobon:ws:user:{entry.cap_key}"

    @staticmethod
    def room_key(room_id: int) -> str:
        return f"dobon:ws:room:{room_id}"

    @staticmethod
    def member(entry: Entry) -> str:
        username, channel, program_user = entry.member
        return json.dumps([username, channel] if program_user is None else list(entry.member))

    async def admit(self, entry: Entry, cap: int, now: float, ttl: float) -> bool:
        keys = [self.user_key(entry), self.room_key(entry.room_id)]
        args: list[str | int | float] = [
            now, now + ttl, entry.channel, cap, self.member(entry), int(ttl * 2) + 1
        ]
        return bool(await self.admit_script(keys=keys, args=args))

    async def forget(self, entry: Entry) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrem(self.user_key(entry), entry.channel)
            pipe.zrem(self.room_key(entry.room_id), self.member(entry))
            await pipe.execute()

    async def online(self, room_id: int, now: float) -> list[str]:
        members = await self.redis.zrangebyscore(self.room_key(room_id), f"({now}", "+inf")
        return sorted({json.loads(m)[0] for m in members if isinstance(m, (bytes, str))})

    async def refresh(self, entries: list[Entry], now: float, ttl: float) -> None:
        if not entries:
            return
        until, keep = now + ttl, int(ttl * 2) + 1
        async with self.redis.pipeline(transaction=False) as pipe:
            for e in entries:
                pipe.zadd(self.user_key(e), {e.channel: until}, xx=True)
                pipe.zadd(self.room_key(e.room_id), {self.member(e): until}, xx=True)
            for key in {self.user_key(e) for e in entries} | {
                self.room_key(e.room_id) for e in entries
            }:
                pipe.expire(key, keep)
            await pipe.execute()

    async def purge(self, room_ids: set[int], now: float) -> set[int]:
        if not room_ids:
            return set()
        rooms = sorted(room_ids)
        async with self.redis.pipeline(transaction=False) as pipe:
            for room_id in rooms:
                pipe.zremrangebyscore(self.room_key(room_id), "-inf", now)
            removed = await pipe.execute()
        return {room_id for room_id, n in zip(rooms, removed, strict=True) if n}

    async def program_users(self, room_id: int, now: float) -> set[int]:
        members = await self.redis.zrangebyscore(self.room_key(room_id), f"({now}", "+inf")
        found = (json.loads(m) for m in members if isinstance(m, (bytes, str)))
        return {m[2] for m in found if len(m) > 2}


# -- the process's view ---------------------------------------------------------------------


class Registry:
    """This process's sockets in a shared store, and the refresh loop that keeps them
    alive there. `alive(entry)` says whether a local socket still runs (its consumer
    object may be gone without a disconnect)."""

    def __init__(self, store: Store, ttl: float, clock: Clock = time.time) -> None:
        self.store, self.ttl, self.clock = store, ttl, clock
        self.local: dict[str, tuple[Entry, weakref.ref[Any]]] = {}
        self.refresher: asyncio.Task[None] | None = None
        # Given by the socket layer (game/live/consumers.py), which imports this module:
        # how to push presence, and what else runs each refresh round.
        self.announce: PresenceSender | None = None
        self.rounds: list[Round] = []

    def connect(self, announce: PresenceSender, *rounds: Round) -> Registry:
        """Say how presence is pushed and what else each refresh round runs (once)."""
        self.announce = announce
        self.rounds = list(rounds)
        return self

    async def admit(self, entry: Entry, owner: Any, cap: int) -> bool:
        """Count the socket for its user and room, unless the user already has `cap`."""
        if not await self.store.admit(entry, cap, self.clock(), self.ttl):
            return False
        self.local[entry.channel] = (entry, weakref.ref(owner))
        self._ensure_refresher()
        return True

    async def forget(self, entry: Entry) -> None:
        self.local.pop(entry.channel, None)
        await self.store.forget(entry)

    async def online(self, room_id: int) -> list[str]:
        return await self.store.online(room_id, self.clock())

    async def refresh_once(self, send_presence: PresenceSender) -> set[int]:
        """Keep live local sockets, drop dead ones, purge expired entries of the rooms
        this process serves and push presence where it shrank. Returns those rooms."""
        live, vanished = [], set()
        for channel, (entry, owner) in list(self.local.items()):
            if owner() is None:  # the consumer vanished without a disconnect
                del self.local[channel]
                await self.store.forget(entry)
                vanished.add(entry.room_id)
            else:
                live.append(entry)
        now = self.clock()
        await self.store.refresh(live, now, self.ttl)
        changed = vanished | await self.store.purge({e.room_id for e in live}, now)
        for room_id in sorted(changed):
            await send_presence(room_id, await self.store.online(room_id, now))
        return changed

    def _ensure_refresher(self) -> None:
        if self.refresher is None or self.refresher.done():
            self.refresher = asyncio.get_running_loop().create_task(self._refresh_forever())

    async def _refresh_forever(self) -> None:
        while self.local:
            await asyncio.sleep(self.ttl / 3)
            try:
                if self.announce is not None:
                    await self.refresh_once(self.announce)
                for extra_round in self.rounds:
                    await extra_round(self.store, self.clock())
            except Exception:  # a Redis hiccup: the next round tries again
                log.warning("socket registry refresh failed", exc_info=True)


_registries: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Registry] = (
    weakref.WeakKeyDictionary()
)


def registry() -> Registry:
    """The registry of the running event loop (one per server process; tests run one
    loop each, so they never share entries)."""
    from django.conf import settings

    loop = asyncio.get_running_loop()
    found = _registries.get(loop)
    if found is None:
        store: Store = RedisStore(settings.REDIS_URL) if settings.REDIS_URL else MemoryStore()
        found = Registry(store, float(settings.DOBON_WS_SOCKET_TTL))
        _registries[loop] = found
    return found
