"""Admission of new sockets before any database work (issue #22): per client address
and per server process, checked as the handshake arrives, before the session, the user
or the room is read.

- `DOBON_WS_MAX_SOCKETS_PER_ADDRESS` open sockets per client address (close 4410);
- `DOBON_WS_HANDSHAKES_PER_SECOND` new sockets per second per address, in bursts of as
  many (close 4411);
- `DOBON_WS_MAX_SOCKETS_PER_PROCESS` open sockets in this process (close 4503);
- `DOBON_WS_HANDSHAKES_PER_PROCESS_PER_SECOND` new sockets per second in this process,
  whatever their addresses, in bursts up to `DOBON_WS_HANDSHAKE_BURST_PER_PROCESS`
  (close 4411): a socket let in costs its process about 10 CPU-ms (the session, the
  user, the room, the first table, the groups, and as much again to close), so sockets
  opening and closing from many addresses, each within its own budget, could otherwise
  take a process's whole core from the tables already open. A refusal here costs the
  handshake only. The address's token and the process's are spent together or not at
  all, so a refusal by one leaves the other's budget as it was. Quiet addresses come
  first: an address that tried no handshake in this process for `QUIET_SECONDS` (a
  newcomer, a reload, a client coming back after a while) may overdraw the
  process's budget by as much again as its burst, so sockets churning from other
  addresses, which are never quiet, cannot keep newcomers out, and the process still
  admits at most twice its burst beyond its rate;
- every 4411 is answered after `DOBON_WS_REFUSAL_SECONDS`: clients that try again as
  soon as they are refused (a persistent attacker's loop) then try at most once per
  that time each, while the waiting socket costs no CPU. Clients told 4411 try again
  later anyway, so none loses more than that time;
- a client address whose socket into a room was refused because the room's watchers
  are full (4412, found by the consumer after reading the session and the room) is told
  to come back later (4411) for `DOBON_WS_WATCHERS_FULL_SECONDS` when it asks for that
  room again: a crowd of watchers retrying costs one full check per address and room in
  that time, not one per attempt. 4411 is retried by every client (a member behind the
  same address, who is never refused 4412, gets in on a later try), 4412 is final;
- a client address one of whose sockets was closed as a flood (4429) is told to come
  back later (4411) for `DOBON_WS_FLOOD_COOLDOWN_SECONDS`, whatever room it asks for:
  a crowd of sockets flooding and reconnecting at once would otherwise be read again
  at once.

Sockets let in then take turns to connect: at most `DOBON_WS_CONNECTS_AT_ONCE` per
process at a time run their connect (the session, the user, the room, the groups, up to
queueing the first table's read); the others wait for a turn, which costs no CPU. A
socket's turn ends when its first table is queued (the consumer calls
`scope[CONNECTED_KEY]`: the table may wait for the sync budgets, and a client over them
must not hold up the others) or when its application ends. A closing socket's cleanup
takes a turn too (`turn_to_leave`), so a crowd closed at once leaves a few at a time.
Issue #22: about 120 sockets let in at once (a burst and the newcomers' overdraft)
connected together on one event loop, and a move in that process waited behind their
work at each of its steps (a victim room's moves took 0.4–0.9 s); taking turns, it
waits behind a few at most.

The address is the peer's, or behind `DOBON_PROXY_COUNT` proxies the X-Forwarded-For
entry that many from the right (accounts/throttle.py, as for logins). The counts are
this process's and exact: a socket stops counting the moment its client closes (before
the server's close frame answers, game/live/transport.py) or its application ends.
The per-user cap comes next, in the consumer, as soon as the user is known.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
import weakref
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from django.conf import settings

from accounts.throttle import UNKNOWN_ADDRESS, client_ip_of
from game import metrics
from game.live.budgets import Budget
from game.live.transport import CLOSING_KEY, ASGIApp

CLOSE_ADDRESS_FULL = 4410
CLOSE_ADDRESS_TOO_FAST = 4411
CLOSE_PROCESS_FULL = 4503

Clock = Callable[[], float]

Pause = Callable[[float], Awaitable[None]]

ROOM_PATH = re.compile(r"^/ws/rooms/(\d+)/$")
# In a socket's scope: call it once the socket's connect is done (its turn ends).
CONNECTED_KEY = "dobon.connected"
# In a socket's scope: the process's turns, which a closing socket's cleanup takes too.
TURNS_KEY = "dobon.turns"
# The longest a closing socket's cleanup waits for a turn before it goes ahead anyway:
# well within daphne's --application-close-timeout (10 s), after which the cleanup
# would be cancelled half done.
LEAVE_WAIT_SECONDS = 2.0
# An address that tried no handshake in this process for this long comes first when the
# process's handshake budget is spent: longer than a refused client's wait for its 4411
# (DOBON_WS_REFUSAL_SECONDS, 1) and a quick retry, so that a loop retrying at once is
# never quiet; a newcomer or a reload is.
QUIET_SECONDS = 2.0
# Addresses whose last attempt is remembered before those older than QUIET_SECONDS go.
MAX_ATTEMPTS_KEPT = 10_000
# (address, room) pairs kept before expired ones are forgotten.
MAX_SIT_OUTS = 10_000


class SitOut:
    """Client addresses told to come back later, per room (or for every room: None), for
    `seconds_setting` seconds after `note`, in this process. Its own clock (monotonic
    seconds): the consumer notes, the admission asks."""

    def __init__(self, seconds_setting: str, clock: Clock = time.monotonic) -> None:
        self.seconds_setting, self.clock = seconds_setting, clock
        self.until: dict[tuple[str, int | None], float] = {}

    def note(self, address: str | None, room_id: int | None) -> None:
        if address is None:  # not grouped by address: nothing to remember
            return
        now = self.clock()
        if len(self.until) >= MAX_SIT_OUTS:
            self.until = {key: until for key, until in self.until.items() if until > now}
        self.until[(address, room_id)] = now + float(getattr(settings, self.seconds_setting))

    def refuses(self, address: str | None, room_id: int | None) -> bool:
        if address is None:
            return False
        now = self.clock()
        until = self.until.get((address, room_id))
        if until is None:
            return False
        if now >= until:
            del self.until[(address, room_id)]
            return False
        return True


# One each per process: the consumer notes, the admission refuses (tests replace them).
# Addresses refused by a room's watcher cap (4412), for that room.
full_rooms = SitOut("DOBON_WS_WATCHERS_FULL_SECONDS")
# Addresses whose socket was closed as a flood (4429), for every room (room None).
flooders = SitOut("DOBON_WS_FLOOD_COOLDOWN_SECONDS")


def room_of(scope: dict[str, Any]) -> int | None:
    """The room id of a `/ws/rooms/<id>/` handshake (None for any other path)."""
    found = ROOM_PATH.match(str(scope.get("path", "")))
    return int(found.group(1)) if found else None


def client_address(scope: dict[str, Any]) -> str | None:
    """The client's address, or None when the connection has none (a unix socket
    without a proxy header, the test communicator): such sockets count per process only."""
    peer = (scope.get("client") or [""])[0] or ""
    forwarded = ""
    for name, value in scope.get("headers", []):
        if name == b"x-forwarded-for":
            forwarded = value.decode("latin1")
    address = client_ip_of(str(peer), forwarded)
    return None if address == UNKNOWN_ADDRESS else address


class Admission:
    """ASGI middleware for the websocket routes: refuse or count each new socket."""

    def __init__(
        self, app: ASGIApp, clock: Clock = time.monotonic, pause: Pause = asyncio.sleep
    ) -> None:
        self.app, self.clock, self.pause = app, clock, pause
        self.open = 0
        self.by_address: Counter[str] = Counter()
        # Handshakes per address, in bursts up to the per-second rate.
        self.address_handshakes = Budget(
            "DOBON_WS_HANDSHAKES_PER_SECOND", "DOBON_WS_HANDSHAKES_PER_SECOND"
        )
        self.process_handshakes = Budget(
            "DOBON_WS_HANDSHAKES_PER_PROCESS_PER_SECOND", "DOBON_WS_HANDSHAKE_BURST_PER_PROCESS"
        )
        self.last_attempt: dict[str, float] = {}  # address: when it last tried
        self.connect_turns: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, asyncio.Semaphore
        ] = weakref.WeakKeyDictionary()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        address = client_address(scope)
        refusal = self.refusal(address, room_of(scope))
        if refusal is not None:
            delay = settings.DOBON_WS_REFUSAL_SECONDS if refusal == CLOSE_ADDRESS_TOO_FAST else 0
            await refuse(receive, send, refusal, delay, self.pause)
            return
        self.open += 1
        metrics.SOCKETS_OPEN.inc()
        if address is not None:
            self.by_address[address] += 1
        released = False
        turns = self.turns()
        turn = Turn(turns)
        scope = {**scope, CONNECTED_KEY: turn.end, TURNS_KEY: turns}

        async def release() -> None:
            nonlocal released
            if not released:
                released = True
                self.open -= 1
                metrics.SOCKETS_OPEN.dec()
                if address is not None:
                    self.by_address[address] -= 1
                    if self.by_address[address] <= 0:
                        del self.by_address[address]

        closing = scope.get(CLOSING_KEY)
        if closing is not None:
            closing.on_close(release)
        try:
            await turn.begin()
            await self.app(scope, receive, send)
        finally:
            turn.end()
            await release()

    def turns(self) -> asyncio.Semaphore:
        """This event loop's connect turns (a semaphore belongs to one loop; the tests run
        a loop each)."""
        loop = asyncio.get_running_loop()
        turns = self.connect_turns.get(loop)
        if turns is None:
            turns = self.connect_turns[loop] = asyncio.Semaphore(
                max(1, settings.DOBON_WS_CONNECTS_AT_ONCE)
            )
        return turns

    def refusal(self, address: str | None, room_id: int | None = None) -> int | None:
        """The close code refusing a new socket from `address` into `room_id`, or None
        to let it in."""
        if self.open >= settings.DOBON_WS_MAX_SOCKETS_PER_PROCESS:
            return CLOSE_PROCESS_FULL
        if address is not None:
            if self.by_address[address] >= settings.DOBON_WS_MAX_SOCKETS_PER_ADDRESS:
                return CLOSE_ADDRESS_FULL
            if flooders.refuses(address, None) or full_rooms.refuses(address, room_id):
                return CLOSE_ADDRESS_TOO_FAST  # not a handshake spent: nothing was done
        if not self.take_handshake(address):
            return CLOSE_ADDRESS_TOO_FAST
        return None

    def take_handshake(self, address: str | None) -> bool:
        """Spend one handshake of `address` (None: no address budget) and one of the
        process, both or neither; False when either has none left now."""
        now = self.clock()
        quiet = self.quiet(address, now)
        if address is not None and self.address_handshakes.wait(address, now) > 0.0:
            return False
        budget = self.process_handshakes
        overdraft = budget.burst if quiet else 0.0
        if budget.tokens(None, now) + overdraft < 1.0:
            return False
        budget.take(None, now)
        if address is not None:
            self.address_handshakes.take(address, now)
        return True

    def quiet(self, address: str | None, now: float) -> bool:
        """Whether `address` tried no handshake for QUIET_SECONDS (and note this try).
        Connections without an address cannot be told apart: never quiet."""
        if address is None:
            return False
        if len(self.last_attempt) >= MAX_ATTEMPTS_KEPT:
            self.last_attempt = {
                a: when for a, when in self.last_attempt.items() if now - when < QUIET_SECONDS
            }
        last = self.last_attempt.get(address)
        self.last_attempt[address] = now
        return last is None or now - last >= QUIET_SECONDS

    def address_tokens(self, address: str, now: float) -> float:
        """The handshakes `address` has left now (bursts up to the per-second rate)."""
        return self.address_handshakes.tokens(address, now)


@contextlib.asynccontextmanager
async def turn_to_leave(scope: dict[str, Any]) -> AsyncIterator[None]:
    """A closing socket's cleanup (its groups, the fan-out, a program's mark), in a turn as
    connects take them: a crowd closed at once (as a flood, 4429) would otherwise put
    hundreds of cleanups in front of each step of a move. Waits at most
    LEAVE_WAIT_SECONDS for a turn, then goes ahead without one."""
    turns: asyncio.Semaphore | None = scope.get(TURNS_KEY)
    turn = Turn(turns) if turns is not None else None
    if turn is not None:
        try:
            await asyncio.wait_for(turn.begin(), LEAVE_WAIT_SECONDS)
        except TimeoutError:
            pass  # not begun: `end` gives nothing back
    try:
        yield
    finally:
        if turn is not None:
            turn.end()


class Turn:
    """One socket's turn, to connect or to clean up: taken once, given back once (for a
    connect, whichever comes first of the consumer's "connected" and the application's
    end); one never taken gives nothing back."""

    def __init__(self, turns: asyncio.Semaphore) -> None:
        self.turns = turns
        self.held = self.done = False

    async def begin(self) -> None:
        await self.turns.acquire()
        self.held = True

    def end(self) -> None:
        if self.held and not self.done:
            self.done = True
            self.turns.release()


async def refuse(
    receive: Any, send: Any, code: int, delay: float = 0.0, pause: Pause = asyncio.sleep
) -> None:
    """Answer the handshake with a close code (accepting first: a close before accepting
    becomes a bare HTTP 403), after `delay` seconds (the handshake waits meanwhile)."""
    message = await receive()
    if message.get("type") != "websocket.connect":
        return
    if delay > 0:
        await pause(delay)
    metrics.socket_refused(code)
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": code})
