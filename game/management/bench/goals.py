"""The issue's goals (#22) judged from `bench_load` results: pure functions of the JSON.

- ≤ 5 CPU-ms per committed move summed over all server processes, saturated (players
  act at once), 100 rooms, 2 server processes;
- human pace (`--think 1-3`): action → last socket p99 ≤ 50 ms at 100 rooms, and the
  largest room count within 100 ms (aim: 500 rooms);
- under each attack (`--attack`), the victim's action → last socket p99 ≤ 250 ms;
- a rolling restart of every daphne behind nginx while 50 rooms play (#30,
  `--rolling-restart --proxy nginx`): no lost move, no player shown an error, every
  socket back (the reconnect time is reported, no goal is set for it).

A run measures some of these; each goal it measured gets a line: the figure, the goal,
and met (true / false), or met null with a note when the run's set-up differs from the
goal's (another room count, another number of processes, another pace) or the figure is
missing (no actions measured).
"""

from __future__ import annotations

import math
from typing import Any

CPU_MS_PER_MOVE = 5.0
CPU_GOAL_ROOMS, CPU_GOAL_DAPHNES = 100, 2
HUMAN_P99_MS, HUMAN_GOAL_ROOMS = 50.0, 100
HUMAN_TARGET_MS, HUMAN_AIM_ROOMS = 100.0, 500
VICTIM_P99_MS = 250.0
HUMAN_PACE = [1.0, 3.0]


def verdict(goal: str, figure: Any, target: str, met: bool | None,
            note: str = "") -> dict[str, Any]:
    line = {"goal": goal, "figure": figure, "target": target, "met": met}
    if note:
        line["note"] = note
    return line


def _number(value: Any) -> float | None:
    """A measured figure, or None when it is missing (NaN: nothing was measured)."""
    if value is None:
        return None
    number = float(value)
    return None if math.isnan(number) else number


def _at_most(value: Any, limit: float) -> bool | None:
    number = _number(value)
    return None if number is None else number <= limit


def judge_saturated(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The fixed mode (players act at once): CPU-ms per committed move."""
    figure = result.get("cpu_ms_per_move")
    setup = (result.get("rooms"), result.get("daphnes"))
    met = _at_most(figure, CPU_MS_PER_MOVE)
    note = ""
    if setup != (CPU_GOAL_ROOMS, CPU_GOAL_DAPHNES):
        met = None
        note = (f"measured at {setup[0]} rooms and {setup[1]} server processes; the goal is "
                f"set at {CPU_GOAL_ROOMS} rooms and {CPU_GOAL_DAPHNES}")
    return [verdict("CPU-ms per committed move, all server processes (saturated, "
                    f"{CPU_GOAL_ROOMS} rooms, {CPU_GOAL_DAPHNES} processes)",
                    figure, f"≤ {CPU_MS_PER_MOVE:g}", met, note)]


def judge_human(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The human-pace search (`--think`): p99 at 100 rooms, the largest count in 100 ms."""
    pace_note = ("" if result.get("think") == HUMAN_PACE
                 else f"measured at --think {result.get('think')}; the goal is set at 1-3")
    at_goal = next((s for s in result.get("steps", []) if s.get("rooms") == HUMAN_GOAL_ROOMS),
                   None)
    if at_goal is None:
        p99_line = verdict(f"human pace: action → last socket p99 at {HUMAN_GOAL_ROOMS} rooms, ms",
                           None, f"≤ {HUMAN_P99_MS:g}", None,
                           f"no step at {HUMAN_GOAL_ROOMS} rooms in this run (the search "
                           "stops at the first step over --p99-ms)")
    else:
        p99 = at_goal["delay_ms"]["p99"]
        p99_line = verdict(f"human pace: action → last socket p99 at {HUMAN_GOAL_ROOMS} rooms, ms",
                           p99, f"≤ {HUMAN_P99_MS:g}",
                           None if pace_note else _at_most(p99, HUMAN_P99_MS), pace_note)
    largest = result.get("largest_rooms_within_target")
    target = result.get("p99_target_ms")
    note = pace_note
    met: bool | None = None if largest is None else largest >= HUMAN_AIM_ROOMS
    if target != HUMAN_TARGET_MS:
        met, note = None, f"searched with --p99-ms {target}; the goal is {HUMAN_TARGET_MS:g}"
    elif pace_note:
        met = None
    largest_line = verdict(f"human pace: largest room count with p99 ≤ {HUMAN_TARGET_MS:g} ms",
                           largest, f"reported (aim ≥ {HUMAN_AIM_ROOMS})", met, note)
    return [p99_line, largest_line]


def judge_attacks(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Each attack: the victim's p99 under it."""
    lines = []
    for entry in result.get("attacks", []):
        p99 = entry["with"]["delay_ms"]["p99"]
        met = _at_most(p99, VICTIM_P99_MS)
        note = "" if met is not None else "the victim's actions were not measured"
        lines.append(verdict(
            f"victim's action → last socket p99 under --attack {entry['attack']} "
            f"({entry.get('addresses', 1)} attacker address(es)), ms",
            p99, f"≤ {VICTIM_P99_MS:g}", met, note))
    return lines


RESTART_GOAL_ROOMS = 50


def judge_restart(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The rolling restart: nothing lost, nothing shown, everyone back."""
    roll, lost = result["rolling_restart"], result.get("lost_updates", {})
    setup = (roll.get("proxy"), roll.get("rooms"))
    note = ("" if setup == ("nginx", RESTART_GOAL_ROOMS)
            else f"measured with --proxy {setup[0]} and {setup[1]} rooms; the goal is set "
                 f"behind nginx with {RESTART_GOAL_ROOMS}")
    judged = None if note else True

    def zero(goal: str, figure: int) -> dict[str, Any]:
        return verdict(goal, figure, "0", judged and figure == 0, note)

    shown = roll.get("server_errors", 0) + sum(roll.get("other_closes", {}).values())
    lines = [
        zero("rolling restart: sockets behind the database (lost moves)",
             lost.get("stale_sockets", 0)),
        zero("rolling restart: errors shown (server errors, closes other than 1012)", shown),
        zero("rolling restart: sockets not back", roll.get("sockets_not_back", 0)),
    ]
    if "versions_missed" in lost:  # results written before it was counted say nothing
        lines.append(zero("rolling restart: versions that never reached a socket, of running "
                          "and ended games (lost moves)", lost["versions_missed"]))
    return lines


def judge(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Every goal this run measured."""
    if "rolling_restart" in result:
        return judge_restart(result)
    if "attacks" in result:
        return judge_attacks(result)
    if "steps" in result:
        return judge_human(result)
    if result.get("idle") or result.get("think"):
        return []  # timeouts, or one human-pace window: no goal is set for these
    return judge_saturated(result)


def table(lines: list[dict[str, Any]]) -> str:
    """The goals as printed text, one line each."""
    words = {True: "met", False: "NOT met", None: "not judged"}
    out = []
    for line in lines:
        text = f"{words[line['met']]}: {line['goal']}: {line['figure']} (goal {line['target']})"
        if line.get("note"):
            text += f" [{line['note']}]"
        out.append(text)
    return "\n".join(out)
