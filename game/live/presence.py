"""Who has a socket open where: the per-user socket cap, the rooms' watcher caps and
presence lists.

Every open room socket is an entry (channel name, user, username, room) with an expiry
time. Its process refreshes the expiry of its live sockets every `ttl / 3` seconds; an
entry whose process died (kill -9, lost Redis connection) stops being refreshed and
expires after `ttl`, and the next refresh of any process serving that room (or the next
socket that joins it) drops it and announces the shorter presence list. So a socket
that died without saying goodbye cannot stay "online", nor count against its user's
cap, for longer than `ttl`.

A socket is counted in two steps (game/live/consumers.py): `claim`, its place under its
user's cap, before any database work; then `join`, its room (after the access check),
which also counts it against the room's watcher cap when its user is not a member.

Presence is O(1) per change (issue #22): besides the room's entries, the store keeps a
count per username in the room; only a count going from 0 to 1 (a name entered) or to
0 (a name left) makes a presence frame, and the frames of one room are debounced to at
most one per `DOBON_WS_PRESENCE_SECONDS` over all processes. A newcomer's own first
frame is read for it alone.

Two stores with the same methods: Redis (sorted sets scored by expiry time, a hash of
counts, Lua scripts so every step is atomic) when `REDIS_URL` is set, so every daphne
process sees the same counts, and process memory otherwise (one process serves
everything then). Time is an input (`clock`), so tests move it instead of waiting.
"""

from __future__ import annotations

import asyncio
import enum
import json
import logging
import time
import weakref
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

log = logging.getLogger(__name__)

Clock = Callable[[], float]
PresenceSender = Callable[[int, list[str]], Awaitable[None]]
# Another task of each refresh round, given the store and the time (e.g. clearing program
# marks whose sockets died with their process: game/services/programs.py).
Round = Callable[[Any, float], Awaitable[Any]]


class Join(enum.IntEnum):
    """What joining a room did (false only when refused)."""

    REFUSED = 0  # the room's watcher cap is reached
    JOINED = 1  # the user was already online there
    ENTERED = 2  # the user's name entered the room's presence list


@dataclass(frozen=True)
class Entry:
    channel: str
    user_id: int
    username: str
    room_id: int
    program: bool = False  # a token client's socket (game/services/programs.py)
    watcher: bool = False  # its user is not a member of the room (the watcher cap)

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
    async def claim(self, entry: Entry, cap: int, now: float, ttl: float) -> bool: ...
    async def join(
        self, entry: Entry, watcher_cap: int, now: float, ttl: float,
        account_cap: int = 1 << 30,
    ) -> tuple[Join, bool]: ...
    async def forget(self, entry: Entry) -> bool: ...
    async def online(self, room_id: int, now: float) -> list[str]: ...
    async def online_left(self, room_id: int, now: float) -> tuple[list[str], bool]: ...
    async def refresh(self, entries: list[Entry], now: float, ttl: float) -> None: ...
    async def purge(self, room_ids: set[int], now: float) -> set[int]: ...
    async def program_users(self, room_id: int, now: float) -> set[int]: ...
    async def presence_slot(self, room_id: int, seconds: float) -> float: ...
    async def stamp_slot(self, room_id: int, user_id: int, now: float, seconds: float
                         ) -> bool: ...


# -- process memory ---------------------------------------------------------------------


