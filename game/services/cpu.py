"""CPU players at a live table: when they act, what they see, how their moves go in.

A CPU seat has no login and no socket. It acts through the same locked path as a
person's move (`play.apply_action`, then `play.do_save`), and it is woken by the same
deadline machinery as the §R14 timeouts, so there are no extra threads or processes and
nothing sleeps in a request:

- After every saved change, each CPU seat that may act now gets a human-like delay
  (`DELAY_TURN`; `DELAY_CHANCE`, shorter, for cut-ins, dobons and returns so that it can
  take a chance before the window closes). The earliest becomes `Game.cpu_due`, and
  `Game.next_deadline` is the earlier of that and the engine's own deadline.
- The sweep (`clock.expire_due_games`, the one clock) finds the game due and, under the
  row lock, calls `run_due`: due timeouts first (`advance(now)`), then
  the CPU seats in the order of their delays ask their policy; the first action one
  returns is applied and saved as the next version, which plans the next CPU move.
- A policy that raises, answers too slowly or answers something illegal is logged and
  ignored for that version: the seat's §R14 timeout then plays for it. A policy that
  answers None (wait) is not asked again until the table changes.

Delays and policy seeds come from the game and its version, so a replay is identical.
A policy sees only what that seat's player would: `engine.view(seat)` and the logged
events whose `to` is that seat or nobody (game/bots).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from game import logs
from game.models import Game, GameEvent, GameKind, Room
from game.rules.contract import Engine
from game.services import engines, matches, panel, play, rooms

if TYPE_CHECKING:
    from accounts.models import User
    from game.services.play import Outcome, Seat

log = logging.getLogger(__name__)

Action = dict[str, Any]
Event = dict[str, Any]

# Seconds a CPU "thinks" before acting (times DOBON_CPU_DELAY_PERCENT / 100).
DELAY_TURN = (0.6, 2.0)
DELAY_CHANCE = (0.3, 0.8)
# A policy slower than this (wall time) is treated as failed: its timeout plays for it.
POLICY_TIME_LIMIT = 0.5

Policy = engines.Policy
PolicyFactory = engines.PolicyFactory


def bots_policy(level: str, seed: int) -> Policy:
    """Dobon UNO's policies (game/bots); each kind's factory is its adapter's `policy`."""
    return engines.KINDS[GameKind.DOBON_UNO].policy(level, seed)


# The seam through which a CPU seat gets its policy: None asks the game kind's adapter
# (game/services/engines.py). Tests put a failing or slow factory here to prove the
# fallback.
policy_factory: PolicyFactory | None = None


# -- planning: who acts next, and when ---------------------------------------------------------


@dataclass(frozen=True)
class CpuTurn:
    seat: int
    level: str
    delay: float


def planned_turns(game: Game, engine: Engine, seats: Iterable[Seat]) -> list[CpuTurn]:
    """The CPU seats that may act in this version, soonest first, each with its delay.

    Deterministic: the delays come from the game and its version."""
    cpu_seats = [(s.seat, s.cpu_level) for s in seats if s.cpu_level is not None]
    if not cpu_seats or engine.phase == "finished":
        return []
    rng = random.Random(f"{game.pk}:{game.version}")
    scale = matches.cpu_delay_scale(game, settings.DOBON_CPU_DELAY_PERCENT / 100)
    turns = []
    kind = engines.of(game)
    for seat, level in cpu_seats:
        legal = engine.legal_actions(seat)
        if not legal:
            continue
        # A cut-in, dobon or return: a window that closes, so the CPU answers quickly.
        low, high = DELAY_CHANCE if kind.is_chance(engine, seat, legal) else DELAY_TURN
        turns.append(CpuTurn(seat, level, rng.uniform(low, high) * scale))
    return sorted(turns, key=lambda t: (t.delay, t.seat))


def do_schedule(
    game: Game, engine: Engine, seats: Iterable[Seat], now: float,
    step: dict[str, Any] | None = None,
) -> None:
    """Set `cpu_due` for the version about to be saved and fold it into `next_deadline`.
    The caller saves both fields. A match's program clock (matches.py) rides on
    `cpu_due` too."""
    running = game.status == Game.Status.RUNNING
    seats = list(seats)
    turns = planned_turns(game, engine, seats) if running else []
    program = matches.next_program_due(game, engine, seats, now, step)  # notes the frames'
    program = program if running else None
    cpu_at = now + turns[0].delay if turns else None
    if cpu_at is not None:
        cpu_at = max(cpu_at, programs_answer_by(engine, seats) or cpu_at)
    game.cpu_due = earliest(program, play.to_datetime(cpu_at))
    game.next_deadline = earliest(engine.next_deadline if running else None, game.cpu_due)


def programs_answer_by(engine: Engine, seats: Iterable[Seat]) -> float | None:
    """Until when CPUs wait for a program seat's open chance (issue #31: in a match a CPU
    played about 20 ms after the card that opened it, closing it before any program
    could answer, whatever its clock): the latest of each open chance's opening plus
    DOBON_PROGRAM_CHANCE_GRACE_SECONDS. A program that answers (a decline is a new
    change) or lets the grace pass releases them. None: no program holds a chance."""
    grace = settings.DOBON_PROGRAM_CHANCE_GRACE_SECONDS
    until = None
    for s in seats:
        if s.kind != panel.PROGRAM or s.seat == engine.turn or grace <= 0:
            continue
        view = engine.view(s.seat)
        if view.get("chances") and view.get("deadline") is not None:
            opened = float(view["deadline"]) - float(view["timeout"])
            until = max(until or 0.0, opened + grace)
    return until


