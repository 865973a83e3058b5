"""Reads for the match-history pages, each a fixed number of queries.

Services change things, selectors read them. Every function here costs the same
number of queries whatever the number of games (tests assert it): lists are paginated
in the database, and totals come from the aggregates that the finishing transaction
keeps (game/models/history.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.core.paginator import Page, Paginator
from django.db.models import Count, F, IntegerField, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from game.history.ratings import with_rating_changes
from game.history.replay import Version
from game.models import Game, GameEvent, GamePlayer, Room
from game.models.history import (
    DobonTally,
    PlayerStats,
    RoomSession,
    RoomStanding,
    TrumpPlayerStats,
)
from game.services.history import (
    StandingKind,
    kind_key,
    kind_label,
    kinds_in_order,
    lowest_first,
    readable_games_q,
    room_standings_by_kind,
    standing_kind,
)

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser
    from django.contrib.auth.models import AnonymousUser

GAMES_PER_PAGE = 25
LEADERS_PER_PAGE = 50
RECENT_GAMES = 10
LEADERBOARD_MIN_GAMES = 5
CHART_POINTS = 120
OVER = (Game.Status.FINISHED, Game.Status.ABORTED)


def _players_prefetch() -> Prefetch[Any]:
    """A game's seats, each with its rating change read in the same query."""
    return Prefetch("players", queryset=with_rating_changes(GamePlayer.objects.order_by("seat")))


# -- a room --------------------------------------------------------------------------------


def room_history_page(room: Room, page_number: Any, readable: Q | None = None) -> Page[Game]:
    """The room's finished and aborted games (those `readable` selects), newest first,
    with their seats."""
    games = (
        Game.objects.filter(room=room)
        .filter(readable or Q())
        .exclude(status=Game.Status.RUNNING)  # the predicate of the game_over_by_room index
        .order_by("-number")
        .only("pk", "room_id", "number", "status", "rate", "rated", "result", "started_at",
              "finished_at", "game_kind", "preset")
        # §G10: each row names its rules; only that key of the initial state is read.
        .annotate(house_rules=F("initial_state__house_rules"))
        .prefetch_related(_players_prefetch())
    )
    return Paginator(games, GAMES_PER_PAGE).get_page(page_number)


@dataclass(frozen=True)
class DobonMatrix:
    """Declarer (rows) × target (columns) of one game kind: `cells[i][j]` is a tally or
    None. `key` and `label` name the kind ("trump_au", "Trump Dobon (au)")."""

    names: list[dict[str, Any]]
    cells: list[list[DobonTally | None]]
    key: str = ""
    label: str = ""

    @property
    def rows(self) -> list[tuple[dict[str, Any], list[DobonTally | None]]]:
        return list(zip(self.names, self.cells, strict=True))

    @property
    def is_empty(self) -> bool:
        return all(cell is None for row in self.cells for cell in row)


def dobon_matrices(room: Room) -> list[DobonMatrix]:
    """Who dobon'd whom in the room, one matrix per game kind with dobons (Dobon UNO's
    and each trump preset's apart: a tally joins two lines of one kind), the room's
    current kind first. One query."""
    tallies = list(
        DobonTally.objects.filter(room=room).select_related("declarer", "target")
    )
    by_kind: dict[StandingKind, list[DobonTally]] = {}
    for t in tallies:
        by_kind.setdefault(standing_kind(t.declarer.game_kind, t.declarer.preset), []).append(t)
    return [_matrix_of(kind, by_kind[kind]) for kind in kinds_in_order(room, set(by_kind))
            if kind in by_kind]


def _matrix_of(kind: StandingKind, tallies: list[DobonTally]) -> DobonMatrix:
    """Only players who dobon'd or were dobon'd appear, best of the kind first."""
    people: dict[int, RoomStanding] = {}
    for t in tallies:
        people.setdefault(t.declarer_id, t.declarer)
        people.setdefault(t.target_id, t.target)
    low = lowest_first(kind)
    order = sorted(people.values(), key=lambda r: (r.points if low else -r.points, r.name))
    index = {r.pk: i for i, r in enumerate(order)}
    cells: list[list[DobonTally | None]] = [[None] * len(order) for _ in order]
    for t in tallies:
        cells[index[t.declarer_id]][index[t.target_id]] = t
    names = [{"name": r.display_name, "user_id": r.user_id, "is_cpu": r.is_cpu} for r in order]
    return DobonMatrix(names, cells, kind_key(kind), kind_label(kind))