class MemoryStore:
    """One process, no Redis: dicts of expiry times and counts."""

    def __init__(self) -> None:
        self.users: dict[str, dict[str, float]] = {}
        self.rooms: dict[int, dict[tuple[str, str, int | None], float]] = {}
        self.counts: dict[int, Counter[str]] = {}
        self.watchers: dict[int, dict[str, float]] = {}

    async def claim(self, entry: Entry, cap: int, now: float, ttl: float) -> bool:
        sockets = self.users.setdefault(entry.cap_key, {})
        for channel in [c for c, until in sockets.items() if until <= now]:
            del sockets[channel]
        if entry.channel not in sockets and len(sockets) >= cap:
            return False
        sockets[entry.channel] = now + ttl
        return True

    async def join(
        self, entry: Entry, watcher_cap: int, now: float, ttl: float,
        account_cap: int = 1 << 30,
    ) -> tuple[Join, bool]:
        """Count the socket in its room; also whether expired entries dropped on the
        way took a name out. A watcher is refused past `watcher_cap` watchers, or past
        `account_cap` sockets of its user in the room (a non-member's are all watchers)."""
        left = self._purge(entry.room_id, now)
        members = self.rooms.setdefault(entry.room_id, {})
        if entry.watcher:
            watching = self.watchers.setdefault(entry.room_id, {})
            mine = self.counts.get(entry.room_id, Counter())[entry.username]
            if entry.channel not in watching and (
                len(watching) >= watcher_cap or mine >= account_cap
            ):
                return Join.REFUSED, left
            watching[entry.channel] = now + ttl
        if entry.member in members:
            members[entry.member] = now + ttl
            return Join.JOINED, left
        members[entry.member] = now + ttl
        counts = self.counts.setdefault(entry.room_id, Counter())
        counts[entry.username] += 1
        return (Join.ENTERED if counts[entry.username] == 1 else Join.JOINED), left

    async def admit(self, entry: Entry, cap: int, now: float, ttl: float) -> bool:
        """`claim` and `join` at once (tests and tools)."""
        return await self.claim(entry, cap, now, ttl) and bool(
            (await self.join(entry, 1 << 30, now, ttl))[0])

    async def forget(self, entry: Entry) -> bool:
        self.users.get(entry.cap_key, {}).pop(entry.channel, None)
        self.watchers.get(entry.room_id, {}).pop(entry.channel, None)
        if self.rooms.get(entry.room_id, {}).pop(entry.member, None) is None:
            return False
        return self._count_out(entry.room_id, entry.username)

    def _count_out(self, room_id: int, username: str) -> bool:
        counts = self.counts.get(room_id, Counter())
        counts[username] -= 1
        if counts[username] <= 0:
            del counts[username]
            return True
        return False

    def _purge(self, room_id: int, now: float) -> bool:
        members = self.rooms.get(room_id, {})
        left = False
        for member in [m for m, until in members.items() if until <= now]:
            del members[member]
            left = self._count_out(room_id, member[0]) or left
        watching = self.watchers.get(room_id, {})
        for channel in [c for c, until in watching.items() if until <= now]:
            del watching[channel]
        return left

    async def online(self, room_id: int, now: float) -> list[str]:
        return (await self.online_left(room_id, now))[0]

    async def online_left(self, room_id: int, now: float) -> tuple[list[str], bool]:
        """The room's names, and whether expired entries dropped on the way took one out."""
        left = self._purge(room_id, now)
        return sorted(self.counts.get(room_id, Counter())), left

    async def refresh(self, entries: list[Entry], now: float, ttl: float) -> None:
        for e in entries:
            if e.channel in self.users.get(e.cap_key, {}):
                self.users[e.cap_key][e.channel] = now + ttl
            if e.member in self.rooms.get(e.room_id, {}):
                self.rooms[e.room_id][e.member] = now + ttl
            if e.channel in self.watchers.get(e.room_id, {}):
                self.watchers[e.room_id][e.channel] = now + ttl

    async def purge(self, room_ids: set[int], now: float) -> set[int]:
        return {room_id for room_id in room_ids if self._purge(room_id, now)}

    async def program_users(self, room_id: int, now: float) -> set[int]:
        members = self.rooms.get(room_id, {})
        return {m[2] for m, until in members.items() if until > now and m[2] is not None}

    async def presence_slot(self, room_id: int, seconds: float) -> float:
        return 0.0  # one process: the registry's own debounce is the whole story

    async def stamp_slot(self, room_id: int, user_id: int, now: float, seconds: float
                         ) -> bool:
        return True  # one process: its StampLimiter is the whole story


# -- Redis --------------------------------------------------------------------------------

# Room scripts take KEYS = room entries (zset), name counts (hash), watchers (zset).
# Drops the room's expired entries, counting their names out; `left` is 1 if a name left.
PURGE_ROOM = """
local function purge(now)
  local left = 0
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)) do
    redis.call('ZREM', KEYS[1], m)
    local name = cjson.decode(m)[1]
    if redis.call('HINCRBY', KEYS[2], name, -1) <= 0 then
      redis.call('HDEL', KEYS[2], name)
      left = 1
    end
  end
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  return left
end
"""

# KEYS[1] the user's sockets. Drop expired ones, refuse at the cap, else add.
CLAIM = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[3]) == false
   and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
"""

# ARGV: now, until, member, name, watcher (0/1), watcher cap, channel, keep, account cap
# (a non-member's sockets in the room, all watchers: its name's count in KEYS[2]).
# Returns {join (0 refused, 1 joined, 2 entered), left}.
JOIN = PURGE_ROOM + """
local left = purge(ARGV[1])
if ARGV[5] == '1' then
  if redis.call('ZSCORE', KEYS[3], ARGV[7]) == false
     and (redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[6])
          or tonumber(redis.call('HGET', KEYS[2], ARGV[4]) or '0') >= tonumber(ARGV[9]))
  then return {0, left} end
  redis.call('ZADD', KEYS[3], ARGV[2], ARGV[7])
  redis.call('EXPIRE', KEYS[3], ARGV[8])
