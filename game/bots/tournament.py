"""Tournament of CPU levels, played with the engine alone.

``python -m game.bots.tournament --games N --levels easy,normal,strong,easy --seed S
[--preset standard|party|classic|competitive]``
``python -m game.bots.tournament --game trump --preset au|standard --games N ...``

Plays N games (no Django) of Dobon UNO (the default) or, with ``--game trump``, N rounds
of trump Dobon in one of its presets (TRUMP-RULES.md: ``au``, the default, or
``standard``; each round stands alone: no match record carries over). Seats rotate: game
g puts level entry i in seat (i + g) mod n, so over every n games each entry sits in
every position once, and those n games share one deal (the same engine seed): luck of
the cards is spread evenly over the levels, as in duplicate bridge. Every game is
independent and played at rate 1 (a room's rate doubles after a deck-out, §R12.3; here
nothing carries over).

It prints a table of points per game for each level with 95 % confidence intervals
(normal approximation over games: a level's points in a game are the mean of its seats'
deltas; in standard trump they are scores, where lower is better, §T16.3), win rates by
kind of result (§R11, §R12), paired differences between levels (trump: signed so that a
positive one favours the first level), and the same figures as JSON on its last line.
For Dobon UNO ``--preset`` plays every game under one of HOUSE-RULES.md §7's presets (its
engine rules; a tournament's games are independent, so the room's rate cap and session
length, §H13 and §H14, do not apply). The output is a function of the arguments: the same
seed gives the same figures (timings are printed on their own line, outside the JSON).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from game.rules import PRESETS

from . import LEVELS, policy
from .driver import GameRecord, play_game
from .trump import policy as trump_policy
from .trump.driver import play_round

KINDS = ("agari", "dobon", "return", "deck_out")
GAMES = ("dobon_uno", "trump")
TRUMP_PRESETS = ("au", "standard")
# Seats each game takes (§R1.1; TRUMP-RULES.md §T1.2).
SEATS = {"dobon_uno": (2, 8), "au": (2, 4), "standard": (3, 6)}
_Z95 = 1.959964


@dataclass
class LevelStats:
    """One level's figures over a tournament."""

    seats_per_game: int
    per_game: list[float] = field(default_factory=list)  # mean delta of its seats, per game
    seat_games: int = 0
    wins: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS[:3], 0))
    dobonned: int = 0        # paid a dobon (§R11.2)
    returned: int = 0        # declared a dobon that was returned (§R11.3)
    positions: list[int] = field(default_factory=list)
    decisions: int = 0
    seconds: float = 0.0


def lineup(levels: Sequence[str], game: int) -> list[str]:
    """The level in each seat for game number ``game`` (0-based): a rotation."""
    n = len(levels)
    seats = [""] * n
    for entry, level in enumerate(levels):
        seats[(entry + game) % n] = level
    return seats


def deal_seed(seed: int, game: int, players: int) -> int:
    """One deal for every ``players`` consecutive games (one full rotation)."""
    return seed * 1_000_003 + game // players


def policy_seed(seed: int, game: int, seat: int) -> int:
    return (seed * 1_000_003 + game) * 16 + seat


def play_one(game: str, preset: str, seats: Sequence[str], seed: int,
             g: int) -> GameRecord:
    """Game number ``g`` of a tournament, with these levels in its seats."""
    n = len(seats)
    if game == "trump":
        players = [trump_policy(lv, policy_seed(seed, g, s)) for s, lv in enumerate(seats)]
        return play_round(players, seed=deal_seed(seed, g, n), preset=preset,
                          first_player=0)
    return play_game([policy(lv, policy_seed(seed, g, s)) for s, lv in enumerate(seats)],
                     seed=deal_seed(seed, g, n), first_player=0, rate=1, timeout=10.0,
                     house_rules=dict(PRESETS[preset]))


