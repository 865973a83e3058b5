"""The lean move path: a person's common move on the event loop, in two round trips.

The ORM path (`play.act_in_room` in a database thread) costs a thread hop, Django's
query building and one statement per step. For the common move this module does the
same work with async psycopg, prepared statements and hand-written SQL, in two
statements of one round trip each:

1. read the room's running game, its state and seats (the same JSON aggregate as
   `play.locked_with_seats`), without a lock;
2. in Python, exactly `play.do_action`: seated?, load the engine, the due timeouts
   (`play.advance_clock`, the outage resume included), the action, `changes.plan`, and
   the pushes (`play.build_pushes`, ready before the commit);
3. one statement, its own transaction: `UPDATE` the game *if it is still at the version
   read* and `INSERT` its events (a compare-and-set, as the clock claims versions).

A move that loses that race (another version was committed since the read) is judged
again from a fresh read, as the row lock of the ORM path would have it judged after the
winner's commit; after `CONFLICT_TRIES` losses the ORM path, which waits for the lock,
acts. Before, a `BEGIN` / `SELECT … FOR UPDATE` / `UPDATE` / `INSERT` / `COMMIT`
transaction in two pipelined round trips did the same: psycopg's pipeline and
transaction handling cost the server ~0.5 ms of CPU a move more (docs/performance.md).

Refusals raise the same `PlayError` as the ORM path, with nothing written. What this
path does not reproduce exactly answers `FALL_BACK`, with nothing written, and the caller
runs the ORM path instead (`play.act_in_room`): a game of a match, a move that ends the
game (settling is rare and touches many tables), change-port hooks other than the ones
known here, no lean connection, and any failure of the read.

PostgreSQL only, behind DOBON_LEAN_MOVES. The connections are this module's own (one
small pool per event loop), read from Django's DATABASES at first use (tests rename the
database); `close_all()` ends them (tests call it before the database is dropped).
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import json
import logging
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

import orjson
import psycopg
from django.conf import settings
from psycopg import AsyncConnection, pq
from psycopg.types.json import Jsonb, set_json_loads

from game import instrument, logs
from game.models import Game
from game.services import changes, clock, cpu, engines, matches, play

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

log = logging.getLogger(__name__)


class FallBack:
    """Returned instead of pushes: run the ORM path for this move (FALL_BACK)."""


FALL_BACK: Final = FallBack()


@dataclass
class Applied:
    """A committed lean move: the pushes to send, then the after-commit work that needs
    the ORM (run in a database thread), in that order."""

    pushes: list[play.Push]
    after: list[Callable[[], None]] = field(default_factory=list)


def enabled() -> bool:
    """DOBON_LEAN_MOVES, and only on PostgreSQL (the setting already says so; a test
    that switches the setting alone keeps the answer honest). Read from the settings,
    not `connections`: that would build a connection wrapper in every move's task."""
    return bool(settings.DOBON_LEAN_MOVES) and settings.DATABASES["default"]["ENGINE"] in (
        "django.db.backends.postgresql", "django.db.backends.postgresql_psycopg2"
    )


# -- the change port: which hooks this path reproduces ------------------------------------------

# `plan` hooks that only compute on the Game object (no query outside matches, and match
# games fall back). Anything else connected means the ORM path.
PURE_PLAN_HOOKS = (cpu.do_schedule, clock.note_plan)
# `saved` hooks whose effect for a running non-match game is reproduced below:
# `next_game_on_commit` does nothing for a running game; `dispatch_soon` is `clock.due_soon`
# sent after the commit.
KNOWN_SAVED_HOOKS = (matches.next_game_on_commit, clock.dispatch_soon)


def hooks_reproduced() -> bool:
    return all(h in PURE_PLAN_HOOKS for h in changes.connected("plan")) and all(
        h in KNOWN_SAVED_HOOKS for h in changes.connected("saved")
    )


# -- SQL ---------------------------------------------------------------------------------------

