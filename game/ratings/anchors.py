"""CPU seats as fixed anchors: one (mu, sigma) per game and CPU level, never changed.

The numbers come from the CPU tournament (docs/cpu-players.md, docs/bots.md) put through
the rating model itself: ``python -m game.ratings.anchors --games N --seed S`` plays N
tournament games of each rated game with the levels easy, normal and strong in rotating
seats (game.bots.tournament.play_one: the same deals and policies as the tournament),
rates them with game/ratings/model.py starting every level at the model's defaults, and
prints each level's mean mu over the second half of the games (the first half is the
climb from the defaults) and its final sigma. The constants below are the means of two
runs (``--games 1200 --seed 1`` and ``--games 2400 --seed 2``, weighted by their
games), mu rounded to 0.1, and one sigma for all, 1.6 (the runs ended at 1.52–1.66).
docs/ratings.md has the runs and what they say about the levels.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from game.ratings.model import GAMES, Skill, default_skill, rate_seats

LEVELS = ("easy", "normal", "strong")

ANCHORS: dict[str, dict[str, Skill]] = {
    "dobon_uno": {
        "easy": Skill(21.1, 1.6), "normal": Skill(26.5, 1.6), "strong": Skill(27.0, 1.6),
    },
    "trump_au": {
        "easy": Skill(18.1, 1.6), "normal": Skill(28.2, 1.6), "strong": Skill(28.2, 1.6),
    },
    "trump_standard": {
        "easy": Skill(22.4, 1.6), "normal": Skill(26.8, 1.6), "strong": Skill(25.5, 1.6),
    },
}


def anchor(game: str, level: str) -> Skill:
    """The fixed rating of a CPU of `level` in `game` (an unknown level: normal's)."""
    return ANCHORS[game].get(level, ANCHORS[game]["normal"])


def fit(game: str, games: int, seed: int) -> dict[str, Skill]:
    """Each level's rating after `games` tournament games of `game` (see the module)."""
    from game.bots.tournament import lineup, play_one

    kind, preset = ("trump", game.removeprefix("trump_")) if game != "dobon_uno" else (
        "dobon_uno", "standard")
    current = dict.fromkeys(LEVELS, default_skill())
    history: dict[str, list[float]] = {lv: [] for lv in LEVELS}
    for g in range(games):
        seats = lineup(LEVELS, g)
        record = play_one(kind, preset, seats, seed, g)
        after = rate_seats([current[lv] for lv in seats], record.result["deltas"],
                           [False] * len(seats), lower_is_better=game == "trump_standard")
        for level, skill in zip(seats, after, strict=True):
            current[level] = skill
            history[level].append(skill.mu)
    half = games // 2
    return {lv: Skill(sum(history[lv][half:]) / len(history[lv][half:]), current[lv].sigma)
            for lv in LEVELS}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", choices=GAMES, action="append")
    args = parser.parse_args(argv)
    for game in args.game or GAMES:
        fitted = fit(game, args.games, args.seed)
        print(game, " ".join(f"{lv}=({s.mu:.2f}, {s.sigma:.2f})" for lv, s in fitted.items()))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
