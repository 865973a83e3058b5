"""Match history: keep the aggregates current when a game finishes, and say who may read.

`record_finished` runs inside the transaction that settles a game (called once from
`play.do_finish`), so standings, profiles and the leaderboard never disagree with the
games they count. It costs a fixed handful of queries per finished game (not per move):
insert-if-missing, lock, and bulk-update each aggregate table. Aborted games are never
settled and so count nowhere; they still appear in the room's history list.

Counting rules (RULES.md):
- a *win* is being among `result.winners`: the player who went out (§R8), each dobon
  declarer (§R9), or the returning player (§R10), by that kind;
- *dobon'd* counts the games a player lost to a dobon (§R11.2); a returned dobon
  (§R11.3) counts as the target's return win instead;
- a *deck-out* counts for every seat of a game that ended by §R12.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from django.db.models import Q

from game.models import Game, GameKind, GamePlayer, Match, Membership, Room
from game.models.history import DobonTally, PlayerStats, RoomStanding, TrumpPlayerStats

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser
    from django.contrib.auth.models import AnonymousUser

    from game.rules.contract import Engine

COUNTER_FIELDS = [
    "games", "points", "wins_agari", "wins_dobon", "wins_return", "dobonned", "deck_outs",
]
WIN_FIELD = {"agari": "wins_agari", "dobon": "wins_dobon", "return": "wins_return"}


class SeatLike(Protocol):
    """What the live-play layer's `Seat` gives us (game/services/play.py)."""

    seat: int
    user_id: int | None
    username: str
    room_seat_index: int


@dataclass(frozen=True)
class SeatOutcome:
    """What one finished game changes in one player's counters."""

    seat: int
    user_id: int | None
    name: str
    is_cpu: bool
    cpu_key: str
    delta: int
    win_field: str | None
    dobonned: bool
    deck_out: bool


def is_cpu_seat(seat: Any) -> bool:
    """A CPU player's seat: marked by `cpu_level` where the CPU seats exist (Seat,
    GamePlayer); before that, any seat without a user."""
    if hasattr(seat, "cpu_level"):
        return seat.cpu_level is not None
    return seat.user_id is None


def cpu_key_of(seat: Any) -> str:
    """A CPU's stable identity in its room: level and room seat (names are translated)."""
    if seat.user_id is not None:
        return ""
    return f"{getattr(seat, 'cpu_level', None) or 'cpu'}@{seat.room_seat_index}"


def outcomes_of(
    summary: dict[str, Any], seats: Iterable[SeatLike], target: int | None
) -> list[SeatOutcome]:
    kind = summary["kind"]
    winners = set(summary["winners"])
    return [
        SeatOutcome(
            seat=s.seat,
            user_id=s.user_id,
            name=s.username,
            is_cpu=is_cpu_seat(s),
            cpu_key=cpu_key_of(s),
            delta=int(summary["deltas"][s.seat]),
            win_field=WIN_FIELD.get(kind) if s.seat in winners else None,
            dobonned=kind == "dobon" and s.seat == target,
            deck_out=kind == "deck_out",
        )
        for s in seats
    ]


def _count(row: RoomStanding | PlayerStats, outcome: SeatOutcome) -> None:
    row.games += 1
    row.points += outcome.delta
    if outcome.win_field:
        setattr(row, outcome.win_field, getattr(row, outcome.win_field) + 1)
    row.dobonned += int(outcome.dobonned)
    row.deck_outs += int(outcome.deck_out)


# -- the hook ------------------------------------------------------------------------------


def record_finished(game: Game, engine: Engine, seats: list[Any], summary: dict[str, Any]) -> None:
    """Count a just-settled game into every aggregate. Under the game's row lock, in
    the settling transaction (play.do_finish)."""
    if game.game_kind == GameKind.TRUMP_DOBON:
        target, declarers = trump_dobon_seats(summary)
        record_result(game, seats, summary, target, declarers)
        return
    dobon = engine.view(None)["dobon"] if summary["kind"] in ("dobon", "return") else None
    target = dobon["target"] if dobon else None
    record_result(game, seats, summary, target, dobon["declarers"] if dobon else [])


def trump_dobon_seats(summary: dict[str, Any]) -> tuple[int | None, list[int]]:
    """A trump round's dobon as the tallies count it: the one seat that lost to it and
    its declarers (a standard round may have several losers: no tally then)."""
    losers = summary.get("losers") or []
    if summary["kind"] == "dobon" and len(losers) == 1:
        return losers[0], list(summary["winners"])
    if summary["kind"] == "return" and len(summary["winners"]) == 1 and losers:
        return summary["winners"][0], list(losers)
    return None, []