# The running game of a room with what the engine and the hooks need, and its seats as
# `play.seats_of` reads them (the SQL `play._seats_aggregate` makes). No lock: the write
# only happens if the game is still at the version read (SAVE_SQL).
READ_SQL = """
SELECT g.id, g.number, g.state, g.version, g.event_count, g.game_kind, g.preset, g.match_id,
  g.public_version, g.private_steps,
  (SELECT JSONB_AGG(JSONB_BUILD_OBJECT(
      'seat', p.seat, 'user_id', p.user_id, 'username', p.username,
      'room_seat_index', p.room_seat_index, 'cpu_level', p.cpu_level,
      'present', EXISTS(SELECT 1 FROM game_membership m
                        WHERE m.room_id = g.room_id AND m.user_id = p.user_id),
      'cpu_present', EXISTS(SELECT 1 FROM game_membership m
                            WHERE m.cpu_level IS NOT NULL AND m.room_id = g.room_id
                              AND m.seat_index = p.room_seat_index),
      'program', EXISTS(SELECT 1 FROM game_membership m
                        WHERE m.room_id = g.room_id AND m.user_id = p.user_id
                          AND m.program_sockets > 0)
    ) ORDER BY p.seat)
   FROM game_gameplayer p WHERE p.game_id = g.id) AS seats
FROM game_game g
WHERE g.room_id = %s AND g.status = 'running'
LIMIT 1
"""

# The next version, only if the game still runs at the version read, with every event
# of the version, in one statement (one transaction, one prepared plan whatever the
# number of events). The fields are those `play.do_save` changes for a version that
# keeps the game running (status, result and finished_at stay: a finishing move takes the
# ORM path). The events go as one JSON array, unnested in order; `to_seat` is the event's
# "to" and only the first row carries `step`, as `play.do_append_events` writes them.
# Answers how many games it saved: 1, or 0 when another version got there first.
SAVE_SQL = """
WITH saved AS (
  UPDATE game_game
  SET state = %(state)s, version = %(version)s, next_deadline = %(deadline)s,
      cpu_due = %(cpu_due)s, event_count = %(event_count)s,
      public_version = %(public_version)s, private_steps = %(private_steps)s
  WHERE id = %(game)s AND version = %(read_version)s AND status = 'running'
  RETURNING id
), logged AS (
  INSERT INTO game_gameevent (game_id, seq, version, public_version, private_step, to_seat,
                              data, step, created_at)
  SELECT saved.id, %(start)s + e.i - 1, %(version)s, %(public_version)s,
         COALESCE((%(private)s::jsonb ->> (e.data ->> 'to'))::integer, 0),
         (e.data ->> 'to')::smallint, e.data,
         CASE WHEN e.i = 1 THEN %(step)s::jsonb END, %(created)s
  FROM saved, jsonb_array_elements(%(events)s::jsonb) WITH ORDINALITY AS e(data, i)
)
SELECT count(*) FROM saved
"""

# Lost races in a row before the ORM path (which waits for the row lock) takes the move.
CONFLICT_TRIES = 3

ASYNC_COMMIT_SQL = "SET LOCAL synchronous_commit TO OFF"  # play.relax_commit's


# -- JSON: orjson where it can, the standard library where it cannot -----------------------------


def loads(data: str | bytes) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:  # e.g. an integer beyond 64 bits: json takes any
        return json.loads(data)


def dumps(obj: Any) -> str:
    try:
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # orjson.JSONEncodeError: what Django's JSONField would write
        return json.dumps(obj)


# -- connections: a small pool per event loop -----------------------------------------------------


class Unavailable(Exception):
    """No lean connection could be opened: nothing was done, the ORM path acts."""


class Pool:
    """At most `size` connections of this process's event loop, kept open between moves.
    Our own (not psycopg_pool's) so that `close_now` can end every connection from any
    thread, also after the loop that opened them is gone (a finished test)."""

    def __init__(self, conninfo: str, size: int) -> None:
        self.conninfo = conninfo
        self.slots = asyncio.Semaphore(size)
        self.idle: list[AsyncConnection[Any]] = []
        self.every: set[AsyncConnection[Any]] = set()

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[AsyncConnection[Any]]:
        async with self.slots:
            conn = self.idle.pop() if self.idle else await self.connect()
            try:
                yield conn
            finally:
                self.give_back(conn)

    def give_back(self, conn: AsyncConnection[Any]) -> None:
        """Kept when it is idle outside a transaction (a commit, or a refusal after its
        rollback); else (broken, cancelled mid-trip) ended: a new session costs the
        server a few milliseconds, a confused one costs correctness."""
        if conn.closed or conn.pgconn.transaction_status != pq.TransactionStatus.IDLE:
            self.discard(conn)
        else:
            self.idle.append(conn)

    async def connect(self) -> AsyncConnection[Any]:
        # autocommit: the transaction is ours to open, so that BEGIN rides in the first
        # round trip's pipeline instead of costing one of its own.
        try:
            conn = await AsyncConnection.connect(
                self.conninfo, autocommit=True, prepare_threshold=0
            )
        except psycopg.Error as exc:  # e.g. max_connections: the ORM path may still have one
            raise Unavailable(str(exc)) from exc
        set_json_loads(loads, conn)
        self.every.add(conn)
        return conn

    def discard(self, conn: AsyncConnection[Any]) -> None:
        self.every.discard(conn)
        conn.pgconn.finish()

    def close_now(self) -> None:
        for conn in list(self.every):
            self.discard(conn)
        self.idle.clear()


