"""A room's house rules (HOUSE-RULES.md §G1) and the two rules the room applies itself:
§H13's rate cap (`Room.next_rate`) and §H14's sessions.

- `check_house_rules` validates a mapping with the engine's own validation (§G4): a
  `RoomError` naming the rule, nothing saved.
- `do_change_rules` (under the room lock, between games only: the caller checks) stores
  the new set; a change ends the running session at once (§H14.6).
- `do_game_finished` is connected to the "finished" moment (game/services/wiring.py):
  after each finished game of a room whose rules set a session end, it ends the session
  when its games or its target are reached (§H14.2–§H14.5). Matches ignore sessions (D3).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import F, Sum
from django.utils.translation import gettext as _

from game.models import Game, GamePlayer, Room, RoomSession
from game.rules import PRESET_NAMES, normalize_house_rules, preset_of

SESSION_KEYS = ("session_games", "session_target")


class HouseRulesError(ValueError):
    """A rule set the engine refuses; `message` names the key and the rule (§G4)."""


def check_house_rules(rules: Mapping[str, Any] | None) -> dict[str, Any]:
    """The rules as a room stores them: {} for every default (RULES.md exactly), else
    the full mapping."""
    try:
        full = normalize_house_rules(rules)
    except ValueError as exc:
        why = _("These house rules are not allowed: %(why)s") % {"why": exc}
        raise HouseRulesError(why) from exc
    return {} if preset_of(full) == "standard" else full


def check_base(base: str) -> str:
    return base if base in PRESET_NAMES else ""


def has_sessions(rules: Mapping[str, Any] | None) -> bool:
    return bool(rules) and any((rules or {}).get(k) for k in SESSION_KEYS)


def do_change_rules(room: Room, rules: dict[str, Any], base: str) -> bool:
    """Under the room lock with no game running: store `rules` (from `check_house_rules`).
    True when they changed; a change ends the running session (§H14.6) and the next one
    starts with the next game."""
    base = check_base(base)
    changed = rules != (room.house_rules or {})
    if changed:
        if has_sessions(room.house_rules):
            played = session_standings(room)
            if played["games"]:
                _end_session(room, played, reason="rules")
        room.session_since = _last_number(room)
    room.house_rules, room.house_base = rules, base if rules else ""
    return changed


def _last_number(room: Room) -> int:
    latest = room.games.order_by("-number").values_list("number", flat=True).first()
    return latest or 0


# -- sessions (§H14) ---------------------------------------------------------------------


def _session_games(room: Room, exclude: int | None = None) -> Any:
    games = Game.objects.filter(
        room=room, status=Game.Status.FINISHED, number__gt=room.session_since, match__isnull=True
    )
    return games.exclude(pk=exclude) if exclude is not None else games


def session_standings(
    room: Room, extra: list[tuple[str, int | None, int | None, str | None, int]] | None = None,
    exclude: int | None = None,
) -> dict[str, Any]:
    """The current session: its finished games and each player's session points (§H14.1),
    highest first; equal points share a place (§H14.5). `extra` adds a game being
    finished (name, user id, room seat, CPU level, delta) that is not saved yet."""
    games = _session_games(room, exclude)
    rows = (
        GamePlayer.objects.filter(game__in=games)
        .values("user_id", "room_seat_index", "cpu_level")
        .annotate(points=Sum("delta"))
    )
    names: dict[tuple[Any, ...], str] = {
        (p["user_id"], p["room_seat_index"] if p["user_id"] is None else None, p["cpu_level"]):
        p["username"]
        for p in GamePlayer.objects.filter(game__in=games).order_by("game__number")
        .values("user_id", "room_seat_index", "cpu_level", "username")
    }
    points: dict[tuple[Any, ...], int] = {}
    for row in rows:
        key = (row["user_id"], row["room_seat_index"] if row["user_id"] is None else None,
               row["cpu_level"])
        points[key] = points.get(key, 0) + (row["points"] or 0)
    count = games.count()
    for name, user_id, seat, level, delta in extra or []:
        added: tuple[Any, ...] = (user_id, seat if user_id is None else None, level)
        names[added] = name
        points[added] = points.get(added, 0) + delta
    if extra:
        count += 1
    table: list[dict[str, Any]] = sorted(
        ({"username": names.get(k, "?"), "points": p} for k, p in points.items()),
        key=lambda r: (-r["points"], r["username"]),
    )
    place = 0
    for i, entry in enumerate(table):
        if i == 0 or entry["points"] != table[i - 1]["points"]:
            place = i + 1
        entry["place"] = place
    return {"games": count, "standings": table}


def session_info(room: Room) -> dict[str, Any] | None:
    """The room panel's `session` (public to the room, §6): None without session rules."""
    rules = room.house_rules or {}
    if not has_sessions(rules):
        return {"last": room.last_session} if room.last_session else None
    current = session_standings(room)
    return {
        "number": room.sessions_ended + 1,
        "games": current["games"],
        "limit": rules.get("session_games"),
        "target": rules.get("session_target"),
        "standings": current["standings"],
        "last": room.last_session,
    }


def _session_over(rules: Mapping[str, Any], played: dict[str, Any]) -> str | None:
    """Why the session ends now (§H14.2, §H14.3, §H14.4: whichever comes first), or None."""
    limit, target = rules.get("session_games"), rules.get("session_target")
    if target and any(abs(r["points"]) >= target for r in played["standings"]):
        return "target"
    if limit and played["games"] >= limit:
        return "games"
    return None


def _end_session(room: Room, played: dict[str, Any], reason: str) -> None:
    """§H14.5: keep the final standings (a `RoomSession` row for the room's history, and
    `Room.last_session` for the room page), reset the deck-out count; the next game
    starts the next session at 0."""
    room.last_session = {
        "number": room.sessions_ended + 1, "games": played["games"], "reason": reason,
        "standings": played["standings"],
    }
    RoomSession.objects.create(room=room, **room.last_session)  # §H14.5: every one is kept
    room.sessions_ended += 1
    room.deck_out_streak = 0


def do_game_finished(game: Game, engine: Any, seats: Any, summary: dict[str, Any]) -> None:
    """The "finished" hook: end the room's session when this game completes it. Runs
    inside the game's transaction, after play.do_finish moved the deck-out count."""
    if game.match_id is not None:
        return  # D3: matches keep their fixed length and ignore sessions
    rules = getattr(engine, "house_rules", None) or {}  # the game's rules (§G2)
    if not has_sessions(rules):
        return  # no query at all for a room without sessions
    room = Room.objects.select_for_update().get(pk=game.room_id)
    deltas = summary.get("deltas") or []
    extra = [(s.username, s.user_id, s.room_seat_index, s.cpu_level, deltas[s.seat])
             for s in seats]
    played = session_standings(room, extra, exclude=game.pk)
    reason = _session_over(rules, played)
    if reason is None:
        return
    _end_session(room, played, reason)
    room.session_since = game.number
    Room.objects.filter(pk=room.pk).update(
        last_session=room.last_session, sessions_ended=F("sessions_ended") + 1,
        deck_out_streak=0, session_since=game.number,
    )
