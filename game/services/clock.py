"""The sweep: the one clock of every running game (R14 timeouts, CPU moves, a match's
program clock).

Celery beat (game/clock/beat.py) or, with the laptop defaults, the in-process scheduler
(game/clock/scheduler.py) calls `expire_due_games` about four times a second. It reads
the indexed `Game.next_deadline`, and for each due game, under its row lock, lets the CPU
players act when their move is due (game/services/cpu.py) or applies the engine's due
timeouts, saving each change through game/services/play.py.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import transaction

from game.models import Game
from game.services import cpu, engines, matches, play

log = logging.getLogger(__name__)

SWEEP_BATCH = 500


def expire_due_games(now: float | None = None, grace: float = 0.0) -> int:
    """The sweep (Celery beat every DOBON_SWEEP_SECONDS, or the in-process scheduler):
    apply every timeout due `grace` seconds ago or earlier, one short transaction per
    game, skipping rows another worker holds. Returns how many games changed.

    It is the only clock: a move publishes no task, the sweep reads the indexed
    `next_deadline` (one index scan when nothing is due)."""
    now = play.now_or(now)
    matches.start_waiting()  # a match whose next game's start was lost
    due_at = play.to_datetime(now - grace)
    due = list(
        Game.objects.filter(status=Game.Status.RUNNING, next_deadline__lte=due_at)
        .order_by("next_deadline")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    changed = 0
    for game_id in due:
        try:
            changed += _expire_chain(game_id, now, due_at)
        except Exception:  # one broken game must not stop the others' clocks
            log.exception("timeout sweep failed for game %s", game_id)
    return changed


# Versions one sweep may apply in a row to one game when each leaves the next one due at
# once (CPU players in a match act without a pause).
CHAIN_LIMIT = 100


def _expire_chain(game_id: int, now: float, due_at: datetime | None) -> int:
    """1 if the game changed: what is due, then what that made due at once, one short
    transaction each, rather than one sweep period per move."""
    changed = 0
    for _ in range(CHAIN_LIMIT):
        if not _expire_one(game_id, now, due_at):
            break
        changed = 1
    return changed


def _expire_one(game_id: int, now: float, due_at: datetime | None) -> int:
    with transaction.atomic():
        game = play.locked_with_seats(skip_locked=True, pk=game_id, next_deadline__lte=due_at)
        if game is None:  # another worker got there first (or holds the row right now)
            return 0
        return 1 if _advance_locked(game, now) is not None else 0


def _advance_locked(game: Game, now: float) -> play.Outcome | None:
    play.relax_commit()
    if cpu.is_due(game, now):
        return cpu.run_due(game, now)
    engine = engines.load(game)
    deadline = engine.next_deadline
    if deadline is None or deadline > now:
        return None
    events = engine.advance(now)
    change = play.do_save(game, engine, events, now, step={"now": now})
    finished = change.status != Game.Status.RUNNING
    return play.Outcome(game.pk, change.version, change.events, finished)