_pools: dict[asyncio.AbstractEventLoop, Pool] = {}
APPLICATION_NAME = "dobon-lean"


def pool() -> Pool:
    """This event loop's pool, opened on first use with the DATABASES of the moment."""
    loop = asyncio.get_running_loop()
    found = _pools.get(loop)
    if found is None:
        for old in [old for old in _pools if old.is_closed()]:
            _pools.pop(old).close_now()
        found = _pools[loop] = Pool(conninfo(), settings.DOBON_LEAN_CONNECTIONS)
    return found


def conninfo() -> str:
    """libpq parameters from Django's default database (its OPTIONS that libpq knows)."""
    db = settings.DATABASES["default"]
    params = {
        "dbname": db.get("NAME"), "user": db.get("USER"), "password": db.get("PASSWORD"),
        "host": db.get("HOST"), "port": db.get("PORT"),
        "application_name": APPLICATION_NAME,  # these sessions, told apart in pg_stat_activity
    }
    for key in ("sslmode", "sslrootcert", "sslcert", "sslkey", "connect_timeout",
                "application_name", "options", "target_session_attrs"):
        if key in db.get("OPTIONS", {}):
            params[key] = db["OPTIONS"][key]
    from psycopg.conninfo import make_conninfo

    return make_conninfo(**{k: str(v) for k, v in params.items() if v not in (None, "")})


def count_statements(n: int) -> None:
    """The load benchmark counts SQL statements per move (game/instrument.py): the lean
    path's too, which Django's execute wrappers do not see. Counted as Django counts
    them: BEGIN and COMMIT (Django's transaction calls) are not statements there."""
    if instrument.installed():
        instrument.count("sql", n)


def close_all() -> None:
    """End every lean connection of this process (tests, before the database goes; and
    at exit, so that PostgreSQL sees a clean goodbye)."""
    for loop in list(_pools):
        _pools.pop(loop).close_now()


atexit.register(close_all)
# A forked child (a test's live server) must not use, nor end, its parent's connections:
# it forgets them and opens its own.
os.register_at_fork(after_in_child=_pools.clear)


# -- the move ----------------------------------------------------------------------------------


@dataclass
class Read:
    """What round trip 1 read: the game (a model object the hooks can read, never saved
    through the ORM) and its seats."""

    game: Game
    seats: list[play.Seat]


async def act_in_room(
    room_id: int, user: AbstractBaseUser, action: Any, version: int | None,
    now: float | None = None,
) -> Applied | FallBack:
    """`play.act_in_room` for the common move: Applied (committed), FALL_BACK (nothing
    done: run the ORM path), or PlayError (refused, nothing done)."""
    now = play.now_or(now)
    action = play.check_action_shape(action)
    if not hooks_reproduced():
        return FALL_BACK
    try:
        return await act_unless_raced(room_id, user, action, version, now)
    except Unavailable:
        log.exception("no lean connection in room %s: the ORM path acts", room_id)
        return FALL_BACK


async def act_unless_raced(
    room_id: int, user: AbstractBaseUser, action: play.Action, version: int | None, now: float
) -> Applied | FallBack:
    """Read, decide, save if nobody saved meanwhile, on one lean connection; judged
    again from a fresh read when another version got there first (see `act_in_room`)."""
    async with pool().connection() as conn:
        for _ in range(CONFLICT_TRIES):
            try:
                read = await read_game(conn, room_id)
            except Exception as exc:  # nothing was written: the ORM path does the move instead
                log.error("lean read failed in room %s: the ORM path acts", room_id,
                          exc_info=logs.withheld(exc))
                return FALL_BACK
            if read is None:
                raise play.PlayError("no_game")
            read_version = read.game.version
            result = decide(read, user, action, version, now)
            if isinstance(result, FallBack):
                return FALL_BACK
            if await save(conn, read.game, result, read_version):
                return after_commit(read.game, result)
    return FALL_BACK  # lost the race every time: the ORM path waits for the row lock