def run(games: int, levels: Sequence[str], seed: int, preset: str = "standard",
        game: str = "dobon_uno") -> dict[str, Any]:
    """Play the tournament; returns its figures (``report`` shape) plus timings.
    ``preset``: Dobon UNO house rules, or with ``game="trump"`` au or standard."""
    n = len(levels)
    stats = {lv: LevelStats(levels.count(lv), positions=[0] * n) for lv in dict.fromkeys(levels)}
    kinds = dict.fromkeys(KINDS, 0)
    started = time.process_time()
    for g in range(games):
        seats = lineup(levels, g)
        record = play_one(game, preset, seats, seed, g)
        kinds[record.result["kind"]] += 1
        _count(stats, seats, record)
    seconds = time.process_time() - started
    figures = report(games, levels, seed, stats, kinds)
    if game == "trump":
        figures.update(game=game, preset=preset,
                       score_order="low" if preset == "standard" else "high",
                       pairs=_pairs(stats, lower_better=preset == "standard"))
    elif preset != "standard":  # the standard report keeps its exact shape
        figures["preset"] = preset
    return {"report": figures,
            "seconds": seconds,
            "ms_per_decision": {lv: 1000 * s.seconds / max(s.decisions, 1)
                                for lv, s in stats.items()},
            "decisions": sum(s.decisions for s in stats.values())}


def _count(stats: dict[str, LevelStats], seats: list[str], record: GameRecord) -> None:
    result = record.result
    kind, winners = result["kind"], result["winners"]
    # Dobon UNO and au name who paid; standard has no payments, only losers (§T14.3).
    payers = ({payer for payer, _, _ in result["payments"]} if result["payments"]
              else set(result.get("losers") or []))
    per_level: dict[str, list[int]] = {}
    for seat, level in enumerate(seats):
        s = stats[level]
        per_level.setdefault(level, []).append(result["deltas"][seat])
        s.seat_games += 1
        s.positions[seat] += 1
        s.decisions += record.decisions_by_seat[seat]
        s.seconds += record.seconds_by_seat[seat]
        if seat in winners and kind in s.wins:
            s.wins[kind] += 1
        if kind == "dobon" and seat in payers:
            s.dobonned += 1
        if kind == "return" and seat in payers:
            s.returned += 1
    for level, deltas in per_level.items():
        stats[level].per_game.append(sum(deltas) / len(deltas))


