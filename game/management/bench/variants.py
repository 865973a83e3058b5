"""CPU time of random playouts per rule variant, two source trees back to back (issue #32).

``python game/management/bench/variants.py --base DIR [--games N] [--rounds R]`` runs, in
rounds, the same fixed-seed random games under each variant (Dobon UNO's default rules and
each house-rule preset of HOUSE-RULES.md §7; trump au and standard) once with the engines of
DIR (a tree holding ``game/rules``, e.g. ``git archive <commit> game/rules game/__init__.py``)
and once with this tree's, alternating which goes first, each in a fresh process. Only the
playout loop is timed, in CPU seconds (``time.process_time``), so that a loaded machine
slows both sides alike; each round gives a ratio this/base per variant, and the median ratio
is reported with the load average. ``--child`` is the measuring process (internal).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[3]  # this tree's root
VARIANTS = ("default", "party", "classic", "competitive", "trump_au", "trump_standard")


def _play_uno(game_class: Any, rules: Any, rng: random.Random, seed: int) -> int:
    g = game_class.new(players=4, first_player=rng.randrange(4), seed=seed, house_rules=rules)
    now, actions, random_ = 0.0, 0, rng.random
    while True:
        waiting = g.to_act()
        if not waiting:
            if g.result is not None:
                return actions
            now += g.timeout
            g.advance(now)
            continue
        seat = waiting[int(random_() * len(waiting))]
        options = g.legal_actions(seat)
        g.apply(seat, options[int(random_() * len(options))], now)
        actions += 1


def _play_trump(game_class: Any, preset: str, rng: random.Random, seed: int) -> int:
    g = game_class.new(players=4, seed=seed, preset=preset,
                       first_player=None if preset == "standard" else rng.randrange(4))
    now, actions, random_ = 0.0, 0, rng.random
    while True:
        waiting = g.to_act()
        if not waiting:
            if g.result is not None:
                return actions
            now += g.timeout
            g.advance(now)
            continue
        seat = waiting[int(random_() * len(waiting))]
        options = g.legal_actions(seat)
        action = options[int(random_() * len(options))]
        if action["type"] == "bid" and "min" in action:
            action = {"type": "bid", "amount": rng.randint(action["min"], 30)}
        g.apply(seat, action, now)
        actions += 1


def child(variant: str, games: int, seed: int) -> dict[str, float]:
    """Play `games` games of `variant` with the engines on sys.path; CPU seconds, actions."""
    rng = random.Random(seed)
    if variant.startswith("trump_"):
        from game.rules.trump import Game as Trump

        preset = variant.removeprefix("trump_")
        start, actions = time.process_time(), 0
        for i in range(games):
            actions += _play_trump(Trump, preset, rng, seed + i)
    else:
        from game.rules import PRESETS, Game

        rules = None if variant == "default" else dict(PRESETS[variant])
        start, actions = time.process_time(), 0
        for i in range(games):
            actions += _play_uno(Game, rules, rng, seed + i)
    return {"cpu": time.process_time() - start, "actions": actions}


def _measure(tree: Path, variant: str, games: int, seed: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, __file__, "--child", variant, "--games", str(games), "--seed", str(seed)],
        env=env, capture_output=True, text=True, check=True, cwd=tree,
    ).stdout
    result: dict[str, float] = json.loads(out)
    return result


def compare(base: Path, games: int, rounds: int, seed: int,
            variants: tuple[str, ...] = VARIANTS) -> dict[str, Any]:
    pairs: dict[str, list[tuple[float, float]]] = {v: [] for v in variants}
    actions: dict[str, tuple[float, float]] = {}
    for r in range(rounds):
        for variant in variants:
            order = [("base", base), ("this", HERE)]
            if r % 2:
                order.reverse()
            got = {name: _measure(tree, variant, games, seed + 1000 * r) for name, tree in order}
            pairs[variant].append((got["base"]["cpu"], got["this"]["cpu"]))
            actions[variant] = (got["base"]["actions"], got["this"]["actions"])
    return {
        "games_per_run": games, "rounds": rounds, "load_average": os.getloadavg(),
        "variants": {
            v: {"base_cpu": [round(b, 3) for b, _ in p], "this_cpu": [round(t, 3) for _, t in p],
                "median_ratio": round(statistics.median(t / b for b, t in p), 3),
                "actions_base_this": actions[v]}
            for v, p in pairs.items()
        },
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--base", type=Path)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    parser.add_argument("--child", choices=VARIANTS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.games, args.seed)))
        return
    if args.base is None:
        parser.error("--base DIR is required")
    start = os.getloadavg()
    report = compare(args.base, args.games, args.rounds, args.seed, tuple(args.variants))
    report["load_average_at_start"] = start
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
