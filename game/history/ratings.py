"""Reading the skill ratings (docs/ratings.md): leaderboards, a game's changes, the
ratings beside names (table, lobby, history) and the profile's graphs. Each function a
fixed number of queries, whatever the number of players or games.

How a rating is shown (the number, "?", 級/段) is game/ratings/scale.py; this module adds
the words in the reader's language and the queries.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.db.models import (
    ExpressionWrapper,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.functions import Greatest, Mod
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from game.models import Game, GamePlayer, RatedGame, Rating, RatingChange, RatingTrack
from game.ratings import scale
from game.ratings.anchors import ANCHORS
from game.ratings.chart import rating_chart
from game.ratings.model import GAMES, MODEL_NAME, TRACKS, game_key

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser
    from django.contrib.auth.models import AnonymousUser

LEADERS = 100
ACTIVE_DAYS = 90
CHART_POINTS = 120


@dataclass(frozen=True)
class Shown:
    """A rating as a page shows it: the number, or "?" while provisional, and a rank."""

    rating: int
    provisional: bool
    games: int

    @property
    def text(self) -> str:
        return "?" if self.provisional else str(self.rating)

    @property
    def to_establish(self) -> int:
        """Rated games still to play before the number is shown (0 once enough are
        played, even if the deviation still keeps it provisional)."""
        return max(scale.PROVISIONAL_GAMES - self.games, 0) if self.provisional else 0

    @property
    def label(self) -> str:
        """The rank in the reader's language ("" while provisional)."""
        return "" if self.provisional else rank_label(self.rating)


def shown(mu: float, sigma: float, games: int) -> Shown:
    return Shown(scale.displayed(mu, sigma), scale.is_provisional(games, sigma), games)


def rank_label(rating: int) -> str:
    """初段, 3段, 2級 (ja); 1 dan, 3 dan, 2 kyu (en)."""
    kind, number = scale.rank_of(rating)
    if kind == "dan":
        return _("1 dan") if number == 1 else _("%(number)d dan") % {"number": number}
    return _("%(number)d kyu") % {"number": number}


def board_of(game: str | None, track: str | None) -> tuple[str, str]:
    """A valid (game, track) from request parameters; unknown values raise ValueError."""
    game = game or "dobon_uno"
    track = track or "people"
    if game not in GAMES or track not in TRACKS:
        raise ValueError(f"game must be one of {GAMES} and track one of {TRACKS}")
    return game, track


def game_names() -> list[tuple[str, str]]:
    return [(value, str(label)) for value, label in RatedGame.choices]


def track_names() -> list[tuple[str, str]]:
    return [(value, str(label)) for value, label in RatingTrack.choices]


# -- leaderboards --------------------------------------------------------------------------


def established(game: str, track: str, now: datetime) -> QuerySet[Rating]:
    """Players on a leaderboard: ≥ 10 rated games, the last one within 90 days."""
    return Rating.objects.filter(
        game=game, track=track, games__gte=scale.PROVISIONAL_GAMES,
        last_played_at__gte=now - timedelta(days=ACTIVE_DAYS), user__is_active=True,
    )


def leaderboard(game: str, track: str, viewer: AbstractBaseUser | AnonymousUser,
                now: datetime) -> dict[str, Any]:
    """The top 100 established players and the viewer's own line and position (also
    outside the top 100): three queries."""
    board = established(game, track, now)
    top = list(board.select_related("user").order_by("-ordinal", "user_id")[:LEADERS])
    rows = [(i + 1, r, shown(r.mu, r.sigma, r.games)) for i, r in enumerate(top)]
    mine = Rating.objects.filter(user_id=viewer.pk, game=game, track=track).select_related(
        "user").first() if viewer.is_authenticated else None
    position = None
    if mine is not None and _is_established(mine, now) and mine.user.is_active:
        position = 1 + board.filter(
            Q(ordinal__gt=mine.ordinal) | Q(ordinal=mine.ordinal, user_id__lt=mine.user_id)
        ).count()
    return {
        "rows": rows,
        "mine": mine,
        "mine_shown": shown(mine.mu, mine.sigma, mine.games) if mine else None,
        "position": position,
        "in_top": position is not None and position <= LEADERS,
    }


