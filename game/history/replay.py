"""Rebuild a finished game step by step through the engine, from its stored log.

No Django here: the input is the engine state at version 0 (`Game.initial_state`) and,
per later version, the input that made it (`GameEvent.step` on the version's first
row: `{"now": t}` for due timeouts, plus `"seat"` and `"action"` for a player's action)
with the events stored for it. Each version is re-applied exactly as the service layer
applied it (`advance(now)`, then the action), split into one frame per timeout
deadline and one for the action, so a viewer can step through every change.

The rebuilt events are compared with the stored ones: a log that the current engine
does not reproduce (a changed engine, a damaged log) raises `ReplayError` instead of
showing a table that never happened.

>>> from game.rules import Game
>>> g = Game.new(players=2, first_player=0, seed=5, now=0.0)
>>> start = g.to_dict()
>>> action = g.legal_actions(g.turn)[0]
>>> seat = g.turn
>>> events = g.apply(seat, action, 1.0)
>>> frames = rebuild(start, [Version(1, {"now": 1.0, "seat": seat, "action": action}, events)])
>>> [f.kind for f in frames], frames[-1].state == g.to_dict()
(['start', 'action'], True)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from game.rules import describe_house_rules, normalize_house_rules, registry
from game.rules.contract import Engine  # an engine of the game's kind (registry.py)

Event = dict[str, Any]


class ReplayError(Exception):
    """The stored log cannot be replayed by this engine."""


@dataclass(frozen=True)
class Version:
    """One stored version: its number, its input (None: not an engine change, e.g. an
    abort) and the events stored for it, in order."""

    number: int
    step: dict[str, Any] | None
    events: list[Event]


@dataclass
class Frame:
    """The table after one change: what happened (`kind`, `seat`, `action`, `events`)
    and the whole table with every hand (`table`); `state` is the engine's own
    (`to_dict()`, kept only when asked: the page needs the table alone)."""

    index: int
    version: int
    time: float | None
    kind: str  # "start", "action", "timeout", "resume" (fresh clocks after an outage), "aborted"
    seat: int | None
    action: dict[str, Any] | None
    events: list[Event]
    table: dict[str, Any]
    state: dict[str, Any] | None = field(default=None, repr=False)


def table_of(engine: Engine) -> dict[str, Any]:
    """Everything on the table with every hand face up (the game is over)."""
    view = engine.view(None)
    keep = (
        "phase", "turn", "chooser", "direction", "top", "color", "pending_draw",
        "deck_count", "discard_count", "rate", "last_play", "dobon", "result",
        # trump Dobon (docs/trump-engine.md)
        "preset", "suit", "shibari", "chain", "auction", "records", "first_player",
    )
    table = {key: view[key] for key in keep if key in view}
    table["hands"] = [engine.hand(s) for s in range(engine.players)]
    if hasattr(engine, "hand_points"):
        table["hand_points"] = [engine.hand_points(s) for s in range(engine.players)]
    return table


def rules_of(initial_state: dict[str, Any]) -> dict[str, Any]:
    """The rule set a stored game was played under (HOUSE-RULES.md §G2, §G10), for a game
    page or a replay to name: ``{"preset": name or "custom", "changed": {...}, "rules":
    every key}``. A state saved before house rules is the default ("standard").

    >>> dobon_uno = registry.engine_class("dobon_uno")
    >>> rules_of(dobon_uno.new(players=2, seed=1).to_dict())["preset"]
    'standard'
    """
    saved = initial_state.get("house_rules")
    return describe_house_rules(saved) | {"rules": normalize_house_rules(saved)}


def _plain(events: list[Event]) -> list[Event]:
    """Events as they come back from the JSON column (tuples become lists)."""
    result: list[Event] = json.loads(json.dumps(events))
    return result


def rebuild(
    initial_state: dict[str, Any], versions: list[Version], keep_states: bool = True,
    game_kind: str = registry.DOBON_UNO,
) -> list[Frame]:
    """Every frame of the game, from the deal to the last stored version, through the
    engine of `game_kind`."""
    engine = registry.load(game_kind, initial_state)
    start = versions[0] if versions and versions[0].number == 0 else None
    start_events = start.events if start else []
    started = float(start.step["now"]) if start and start.step and "now" in start.step else None
    frames = [_frame(engine, 0, 0, started, "start", None, None, start_events, keep_states)]
    for version in versions:
        if version.number == 0:
            continue
        frames += _replay_version(engine, version, len(frames), keep_states)
    return frames


def check_replays(
    initial_state: dict[str, Any], versions: list[Version], stored_state: dict[str, Any],
    game_kind: str = registry.DOBON_UNO,
) -> int:
    """Replay every stored version and check that the engine ends exactly in
    `stored_state` (the game row's state): the whole record of a game, read back (a
    restored backup, an upgraded engine) and found to be the game that was played.
    Raises `ReplayError` on the first difference; returns how many versions it replayed.

    >>> from game.rules import Game
    >>> g = Game.new(players=2, first_player=0, seed=5, now=0.0)
    >>> start, seat = g.to_dict(), g.turn
    >>> action = g.legal_actions(seat)[0]
    >>> events = g.apply(seat, action, 1.0)
    >>> played = [Version(1, {"now": 1.0, "seat": seat, "action": action}, events)]
    >>> check_replays(start, played, g.to_dict())
    1
    >>> check_replays(start, played, start)
    Traceback (most recent call last):
    ...
    game.history.replay.ReplayError: the replayed game does not end in its stored state
    """
    engine = registry.load(game_kind, initial_state)
    replayed = 0
    for version in versions:
        if version.number == 0:
            continue
        _replay_version(engine, version, 0, keep_states=False)
        replayed += 1
    if json.loads(json.dumps(engine.to_dict())) != json.loads(json.dumps(stored_state)):
        raise ReplayError("the replayed game does not end in its stored state")
    return replayed


def _replay_version(
    engine: Engine, version: Version, first_index: int, keep_states: bool
) -> list[Frame]:
    step = version.step
    if step is None:
        if engine.phase != "finished" and any(e.get("type") == "aborted" for e in version.events):
            return [_frame(engine, first_index, version.number, None, "aborted", None, None,
                           version.events, keep_states)]
        raise ReplayError(f"version {version.number} has no stored input")
    now = float(step["now"])
    frames: list[Frame] = []
    if step.get("resume"):  # the clock had stopped: fresh clocks instead of timeouts
        events = engine.resume(now)
        frames.append(_frame(engine, first_index, version.number, now, "resume", None, None,
                             events, keep_states))
    # One frame per deadline: advance(now) applies them in this same order (§R14, §R16.10).
    while (deadline := engine.next_deadline) is not None and deadline <= now:
        events = engine.advance(deadline)
        seat = events[0].get("seat") if events else None
        frames.append(_frame(engine, first_index + len(frames), version.number, deadline,
                             "timeout", seat, None, events, keep_states))
    if "action" in step:
        seat, action = int(step["seat"]), step["action"]
        events = engine.apply(seat, action, now)
        frames.append(_frame(engine, first_index + len(frames), version.number, now,
                             "action", seat, action, events, keep_states))
    _check_same(version, [e for f in frames for e in f.events])
    return frames


def _frame(
    engine: Engine, index: int, version: int, time: float | None, kind: str,
    seat: int | None, action: dict[str, Any] | None, events: list[Event], keep_state: bool,
) -> Frame:
    return Frame(index, version, time, kind, seat, action, _plain(events), table_of(engine),
                 engine.to_dict() if keep_state else None)


def _check_same(version: Version, rebuilt: list[Event]) -> None:
    if _plain(rebuilt) != _plain(version.events):
        raise ReplayError(f"version {version.number}: the engine does not reproduce the log")
