"""Random-playout benchmark: ``python -m game.management.bench.engines [--seconds S | --games N]``.

A step is one seat acting: the seat on turn, else a seat the game waits for (the
colour chooser, or a seat asked in a dobon / return wait), with an action drawn
uniformly from its ``legal_actions`` (that call is timed too; both engines pick with
``options[int(random() * len(options))]``). When nobody can act, time jumps one
timeout and ``advance`` runs. RLCard's UNO game core, when installed, is run the same
way over its legal actions for comparison, alternating with ours in rounds so that a
busy machine slows both alike.

The trump Dobon engine (``game.rules.trump``) is measured in the same run and the same
rounds, both presets (``au`` and ``standard``) at the same seat count: the same loop,
except that a bid (the auction's one descriptor) is made with a random amount.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from game.rules import Game
from game.rules.trump import Game as TrumpGame

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
        return (f"{self.name:<14} {self.games:>7} games {self.actions:>9} actions "
                f"in {self.seconds:6.2f} s: {self.games / self.seconds:9.1f} games/s "
                f"{self.actions_per_second:11.0f} actions/s")


def play_one(rng: random.Random, players: int, seed: int) -> int:
    """Play one random game to its end; returns the number of actions taken."""
    g = Game.new(players=players, first_player=rng.randrange(players), seed=seed)
    now, actions = 0.0, 0
    random_ = rng.random  # the loop is what is measured: keep it tight (as for RLCard)
    while True:
        waiting = g.to_act()
        if not waiting:
            if g.result is not None:
                return actions
            now += g.timeout
            g.advance(now)
            continue
        seat = waiting[0]
        options = g.legal_actions(seat)
        g.apply(seat, options[int(random_() * len(options))], now)
        actions += 1


def play_trump_one(rng: random.Random, preset: str, players: int, seed: int) -> int:
    """Play one random trump round to its end; returns the number of actions taken."""
    first = rng.randrange(players) if preset == "au" else None
    g = TrumpGame.new(players=players, first_player=first, seed=seed, preset=preset)
    now, actions = 0.0, 0
    random_ = rng.random
    while True:
        waiting = g.to_act()
        if not waiting:
            if g.result is not None:
                return actions
            now += g.timeout
            g.advance(now)
            continue
        seat = waiting[0]
        options = g.legal_actions(seat)
        action = options[int(random_() * len(options))]
        if action["type"] == "bid":  # the descriptor: choose an amount
            g.bid(seat, 1 + int(random_() * 20), now)
        else:
            g.apply(seat, action, now)
        actions += 1


class Runner:
    """Plays whole random games of one engine, accumulating a :class:`Score`."""

    def __init__(self, name: str, play: Callable[[random.Random], int], seed: int) -> None:
        self.name, self.play, self.rng = name, play, random.Random(seed)
        self.games = self.actions = 0
        self.seconds = 0.0

    def run(self, seconds: float | None, games: int | None) -> None:
        """Play for ``seconds`` (whole games), or exactly ``games`` games."""
        start = time.perf_counter()
        played = 0
        while (played < games if games is not None
               else time.perf_counter() - start < (seconds or 0.0)):
            self.actions += self.play(self.rng)
            played += 1
        self.games += played
        self.seconds += time.perf_counter() - start

    def score(self) -> Score:
        return Score(self.name, self.games, self.actions, self.seconds)


def ours(players: int, seed: int) -> Runner:
    return Runner("dobon engine", lambda rng: play_one(rng, players, rng.randrange(2**32)), seed)


def trump(preset: str, players: int, seed: int) -> Runner:
    return Runner(f"trump {preset}",
                  lambda rng: play_trump_one(rng, preset, players, rng.randrange(2**32)), seed)


def rlcard(players: int, seed: int) -> Runner | None:
    """RLCard's UNO game core, or ``None`` when rlcard is not installed."""
    try:
        from rlcard.games.uno.game import UnoGame  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        return None
    game = UnoGame(num_players=players)
    game.np_random.seed(seed)

    def play(rng: random.Random) -> int:
        game.init_game()
        steps = 0
        random_ = rng.random
        while not game.is_over() and steps < _RLCARD_STEP_CAP:
            options = game.get_legal_actions()
            game.step(options[int(random_() * len(options))])
            steps += 1
        return steps

    return Runner("rlcard uno", play, seed)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=4.0,
                        help="time per engine, split over the rounds (default 4)")
    parser.add_argument("--games", type=int, default=None,
                        help="play this many games per engine instead (split over the rounds)")
    parser.add_argument("--rounds", type=int, default=8,
                        help="alternate the engines this many times, so that a busy machine "
                             "slows both alike (default 8)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-rlcard", action="store_true", help="skip the RLCard comparison")
    parser.add_argument("--no-trump", action="store_true", help="skip the trump engine")
    args = parser.parse_args(argv)
    runners = [ours(args.players, args.seed)]
    trumps: list[Runner] = []
    if not args.no_trump:
        # au is played by 2-4 seats, standard by 3-6: clamp to what each preset allows.
        trumps = [trump("au", min(max(args.players, 2), 4), args.seed),
                  trump("standard", min(max(args.players, 3), 6), args.seed)]
        runners += trumps
    theirs = None if args.no_rlcard else rlcard(args.players, args.seed)
    if theirs is not None:
        runners.append(theirs)
    rounds = max(1, args.rounds)
    for r in range(rounds):
        for runner in runners:
            games = None
            if args.games is not None:
                games = args.games // rounds + (1 if r < args.games % rounds else 0)
            runner.run(args.seconds / rounds, games)
    mine = runners[0].score()
    print(mine.line())
    for runner in trumps:
        score = runner.score()
        print(score.line())
        print(f"ratio ({score.name} / dobon engine actions per second): "
              f"{score.actions_per_second / mine.actions_per_second:.2f}x")
    if args.no_rlcard:
        return
    if theirs is None:
        print("rlcard uno: skipped (rlcard is not installed: pip install rlcard)")
        return
    other = theirs.score()
    print(other.line())
    print(f"ratio (ours / rlcard actions per second): "
          f"{mine.actions_per_second / other.actions_per_second:.2f}x")


if __name__ == "__main__":
    main()