def record_result(
    game: Game, seats: list[Any], summary: dict[str, Any], target: int | None,
    declarers: list[int],
) -> None:
    """Count one settled game; `target` and `declarers` name a dobon's seats."""
    outcomes = outcomes_of(summary, seats, target)
    standings = _record_standings(game, outcomes)
    if game.game_kind == GameKind.TRUMP_DOBON:
        # Trump points never add to Dobon UNO's: their own lines, one per preset.
        _record_trump_stats(game, outcomes)
        stats: dict[int, PlayerStats] = {}
    else:
        stats = _record_player_stats(game, outcomes)
    _record_game_numbers(game, stats)
    if target is not None:
        _record_dobons(game, summary, standings, target, declarers)


def rebuild_all() -> int:
    """Count every finished game again from the stored games, oldest first (games that
    finished before these aggregates existed; repairs). One transaction; returns the
    number of games counted."""
    from django.db import transaction

    with transaction.atomic():
        DobonTally.objects.all().delete()
        RoomStanding.objects.all().delete()
        PlayerStats.objects.all().delete()
        TrumpPlayerStats.objects.all().delete()
        GamePlayer.objects.update(user_game_number=None, user_net_after=None)
        games = Game.objects.filter(status=Game.Status.FINISHED, result__isnull=False)
        count = 0
        for game in games.order_by("finished_at", "pk").iterator():
            seats = list(game.players.order_by("seat"))
            summary: dict[str, Any] = game.result or {}
            if game.game_kind == GameKind.TRUMP_DOBON:
                record_result(game, seats, summary, *trump_dobon_seats(summary))
                count += 1
                continue
            dobons = [e.data for e in game.events.filter(data__type="dobon").order_by("seq")]
            target = dobons[0]["target"] if dobons else None
            record_result(game, seats, summary, target, [d["seat"] for d in dobons])
            count += 1
    return count


def _record_standings(game: Game, outcomes: list[SeatOutcome]) -> dict[int, RoomStanding]:
    """The room's line for each seat, created when missing, counted, saved."""
    kind, preset = standing_kind(game.game_kind, game.preset)
    RoomStanding.objects.bulk_create(
        [
            RoomStanding(room_id=game.room_id, user_id=o.user_id, name=o.name, is_cpu=o.is_cpu,
                         cpu_key=o.cpu_key, game_kind=kind, preset=preset)
            for o in outcomes
        ],
        ignore_conflicts=True,
    )
    users = [o.user_id for o in outcomes if o.user_id is not None]
    cpus = [o.cpu_key for o in outcomes if o.user_id is None]
    rows = (
        RoomStanding.objects.select_for_update()
        .filter(room_id=game.room_id, game_kind=kind, preset=preset)
        .filter(Q(user_id__in=users) | Q(user__isnull=True, cpu_key__in=cpus))
        .order_by("pk")
    )
    by_user = {r.user_id: r for r in rows if r.user_id is not None}
    by_cpu = {r.cpu_key: r for r in rows if r.user_id is None}
    by_seat = {}
    for o in outcomes:
        row = by_user[o.user_id] if o.user_id is not None else by_cpu[o.cpu_key]
        _count(row, o)
        row.name, row.last_game = o.name, game
        by_seat[o.seat] = row
    RoomStanding.objects.bulk_update(
        list(by_seat.values()), [*COUNTER_FIELDS, "name", "last_game"]
    )
    return by_seat


def _record_player_stats(game: Game, outcomes: list[SeatOutcome]) -> dict[int, PlayerStats]:
    """Registered humans only: CPU players never reach profiles or the leaderboard."""
    people = [(o, o.user_id) for o in outcomes if o.user_id is not None and not o.is_cpu]
    if not people:
        return {}
    PlayerStats.objects.bulk_create(
        [PlayerStats(user_id=user_id) for _, user_id in people], ignore_conflicts=True
    )
    # Ordered locks: two rooms finishing at once for the same people cannot deadlock.
    rows = PlayerStats.objects.select_for_update().filter(
        user_id__in=[user_id for _, user_id in people]
    ).order_by("user_id")
    by_user = {r.user_id: r for r in rows}
    by_seat = {}
    for o, user_id in people:
        row = by_user[user_id]
        _count(row, o)
        row.points_per_game = row.points / row.games
        if row.best_delta is None or o.delta > row.best_delta:
            row.best_delta, row.best_game = o.delta, game
        by_seat[o.seat] = row
    PlayerStats.objects.bulk_update(
        list(by_seat.values()), [*COUNTER_FIELDS, "points_per_game", "best_delta", "best_game"]
    )
    return by_seat


