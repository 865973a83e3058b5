"""Random-playout benchmark: ``python -m game.rules.bench [--seconds S | --games N]``.

A step is one seat acting: the seat on turn, else a seat the game waits for (the
colour chooser, or a seat asked in a dobon / return wait), with an action drawn
uniformly from its ``legal_actions`` (that call is timed too). When nobody can act,
time jumps one timeout and ``advance`` runs. RLCard's UNO game core, when installed,
is run the same way over its legal actions for comparison.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass
from typing import Any

from .game import Game

_RLCARD_STEP_CAP = 20_000  # RLCard games end with a winner; the cap only guards the loop


@dataclass(frozen=True)
class Score:
    """What one benchmark run measured."""

    name: str
    games: int
    actions: int
    seconds: float

    @property
    def actions_per_second(self) -> float:
        return self.actions / self.seconds

    def line(self) -> str:
        return (f"{self.name:<13} {self.games:>7} games {self.actions:>9} actions "
                f"in {self.seconds:6.2f} s: {self.games / self.seconds:9.1f} games/s "
                f"{self.actions_per_second:11.0f} actions/s")


def play_one(rng: random.Random, players: int, seed: int) -> int:
    """Play one random game to its end; returns the number of actions taken."""
    g = Game.new(players=players, first_player=rng.randrange(players), seed=seed)
    now, actions = 0.0, 0
    while g.phase != "finished":
        waiting = g.to_act()
        if not waiting:
            now += g.timeout
            g.advance(now)
            continue
        seat = waiting[0]
        g.apply(seat, rng.choice(g.legal_actions(seat)), now)
        actions += 1
    return actions


def run_ours(players: int, seconds: float, games: int | None, seed: int) -> Score:
    rng = random.Random(seed)
    played = actions = 0
    start = time.perf_counter()
    while True:
        elapsed = time.perf_counter() - start
        if (games is not None and played >= games) or (games is None and elapsed >= seconds):
            return Score("dobon engine", played, actions, elapsed)
        actions += play_one(rng, players, seed=rng.randrange(2**32))
        played += 1


def _rlcard_game(players: int) -> Any:
    try:
        from rlcard.games.uno.game import UnoGame  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        return None
    return UnoGame(num_players=players)


def run_rlcard(players: int, seconds: float, games: int | None, seed: int) -> Score | None:
    game = _rlcard_game(players)
    if game is None:
        return None
    rng = random.Random(seed)
    game.np_random.seed(seed)
    played = actions = 0
    start = time.perf_counter()
    while True:
        elapsed = time.perf_counter() - start
        if (games is not None and played >= games) or (games is None and elapsed >= seconds):
            return Score("rlcard uno", played, actions, elapsed)
        game.init_game()
        for _ in range(_RLCARD_STEP_CAP):
            if game.is_over():
                break
            game.step(rng.choice(game.get_legal_actions()))
            actions += 1
        played += 1


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per engine (default 3)")
    parser.add_argument("--games", type=int, default=None, help="play this many games instead")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-rlcard", action="store_true", help="skip the RLCard comparison")
    args = parser.parse_args(argv)
    ours = run_ours(args.players, args.seconds, args.games, args.seed)
    print(ours.line())
    if args.no_rlcard:
        return
    theirs = run_rlcard(args.players, args.seconds, args.games, args.seed)
    if theirs is None:
        print("rlcard uno: skipped (rlcard is not installed: pip install rlcard)")
        return
    print(theirs.line())
    print(f"ratio (ours / rlcard actions per second): "
          f"{ours.actions_per_second / theirs.actions_per_second:.2f}x")


if __name__ == "__main__":
    main()
