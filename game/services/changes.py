"""The port through which "a game changed" reaches the parts that react to it.

game/services/play.py applies every change (lock, engine, store) and announces it here;
it imports none of the parts that react. They are connected once, at start-up, by
game/services/wiring.py (called from GameConfig.ready), so the move pipeline reads one
way: consumer → play → engine and store → these hooks. The hooks run inside the
transaction that made the change, under the game's row lock, in the order connected:

- `plan(game, engine, seats, now, step)`: a version is about to be saved; set when the
  game is next due (CPU players' think time, a match's program clock) on `game`;
- `finished(game, engine, seats, summary)`: the game just ended with a result;
- `aborted(game)`: the game was stopped without a result;
- `saved(game)`: the version was saved (its push is arranged); e.g. start a match's next
  game after the commit;
- `describe(game, engine, seats)`: a table is read to be shown (connect, sync): put on
  `game` what the frames say beyond the engine (`match_frame`, `program_deadlines`), as
  `plan` does for a saved version.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Hook = Callable[..., None]

MOMENTS = ("plan", "finished", "aborted", "saved", "describe")
_hooks: dict[str, list[Hook]] = {moment: [] for moment in MOMENTS}


def connect(moment: str, hook: Hook) -> None:
    """Run `hook` at `moment` from now on (once, however often it is connected)."""
    if moment not in _hooks:
        raise ValueError(f"unknown moment {moment!r}; one of {MOMENTS}")
    if hook not in _hooks[moment]:
        _hooks[moment].append(hook)


def connected(moment: str) -> list[Hook]:
    return list(_hooks[moment])


def _announce(moment: str, *args: Any) -> None:
    for hook in _hooks[moment]:
        hook(*args)


def plan(game: Any, engine: Any, seats: Any, now: float, step: dict[str, Any] | None) -> None:
    _announce("plan", game, engine, seats, now, step)


def finished(game: Any, engine: Any, seats: Any, summary: dict[str, Any]) -> None:
    _announce("finished", game, engine, seats, summary)


def aborted(game: Any) -> None:
    _announce("aborted", game)


def saved(game: Any) -> None:
    _announce("saved", game)


def describe(game: Any, engine: Any, seats: Any) -> None:
    _announce("describe", game, engine, seats)