end
local added = redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[8])
redis.call('EXPIRE', KEYS[2], ARGV[8])
if added == 0 then return {1, left} end
if redis.call('HINCRBY', KEYS[2], ARGV[4], 1) == 1 then return {2, left} end
return {1, left}
"""

# KEYS[4] the user's sockets. ARGV: channel, member, name. Idempotent; 1 if the name left.
FORGET = """
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
if redis.call('ZREM', KEYS[1], ARGV[2]) == 1 then
  if redis.call('HINCRBY', KEYS[2], ARGV[3], -1) <= 0 then
    redis.call('HDEL', KEYS[2], ARGV[3])
    return 1
  end
end
return 0
"""

ONLINE = PURGE_ROOM + """
local left = purge(ARGV[1])
return {left, redis.call('HKEYS', KEYS[2])}
"""

PURGE = PURGE_ROOM + """
return purge(ARGV[1])
"""

# KEYS[1] the room's presence slot. 0 when claimed, else milliseconds until it is free.
SLOT = """
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return 0 end
return math.max(redis.call('PTTL', KEYS[1]), 1)
"""

# KEYS[1] a member's stamp time in a room; ARGV now, interval (s), how long to keep (ms).
# 1 when a stamp may go now (and it is noted), 0 when the last was too recent. A clock
# that went back (now before the last) lets it go.
STAMP = """
local last = tonumber(redis.call('GET', KEYS[1]))
local now = tonumber(ARGV[1])
if last and now >= last and now - last < tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 1
"""

# Sockets refreshed per Redis pipeline: small enough that packing and parsing one stays
# a few milliseconds of the event loop, large enough to keep round trips few.
REFRESH_BATCH = 100


class RedisStore:
    """Shared by every process: `dobon:ws:user:<id>` (channels), `dobon:ws:room:<id>`
    (["username", channel] members, ["username", channel, user id] for a program's
    socket), `…:watch` (watchers' channels), all scored by expiry time, and `…:names`
    (username → sockets in the room)."""

    def __init__(self, url: str) -> None:
        import redis.asyncio

        # A blocking pool: redis-py's default pool raises "Too many connections" past 100
        # concurrent commands (a few hundred sockets connecting at once); this one waits.
        pool = redis.asyncio.BlockingConnectionPool.from_url(url, max_connections=64, timeout=10)
        self.redis = redis.asyncio.Redis(connection_pool=pool)
        self.scripts = {name: self.redis.register_script(source) for name, source in (
            ("claim", CLAIM), ("join", JOIN), ("forget", FORGET), ("online", ONLINE),
            ("purge", PURGE), ("slot", SLOT), ("stamp", STAMP))}

    @staticmethod
    def user_key(entry: Entry) -> str:
        return f"dobon:ws:user:{entry.cap_key}"

    @staticmethod
    def room_key(room_id: int) -> str:
        return f"dobon:ws:room:{room_id}"

    @classmethod
    def room_keys(cls, room_id: int) -> list[str]:
        room = cls.room_key(room_id)
        return [room, f"{room}:names", f"{room}:watch"]

    @staticmethod
    def member(entry: Entry) -> str:
        username, channel, program_user = entry.member
        return json.dumps([username, channel] if program_user is None else list(entry.member))

    async def claim(self, entry: Entry, cap: int, now: float, ttl: float) -> bool:
        args: list[str | float] = [now, now + ttl, entry.channel, cap, int(ttl * 2) + 1]
        return bool(await self.scripts["claim"](keys=[self.user_key(entry)], args=args))

    async def join(
        self, entry: Entry, watcher_cap: int, now: float, ttl: float,
        account_cap: int = 1 << 30,
    ) -> tuple[Join, bool]:
        args: list[str | float] = [
            now, now + ttl, self.member(entry), entry.username, int(entry.watcher),
            watcher_cap, entry.channel, int(ttl * 2) + 1, account_cap,
        ]
        joined, left = await self.scripts["join"](keys=self.room_keys(entry.room_id), args=args)
        return Join(int(joined)), bool(left)

    async def admit(self, entry: Entry, cap: int, now: float, ttl: float) -> bool:
        """`claim` and `join` at once (tests and tools)."""
        return await self.claim(entry, cap, now, ttl) and bool(
            (await self.join(entry, 1 << 30, now, ttl))[0])

    async def forget(self, entry: Entry) -> bool:
        keys = [*self.room_keys(entry.room_id), self.user_key(entry)]
        args = [entry.channel, self.member(entry), entry.username]
        return bool(await self.scripts["forget"](keys=keys, args=args))

    async def online(self, room_id: int, now: float) -> list[str]:
        return (await self.online_left(room_id, now))[0]

    async def online_left(self, room_id: int, now: float) -> tuple[list[str], bool]:
        left, names = await self.scripts["online"](keys=self.room_keys(room_id), args=[now])
        return sorted(n.decode() if isinstance(n, bytes) else n for n in names), bool(left)

    async def refresh(self, entries: list[Entry], now: float, ttl: float) -> None:
        """Push every entry's expiry to `now + ttl`, in pipelines of REFRESH_BATCH
        entries: redis-py packs a pipeline's commands and parses its answers in one go
        on the event loop, and one pipeline for a process's every socket (five commands
        a socket) held its loop, and every move waiting on it, for tens of milliseconds
        at a thousand sockets, every `ttl / 3` seconds (issue #22's human-pace tail)."""
        until, keep = now + ttl, int(ttl * 2) + 1
        expiring: set[str] = set()  # keys given their expiry already this round
        for start in range(0, len(entries), REFRESH_BATCH):
            async with self.redis.pipeline(transaction=False) as pipe:
                for e in entries[start:start + REFRESH_BATCH]:
                    user = self.user_key(e)
                    room, names, watch = self.room_keys(e.room_id)
                    pipe.zadd(user, {e.channel: until}, xx=True)
                    pipe.zadd(room, {self.member(e): until}, xx=True)
                    if e.watcher:
                        pipe.zadd(watch, {e.channel: until}, xx=True)
                    for key in (user, room, names, watch):
                        if key not in expiring:
                            expiring.add(key)
                            pipe.expire(key, keep)
                await pipe.execute()

    async def purge(self, room_ids: set[int], now: float) -> set[int]:
        changed = set()
        for room_id in sorted(room_ids):
            if await self.scripts["purge"](keys=self.room_keys(room_id), args=[now]):
                changed.add(room_id)
        return changed

    async def program_users(self, room_id: int, now: float) -> set[int]:
        members = await self.redis.zrangebyscore(self.room_key(room_id), f"({now}", "+inf")
        found = (json.loads(m) for m in members if isinstance(m, (bytes, str)))
        return {m[2] for m in found if len(m) > 2}

    async def presence_slot(self, room_id: int, seconds: float) -> float:
        key = f"{self.room_key(room_id)}:presence-slot"
        wait_ms = await self.scripts["slot"](keys=[key], args=[max(1, int(seconds * 1000))])
        return float(wait_ms) / 1000

    async def stamp_slot(self, room_id: int, user_id: int, now: float, seconds: float
                         ) -> bool:
        """A member's next stamp in a room, over every process (issue #31: each daphne
        counted its own, so a socket on each of two sent twice the allowance). `now` is
        wall-clock time (the processes' common clock)."""
        key = f"{self.room_key(room_id)}:stamp:{user_id}"
        keep_ms = int(seconds * 1000) + 1000
        return bool(await self.scripts["stamp"](keys=[key], args=[now, seconds, keep_ms]))


# -- the process's view ---------------------------------------------------------------------


class Registry:
    """This process's sockets in a shared store, the refresh loop that keeps them alive
    there, and the debounced presence frames of its rooms. `alive(entry)` says whether
    a local socket still runs (its consumer object may be gone without a disconnect)."""

    def __init__(self, store: Store, ttl: float, clock: Clock = time.time,
                 presence_seconds: float = 1.0, monotonic: Clock = time.monotonic) -> None:
        self.store, self.ttl, self.clock = store, ttl, clock
        self.presence_seconds, self.monotonic = presence_seconds, monotonic
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep  # on `monotonic`
        self.local: dict[str, tuple[Entry, weakref.ref[Any]]] = {}
        self.refresher: asyncio.Task[None] | None = None
        # Given by the socket layer (game/live/consumers.py), which imports this module:
        # how to push presence, and what else runs each refresh round.
        self.announce: PresenceSender | None = None
        self.rounds: list[Round] = []
        self.announcing: dict[int, asyncio.Task[None]] = {}  # rooms with a frame coming
        self.last_announced: dict[int, float] = {}

    def connect(self, announce: PresenceSender, *rounds: Round) -> Registry:
        """Say how presence is pushed and what else each refresh round runs (once)."""
        self.announce = announce
        self.rounds = list(rounds)
        return self

    async def claim(self, entry: Entry, owner: Any, cap: int) -> bool:
        """Count the socket for its user, unless the user already has `cap`."""
        if not await self.store.claim(entry, cap, self.clock(), self.ttl):
            return False
        self.local[entry.channel] = (entry, weakref.ref(owner))
        self._ensure_refresher()
        return True

    async def join(self, entry: Entry, owner: Any, watcher_cap: int,
                   account_cap: int = 1 << 30) -> Join:
        """Count the (claimed) socket in its room. ENTERED: its user's name entered the
        room's list, and the caller announces it (`changed`) once the socket is in the
        room's group, so that the frame reaches it too. A watcher counts against
        `watcher_cap` and its user's `account_cap` watcher sockets in the room."""
        joined, left = await self.store.join(entry, watcher_cap, self.clock(), self.ttl,
                                             account_cap)
        if joined:
            self.local[entry.channel] = (entry, weakref.ref(owner))
        if left:
            self.changed(entry.room_id)
        return joined

    async def admit(self, entry: Entry, owner: Any, cap: int) -> bool:
        """`claim` and `join` without a watcher cap (tests and tools)."""
        if not await self.claim(entry, owner, cap):
            return False
        if await self.join(entry, owner, 1 << 30) == Join.ENTERED:
            self.changed(entry.room_id)
        return True

    async def forget(self, entry: Entry) -> None:
        """Uncount the socket (idempotent); announce its user if they left the room."""
        self.local.pop(entry.channel, None)
        if await self.store.forget(entry):
            self.changed(entry.room_id)

    async def online(self, room_id: int) -> list[str]:
        names, left = await self.store.online_left(room_id, self.clock())
        if left:
            self.changed(room_id)
        return names

    async def stamp_allowed(self, room_id: int, user_id: int, now: float, seconds: float
                            ) -> bool:
        """Whether a member may send a stamp at `now` (wall-clock seconds), counted over
        every process when the store is shared (Redis)."""
        return await self.store.stamp_slot(room_id, user_id, now, seconds)

    def changed(self, room_id: int, send: PresenceSender | None = None) -> None:
        """A name entered or left `room_id`: its sockets get one presence frame, now if
        the room had none for `presence_seconds`, else when that time is up (one frame
        then covers every change meanwhile)."""
        send = send or self.announce
        if send is None or room_id in self.announcing:
            return
        task = asyncio.get_running_loop().create_task(self._announce(room_id, send))
        self.announcing[room_id] = task

    async def _announce(self, room_id: int, send: PresenceSender) -> None:
        try:
            due = self.last_announced.get(room_id, float("-inf")) + self.presence_seconds
            if due > self.monotonic():
                await self.sleep(due - self.monotonic())
            # Other processes announce the same room: one frame per slot over all (a
            # slot in the shared store, timed by the store's clock).
            while (wait := await self.store.presence_slot(room_id, self.presence_seconds)) > 0:
                await asyncio.sleep(wait)
            # From here on a change needs a frame of its own: this one may miss it.
            del self.announcing[room_id]
            self.last_announced[room_id] = self.monotonic()
            names = await self.store.online(room_id, self.clock())
            await send(room_id, names)
        except Exception:  # a Redis hiccup: the next change or refresh announces again
            log.warning("presence of room %s not sent", room_id, exc_info=True)
        finally:
            if self.announcing.get(room_id) is asyncio.current_task():
                del self.announcing[room_id]

    async def refresh_once(self, send_presence: PresenceSender) -> set[int]:
        """Keep live local sockets, drop dead ones, purge expired entries of the rooms
        this process serves and announce presence where it shrank. Returns those rooms.
        Sockets may come and go while this awaits: it works on a snapshot, and removes
        only what is still the entry it looked at."""
        live, vanished = [], set()
        for channel, (entry, owner) in list(self.local.items()):
            if owner() is None:  # the consumer vanished without a disconnect
                if self.local.get(channel, (None,))[0] is entry:
                    del self.local[channel]
                if await self.store.forget(entry):
                    vanished.add(entry.room_id)
            else:
                live.append(entry)
        now = self.clock()
        await self.store.refresh(live, now, self.ttl)
        changed = vanished | await self.store.purge({e.room_id for e in live}, now)
        for room_id in sorted(changed):
            self.changed(room_id, send_presence)
        self._forget_quiet_rooms()
        return changed

    def _forget_quiet_rooms(self) -> None:
        stale = self.monotonic() - self.presence_seconds
        for room_id in [r for r, at in self.last_announced.items() if at < stale]:
            del self.last_announced[room_id]

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
        found = Registry(store, float(settings.DOBON_WS_SOCKET_TTL),
                         presence_seconds=float(settings.DOBON_WS_PRESENCE_SECONDS))
        _registries[loop] = found
    return found