async def read_game(conn: AsyncConnection[Any], room_id: int) -> Read | None:
    """Round trip 1: the running game and its seats, as they are now."""
    count_statements(1)
    cursor = await conn.execute(READ_SQL, (room_id,), prepare=True)
    row = await cursor.fetchone()
    if row is None:
        return None
    (game_id, number, state, version, event_count, kind, preset, match_id, public, steps,
     seats) = row
    game = Game(
        id=game_id, room_id=room_id, number=number, state=state, version=version,
        event_count=event_count, game_kind=kind, preset=preset, match_id=match_id,
        status=Game.Status.RUNNING, public_version=public, private_steps=steps or {},
    )
    game.seats_json = seats or []  # type: ignore[attr-defined]  # read by play.seats_of
    return Read(game, play.seats_of(game))


@dataclass
class Move:
    """The next version, computed in Python between the round trips."""

    engine: Any
    events: list[play.Event]
    step: dict[str, Any]
    change: play.TableChange
    pushes: list[play.Push]
    private: dict[int, int]  # a private change's seats and their steps (else empty)


def decide(
    read: Read, user: AbstractBaseUser, action: play.Action, version: int | None,
    now: float,
) -> Move | FallBack:
    """`play.act_in_room` + `play.do_action` + `play.do_save` between the read and the
    write: the same checks in the same order, the same refusals."""
    game, seats = read.game, read.seats
    play.check_current(game, action, version)
    if game.match_id is not None:
        return FALL_BACK  # matches: program clocks, the next game, standings
    seat = play.check_seated(seats, user)
    engine = engines.load(game)
    action = engines.of(game).normal_action(action)
    events, step = play.advance_clock(engine, now)
    events += play.apply_action(engine, seat, action, now)
    if engine.phase == "finished":
        return FALL_BACK  # settling (points, history, house rules) stays with the ORM
    step = {**step, "seat": seat, "action": action}
    before, game.state = game.state, engine.to_dict()
    game.version += 1
    private = play.count_change(game, before, engine, events)  # as play.do_save counts
    changes.plan(game, engine, seats, now, step)  # next_deadline, cpu_due (pure here)
    change = play.TableChange(
        game.room_id, game.pk, game.number, game.version, game.status, engine, events, seats,
        room_info=None, **play.frame_notes(game), game_kind=game.game_kind,
        preset=game.preset or None, public_version=game.public_version,
        private_steps=private,
    )
    # Built before the commit, not after (as `play.notify_change` does): the same pushes,
    # ready to go the moment the commit is acknowledged. Until this process sends them,
    # the next version (perhaps committed elsewhere) could overtake them on the way to a
    # socket, which then waits for the missing one (consumers.REORDER_WAIT) or resyncs.
    return Move(engine, events, step, change, play.build_pushes(change), private or {})


async def save(conn: AsyncConnection[Any], game: Game, move: Move, read_version: int) -> bool:
    """Round trip 2: the new version and its events (the first carries `step`, as
    `play.do_append_events` writes them) in one statement, if the game is still at
    `read_version`. False, with nothing written, when another version got there first.
    With DOBON_ASYNC_COMMIT the statement gets a transaction of its own that relaxes its
    commit (`play.relax_commit`), pipelined into the same round trip."""
    start = game.event_count
    game.event_count = start + len(move.events)
    params = {
        "state": Jsonb(game.state, dumps), "version": game.version,
        "deadline": game.next_deadline, "cpu_due": game.cpu_due,
        "event_count": game.event_count, "game": game.pk, "read_version": read_version,
        "public_version": game.public_version,
        "private_steps": Jsonb(game.private_steps, dumps),
        "private": Jsonb({str(s): n for s, n in move.private.items()}, dumps),
        "start": start, "step": Jsonb(move.step, dumps), "created": datetime.now(UTC),
        "events": Jsonb(move.events, dumps),
    }
    count_statements(1 + bool(settings.DOBON_ASYNC_COMMIT))
    if settings.DOBON_ASYNC_COMMIT:
        async with conn.pipeline():
            await conn.execute("BEGIN")
            await conn.execute(ASYNC_COMMIT_SQL)
            cursor = await conn.execute(SAVE_SQL, params, prepare=True)
            await conn.execute("COMMIT")
    else:
        cursor = await conn.execute(SAVE_SQL, params, prepare=True)
    row = await cursor.fetchone()
    return bool(row and row[0])


def after_commit(game: Game, move: Move) -> Applied:
    """The pushes (`play.build_pushes`, as `play.notify_change` builds them) and what the
    `saved` hooks do after the commit for a running non-match game: a version due soon
    goes to the workers (`clock.dispatch_soon`)."""
    applied = Applied(move.pushes)
    due = clock.due_soon(game)
    if due is not None and clock.has_receiver():
        applied.after.append(functools.partial(clock.send_due, due))
    return applied
