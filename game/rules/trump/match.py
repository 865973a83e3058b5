"""The match record a room keeps from round to round (TRUMP-RULES.md §T17, §T20.9).

Two pure functions: :func:`match_new` starts a record, :func:`match_update` returns the
record after a round (the argument is left unchanged).

>>> m = match_new("au", 3, owner=0)
>>> m["first_player"], m["totals"]
(1, [1000, 1000, 1000])
>>> r = {"winners": [2], "deltas": [-13, -40, 53], "next_first_player": 2}
>>> m2 = match_update(m, r)
>>> m2["totals"], m2["first_player"], m2["round"], m2["over"]
([987, 960, 1053], 2, 2, False)
"""

from __future__ import annotations

import copy
from typing import Any

from .result import Result

_AU_START = (100, 1000, 100_000)      # §T1.4: low, default, high
_STD_ROUNDS = (1, 20, 1000)           # §T1.5


def match_new(preset: str, players: int, settings: dict[str, Any] | None = None,
              owner: int = 0) -> dict[str, Any]:
    """A new match (§T17.5): au totals at the starting points, standard totals at 0."""
    if preset not in ("au", "standard"):
        raise ValueError(f"unknown preset {preset!r}")
    if type(players) is not int or players < 2:
        raise ValueError("a match needs seats")
    settings = dict(settings or {})
    if preset == "au":
        start = settings.setdefault("start", _AU_START[1])
        if type(start) is not int or not _AU_START[0] <= start <= _AU_START[2]:
            raise ValueError("starting points are 100 to 100,000 (T1.4)")
        totals = [start] * players
        first: int | None = (owner + 1) % players
    else:
        rounds = settings.setdefault("rounds", _STD_ROUNDS[1])
        if type(rounds) is not int or not _STD_ROUNDS[0] <= rounds <= _STD_ROUNDS[2]:
            raise ValueError("a match is 1 to 1,000 rounds (T1.5)")
        totals = [0] * players
        first = None
    record: dict[str, Any] = {
        "preset": preset, "settings": settings, "round": 1, "totals": totals,
        "wins": [0] * players, "streaks": [0] * players, "first_player": first,
        "over": False, "standing": [],
    }
    record["standing"] = standing(record)
    return record


def match_update(record: dict[str, Any], result: Result | dict[str, Any]) -> dict[str, Any]:
    """The record after a round with this result (§T17, §T20.9)."""
    res = result.to_dict() if isinstance(result, Result) else result
    new = copy.deepcopy(record)
    if new["over"]:
        raise ValueError("this match is over: start a new one (match_new)")
    winners = set(res["winners"])
    new["totals"] = [t + d for t, d in zip(new["totals"], res["deltas"], strict=True)]
    new["wins"] = [w + (s in winners) for s, w in enumerate(new["wins"])]
    new["streaks"] = [st + 1 if s in winners else 0 for s, st in enumerate(new["streaks"])]
    if new["preset"] == "au":
        if winners and res.get("next_first_player") is not None:
            new["first_player"] = res["next_first_player"]
        over = any(t < 0 for t in new["totals"])
    else:
        over = new["round"] >= new["settings"]["rounds"]
    if over:
        new["over"] = True
    else:
        new["round"] += 1
    new["standing"] = standing(new)
    return new


def standing(record: dict[str, Any]) -> list[list[int]]:
    """``[[seat, place], ...]`` best first; ties share a place (§T17.2, §T17.3)."""
    totals, wins = record["totals"], record["wins"]
    if record["preset"] == "au":
        def key(s: int) -> tuple[int, ...]:
            return (-totals[s],)
    else:
        def key(s: int) -> tuple[int, ...]:
            return (totals[s], -wins[s])
    seats = sorted(range(len(totals)), key=lambda s: (key(s), s))
    out: list[list[int]] = []
    for i, s in enumerate(seats):
        place = out[-1][1] if i and key(seats[i - 1]) == key(s) else i + 1
        out.append([s, place])
    return out