def _is_established(row: Rating, now: datetime) -> bool:
    return (row.games >= scale.PROVISIONAL_GAMES
            and row.last_played_at >= now - timedelta(days=ACTIVE_DAYS))


def leaderboard_json(game: str, track: str) -> dict[str, Any]:
    """`/leaderboard.json` (docs/ratings.md): every rated player of the game and track,
    provisional ones too, best ordinal first. One query."""
    rows = Rating.objects.filter(game=game, track=track).order_by("-ordinal", "user_id").values(
        "mu", "sigma", "games", name=F("user__username"))
    players = []
    for row in rows:
        seen = shown(row["mu"], row["sigma"], row["games"])
        players.append({
            "name": row["name"], "mu": row["mu"], "sigma": row["sigma"],
            "rating": seen.rating, "rank_label": rank_label(seen.rating),
            "games": row["games"], "provisional": seen.provisional,
        })
    return {
        "game": game, "track": track, "model": MODEL_NAME,
        "cpu_anchors": {level: [s.mu, s.sigma] for level, s in ANCHORS[game].items()},
        "players": players,
    }


# -- one game ------------------------------------------------------------------------------


def game_ratings(game: Game) -> dict[str, Any] | None:
    """`ratings` of `/games/<id>.json`: None for a game that changed no rating."""
    changes = list(RatingChange.objects.filter(game=game).order_by("seat"))
    if not changes:
        return None
    return {
        "track": changes[0].track,
        "changes": [{"seat": c.seat, "mu_before": c.mu_before, "sigma_before": c.sigma_before,
                     "mu": c.mu, "sigma": c.sigma} for c in changes],
    }


def with_rating_changes(players: QuerySet[GamePlayer]) -> QuerySet[GamePlayer]:
    """GamePlayer rows with their seat's rating change read in the same query (so the
    pages that list seats keep their query counts): `rc_mu_before`, `rc_sigma_before`,
    `rc_mu`, `rc_sigma`, `rc_number` (the player's n-th rated game), all None if unrated."""
    change = RatingChange.objects.filter(game_id=OuterRef("game_id"), seat=OuterRef("seat"))
    return players.annotate(**{
        f"rc_{field}": Subquery(change.values(field)[:1])
        for field in ("mu_before", "sigma_before", "mu", "sigma", "number")
    })


def seat_change(player: Any) -> dict[str, Any] | None:
    """A seat's change as the game page shows it (before → after), from
    `with_rating_changes`' annotations; None for an unrated seat."""
    if getattr(player, "rc_mu", None) is None:
        return None
    number = player.rc_number or 0
    before = shown(player.rc_mu_before, player.rc_sigma_before, max(number - 1, 0))
    after = shown(player.rc_mu, player.rc_sigma, number)
    cpu = player.cpu_level is not None
    return {"before": before, "after": after, "cpu": cpu,
            "diff": after.rating - before.rating}


# -- names at the table and in the lobby ---------------------------------------------------


def room_game(game_kind: str, preset: str | None) -> str:
    return game_key(game_kind, preset or "")


def ratings_of(user_ids: list[int], game: str, track: str = "people") -> dict[int, Shown]:
    """The ratings of these players in one game and track: one query."""
    rows = Rating.objects.filter(user_id__in=user_ids, game=game, track=track).values_list(
        "user_id", "mu", "sigma", "games")
    return {user: shown(mu, sigma, games) for user, mu, sigma, games in rows}


def shown_dict(seen: Shown | None) -> dict[str, Any] | None:
    """A rating in a JSON payload (the table's seat plates, docs/protocol.md)."""
    if seen is None:
        return None
    return {"rating": seen.rating, "text": seen.text, "label": seen.label,
            "provisional": seen.provisional}


