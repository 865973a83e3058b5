"""The live room panel (protocol v2 `room` object) and its push on every room change.

`room_panel(room)` is what a client shows around the table and between games: the
room's settings, its seats with their points, the standings and the last result. It
rides inside `state` frames (on connect, on `sync`, at a game's start and end) and is
pushed alone (`room.panel` to the room group) when seats or settings change.

Kept apart from `play` so that `rooms` (seats, settings) can push it without importing
the live-play service.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Q
from django.urls import reverse
from django.utils import translation

from game import logs
from game.history import ratings
from game.live import sender
from game.live.groups import room_group
from game.models import Game, GameKind, GamePlayer, Membership, Room, cpu_display_name
from game.rules import describe_house_rules, normalize_house_rules
from game.services import engines, house

log = logging.getLogger(__name__)

HUMAN = "human"
CPU = "cpu"


def kind_of(cpu_level: str | None) -> tuple[str, str | None]:
    """A seat's (kind, level): ("cpu", level) for a CPU player, ("human", None) else."""
    return (CPU, cpu_level) if cpu_level is not None else (HUMAN, None)


def cpu_name(level: str, seat_index: int) -> str:
    """A CPU seat's name in the data every client shares: the site's language."""
    with translation.override(settings.LANGUAGE_CODE):
        return cpu_display_name(level, seat_index)


def member_name(membership: Membership) -> str:
    """The name clients are sent: the username, or the CPU's name."""
    if membership.cpu_level is not None:
        return cpu_name(membership.cpu_level, membership.seat_index)
    return membership.user.username if membership.user is not None else ""


PROGRAM = "program"  # a person's seat played by a token client (game/services/programs.py)


def in_language(frame: dict[str, Any], language: str) -> dict[str, Any]:
    """A `state` frame with its CPU names in `language`: frames are built once for every
    recipient, with names in the site's language (`cpu_name`); each socket then shows
    them in its own. Players, room seats, standings and the last result are covered.
    The same frame when nothing changes (the site's language, or no CPU)."""
    if language == settings.LANGUAGE_CODE:
        return frame
    with translation.override(language):
        renamed: dict[str, str] = {}
        players = _cpus_renamed(frame.get("players") or [], "room_seat", renamed)
        room = frame.get("room")
        if room:
            room = {**room, "seats": [_cpu_renamed(s, "index", renamed) if s else s
                                      for s in room.get("seats") or []]}
            room["standings"] = [{**row, "username": renamed.get(row["username"],
                                                                  row["username"])}
                                 for row in room.get("standings") or []]
            if room.get("last_result"):
                last = room["last_result"]
                room["last_result"] = {
                    **last, "result": result_in_active_language(last.get("result"), renamed)
                }
    if not renamed:
        return frame
    localized = {**frame, "players": players}
    if room:
        localized["room"] = room
    return localized


def _cpus_renamed(entries: list[dict[str, Any]], seat_field: str,
                  renamed: dict[str, str]) -> list[dict[str, Any]]:
    return [_cpu_renamed(e, seat_field, renamed) for e in entries]


def _cpu_renamed(entry: dict[str, Any], seat_field: str,
                 renamed: dict[str, str]) -> dict[str, Any]:
    if entry.get("kind") != "cpu" or entry.get("level") is None:
        return entry
    name = cpu_display_name(entry["level"], entry[seat_field])
    renamed[entry["username"]] = name
    return {**entry, "username": name}


def result_in_active_language(
    result: dict[str, Any] | None, renamed: dict[str, str] | None = None
) -> dict[str, Any] | None:
    """A stored game result with its CPU players' names in the active language
    (`renamed` collects old name → new name)."""
    if not result or not result.get("players"):
        return result
    players = _cpus_renamed(result["players"], "room_seat", {} if renamed is None else renamed)
    return {**result, "players": players}


def game_url(game_id: int) -> str:
    """Where a finished game's record is shown (the history pages)."""
    return f"/games/{game_id}/"


