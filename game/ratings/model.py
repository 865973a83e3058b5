"""The rating model, exactly as docs/ratings.md states it, on top of `openskill`.

`openskill.models.PlackettLuce()` with its default parameters; each seat of a game is a
team of one; a seat's rank comes from its points change in that game (higher is better,
except where the game's totals rank lowest first: trump standard, §T17.3), equal changes
share a rank; a CPU seat takes part with its level's fixed anchor (game/ratings/anchors.py)
and its result is thrown away, so an anchor never moves. No rating maths is written here:
only the translation of a game into openskill's `rate()` call.

>>> before = [Skill(25.0, 25 / 3), Skill(25.0, 25 / 3)]
>>> after = rate_seats(before, [10, -10], anchored=[False, False])
>>> after[0].mu > 25.0 > after[1].mu
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL_NAME = "openskill.PlackettLuce"
_MODEL = PlackettLuce()  # the defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300

# The three rated games and the two tracks (docs/ratings.md).
GAMES = ("dobon_uno", "trump_au", "trump_standard")
TRACKS = ("people", "programs")


@dataclass(frozen=True)
class Skill:
    """A rating: openskill's mean and standard deviation."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """mu − 3σ: the skill the player is 99.7 % likely to be above (openskill's
        `ordinal()` with its defaults)."""
        return _MODEL.rating(mu=self.mu, sigma=self.sigma).ordinal()


def default_skill() -> Skill:
    """Where a new player starts: the model's own defaults."""
    return Skill(_MODEL.mu, _MODEL.sigma)


def game_key(game_kind: str, preset: str) -> str:
    """The rated game of a stored round: `dobon_uno`, `trump_au` or `trump_standard`."""
    if game_kind == "trump_dobon":
        return f"trump_{preset or 'au'}"
    return "dobon_uno"


def ranks_from_changes(changes: Sequence[int], lower_is_better: bool) -> list[int]:
    """Standard competition ranks (1 best; equal changes share a rank: 1, 2, 2, 4).

    >>> ranks_from_changes([30, -10, -10, -10], lower_is_better=False)
    [1, 2, 2, 2]
    >>> ranks_from_changes([21, 0, 36], lower_is_better=True)
    [2, 1, 3]
    """
    keys = [-c if not lower_is_better else c for c in changes]
    return [1 + sum(1 for other in keys if other < key) for key in keys]


def rate_seats(
    before: Sequence[Skill], changes: Sequence[int], anchored: Sequence[bool],
    lower_is_better: bool = False,
) -> list[Skill]:
    """Every seat's rating after one game: openskill's `rate()` over one-player teams,
    ranked by `changes`; an `anchored` seat (a CPU) keeps its rating unchanged."""
    if not len(before) == len(changes) == len(anchored) or len(before) < 2:
        raise ValueError("a rated game needs two or more seats, one change and flag each")
    teams = [[_MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in before]
    ranks = [float(r) for r in ranks_from_changes(changes, lower_is_better)]
    rated = _MODEL.rate(teams, ranks=ranks)
    return [
        old if fixed else Skill(team[0].mu, team[0].sigma)
        for old, fixed, team in zip(before, anchored, rated, strict=True)
    ]