def standings(room: Room) -> list[dict[str, Any]]:
    """The room's standings, one table per game kind (room_standings_by_kind)."""
    return room_standings_by_kind(room)


def ended_sessions(room: Room) -> list[RoomSession]:
    """The room's ended §H14 sessions, newest first (§H14.5); no query for a room that
    never ended one (`Room.sessions_ended` is on the row already read)."""
    if not room.sessions_ended:
        return []
    return list(RoomSession.objects.filter(room=room).order_by("-number"))


# -- a game --------------------------------------------------------------------------------


def visible_game(game_id: int) -> Game | None:
    """A game that is over (a running one is never shown), with its room."""
    return (
        Game.objects.select_related("room")
        .filter(pk=game_id, status__in=OVER)
        .prefetch_related(_players_prefetch())
        .first()
    )


def game_events(game: Game) -> list[GameEvent]:
    return list(game.events.order_by("seq"))


def players_of(game_ids: list[int]) -> dict[int, list[GamePlayer]]:
    """The seats of several games in one query, by game, in seat order."""
    found: dict[int, list[GamePlayer]] = {}
    for player in GamePlayer.objects.filter(game_id__in=game_ids).order_by("game_id", "seat"):
        found.setdefault(player.game_id, []).append(player)
    return found


def events_of(game_ids: list[int]) -> dict[int, list[GameEvent]]:
    """The event logs of several games in one query, by game, in order."""
    found: dict[int, list[GameEvent]] = {}
    for event in GameEvent.objects.filter(game_id__in=game_ids).order_by("game_id", "seq"):
        found.setdefault(event.game_id, []).append(event)
    return found


def versions_of(events: list[GameEvent]) -> list[Version]:
    """The stored log grouped by version, as the replay reads it."""
    versions: list[Version] = []
    for e in events:
        if not versions or versions[-1].number != e.version:
            versions.append(Version(e.version, e.step, []))
        versions[-1].events.append(e.data)
    return versions


# -- a player ------------------------------------------------------------------------------


def player_stats(user: AbstractBaseUser) -> PlayerStats | None:
    return PlayerStats.objects.filter(user_id=user.pk).select_related("best_game__room").first()


def rank_of(stats: PlayerStats | None) -> int | None:
    """The leaderboard position (1 is best), or None below the minimum of games."""
    if stats is None or stats.games < LEADERBOARD_MIN_GAMES:
        return None
    ahead = ranked_players().filter(
        Q(points_per_game__gt=stats.points_per_game)
        | Q(points_per_game=stats.points_per_game, games__gt=stats.games)
        | Q(points_per_game=stats.points_per_game, games=stats.games, user_id__lt=stats.user_id)
    )
    return ahead.count() + 1


def recent_games(
    user: AbstractBaseUser, viewer: AbstractBaseUser | AnonymousUser
) -> list[GamePlayer]:
    """The player's latest games that `viewer` may open (private rooms stay hidden)."""
    return list(
        GamePlayer.objects.filter(user_id=user.pk, game__status__in=OVER)
        .filter(readable_games_q(viewer, prefix="game__"))
        .select_related("game", "game__room")
        .order_by("-game_id")[:RECENT_GAMES]
    )


def chart_points(user: AbstractBaseUser, games: int) -> list[tuple[int, int]]:
    """(game number, net points after it) for at most CHART_POINTS games spread evenly
    over the player's career: one indexed query whatever the number of games."""
    if games <= 0:
        return []
    if games <= CHART_POINTS:
        wanted = list(range(1, games + 1))
    else:
        step = (games - 1) / (CHART_POINTS - 1)
        wanted = sorted({1 + round(i * step) for i in range(CHART_POINTS)})
    rows = GamePlayer.objects.filter(user_id=user.pk, user_game_number__in=wanted).values_list(
        "user_game_number", "user_net_after"
    )
    return sorted((int(n), int(p)) for n, p in rows if n is not None and p is not None)