def player_kind(cpu_level: str | None, kind: str = HUMAN) -> dict[str, Any]:
    """Protocol v2's `kind` of a seat: a CPU's (with its `level`), else `kind`
    ("human", or "program" for a token client)."""
    return {"kind": "cpu", "level": cpu_level} if cpu_level else {"kind": kind}




def member_dict(membership: Membership) -> dict[str, Any]:
    """A room seat as the panel shows it. The one place a seated member's kind is said.
    `rating`: the member's rating in the room's game (`with_seat_ratings`), only for a
    player who has one (docs/ratings.md)."""
    seat = {
        "index": membership.seat_index,
        "username": member_name(membership),
        "points": membership.points,
        **player_kind(
            membership.cpu_level, PROGRAM if membership.program_sockets > 0 else HUMAN
        ),
    }
    rating = ratings.seat_rating(membership)
    if rating is not None:
        seat["rating"] = rating
    return seat


# Whose games: (user id, None, None) for a person, (None, room seat, level) for a CPU.
StandingKey = tuple[int | None, int | None, str | None]


def standings(room: Room, members: list[Membership]) -> list[dict[str, Any]]:
    """The seated members by points (best first), with how many games of the room's current
    kind each finished here
    (as the room's history counts them: an aborted game is not settled, a running one not
    yet). A CPU's games are those of a CPU of its level on its room seat."""
    people = [m.user_id for m in members if m.user_id is not None]
    cpu_seats = [m.seat_index for m in members if m.cpu_level is not None]
    played: dict[StandingKey, int] = {
        (user_id, index if user_id is None else None, level): n
        for user_id, index, level, n in GamePlayer.objects.filter(
            game__room=room, game__status=Game.Status.FINISHED)
        .filter(_games_of_kind(room))
        .filter(Q(user_id__in=people) | Q(cpu_level__isnull=False, room_seat_index__in=cpu_seats))
        .values("user_id", "room_seat_index", "cpu_level")
        .annotate(n=Count("id"))
        .values_list("user_id", "room_seat_index", "cpu_level", "n")
    }
    rows = [
        {
            "username": member_name(m),
            "kind": member_dict(m)["kind"],
            "points": m.points,
            "games": played.get(_standing_key(m), 0),
            "seated": True,
        }
        for m in members
    ]
    return sorted(rows, key=lambda r: (-r["points"], r["username"]))


def _games_of_kind(room: Room) -> Q:
    """The room's games of its current kind and preset: the panel counts those only, as
    its points are that kind's (issue #33: never one kind's games beside another's points)."""
    if room.is_trump:
        presets = ["au", ""] if room.trump_preset == "au" else [room.trump_preset]
        return Q(game__game_kind=room.game_kind, game__preset__in=presets)
    return ~Q(game__game_kind=GameKind.TRUMP_DOBON)


def _standing_key(m: Membership) -> StandingKey:
    if m.cpu_level is not None:
        return (None, m.seat_index, m.cpu_level)
    return (m.user_id, None, None)


def _last_result(game: Game | None) -> dict[str, Any] | None:
    if game is None:
        return None
    return {
        "game": game.pk,
        "number": game.number,
        "status": game.status,
        "result": game.result,
        "url": game_url(game.pk),
        "match": _match_of(game),
        **_settlement_of(game),
    }


def _settlement_of(game: Game) -> dict[str, Any]:
    """What the table's settlement needs beyond the result, so that a reload (or a socket
    that arrives after the end) shows the same settlement as the live end did: the final
    hands (§R15.2, §T21: public once the game is over), the dobon (target, declarers) and the
    play it was on. Only for a finished game: a running game's hands never leave the
    server, and an aborted game's were never revealed."""
    if game.status != Game.Status.FINISHED or not game.state:
        return {}
    try:
        view = engines.load(game).view(None)  # by the game's own kind (a trump round too)
    except Exception as exc:  # an unreadable old state: the settlement just says less
        log.error("no settlement view for game %s", game.pk, exc_info=logs.withheld(exc))
        return {}
    return {"hands": view.get("revealed") or [], "dobon": view.get("dobon"),
            "last_play": view.get("last_play")}


