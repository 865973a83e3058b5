"""Is every stored game the game that was played? (`manage.py verify_history`)

For a restore drill (docs/deploy.md, "Backups and a restore drill") and after an engine
upgrade: each game's log (`Game.initial_state` and its `GameEvent` rows) is replayed
through its engine (game/history/replay.py, `check_replays`): every version must
reproduce its stored
events, and the engine must end exactly in the stored `Game.state`. A finished game's
settlement must also agree: `Game.result` and each `GamePlayer.delta` are the engine
result's deltas. Running games are checked the same way, up to their current version
(a restored site's tables go on from there).

Each game and its rows are read in one snapshot (REPEATABLE READ on PostgreSQL), so a
game that moves on while a live site is checked is read as it was, not half old, half
new.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.db import connection, transaction

from game.history.replay import ReplayError, check_replays
from game.history.selectors import versions_of
from game.models import Game, GameEvent, GamePlayer
from game.rules import registry

OVER = (Game.Status.FINISHED, Game.Status.ABORTED)


@dataclass(frozen=True)
class Mismatch:
    game_id: int
    room_id: int
    number: int
    status: str
    reason: str

    def __str__(self) -> str:
        return (f"game {self.game_id} (room {self.room_id}, game {self.number}, "
                f"{self.status}): {self.reason}")


@dataclass
class Report:
    checked: Counter[str] = field(default_factory=Counter)  # games per status
    versions: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(self.checked.values())


def verify_games(statuses: Iterable[str] = (*OVER, Game.Status.RUNNING),
                 game_ids: Iterable[int] | None = None,
                 on_mismatch: Callable[[Mismatch], None] | None = None) -> Report:
    """Check every game of `statuses` (or only `game_ids`), oldest first."""
    games = Game.objects.filter(status__in=list(statuses)).order_by("pk")
    if game_ids is not None:
        games = games.filter(pk__in=list(game_ids))
    report = Report()
    for pk in games.values_list("pk", flat=True):
        game, problem = verify_game(pk)
        if game is None:
            continue  # deleted meanwhile (a live site)
        report.checked[game.status] += 1
        if isinstance(problem, int):
            report.versions += problem
            continue
        mismatch = Mismatch(game.pk, game.room_id, game.number, game.status, problem)
        report.mismatches.append(mismatch)
        if on_mismatch is not None:
            on_mismatch(mismatch)
    return report


def verify_game(pk: int) -> tuple[Game | None, int | str]:
    """The game and the versions it replayed, or what is wrong with it."""
    snapshot = not connection.in_atomic_block  # inside a caller's transaction: its own
    with transaction.atomic():
        if snapshot:
            _repeatable_read()
        game = Game.objects.filter(pk=pk).first()
        if game is None:
            return None, 0
        events = list(GameEvent.objects.filter(game_id=pk).order_by("seq"))
        deltas = dict(GamePlayer.objects.filter(game_id=pk).values_list("seat", "delta"))
    try:
        replayed = check_replays(game.initial_state, versions_of(events), game.state,
                                 game_kind=game.game_kind)
    except ReplayError as exc:
        return game, str(exc)
    except Exception as exc:  # a damaged row the engine cannot even read
        return game, f"cannot replay: {exc!r}"
    if game.status == Game.Status.FINISHED:
        problem = _settlement_problem(game, deltas)
        if problem:
            return game, problem
    return game, replayed


def _settlement_problem(game: Game, deltas: dict[int, int | None]) -> str:
    engine = registry.load(game.game_kind, game.state)
    expected = list(engine.result.to_dict()["deltas"])
    if list((game.result or {}).get("deltas", [])) != expected:
        return f"the stored result's deltas differ from the engine's {expected}"
    stored = [deltas.get(seat) for seat in range(len(expected))]
    if stored != expected:
        return f"the players' deltas {stored} differ from the engine's {expected}"
    return ""


def _repeatable_read() -> None:
    if connection.vendor == "postgresql":  # SQLite's transactions are serializable anyway
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
