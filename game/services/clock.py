"""The clock of every running game (§R14 timeouts, CPU moves, a match's program clock):
finding what is due, and doing it.

- **Finding** (`dispatch_due_games`): Celery beat (game/clock/beat.py) reads the indexed
  `Game.next_deadline` about four times a second, claims the version of each game due
  before its next tick (`claim_version`, `claimed_until`) and sends one task per game to
  the workers (game/tasks.py). A version not yet due is held by beat and sent at its
  moment, not sent ahead with an ETA: a worker keeps ETA tasks in its own memory and
  runs them first come, first served when their time comes, so the broker's priorities
  would order nothing under load. Beat applies no move.
- **Who goes first** (`priority_of`): a person's own clock is `PERSON`: an §R14 timeout in
  a room with people, and the CPU move a person is waiting for (at a table where a
  person acted within `ATTENDED_SECONDS`, noted in the cache by `note_plan`); the CPU
  moves of tables nobody plays at (a "play now" table left alone) are `TABLE`; matches
  are `BULK`. Redis hands a free worker the most urgent task waiting, so a flood of
  other tables' CPU moves cannot make a person's clock late.
- **Doing** (`run_due_game`, a worker's task): lock the row (skip_locked), do nothing if
  the version moved on ("another worker got there first"), else what is due — the CPU
  players' move (game/services/cpu.py) or the engine's timeouts — saved through
  game/services/play.py. What that made due at once (CPUs in a match act without a
  pause) follows in the same task for at most `BUDGET_SECONDS`; then the game goes to the
  back of the queue, so one busy room cannot hold up the others.
- **Due soon** (`dispatch_soon`, on the change port's `saved`): a version due before beat's
  next sweep could see it (a match's next CPU move, due at once) is sent at once, with
  its moment as ETA if it is still ahead; one due later (a CPU's 0.6–2 s think time) is
  left to beat, which finds it at least one tick ahead and sends it at its moment.
- **Nothing is lost**: the deadline is in the database. A task that never ran (a worker
  killed, a broker restarted) leaves its claim to run out after `CLAIM_SECONDS`, and the
  next sweep sends the game again.

Without a broker (the laptop default) there are no workers: `expire_due_games` does the
finding and the doing in one process (game/clock/scheduler.py), and a version due soon
wakes that scheduler at its moment (`set_waker`). Tests call it with an injected `now`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import BooleanField, ExpressionWrapper, F, Q

from game import logs, metrics
from game.models import Game
from game.services import cpu, engines, matches, panel, play

log = logging.getLogger(__name__)

SWEEP_BATCH = 500
# Versions one task (or one in-process sweep) may apply in a row to one game when each
# leaves the next one due at once (CPU players in a match act without a pause) ...
CHAIN_LIMIT = 100
# ... and for at most this long, before the game waits its turn behind the others.
BUDGET_SECONDS = 0.05
# A claimed version nobody finished by then is sent again (the worker died, the task was
# lost): longer than a task waits in a busy queue, short enough that a game barely notices.
CLAIM_SECONDS = 10.0
# Without a broker, a version due within this wakes the in-process scheduler at its
# moment (CPU think times are 0.6–2 s; §R14 timeouts, 5 s or more, wait for the sweep).
# With a broker, beat holds and sends everything due later than its next sweep itself.
SOON_SECONDS = 3.0
# Celery task priorities: Redis serves 0 first. kombu keeps four lists per queue, for the
# steps 0, 3, 6 and 9, and files any other priority under the step at or below it, so
# each class here is a step of its own (tests/game/test_clock_priorities.py checks it on
# a real Redis). A person's own clock first (their timeout, the CPU move they wait for);
# the CPU moves of tables nobody plays at next; matches last.
PERSON, TABLE, BULK = 0, 3, 9
# A table where a person acted this recently is attended: its CPUs' moves are that
# person's wait (PERSON). Longer than a round of CPU turns, shorter than a person's
# turns played by §R14 timeouts take to go round an abandoned table.
ATTENDED_SECONDS = 30.0

RUN_TASK = "game.tasks.run_due_game"
START_TASK = "game.tasks.start_next_match_game"


@dataclass(frozen=True)
class Due:
    game_id: int
    version: int
    at: float  # unix time the version is due
    priority: int  # PERSON, TABLE or BULK (priority_of)


def priority_of(in_match: bool, cpu_move: bool, attended: bool = False) -> int:
    """Whose wait a due version ends: a match's (BULK), a CPU move at a table nobody
    plays at (TABLE), or a person's (PERSON): their own §R14 clock, or the CPU move they
    wait for at an attended table."""
    if in_match:
        return BULK
    return TABLE if cpu_move and not attended else PERSON


def attended_key(game_id: int) -> str:
    return f"clock:attended:{game_id}"


def attended(game_ids: list[int]) -> set[int]:
    """Which of these games' tables a person acted at within ATTENDED_SECONDS (one
    cache read). A cache that does not answer makes every table unattended: the clock
    goes on, the CPU moves only lose their rank."""
    if not game_ids:
        return set()
    try:
        found = cache.get_many([attended_key(pk) for pk in game_ids])
    except Exception:
        log.exception("could not read which tables are attended")
        return set()
    return {pk for pk in game_ids if attended_key(pk) in found}


def mark_attended(game_id: int) -> None:
    """A hint for the priority, never a reason to refuse a move."""
    try:
        cache.set(attended_key(game_id), 1, ATTENDED_SECONDS)
    except Exception:
        log.exception("could not mark game %s's table attended", game_id)


# -- the laptop default: everything in one process ------------------------------------------------


def expire_due_games(now: float | None = None, grace: float = 0.0) -> int:
    """Find and do, in this process (the laptop's scheduler, tests, a broker-less beat):
    every game due `grace` seconds ago or earlier, one short transaction per version,
    skipping rows another process holds. Returns how many games changed."""
    now = play.now_or(now)
    matches.start_waiting()  # a match whose next game's start was lost
    changed = 0
    for due in find_due(now - grace, claimed_too=True):
        try:
            changed += run_due_game(due.game_id, due.version, now, inline=True) > 0
        except Exception as exc:  # one broken game must not stop the others' clocks
            log.error("timeout sweep failed for game %s", due.game_id,
                      exc_info=logs.withheld(exc))
    return changed


# -- finding (beat) -------------------------------------------------------------------------------


def find_due(now: float, limit: int = SWEEP_BATCH, claimed_too: bool = False) -> list[Due]:
    """Running games due by `now`, by priority (people's timeouts, then rooms' CPU moves,
    then matches), then by deadline; without `claimed_too`, only those no worker holds a
    live claim on. One indexed query (no seat is read: the limits keep CPU-only rooms
    outside matches few)."""
    due_at = play.to_datetime(now)
    games = Game.objects.filter(status=Game.Status.RUNNING, next_deadline__lte=due_at)
    if not claimed_too:
        games = games.filter(
            Q(claimed_until__isnull=True) | Q(claimed_until__lt=due_at)
            | ~Q(claim_version=F("version"))
        )
    in_match = ExpressionWrapper(Q(match__isnull=False), output_field=BooleanField())
    # next_deadline is the earlier of the engine's deadline and cpu_due: a CPU moves.
    cpu_move = ExpressionWrapper(
        Q(cpu_due__isnull=False, cpu_due__lte=F("next_deadline")), output_field=BooleanField()
    )
    rows = list(
        games.annotate(in_match=in_match, cpu_move=cpu_move)
        .order_by("in_match", "cpu_move", "next_deadline")
        .values_list("pk", "version", "next_deadline", "in_match", "cpu_move")[:limit]
    )
    people = attended([pk for pk, _, _, bulk, cpu in rows if cpu and not bulk])
    due = [Due(pk, version, at.timestamp(), priority_of(bulk, bool(cpu), pk in people))
           for pk, version, at, bulk, cpu in rows]
    return sorted(due, key=lambda d: d.priority)  # stable: by deadline within each


def dispatch_due_games(now: float | None = None, send: Callable[..., None] | None = None,
                       hold: Callable[[Due], None] | None = None) -> int:
    """Beat's part: claim every due game's version and send one task each (by priority).
    A version not yet due goes to `hold` (beat's, which sends it at its moment) or, with
    nobody to hold it (the sweep published to a worker), is sent with its moment as ETA.
    Without a broker, do them here instead. Returns how many were sent or held."""
    if not settings.CELERY_BROKER_URL:
        return expire_due_games(now)
    now = play.now_or(now)
    send = send or send_task
    for match_id in matches.waiting(settled_before=now - 1.0):
        send(START_TASK, [match_id], priority=BULK)
    # What falls due before the next tick is found now, so that it runs at its deadline
    # rather than up to one tick after it.
    due = find_due(now + settings.DOBON_SWEEP_SECONDS)
    claim(due, now + settings.DOBON_SWEEP_SECONDS + CLAIM_SECONDS)
    for item in due:
        if item.at > now and hold is not None:
            hold(item)
        else:
            send(RUN_TASK, [item.game_id, item.version], priority=item.priority,
                 eta=item.at if item.at > now else None)
    return len(due)


def claim(due: list[Due], until: float) -> None:
    """Mark each version as sent, in one statement; a version that moved on meanwhile
    is not claimed (its task will find nothing to do; the sweep sees the new one)."""
    if not due:
        return
    versions = Q()
    for item in due:
        versions |= Q(pk=item.game_id, version=item.version)
    Game.objects.filter(versions).update(
        claim_version=F("version"), claimed_until=play.to_datetime(until)
    )


def unclaim(due: list[Due]) -> None:
    """Hand back the claims of versions found but never sent (a beat that lost the
    clock), so that the next sweep sends them without waiting CLAIM_SECONDS."""
    if not due:
        return
    versions = Q()
    for item in due:
        versions |= Q(pk=item.game_id, claim_version=item.version)
    Game.objects.filter(versions).update(claimed_until=None)


def send_task(name: str, args: list[int], priority: int = BULK, eta: float | None = None) -> None:
    from celery import current_app  # the site's app (dobon_site/celery.py)

    options: dict[str, object] = {"priority": priority}
    if eta is not None and eta > time.time():
        options["countdown"] = eta - time.time()
    current_app.send_task(name, args=args, **options)


# -- due soon: at its moment, not at the next tick ------------------------------------------------

_waker: Callable[[float], None] | None = None  # the in-process scheduler, when it runs
_running = threading.local()  # the game this thread's task is chaining (it goes on itself)


def set_waker(wake: Callable[[float], None] | None) -> None:
    """The in-process scheduler's `wake(at)`: run a sweep at unix time `at`."""
    global _waker
    _waker = wake


def note_plan(game: Game, engine: object, seats: Iterable[play.Seat], now: float,
              step: dict[str, Any] | None = None) -> None:
    """The `plan` hook: the moment of the version about to be saved (`dispatch_soon`
    measures "soon" from it: time is an input), and whether a person at a table with
    CPUs acted by themselves (the table is attended: its CPUs' moves are PERSON)."""
    game.planned_at = now  # type: ignore[attr-defined]
    if game.match_id is None and step is not None and _person_acted_with_cpus(seats, step):
        # A hint, not state: written even if the version is not committed after all
        # (a refused write, the lean path falling back), which only ranks a CPU early.
        mark_attended(game.pk)


def _person_acted_with_cpus(seats: Iterable[play.Seat], step: dict[str, Any]) -> bool:
    """The step is a seat's own action (not its clock's), that seat is not a CPU's, and
    the table has CPUs (only there is a person waiting on the clock for their turn)."""
    if "seat" not in step or step.get("auto"):
        return False
    kinds = {s.seat: s.kind for s in seats}
    return kinds.get(step["seat"]) not in (None, panel.CPU) and panel.CPU in kinds.values()


def dispatch_soon(game: Game) -> None:
    """The `saved` hook: a version due before the sweep could send it (`soon_horizon`)
    is sent after the commit (and after its push) to run at its moment. The task that
    made it goes on with it itself."""
    due = due_soon(game)
    if due is None:
        return  # the sweep finds it
    if getattr(_running, "game_id", None) == game.pk:
        _running.next = due
        return
    if has_receiver():
        transaction.on_commit(lambda: send_due(due))


def due_soon(game: Game) -> Due | None:
    """The saved version of `game` as a Due when it is due within `soon_horizon()` of its
    change, else None (the sweep finds it). Shared with the lean move path
    (game/services/lean_moves.py), which sends it after its own commit."""
    if game.status != Game.Status.RUNNING or game.next_deadline is None:
        return None
    at = game.next_deadline.timestamp()
    if at - getattr(game, "planned_at", time.time()) > soon_horizon():
        return None
    cpu_move = game.cpu_due is not None and game.cpu_due <= game.next_deadline
    in_match = game.match_id is not None
    people = cpu_move and not in_match and game.pk in attended([game.pk])
    return Due(game.pk, game.version, at, priority_of(in_match, cpu_move, people))


def soon_horizon() -> float:
    """How far ahead of its moment a saved version is sent by the process that saved it.
    With a broker, only what beat's next sweep could not see in time: beat finds anything
    due later at least one tick ahead, holds it and sends it at its moment with its
    priority, whereas a task sent now with an ETA would wait in a worker's memory and run
    first come, first served. Without one, the in-process scheduler is woken for
    anything within SOON_SECONDS."""
    return settings.DOBON_SWEEP_SECONDS if settings.CELERY_BROKER_URL else SOON_SECONDS


def has_receiver() -> bool:
    """Someone takes a due-soon version: the workers (a broker) or the in-process
    scheduler; else nobody to send it to."""
    return bool(settings.CELERY_BROKER_URL) or _waker is not None


def send_now(due: Due) -> None:
    """A version beat held until its moment: to the broker now, with its priority and no
    ETA, so that the next free worker takes the most urgent task waiting. A send that
    fails leaves the claim to run out (the sweep sends the game again)."""
    try:
        send_task(RUN_TASK, [due.game_id, due.version], priority=due.priority)
    except Exception:
        log.exception("could not send game %s v%s to a worker", due.game_id, due.version)


def send_due(due: Due) -> None:
    try:
        if not settings.CELERY_BROKER_URL:
            if _waker is not None:
                _waker(due.at)
            return
        claimed = Game.objects.filter(pk=due.game_id, version=due.version).update(
            claim_version=F("version"), claimed_until=play.to_datetime(due.at + CLAIM_SECONDS)
        )
        if claimed:
            send_task(RUN_TASK, [due.game_id, due.version], priority=due.priority, eta=due.at)
    except Exception:  # the sweep sends it instead
        log.exception("could not send game %s v%s to a worker", due.game_id, due.version)


# -- doing (a worker's task) ----------------------------------------------------------------------

SKIPPED = -1  # another process holds the row right now: try again shortly


def run_due_game(game_id: int, version: int, now: float | None = None,
                 inline: bool = False) -> int:
    """A worker's task: what is due in `game_id` if it is still at `version`, then what
    that made due at once, within BUDGET_SECONDS and CHAIN_LIMIT versions. Returns the
    versions applied (0: nothing was due or the version moved on), or SKIPPED.

    `now` is injected by tests (and then every version of the chain uses it)."""
    with logs.bound(game=game_id):  # the game of every log line meanwhile
        return _run_chain(game_id, version, now, inline)


def _run_chain(game_id: int, version: int, fixed_now: float | None, inline: bool) -> int:
    started = time.monotonic()
    applied = 0
    _running.game_id, _running.next = game_id, None
    try:
        while applied < CHAIN_LIMIT:
            outcome = _run_one(game_id, version, play.now_or(fixed_now))
            if outcome is None or outcome == SKIPPED:
                return applied or (outcome or 0)
            applied, version = applied + 1, outcome
            following: Due | None = _running.next
            _running.next = None
            if following is None or following.version != version:
                return applied  # not due soon: the sweep finds it
            if following.at > play.now_or(fixed_now) or (
                not inline and time.monotonic() - started > BUDGET_SECONDS
            ):
                _running.game_id = None
                send_due(following)  # later, or behind the other rooms
                return applied
        return applied
    finally:
        _running.game_id = _running.next = None


def _run_one(game_id: int, version: int, now: float) -> int | None:
    """One version: the new version, None when nothing changed, SKIPPED when locked."""
    with transaction.atomic():
        game = play.locked_with_seats(skip_locked=True, pk=game_id)
        if game is None:
            running = Game.objects.filter(pk=game_id, status=Game.Status.RUNNING).exists()
            return SKIPPED if running else None
        if game.version != version:
            return None  # another worker got there first (or a person moved): not ours
        if game.next_deadline is None or game.next_deadline.timestamp() > now:
            _release(game)
            return None
        outcome = _advance_locked(game, now)
        if outcome is None:
            _release(game)  # the same version is due again later: let the sweep send it
            return None
        return outcome.version


def note_applied(game: Game, due: str, lateness: float) -> None:
    """The metrics of what the clock applies (`due`: "timeout" or "cpu"), once it is
    committed: `lateness` from its deadline to `now`, the moment it is applied at."""
    kind = game.game_kind
    transaction.on_commit(lambda: metrics.clock_applied(kind, due, lateness))


def _release(game: Game) -> None:
    if game.claimed_until is not None:
        Game.objects.filter(pk=game.pk).update(claimed_until=None)


def _advance_locked(game: Game, now: float) -> play.Outcome | None:
    play.relax_commit()
    if cpu.is_due(game, now):
        assert game.cpu_due is not None
        cpu_due = game.cpu_due.timestamp()
        outcome = cpu.run_due(game, now)
        if outcome is not None:
            note_applied(game, "cpu", now - cpu_due)
        return outcome
    engine = engines.load(game)
    deadline = engine.next_deadline
    if deadline is None or deadline > now:
        return None
    note_applied(game, "timeout", now - deadline)
    events, step = play.advance_clock(engine, now)
    change = play.do_save(game, engine, events, now, step=step)
    finished = change.status != Game.Status.RUNNING
    return play.Outcome(game.pk, change.version, change.events, finished)