def _match_of(game: Game) -> dict[str, Any] | None:
    """The match the game belonged to: the table's end-of-game box links to its results
    once it is over (its next game would otherwise follow by itself)."""
    if game.match_id is None:
        return None
    return {"id": game.match_id, "url": reverse("game:match", args=[game.match_id]),
            "over": game.match.status != "running"}


def room_panel(room: Room) -> dict[str, Any]:
    """The `room` object of protocol v2 (docs/protocol.md), in five queries."""
    members = list(ratings.with_seat_ratings(
        room.memberships.select_related("user").order_by("seat_index"), room))
    by_index = {m.seat_index: m for m in members}
    # The running game, if any, is the room's latest: numbers only grow and at most
    # one runs. So the latest two games hold both the running one and the last result.
    latest = list(
        room.games.select_related("match").order_by("-number")
        .only("number", "status", "result", "state", "room_id", "match", "match__status",
              "game_kind", "preset")[:2]
    )
    running = latest[0] if latest and latest[0].status == Game.Status.RUNNING else None
    last = next((g for g in latest if g.status != Game.Status.RUNNING), None)
    if last is not None and (last.game_kind, last.preset or None) != (room.game_kind, room.preset):
        last = None  # the room plays another game now: that settlement belongs to the history
    owner = room.owner.username if room.owner_id is not None and room.owner else None
    panel = {
        "id": room.pk,
        "name": room.name,
        "owner": owner,
        "seat_count": room.seat_count,
        "timeout": room.timeout_seconds,
        "is_public": room.is_public,
        "stamps": room.stamps_enabled,
        "rated": room.rated,
        "game_kind": room.game_kind,
        "preset": room.preset,
        "next_rate": room.next_rate,
        "deck_out_streak": room.deck_out_streak,
        "running_game": running.pk if running is not None else None,
        "seats": [
            member_dict(by_index[i]) if i in by_index else None for i in range(room.seat_count)
        ],
        "standings": standings(room, members),
        "last_result": _last_result(last),
        # HOUSE-RULES.md §G3, §6: the room's rules (every key) and its session are public.
        "house_rules": normalize_house_rules(room.house_rules or None),
        "house_base": room.house_base,
        "house": describe_house_rules(room.house_rules or None, base=room.house_base or None),
        "session": house.session_info(room),
    }
    if room.is_trump:
        _with_trump_match(panel, room)
    return panel


def _with_trump_match(panel: dict[str, Any], room: Room) -> None:
    """A trump room: its points are the running match's totals (§T17), never the Dobon UNO
    points of `Membership.points`; the rate does not exist (§T1.7)."""
    match = engines.of(room).match_info(room)
    panel["next_rate"], panel["deck_out_streak"] = 1, 0
    panel["settings"] = {"starting_points": room.starting_points,
                         "rounds_per_match": room.rounds_per_match}
    panel["match"] = match
    totals = {}
    if match is not None:
        totals = dict(zip(match["room_seats"], match["totals"], strict=False))
    for seat in panel["seats"]:
        if seat is not None:
            seat["points"] = totals.get(seat["index"])
    reverse_sort = room.trump_preset != "standard"
    for row in panel["standings"]:
        row["points"] = next((s["points"] for s in panel["seats"]
                              if s and s["username"] == row["username"]), None)
    panel["standings"].sort(key=lambda r: (r["points"] is None, (-1 if reverse_sort else 1)
                                           * (r["points"] or 0), r["username"]))


# -- push -------------------------------------------------------------------------------------


def notify_room_panel_on_commit(room_id: int) -> None:
    """Push the room's panel once the current transaction commits (seats, settings)."""
    transaction.on_commit(lambda: notify_room_panel(room_id))


def notify_room_panel(room_id: int) -> None:
    """Build the panel from the committed rows and send it to every socket of the room."""
    try:
        room = Room.objects.select_related("owner").filter(pk=room_id).first()
        if room is None:
            return
        message = {"type": "room.panel", "room_id": room_id, "room": room_panel(room)}
        sender.send([(room_group(room_id), message)])
    except Exception:  # clients resync; a failed push must not undo a committed change
        log.exception("room panel push failed for room %s", room_id)