def earliest(deadline: float | None, cpu_due: datetime | None) -> datetime | None:
    moments = [m for m in (play.to_datetime(deadline), cpu_due) if m is not None]
    return min(moments) if moments else None


def is_due(game: Game, now: float) -> bool:
    return game.cpu_due is not None and game.cpu_due.timestamp() <= now


# -- acting -------------------------------------------------------------------------------------


def run_due(game: Game, now: float) -> Outcome | None:
    """Under the game's row lock: due timeouts, then the first CPU move a policy makes.

    When nothing changed (every CPU chose to wait, or failed), only `cpu_due` is
    cleared: this version's CPUs are not asked again, and the engine's clock goes on."""
    engine = engines.load(game)
    seats = play.seats_of(game)
    events, step = play.advance_clock(engine, now)  # step: the version's input (replays)
    program_due = None
    if engine.phase != "finished":
        move = _first_cpu_move(game, engine, seats, events, now)
        if move is not None:
            step = {**step, "seat": move.seat, "action": move.action}
            events += move.events
        else:
            auto, program_due = matches.program_move(game, engine, seats, now)
            if auto is not None:
                step = {**step, "seat": auto.seat, "action": auto.action, "auto": True}
                events += auto.events
    if not events:
        do_clear_due(game, engine, program_due)
        return None
    change = play.do_save(game, engine, events, now, seats, step=step)
    finished = change.status != Game.Status.RUNNING
    return play.Outcome(game.pk, change.version, change.events, finished)


def do_clear_due(game: Game, engine: Engine, program_due: float | None = None) -> None:
    # A match's program clock (not yet due) stays; the CPUs are not asked again.
    game.cpu_due = play.to_datetime(program_due)
    game.next_deadline = earliest(engine.next_deadline, game.cpu_due)
    game.save(update_fields=["cpu_due", "next_deadline"])


@dataclass(frozen=True)
class CpuMove:
    seat: int
    action: Action
    events: list[Event]


def _first_cpu_move(
    game: Game, engine: Engine, seats: list[Seat], fresh: list[Event], now: float
) -> CpuMove | None:
    turns = planned_turns(game, engine, seats)
    if not turns:
        return None
    logged = events_for_seats(game, [t.seat for t in turns])
    for turn in turns:
        seen = logged[turn.seat] + [e for e in fresh if e.get("to") in (None, turn.seat)]
        action = ask_policy(game, turn, engine.view(turn.seat), seen)
        if action is None:
            continue
        try:
            return CpuMove(turn.seat, action, play.apply_action(engine, turn.seat, action, now))
        except play.PlayError as exc:  # the engine refused: a policy bug, logged
            log.error("CPU %s in game %s seat %s played a %s action: refused (%s)",
                      turn.level, game.pk, turn.seat, logs.action_type(action), exc.code)
    return None


def events_for_seats(game: Game, seats: list[int]) -> dict[int, list[Event]]:
    """Each seat's events since the game began (`to` is nobody or that seat): one query."""
    rows = (
        GameEvent.objects.filter(game=game)
        .filter(Q(to_seat__isnull=True) | Q(to_seat__in=seats))
        .order_by("seq")
        .values_list("to_seat", "data")
    )
    by_seat: dict[int, list[Event]] = {seat: [] for seat in seats}
    for to_seat, data in rows:
        for seat in seats if to_seat is None else [to_seat]:
            by_seat[seat].append(data)
    return by_seat


def ask_policy(
    game: Game, turn: CpuTurn, view: dict[str, Any], events: list[Event]
) -> Action | None:
    """The policy's action if it is one of the legal actions and came in time, else None
    (logged): the seat's §R14 timeout then plays for it."""
    seed = random.Random(f"{game.pk}:{game.version}:{turn.seat}").getrandbits(63)
    started = time.perf_counter()
    kind = engines.of(game)
    try:
        action = (policy_factory or kind.policy)(turn.level, seed).act(view, events)
    except Exception as exc:
        log.error("CPU policy %s failed in game %s seat %s", turn.level, game.pk, turn.seat,
                  exc_info=logs.withheld(exc))
        return None
    elapsed = time.perf_counter() - started
    if elapsed > POLICY_TIME_LIMIT:
        log.error("CPU policy %s took %.3f s in game %s seat %s; its timeout plays for it",
                  turn.level, elapsed, game.pk, turn.seat)
        return None
    if action is not None and not kind.offers(view["legal_actions"], action):
        log.error("CPU policy %s answered a %s that is not a legal action in game %s seat %s",
                  turn.level, logs.action_type(action), game.pk, turn.seat)
        return None
    return action


# -- one click to play alone ---------------------------------------------------------------------

SOLO_SEATS = 4
ROOM_NAME_LENGTH = Room._meta.get_field("name").max_length or 60


def start_game_against_cpus(
    user: User, level: str, now: float | None = None, game_kind: str = GameKind.DOBON_UNO,
    trump_preset: str = "au",
) -> Game:
    """A private room with `user` and three CPU players of `level`, and its first game
    started: from the lobby to the first card in one transaction. `game_kind` and
    `trump_preset` choose the game (four seats suit both trump presets, §T1.2)."""
    level = rooms.check_cpu_level(level)
    name = _("%(name)s vs CPU") % {"name": user.username}
    with transaction.atomic():
        room = rooms.create_room(
            user, name=name[:ROOM_NAME_LENGTH], seat_count=SOLO_SEATS, is_public=False,
            game_kind=game_kind, trump_preset=trump_preset,
        )
        for index in range(1, SOLO_SEATS):
            rooms.do_seat_cpu(room, index, level)
        return play.start_game(room, user, now=now)