def lines_of(user: AbstractBaseUser | AnonymousUser) -> list[dict[str, Any]]:
    """The player's ratings, one per game and track (the lobby): one query."""
    if not user.is_authenticated:
        return []
    games_named, tracks_named = dict(game_names()), dict(track_names())
    return [
        {"game": r.game, "track": r.track, "name": games_named[r.game],
         "track_name": tracks_named[r.track], "shown": shown(r.mu, r.sigma, r.games)}
        for r in Rating.objects.filter(user_id=user.pk).order_by("game", "track")
    ]


# -- the profile ---------------------------------------------------------------------------


def profile_ratings(user: AbstractBaseUser) -> list[dict[str, Any]]:
    """Each game and track the player is rated in: the rating as shown and a graph of
    the displayed rating over about 120 of their rated games (every k-th, k = ⌈games /
    120⌉, and the last). One query: the last change row is the current rating."""
    games = Subquery(Rating.objects.filter(
        user_id=OuterRef("user_id"), game=OuterRef("rated_game"), track=OuterRef("track"),
    ).values("games")[:1])
    rows = (
        RatingChange.objects.filter(user_id=user.pk, number__isnull=False)
        .annotate(total=games)
        # ⌈total / 120⌉ in integer arithmetic (integer division on PostgreSQL and SQLite)
        .annotate(step=Greatest(Value(1), ExpressionWrapper(
            (F("total") + Value(CHART_POINTS - 1)) / Value(CHART_POINTS),
            output_field=IntegerField())))
        .annotate(left=Mod(F("number") - 1, F("step")))
        .filter(Q(left=0) | Q(number=F("total")))
        .order_by("rated_game", "track", "number")
        .values_list("rated_game", "track", "number", "mu", "sigma")
    )
    lines: dict[tuple[str, str], list[tuple[int, float, float]]] = {}
    for game, track, number, mu, sigma in rows:
        lines.setdefault((game, track), []).append((number, mu, sigma))
    games_named, tracks_named = dict(game_names()), dict(track_names())
    return [
        {
            "game": game, "track": track, "name": games_named[game],
            "track_name": tracks_named[track],
            "shown": (seen := shown(points[-1][1], points[-1][2], points[-1][0])),
            # Numbers only (game/ratings/chart.py formats every value; the label escaped).
            # While provisional the page says "?": the graph keeps its shape, not its numbers.
            "chart": mark_safe(rating_chart(  # noqa: S308
                [(n, scale.displayed(mu, sigma)) for n, mu, sigma in points],
                _("Rating over rated games"), values=not seen.provisional)),
        }
        for (game, track), points in lines.items()
    ]


def with_seat_ratings(members: QuerySet[Any], room: Any) -> QuerySet[Any]:
    """Room memberships with each person's rating in the room's game read in the same
    query (the room panel keeps its query count): `rt_mu`, `rt_sigma`, `rt_games` of the
    people track, or of the programs track for a seat a program plays."""
    key = room_game(room.game_kind, room.preset)
    out = members
    for track in TRACKS:
        line = Rating.objects.filter(user_id=OuterRef("user_id"), game=key, track=track)
        out = out.annotate(**{f"rt_{track}_{field}": Subquery(line.values(field)[:1])
                              for field in ("mu", "sigma", "games")})
    return out


def seat_rating(member: Any) -> dict[str, Any] | None:
    """A seated member's rating for the table's seat plates (`with_seat_ratings`)."""
    track = "programs" if getattr(member, "program_sockets", 0) > 0 else "people"
    mu = getattr(member, f"rt_{track}_mu", None)
    if mu is None:
        return None
    return shown_dict(shown(mu, getattr(member, f"rt_{track}_sigma"),
                            getattr(member, f"rt_{track}_games")))