# -- everyone ------------------------------------------------------------------------------


def ranked_players() -> QuerySet[PlayerStats]:
    return PlayerStats.objects.filter(games__gte=LEADERBOARD_MIN_GAMES, user__is_active=True)


# The leaderboards: Dobon UNO's (the default) and one per trump preset.
BOARDS = ("dobon_uno", "trump_au", "trump_standard")


def trump_leaderboard_page(preset: str, page_number: Any) -> Page[TrumpPlayerStats]:
    """Trump players of `preset` by points per game: au highest first, standard lowest
    first (§T17.3)."""
    order = "points_per_game" if preset == "standard" else "-points_per_game"
    players = (
        TrumpPlayerStats.objects.filter(
            preset=preset, games__gte=LEADERBOARD_MIN_GAMES, user__is_active=True
        )
        .select_related("user")
        .order_by(order, "-games", "user_id")
    )
    return Paginator(players, LEADERS_PER_PAGE).get_page(page_number)


@dataclass(frozen=True)
class TrumpLine:
    """A profile's line for one trump preset and its leaderboard place (None below the
    minimum of games)."""

    stats: TrumpPlayerStats
    rank: int | None


def trump_stats(user: AbstractBaseUser) -> list[TrumpLine]:
    """A profile's trump lines, au first, each with its place on that preset's leaderboard
    (as trump_leaderboard_page orders it). One query, whatever the number of games."""
    rows = TrumpPlayerStats.objects.filter(user_id=user.pk).annotate(
        ahead_high=_trump_ahead(higher_first=True), ahead_low=_trump_ahead(higher_first=False),
    ).order_by("preset")
    lines = []
    for row in rows:
        ahead = row.ahead_low if row.preset == "standard" else row.ahead_high
        ranked = row.games >= LEADERBOARD_MIN_GAMES
        lines.append(TrumpLine(row, ahead + 1 if ranked else None))
    return lines


def _trump_ahead(higher_first: bool) -> Coalesce:
    """How many ranked players of the outer row's preset stand before it: better points
    per game (higher for au, lower for standard, §T17.3), then more games, then user id."""
    better = "points_per_game__gt" if higher_first else "points_per_game__lt"
    same = Q(points_per_game=OuterRef("points_per_game"))
    ahead = (
        TrumpPlayerStats.objects.filter(
            preset=OuterRef("preset"), games__gte=LEADERBOARD_MIN_GAMES, user__is_active=True
        )
        .filter(
            Q(**{better: OuterRef("points_per_game")})
            | (same & Q(games__gt=OuterRef("games")))
            | (same & Q(games=OuterRef("games"), user_id__lt=OuterRef("user_id")))
        )
        .order_by()
        .values("preset")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(ahead, output_field=IntegerField()), 0)


def leaderboard_page(page_number: Any) -> Page[PlayerStats]:
    players = ranked_players().select_related("user").order_by(
        "-points_per_game", "-games", "user_id"
    )
    return Paginator(players, LEADERS_PER_PAGE).get_page(page_number)


def profile_context(
    player: AbstractBaseUser, viewer: AbstractBaseUser | AnonymousUser
) -> dict[str, Any]:
    """Everything the profile's statistics panel shows: a fixed number of queries."""
    from django.utils.safestring import mark_safe
    from django.utils.translation import gettext as _

    from game.history.charts import line_chart
    from game.services.history import can_read_game

    stats = player_stats(player)
    chart = ""
    if stats is not None and stats.games:
        points = chart_points(player, stats.games)
        # Numbers only (game/history/charts.py formats every value), the label escaped there.
        chart = mark_safe(line_chart(points, _("Net points over time")))  # noqa: S308
    best = stats.best_game if stats is not None else None
    return {
        "stats": stats,
        "rank": rank_of(stats),
        "min_games": LEADERBOARD_MIN_GAMES,
        "recent": recent_games(player, viewer),
        "chart": chart,
        "best_game_visible": best is not None and can_read_game(best, viewer),
        "trump_lines": trump_stats(player),  # apart from Dobon UNO's: points never mix
    }