def _record_trump_stats(game: Game, outcomes: list[SeatOutcome]) -> None:
    """Registered humans' trump lines (profiles, the trump leaderboards), per preset."""
    people = [o for o in outcomes if o.user_id is not None and not o.is_cpu]
    if not people:
        return
    preset = game.preset or "au"
    TrumpPlayerStats.objects.bulk_create(
        [TrumpPlayerStats(user_id=o.user_id, preset=preset) for o in people],
        ignore_conflicts=True,
    )
    rows = TrumpPlayerStats.objects.select_for_update().filter(
        user_id__in=[o.user_id for o in people], preset=preset
    ).order_by("user_id")
    by_user = {r.user_id: r for r in rows}
    for o in people:
        row = by_user[o.user_id]
        _count(row, o)
        row.points_per_game = row.points / row.games
    TrumpPlayerStats.objects.bulk_update(list(by_user.values()),
                                         [*COUNTER_FIELDS, "points_per_game"])


def _record_game_numbers(game: Game, stats: dict[int, PlayerStats]) -> None:
    """Each player's running game count and net points, for the profile chart."""
    if not stats:
        return
    players = list(GamePlayer.objects.filter(game=game, seat__in=list(stats)))
    for p in players:
        p.user_game_number = stats[p.seat].games
        p.user_net_after = stats[p.seat].points
    GamePlayer.objects.bulk_update(players, ["user_game_number", "user_net_after"])


def _record_dobons(
    game: Game,
    summary: dict[str, Any],
    standings: dict[int, RoomStanding],
    target: int | None,
    declarers: list[int],
) -> None:
    """Who dobon'd whom: a tally per (declarer, target) with the points that changed
    hands between the two (§R11.2 the target pays; §R11.3 the declarer pays back)."""
    if target is None or target not in standings:
        return
    returned = summary["kind"] == "return"
    paid: dict[tuple[int, int], int] = {}
    for payer, payee, points in summary["payments"]:
        paid[(payer, payee)] = paid.get((payer, payee), 0) + points
    target_row = standings[target]
    pairs = [(standings[d], d) for d in declarers if d in standings and d != target]
    DobonTally.objects.bulk_create(
        [DobonTally(room_id=game.room_id, declarer=row, target=target_row) for row, _ in pairs],
        ignore_conflicts=True,
    )
    tallies = {
        t.declarer_id: t
        for t in DobonTally.objects.select_for_update().filter(
            target=target_row, declarer__in=[row for row, _ in pairs]
        ).order_by("pk")
    }
    for row, seat in pairs:
        tally = tallies[row.pk]
        tally.count += 1
        tally.returned += int(returned)
        if returned:
            tally.points -= paid.get((seat, target), 0)
        else:
            tally.points += paid.get((target, seat), 0)
    DobonTally.objects.bulk_update(list(tallies.values()), ["count", "returned", "points"])


# -- reading what the live room panel needs --------------------------------------------------


# A standings line's kind: (game kind, preset), the preset empty for Dobon UNO. Points of
# two kinds never add up (au and standard neither), and each kind has its own order.
StandingKind = tuple[str, str]
STANDING_KINDS: tuple[StandingKind, ...] = (
    (GameKind.DOBON_UNO, ""), (GameKind.TRUMP_DOBON, "au"), (GameKind.TRUMP_DOBON, "standard"),
)


def standing_kind(game_kind: str | None, preset: str | None) -> StandingKind:
    """The line a game of `game_kind` and `preset` counts into (a room's too: its
    `game_kind` and `trump_preset`)."""
    if game_kind == GameKind.TRUMP_DOBON:
        return GameKind.TRUMP_DOBON, preset or "au"
    return GameKind.DOBON_UNO, ""


def kind_label(kind: StandingKind) -> str:
    """The kind's name as every page says it ("Trump Dobon (au)")."""
    from django.utils.translation import gettext as _

    if kind[0] != GameKind.TRUMP_DOBON:
        return _("Dobon UNO")
    return _("Trump Dobon (standard)") if kind[1] == "standard" else _("Trump Dobon (au)")


def kind_key(kind: StandingKind) -> str:
    """The kind's name in pages and tests, as the leaderboards name their boards
    ("dobon_uno", "trump_au", "trump_standard")."""
    return f"trump_{kind[1]}" if kind[0] == GameKind.TRUMP_DOBON else GameKind.DOBON_UNO


def room_kind(room: Room) -> StandingKind:
    return standing_kind(room.game_kind, room.trump_preset)


def lowest_first(kind: StandingKind) -> bool:
    """Trump standard ranks the lowest total first (`score_order` "low", §T17.3); au and
    Dobon UNO the highest."""
    return kind == (GameKind.TRUMP_DOBON, "standard")


def kinds_in_order(room: Room, present: set[StandingKind]) -> list[StandingKind]:
    """The room's own kind first (shown even before its first game), then the other
    kinds the room has lines of, in STANDING_KINDS' order."""
    own = room_kind(room)
    return [own, *(k for k in STANDING_KINDS if k != own and k in present)]


