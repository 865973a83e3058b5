"""Skill ratings: written with a rated game's result, in the transaction that settles it.

`record_rated` is connected to the change port's `finished` moment (wiring.py), so a
game's result and its rating changes commit together or not at all. `rebuild_all`
recomputes every rating from the stored games with the same function (`rate_game`), in
the order of docs/ratings.md (finished_at, then id), and gives the same numbers.

What counts (docs/ratings.md): finished games (aborted ones never reach `finished`) that
started in a room marked rated (`Game.rated`), with at least one registered player; the
track is `programs` when the game belongs to a match or any seat played as a program at
the end (the result's `players[].kind`), else `people`; each seat is a team of one, ranked
by its points change (`rank` of game/ratings/model.py); a CPU seat is its level's anchor.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import combinations
from typing import Any

from django.conf import settings
from django.db import transaction

from game.models import Game, GamePlayer, Rating, RatingChange
from game.ratings.anchors import anchor
from game.ratings.model import Skill, default_skill, game_key, rate_seats

PEOPLE, PROGRAMS = "people", "programs"


@dataclass(frozen=True)
class RatedSeat:
    """One seat as the model sees it: a registered player, a CPU anchor, or neither (an
    account deleted since: it plays at `ghost` and is stored nowhere)."""

    seat: int
    user_id: int | None
    cpu_level: str | None
    delta: int
    ghost: Skill | None = None


@dataclass(frozen=True)
class SeatChange:
    seat: RatedSeat
    before: Skill
    after: Skill


def track_of(match_id: int | None, players: Iterable[dict[str, Any]]) -> str:
    """`programs` for a match game or a game with a program seat; else `people`."""
    if match_id is not None or any(p.get("kind") == "program" for p in players):
        return PROGRAMS
    return PEOPLE


def is_lower_better(summary: dict[str, Any]) -> bool:
    """Trump standard ranks totals lowest first (§T17.3): its result says so."""
    return summary.get("score_order") == "low"


def rate_game(
    seats: Sequence[RatedSeat], lower_is_better: bool, key: str,
    current: Callable[[int], Skill],
) -> list[SeatChange]:
    """Every seat's change in one rated game; `current(user_id)` is a player's rating
    before it. The one computation both the live hook and the rebuild use."""
    before = [
        anchor(key, s.cpu_level) if s.cpu_level else
        current(s.user_id) if s.user_id is not None else s.ghost or default_skill()
        for s in seats
    ]
    after = rate_seats(before, [s.delta for s in seats], [s.cpu_level is not None for s in seats],
                       lower_is_better)
    return [SeatChange(s, b, a) for s, b, a in zip(seats, before, after, strict=True)]


def counts(seats: Sequence[RatedSeat]) -> bool:
    """A game is rated only with a registered player in it and two seats or more."""
    return len(seats) >= 2 and any(s.user_id is not None and not s.cpu_level for s in seats)


# -- the farming guard: a pair of accounts counts a bounded number of games a day ------------

PAIR_WINDOW = timedelta(hours=24)

Pair = tuple[int, int]


def pairs_of(seats: Sequence[RatedSeat]) -> list[Pair]:
    people = sorted(s.user_id for s in seats if s.user_id is not None and not s.cpu_level)
    return list(combinations(people, 2))


def pair_capped(pairs: list[Pair], played: Callable[[Pair], int]) -> bool:
    """Whether some pair of these players already has the day's rated games together
    (`played(pair)`: their rated games in the 24 hours up to this one)."""
    cap = settings.DOBON_RATED_PAIR_GAMES_PER_DAY
    return cap > 0 and any(played(pair) >= cap for pair in pairs)


def _stored_pair_games(game: Game, pairs: list[Pair], when: datetime) -> Callable[[Pair], int]:
    """Rated games each pair played together in the 24 hours up to `when`: one query."""
    if not pairs:
        return lambda pair: 0
    people = sorted({user for pair in pairs for user in pair})
    together: dict[int, set[int]] = {}
    for game_id, user in RatingChange.objects.filter(
            user_id__in=people, game__finished_at__gte=when - PAIR_WINDOW,
            game__finished_at__lte=when).exclude(game_id=game.pk).values_list(
            "game_id", "user_id"):
        together.setdefault(game_id, set()).add(user)
    return lambda pair: sum(1 for users in together.values() if set(pair) <= users)


# -- the hook --------------------------------------------------------------------------------


def record_rated(game: Game, engine: Any, seats: list[Any], summary: dict[str, Any]) -> None:
    """Rate a just-settled game, under its row lock, in the settling transaction
    (play.do_finish, through changes.finished). A few queries, whatever the history."""
    if not game.rated:
        return
    rated = [RatedSeat(s.seat, None if s.cpu_level else s.user_id, s.cpu_level,
                       int(summary["deltas"][s.seat])) for s in seats]
    if not counts(rated):
        return
    when = game.finished_at
    assert when is not None, "do_finish sets finished_at before announcing it"
    key = game_key(game.game_kind, game.preset)
    track = track_of(game.match_id, summary.get("players") or [])
    # Before any rating row is created, as the rebuild does. Two games of one pair that
    # finish at the same instant may both pass: the cap can be passed by one, no more.
    pairs = pairs_of(rated)
    if pair_capped(pairs, _stored_pair_games(game, pairs, when)):
        return
    rows = _locked_rows(key, track, [s.user_id for s in rated if s.user_id is not None])
    changes = rate_game(rated, is_lower_better(summary), key,
                        lambda user: Skill(rows[user].mu, rows[user].sigma))
    numbers = {user: _apply(row, changes, user, when) for user, row in rows.items()}
    Rating.objects.bulk_update(list(rows.values()),
                               ["mu", "sigma", "ordinal", "games", "last_played_at"])
    RatingChange.objects.bulk_create(_change_rows(game.pk, key, track, changes, numbers))


def _locked_rows(key: str, track: str, users: list[int]) -> dict[int, Rating]:
    """Each player's rating line, created at the model's defaults when missing, locked
    in user order (two rooms finishing at once for the same players cannot deadlock)."""
    start = default_skill()
    Rating.objects.bulk_create(
        [Rating(user_id=u, game=key, track=track, mu=start.mu, sigma=start.sigma,
                ordinal=start.ordinal, games=0, last_played_at=_EPOCH) for u in users],
        ignore_conflicts=True,
    )
    locked = Rating.objects.select_for_update().filter(
        user_id__in=users, game=key, track=track).order_by("user_id")
    return {r.user_id: r for r in locked}


def _apply(row: Rating, changes: list[SeatChange], user: int, when: datetime) -> int:
    change = next(c for c in changes if c.seat.user_id == user)
    row.mu, row.sigma, row.ordinal = change.after.mu, change.after.sigma, change.after.ordinal
    row.games += 1
    row.last_played_at = max(row.last_played_at, when)
    return row.games


def _change_rows(
    game_id: int, key: str, track: str, changes: list[SeatChange], numbers: dict[int, int]
) -> list[RatingChange]:
    return [
        RatingChange(
            game_id=game_id, seat=c.seat.seat, user_id=c.seat.user_id,
            cpu_level=c.seat.cpu_level, rated_game=key, track=track,
            mu_before=c.before.mu, sigma_before=c.before.sigma,
            mu=c.after.mu, sigma=c.after.sigma,
            number=numbers.get(c.seat.user_id) if c.seat.user_id is not None else None,
        )
        for c in changes
    ]


# -- rebuilding from the stored games --------------------------------------------------------


def rebuild_all() -> int:
    """Recompute every rating from the stored games, oldest first (finished_at, then
    id), in one transaction; returns the number of games rated. A seat whose account
    is gone plays at the rating its stored change row had before (else the defaults)."""
    with transaction.atomic():
        ghosts = {(c.game_id, c.seat): Skill(c.mu_before, c.sigma_before)
                  for c in RatingChange.objects.filter(user__isnull=True, cpu_level__isnull=True)}
        RatingChange.objects.all().delete()
        Rating.objects.all().delete()
        board: dict[tuple[int, str, str], Rating] = {}
        rows: list[RatingChange] = []
        pair_times: dict[Pair, list[datetime]] = {}
        rated = 0
        for game in _rated_games():
            changed = _rebuild_one(game, board, ghosts, pair_times)
            rows += changed
            rated += bool(changed)
        Rating.objects.bulk_create(board.values(), batch_size=2000)
        RatingChange.objects.bulk_create(rows, batch_size=2000)
    return rated


_EPOCH = datetime.fromisoformat("1970-01-01T00:00:00+00:00")


def _rated_games() -> Iterable[Game]:
    games = Game.objects.filter(status=Game.Status.FINISHED, rated=True, result__isnull=False)
    return games.order_by("finished_at", "pk").prefetch_related(
        _players_prefetch()).iterator(chunk_size=500)


def _players_prefetch() -> Any:
    from django.db.models import Prefetch

    return Prefetch("players", queryset=GamePlayer.objects.order_by("seat"))


def _rebuild_one(
    game: Game, board: dict[tuple[int, str, str], Rating],
    ghosts: dict[tuple[int, int], Skill], pair_times: dict[Pair, list[datetime]],
) -> list[RatingChange]:
    summary: dict[str, Any] = game.result or {}
    deltas = summary["deltas"]
    seats = [RatedSeat(p.seat, p.user_id, p.cpu_level, int(deltas[p.seat]),
                       ghosts.get((game.pk, p.seat))) for p in game.players.all()]
    if not counts(seats):
        return []
    when = game.finished_at
    assert when is not None
    pairs = pairs_of(seats)

    def played(pair: Pair) -> int:
        times = pair_times.get(pair, [])
        return len(times) - bisect.bisect_left(times, when - PAIR_WINDOW)

    if pair_capped(pairs, played):
        return []
    for pair in pairs:
        pair_times.setdefault(pair, []).append(when)
    key = game_key(game.game_kind, game.preset)
    track = track_of(game.match_id, summary.get("players") or [])
    start = default_skill()
    lines = {
        s.user_id: board.setdefault((s.user_id, key, track), Rating(
            user_id=s.user_id, game=key, track=track, mu=start.mu, sigma=start.sigma,
            ordinal=start.ordinal, games=0, last_played_at=_EPOCH))
        for s in seats if s.user_id is not None and not s.cpu_level
    }
    changes = rate_game(seats, is_lower_better(summary), key,
                        lambda user: Skill(lines[user].mu, lines[user].sigma))
    numbers = {user: _apply(row, changes, user, when) for user, row in lines.items()}
    return _change_rows(game.pk, key, track, changes, numbers)