def mean_ci(values: Sequence[float]) -> tuple[float, float, float, float]:
    """Mean, standard deviation and the 95 % confidence interval of the mean."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0, 0.0, 0.0
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    half = _Z95 * sd / math.sqrt(n)
    return mean, sd, mean - half, mean + half


def report(games: int, levels: Sequence[str], seed: int, stats: dict[str, LevelStats],
           kinds: dict[str, int]) -> dict[str, Any]:
    """The figures, JSON-safe."""
    results: dict[str, Any] = {}
    for level, s in stats.items():
        mean, sd, low, high = mean_ci(s.per_game)
        results[level] = {
            "seats_per_game": s.seats_per_game,
            "points_per_game": round(mean, 3), "sd": round(sd, 3),
            "ci95": [round(low, 3), round(high, 3)],
            "seat_games": s.seat_games, "positions": s.positions,
            "win_rates": {k: round(v / max(s.seat_games, 1), 4) for k, v in s.wins.items()},
            "dobonned_rate": round(s.dobonned / max(s.seat_games, 1), 4),
            "returned_rate": round(s.returned / max(s.seat_games, 1), 4),
        }
    return {"games": games, "levels": list(levels), "seed": seed, "rate": 1,
            "kinds": {k: round(v / max(games, 1), 4) for k, v in kinds.items()},
            "kind_counts": kinds, "results": results, "pairs": _pairs(stats)}


def _pairs(stats: dict[str, LevelStats], lower_better: bool = False) -> dict[str, Any]:
    """Per-game differences between levels (paired: same games, tighter intervals),
    signed so that a positive difference favours the better level (``lower_better``:
    lower scores are better, as in standard trump)."""
    sign = -1.0 if lower_better else 1.0
    ordered = [lv for lv in reversed(LEVELS) if lv in stats]
    pairs: dict[str, Any] = {}
    for i, better in enumerate(ordered):
        for worse in ordered[i + 1:]:
            diffs = [sign * (a - b) for a, b in
                     zip(stats[better].per_game, stats[worse].per_game, strict=True)]
            mean, _, low, high = mean_ci(diffs)
            pairs[f"{better}-{worse}"] = {"diff": round(mean, 3),
                                          "ci95": [round(low, 3), round(high, 3)]}
    return pairs


def table(figures: dict[str, Any]) -> str:
    """The figures as a readable table."""
    if figures.get("game") == "trump":
        order = "lower" if figures["score_order"] == "low" else "higher"
        title = (f"Trump Dobon ({figures['preset']}) tournament: {figures['games']} rounds, "
                 f"seats {','.join(figures['levels'])} (rotating), seed {figures['seed']}, "
                 f"each round alone; {order} points are better")
    else:
        title = (f"Dobon UNO tournament: {figures['games']} games, seats "
                 f"{','.join(figures['levels'])} (rotating), seed {figures['seed']}, "
                 f"rate 1 every game, house rules {figures.get('preset', 'standard')}")
    lines = [title,
             f"{'level':<8}{'seats':>6}{'points/game':>13}{'95% CI':>20}"
             f"{'agari':>8}{'dobon':>8}{'return':>8}{'dobonned':>10}"]
    for level, r in figures["results"].items():
        w = r["win_rates"]
        ci = f"[{r['ci95'][0]:+.1f}, {r['ci95'][1]:+.1f}]"
        lines.append(f"{level:<8}{r['seats_per_game']:>6}{r['points_per_game']:>+13.2f}{ci:>20}"
                     f"{w['agari']:>8.1%}{w['dobon']:>8.1%}{w['return']:>8.1%}"
                     f"{r['dobonned_rate']:>10.1%}")
    kinds = ", ".join(f"{k} {v:.1%}" for k, v in figures["kinds"].items())
    lines.append(f"games ended by: {kinds}")
    for pair, p in figures["pairs"].items():
        favour = " in favour of the first" if figures.get("game") == "trump" else ""
        lines.append(f"{pair}: {p['diff']:+.2f} points/game{favour}, 95% CI "
                     f"[{p['ci95'][0]:+.1f}, {p['ci95'][1]:+.1f}] (paired over games)")
    lines.append("win rates are per seat and game; 'dobonned' = paid a dobon (R11.2)")
    return "\n".join(lines)


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m game.bots.tournament",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--levels", default="easy,normal,strong,easy")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", choices=GAMES, default="dobon_uno")
    parser.add_argument("--preset", default=None,
                        help="Dobon UNO: house rules of every game (HOUSE-RULES.md §7: "
                             f"{', '.join(sorted(PRESETS))}; default standard); "
                             "trump: au (the default) or standard")
    args = parser.parse_args(argv)
    presets = TRUMP_PRESETS if args.game == "trump" else tuple(sorted(PRESETS))
    if args.preset is None:
        args.preset = "au" if args.game == "trump" else "standard"
    if args.preset not in presets:
        parser.error(f"--preset {args.preset!r} is not one of {', '.join(presets)}"
                     f" for {args.game}")
    args.levels = [lv.strip() for lv in args.levels.split(",") if lv.strip()]
    if args.games < 1:
        parser.error("--games must be at least 1")
    low, high = SEATS[args.preset if args.game == "trump" else args.game]
    if not low <= len(args.levels) <= high:
        parser.error(f"--levels needs {low} to {high} comma-separated levels"
                     f" ({'T1.2' if args.game == 'trump' else 'R1.1'})")
    unknown = sorted(set(args.levels) - set(LEVELS))
    if unknown:
        parser.error(f"unknown level(s) {', '.join(unknown)}; expected {', '.join(LEVELS)}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse(argv)
    out = run(args.games, args.levels, args.seed, args.preset, args.game)
    figures = out["report"]
    print(table(figures))
    per = ", ".join(f"{lv} {ms:.2f} ms" for lv, ms in out["ms_per_decision"].items())
    print(f"took {out['seconds']:.1f} s ({1000 * out['seconds'] / args.games:.1f} ms per game); "
          f"{out['decisions']} decisions, CPU time per decision: {per}")
    print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