def room_standings(room: Room) -> list[dict[str, Any]]:
    """The lines of the room's current kind (past members included), best first:
    `{"username", "kind", "points", "games", "wins": {...}, "dobonned", "deck_outs",
    "seated"}`. Two queries, whatever the number of games."""
    return room_standings_by_kind(room)[0]["rows"]


def room_standings_by_kind(room: Room) -> list[dict[str, Any]]:
    """Every kind the room has lines of, the room's current kind first: `{"game_kind",
    "preset", "lowest_first", "rows"}`, each kind's rows (as `room_standings`) in its own
    order. Two queries, whatever the number of games and kinds."""
    seated = set(room.memberships.values_list("user_id", flat=True))
    by_kind: dict[StandingKind, list[RoomStanding]] = {}
    for row in RoomStanding.objects.filter(room=room):
        by_kind.setdefault(standing_kind(row.game_kind, row.preset), []).append(row)
    sections = []
    for kind in kinds_in_order(room, set(by_kind)):
        low = lowest_first(kind)
        rows = sorted(by_kind.get(kind, []),
                      key=lambda r: (r.points if low else -r.points, -r.games, r.name))
        sections.append({
            "game_kind": kind[0], "preset": kind[1], "key": kind_key(kind),
            "label": kind_label(kind), "lowest_first": low,
            "rows": [standing_dict(r, r.user_id in seated if r.user_id else False)
                     for r in rows],
        })
    return sections


def standing_dict(row: RoomStanding, seated: bool) -> dict[str, Any]:
    return {
        "username": row.display_name,
        "user_id": row.user_id,
        "kind": "cpu" if row.is_cpu else "human",
        "points": row.points,
        "games": row.games,
        "wins": row.wins_by_kind(),
        "dobonned": row.dobonned,
        "deck_outs": row.deck_outs,
        "seated": seated,
    }


# -- who may read a room's history -----------------------------------------------------------
#
# One rule for every history page, game log, match page and match log (issue 20):
# - a public room's games: anyone signed in;
# - a private room's games: its owner, its members and staff (`reads_whole_room`), and a
#   past member for the games they played in, not the ones played after they left;
# - an invite shows the live table, never history;
# - a match page and its log: whoever may read one of its games, showing only those.


def reads_whole_room(room: Room, user: AbstractBaseUser | AnonymousUser) -> bool:
    """Whether `user` reads every game of `room`."""
    if not user.is_authenticated:
        return False
    if room.is_public or getattr(user, "is_staff", False) or room.owner_id == user.pk:
        return True
    return Membership.objects.filter(room=room, user_id=user.pk).exists()


def can_read_history(room: Room, user: AbstractBaseUser | AnonymousUser) -> bool:
    """Whether `user` may open the room's history list: all of it, or as a past member
    the games they played in (`games_read_by`)."""
    if reads_whole_room(room, user):
        return True
    return user.is_authenticated and GamePlayer.objects.filter(
        game__room=room, user_id=user.pk).exists()


def can_read_game(game: Game, user: AbstractBaseUser | AnonymousUser) -> bool:
    if reads_whole_room(game.room, user):
        return True
    return user.is_authenticated and GamePlayer.objects.filter(
        game_id=game.pk, user_id=user.pk).exists()


def can_read_match(match: Match, user: AbstractBaseUser | AnonymousUser) -> bool:
    if reads_whole_room(match.room, user):
        return True
    return user.is_authenticated and GamePlayer.objects.filter(
        game__match_id=match.pk, user_id=user.pk).exists()


def games_read_by(room: Room, user: AbstractBaseUser | AnonymousUser) -> Q:
    """A filter on the room's games for those `user` reads (all, or those played in)."""
    if reads_whole_room(room, user):
        return Q()
    return Q(pk__in=GamePlayer.objects.filter(user_id=user.pk).values("game_id"))


def readable_games_q(user: AbstractBaseUser | AnonymousUser, prefix: str = "") -> Q:
    """A filter for rows whose game (`prefix` names it, e.g. "game__") `user` may read,
    in one SQL expression (subqueries), so lists stay one query."""
    if not user.is_authenticated:
        return Q(pk__in=[])
    if getattr(user, "is_staff", False):
        return Q()
    room = f"{prefix}room"
    member_rooms = Membership.objects.filter(user_id=user.pk).values("room_id")
    played = GamePlayer.objects.filter(user_id=user.pk).values("game_id")
    return (
        Q(**{f"{room}__is_public": True})
        | Q(**{f"{room}__owner_id": user.pk})
        | Q(**{f"{room}__in": member_rooms})
        | Q(**{f"{prefix}pk__in" if prefix else "pk__in": played})
    )
