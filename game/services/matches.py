"""Matches: a room plays N games (1–1,000) back to back, as an AI contest's dealer does
(docs/bots-api.md, "Matches").

- `start_match`: the owner's one request. Empty seats may be filled with CPU players
  (demo players); the first game starts in the same transaction.
- The next game starts by itself: when a match game finishes, `do_game_finished` (in
  the finishing transaction) counts it and, after the commit and the finished game's
  push, `start_next` starts the next one (`next_game_on_commit`). The timeout sweep
  (`start_waiting`) is the safety net for a start that was lost (a process that died
  between the commit and the start). No thread, no sleep.
- In match games CPU players act without their human-like delay (`cpu_delay_scale`).
- Program timeout: the engine keeps its 5–60 s clock (ENGINE_API); a match may give
  program seats a shorter one (1–60 s). The service layer applies it: a program seat
  that can act since `t` (its engine deadline minus the engine timeout) and has not
  acted by `t + program_timeout` gets §R14's automatic action for its situation
  (`auto_action`), applied like a move of that seat and logged with `"auto": true` in
  the version's replay input. It rides on the CPU due-time (`Game.cpu_due`), so the
  same ETA task / sweep that moves CPUs wakes it. §R14's "draw, then pass" becomes two
  versions: the automatic draw, then at once the automatic pass.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Case, CharField, Exists, F, OuterRef, Q, When
from django.db.models.fields.json import KeyTextTransform, KeyTransform
from django.utils import timezone
from django.utils.translation import gettext as _

from game import logs
from game.history.present import RESULT_KINDS
from game.messages import message_for
from game.models import MAX_SEATS, CpuLevel, Game, GameEvent, GamePlayer, Room, player_name
from game.models.matches import (
    MAX_GAMES,
    MAX_PROGRAM_TIMEOUT,
    MIN_GAMES,
    MIN_PROGRAM_TIMEOUT,
    Match,
    MatchStanding,
)
from game.services import engines, limits, panel, play, rooms

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

    from game.rules.contract import Engine
    from game.services.play import Seat

log = logging.getLogger(__name__)

Action = dict[str, Any]


class MatchError(Exception):
    """A refused match request; the message is for the person, in their language."""


# -- starting --------------------------------------------------------------------------------


def _whole_number(value: Any) -> int:
    """A form value as an int; 0 (out of every range) when it is not one."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def check_settings(games: Any, program_timeout: Any, cpu_level: Any) -> tuple[int, int | None,
                                                                               str | None]:
    """The match settings as numbers, or MatchError with what is wrong."""
    games = _whole_number(games)
    if not MIN_GAMES <= games <= MAX_GAMES:
        raise MatchError(_("A match has 1 to 1,000 games."))
    if program_timeout in (None, ""):
        program_timeout = None
    else:
        program_timeout = _whole_number(program_timeout)
        if not MIN_PROGRAM_TIMEOUT <= program_timeout <= MAX_PROGRAM_TIMEOUT:
            raise MatchError(_("The program timeout is 1 to 60 seconds."))
    if cpu_level in (None, ""):
        cpu_level = None
    elif cpu_level not in CpuLevel.values:
        raise MatchError(_("Unknown CPU level."))
    return games, program_timeout, cpu_level


def start_match(
    room: Room,
    by: AbstractBaseUser,
    games: Any,
    program_timeout: Any = None,
    cpu_level: Any = None,
    now: float | None = None,
) -> Match:
    """The owner starts a match of `games` games; CPUs of `cpu_level` fill empty seats."""
    games, program_timeout, cpu_level = check_settings(games, program_timeout, cpu_level)
    with transaction.atomic():
        room = rooms._lock(room)
        rooms.check_owner(room, by)
        if Match.objects.filter(room=room, status=Match.Status.RUNNING).exists():
            raise MatchError(_("A match is already running in this room."))
        if rooms.has_running_game(room):
            raise MatchError(_("Wait for the running game to end."))
        refusal = limits.match_refusal(by)
        if refusal is not None:
            raise MatchError(message_for(refusal))
        if cpu_level is not None:
            taken = set(room.memberships.values_list("seat_index", flat=True))
            for index in range(room.seat_count):
                if index not in taken:
                    rooms.do_seat_cpu(room, index, cpu_level)
        match = Match.objects.create(
            room=room, started_by_id=by.pk, games_total=games, program_timeout=program_timeout
        )
        try:
            play.start_game(room, by, now=now, match=match)
        except play.PlayError as exc:
            raise MatchError(str(exc) or _("The match could not start.")) from exc
    return match


def stop_match(match: Match, by: AbstractBaseUser, now: float | None = None) -> Match:
    """The owner stops a running match: its running game is aborted (not settled)."""
    with transaction.atomic():
        match = Match.objects.select_for_update().select_related("room").get(pk=match.pk)
        rooms.check_owner(match.room, by)
        if match.status != Match.Status.RUNNING:
            return match
        do_end(match, Match.Status.ABORTED, Match.EndReason.STOPPED)
        running = match.room.games.filter(status=Game.Status.RUNNING).first()
        if running is not None:
            play.abort_game(running, by=by, now=now)
    return match


def do_end(match: Match, status: str, reason: str = "") -> None:
    match.status = status
    match.finished_at = timezone.now()
    match.end_reason = reason
    match.save(update_fields=["status", "finished_at", "end_reason"])
    panel.notify_room_panel_on_commit(match.room_id)


# -- one game after the other ---------------------------------------------------------------------


def do_game_finished(game: Game, engine: Any = None, seats: Any = None,
                     summary: dict[str, Any] | None = None) -> None:
    """Under the finishing game's lock: count it into the match and its standings; the
    last one ends the match. (The `finished` hook passes the engine, seats and summary.)"""
    if game.match_id is None:
        return
    match = Match.objects.select_for_update().get(pk=game.match_id)
    if match.status != Match.Status.RUNNING:
        return
    if match.games_finished and not MatchStanding.objects.filter(match=match).exists():
        rebuild_standings(match)  # a match that was running when the totals were added
    match.games_finished += 1
    match.save(update_fields=["games_finished"])
    if summary is not None and seats is not None:
        do_count_standings(match, match.games_finished, _lines_of(seats, summary))
    if match.games_finished >= match.games_total:
        do_end(match, Match.Status.FINISHED)


def next_game_on_commit(game: Game) -> None:
    """After a match game's end is pushed, start the next game (if the match goes on).
    Registered after the finished game's push, so that every client sees the end of
    a game before the start of the next (a socket drops older games' frames)."""
    if game.match_id is not None and game.status == Game.Status.FINISHED:
        match_id = game.match_id
        transaction.on_commit(lambda: start_next_safely(match_id))


def do_game_aborted(game: Game) -> None:
    """An aborted match game ends its match: the games after it would not be comparable."""
    if game.match_id is None:
        return
    match = Match.objects.select_for_update().get(pk=game.match_id)
    if match.status == Match.Status.RUNNING:
        do_end(match, Match.Status.ABORTED, Match.EndReason.GAME_ABORTED)


def start_next_safely(match_id: int) -> None:
    try:
        start_next(match_id)
    except Exception as exc:  # the sweep starts it instead
        log.error("could not start the next game of match %s", match_id,
                  exc_info=logs.withheld(exc))


def start_next(match_id: int, now: float | None = None) -> Game | None:
    """Start the match's next game, if it is running, has games left and nothing runs.
    Safe to call twice (the after-commit hook and the sweep): the match row is locked
    and the second call finds the game already running.

    A start that fails in any way ends the match (aborted, with the reason on its page):
    retried by every sweep, it would fail again for ever (issue 20: a rate out of range
    kept a match running, with a traceback 4 times a second)."""
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.status != Match.Status.RUNNING:
            return None
        room = match.room
        if rooms.has_running_game(room):
            return None
        if match.games.count() >= match.games_total:
            return None
        owner = room.owner
        try:
            if owner is None:
                raise play.PlayError("not_owner")
            with transaction.atomic():  # a savepoint: a failed statement leaves the lock usable
                return play.start_game(room, owner, now=now, match=match)
        except (play.PlayError, PermissionDenied) as exc:
            log.warning("match %s stops: its next game cannot start (%r)", match_id, exc)
            do_end(match, Match.Status.ABORTED, Match.EndReason.CANNOT_START)
        except Exception as exc:
            log.error("match %s stops: its next game failed to start", match_id,
                      exc_info=logs.withheld(exc))
            do_end(match, Match.Status.ABORTED, Match.EndReason.START_FAILED)
        return None


def start_waiting(limit: int = 50) -> int:
    """The in-process sweep's part: running matches with no running game start their next."""
    started = 0
    for match_id in waiting(limit):
        try:
            started += start_next(match_id) is not None
        except Exception as exc:
            log.error("sweep could not start the next game of match %s", match_id,
                      exc_info=logs.withheld(exc))
    return started


def waiting(limit: int = 50, settled_before: float | None = None) -> list[int]:
    """Running matches with no running game (their next start was lost). With
    `settled_before`, only those whose last game ended before then: the start that
    follows a game's end after its commit normally comes first (beat's safety net)."""
    running_game = Game.objects.filter(room_id=OuterRef("room_id"), status=Game.Status.RUNNING)
    matches = (
        Match.objects.filter(status=Match.Status.RUNNING)
        .annotate(busy=Exists(running_game))
        .filter(busy=False)
    )
    if settled_before is not None:
        recent = Game.objects.filter(
            match_id=OuterRef("pk"), finished_at__gte=play.to_datetime(settled_before)
        )
        matches = matches.annotate(recent=Exists(recent)).filter(recent=False)
    return list(matches.values_list("pk", flat=True)[:limit])


# -- CPU players and program seats in match games -----------------------------------------------

_settings: dict[int, tuple[int | None, int]] = {}  # a match's settings never change


def _settings_of(match_id: int) -> tuple[int | None, int]:
    if match_id not in _settings:
        row = Match.objects.filter(pk=match_id).values_list("program_timeout", "games_total")
        _settings[match_id] = row.first() or (None, 0)
    return _settings[match_id]


def program_timeout_of(game: Game) -> int | None:
    if game.match_id is None:
        return None
    return _settings_of(game.match_id)[0]


def match_frame(game: Game) -> dict[str, Any] | None:
    """What every frame of a match game says about its match (docs/protocol.md):
    `{"id", "games", "program_timeout"}` (the program timeout null when the seats keep
    the room's); None outside matches."""
    if game.match_id is None:
        return None
    program_timeout, games = _settings_of(game.match_id)
    return {"id": game.match_id, "games": games, "program_timeout": program_timeout}


def cpu_delay_scale(game: Game, default: float) -> float:
    """Demo players in a match act at once; elsewhere they 'think' like people."""
    return 0.0 if game.match_id is not None else default


@dataclass(frozen=True)
class ProgramClock:
    seat: int
    due: float


def program_clocks(
    game: Game, engine: Engine, seats: Iterable[Seat], now: float,
    step: dict[str, Any] | None = None,
) -> list[ProgramClock]:
    """When each program seat that can act gets its automatic action, soonest first."""
    timeout = program_timeout_of(game)
    if timeout is None or engine.phase == "finished":
        return []
    clocks = []
    for s in seats:
        if s.kind != panel.PROGRAM or not s.present:
            continue
        view = engine.view(s.seat)
        deadline = view.get("deadline")
        if not view["legal_actions"] or deadline is None:
            continue
        if timeout >= view["timeout"]:
            continue  # the engine's own clock comes first
        due = deadline - view["timeout"] + timeout
        if _continues_automatic_step(step, s.seat, view):
            due = now
        clocks.append(ProgramClock(s.seat, due))
    return sorted(clocks, key=lambda c: (c.due, c.seat))


def _continues_automatic_step(
    step: dict[str, Any] | None, seat: int, view: dict[str, Any]
) -> bool:
    """Whether `seat`'s automatic step of this version goes on at once, as the engine's
    own timeout would do it in one go: §R14's pass after the automatic draw; §H7's play of
    the drawn card after the automatic draw until playable (the engine's `draw_play`);
    S13 / S28: the colour or the swap after that automatic play (issue #32)."""
    if not (step and step.get("auto") and step.get("seat") == seat):
        return False
    done = step.get("action", {}).get("type")
    if done == "draw" and view.get("turn") == seat:
        return any(a["type"] == "pass" for a in view["legal_actions"]) or _drew_until_playable(view)
    return done == "play" and view["phase"] in ("color", "swap") and view.get("chooser") == seat


def _drew_until_playable(view: dict[str, Any]) -> bool:
    """§H7.2: after drawing until playable the seat must play (no pass)."""
    return bool((view.get("house_rules") or {}).get("draw_until_playable")) and view["has_drawn"]


def auto_action(
    legal: list[Action], rng: random.Random, game_kind: str | None = None,
    engine: Engine | None = None, seat: int | None = None,
) -> Action | None:
    """The game kind's automatic action (Dobon UNO §R14 and its house rules, trump §T18),
    read from the seat's legal actions (game/services/engines.py)."""
    return engines.of(game_kind).auto_action(legal, rng, engine, seat)


@dataclass
class ProgramMove:
    seat: int
    action: Action
    events: list[dict[str, Any]] = field(default_factory=list)


def program_move(
    game: Game, engine: Engine, seats: list[Seat], now: float
) -> tuple[ProgramMove | None, float | None]:
    """Under the row lock: the automatic action of the first program seat whose match
    timeout passed, applied to `engine`, or else when the next one is due."""
    if program_timeout_of(game) is None:
        return None, None
    clocks = program_clocks(game, engine, seats, now, version_step(game))
    for clock in clocks:
        if clock.due > now:
            return None, clock.due
        rng = random.Random(f"{game.pk}:{game.version}:{clock.seat}:auto")
        action = auto_action(engine.legal_actions(clock.seat), rng, game.game_kind, engine,
                             clock.seat)
        if action is not None:
            return ProgramMove(clock.seat, action,
                               play.apply_action(engine, clock.seat, action, now)), None
    return None, None


def version_step(game: Game) -> dict[str, Any] | None:
    """The input that made the game's current version (for the pass that follows an
    automatic draw at once)."""
    step: dict[str, Any] | None = (
        GameEvent.objects.filter(game=game, version=game.version, step__isnull=False)
        .values_list("step", flat=True).first()
    )
    return step


def next_program_due(
    game: Game, engine: Engine, seats: Iterable[Seat], now: float,
    step: dict[str, Any] | None = None,
) -> float | None:
    """When the first program seat's own clock runs out. Also notes on `game` what the
    version's frames say: the match, and each program seat's own deadline."""
    clocks = program_clocks(game, engine, seats, now, step)
    _note_for_frames(game, clocks)
    return clocks[0].due if clocks else None


def describe_table(game: Game, engine: Engine, seats: Iterable[Seat]) -> None:
    """The change port's `describe`: a table read for a connect or sync says what a
    saved version's push says (`next_program_due`)."""
    if program_timeout_of(game) is None or engine.phase == "finished":
        _note_for_frames(game, [])  # no program clock: no step to read
        return
    now = play.now_or(None)
    _note_for_frames(game, program_clocks(game, engine, seats, now, version_step(game)))


def _note_for_frames(game: Game, clocks: list[ProgramClock]) -> None:
    game.match_frame = match_frame(game)  # type: ignore[attr-defined]
    game.program_deadlines = {c.seat: c.due for c in clocks}  # type: ignore[attr-defined]


# -- reading: standings, results, the log ---------------------------------------------------------


@dataclass
class Standing:
    """One player's line: total points, and the match game (1…N) after which the total
    last changed, or the first game the player played when no game changed it (the
    tie-break: whoever reached their final score first). `kind` is
    "program" for a person whose seat a program played in any of the match's games."""

    key: tuple[str, int]
    name: str
    kind: str
    total: int = 0
    games: int = 0
    reached: int = 0
    rank: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"rank": self.rank, "name": self.name, "kind": self.kind,
                "points": self.total, "games": self.games, "reached_at_game": self.reached}


def player_key(user_id: int | None, cpu_level: str | None, room_seat: int) -> tuple[str, int]:
    """A person is the same player on any seat; a CPU is the CPU on its room seat."""
    if user_id is not None and cpu_level is None:
        return ("user", user_id)
    return ("cpu", room_seat)


def seat_kind() -> Case:
    """The kind the finished game's result recorded for the row's seat ("human", "cpu" or
    "program": GamePlayer keeps no kind). A JSON path cannot take the seat from the row,
    so one branch per possible seat (KT() cannot follow the relation to the game)."""
    return Case(*(
        When(seat=seat, then=KeyTextTransform(
            "kind", KeyTransform(seat, KeyTransform("players", F("game__result")))))
        for seat in range(MAX_SEATS)
    ), output_field=CharField())


# The stored totals (MatchStanding): one line per seat of a finished game.
SeatLine = tuple[int | None, str | None, int, str, int, str | None]  # user, level, seat, name,
#                                                                      delta, kind


def _lines_of(seats: Iterable[Any], summary: dict[str, Any]) -> list[SeatLine]:
    players = summary.get("players") or []
    return [
        (s.user_id, s.cpu_level, s.room_seat_index, s.username, int(summary["deltas"][s.seat]),
         players[s.seat].get("kind") if s.seat < len(players) else None)
        for s in seats
    ]


def do_count_standings(match: Match, index: int, lines: Iterable[SeatLine]) -> None:
    """Count one finished game (the match's `index`-th) into the stored totals: a few rows
    read and written, whatever the number of games before it. Under the match's lock."""
    rows = {(r.key_kind, r.key_id): r for r in MatchStanding.objects.filter(match=match)}
    new = []
    for user_id, level, room_seat, name, delta, kind in lines:
        key = player_key(user_id, level, room_seat)
        row = rows.get(key)
        if row is None:
            row = MatchStanding(match=match, key_kind=key[0], key_id=key[1],
                                kind="cpu" if level else panel.HUMAN)
            rows[key] = row
            new.append(row)
        row.username, row.cpu_level, row.room_seat_index = name, level, room_seat
        row.games += 1
        if kind == panel.PROGRAM:
            row.kind = panel.PROGRAM
        if delta or not row.reached:  # a total no game changed was reached in the first
            row.total += delta
            row.reached = index
    MatchStanding.objects.bulk_create(new)
    MatchStanding.objects.bulk_update(
        [r for r in rows.values() if r not in new],
        ["username", "cpu_level", "room_seat_index", "kind", "total", "games", "reached"],
    )


def rebuild_standings(match: Match) -> None:
    """The stored totals counted again from every finished game (for matches that began
    before they were kept, and for bulk-made matches)."""
    MatchStanding.objects.filter(match=match).delete()
    rows = (
        GamePlayer.objects.filter(game__match=match, game__status=Game.Status.FINISHED)
        .order_by("game__number", "seat")
        .values_list("user_id", "cpu_level", "room_seat_index", "username", "game__number",
                     "delta", seat_kind())
    )
    games: dict[int, list[SeatLine]] = {}
    for user_id, level, room_seat, name, number, delta, kind in rows:
        games.setdefault(number, []).append((user_id, level, room_seat, name, delta or 0, kind))
    for index, number in enumerate(sorted(games), start=1):
        do_count_standings(match, index, games[number])


def standings(match: Match) -> list[Standing]:
    """Every player of the match's finished games by total points, best first; equal
    totals go to whoever reached that total in an earlier game (`reached`, 1…N: the last
    game that changed the total, or the player's first game when none did), and full
    ties to the name in code-point order. Read from the stored totals: one small query,
    whatever the number of games."""
    stored = list(MatchStanding.objects.filter(match=match))
    if not stored:
        return standings_counted(match)  # none finished, or a match older than the totals
    lines = [
        Standing((r.key_kind, r.key_id), player_name(r.username, r.cpu_level, r.room_seat_index),
                 r.kind, r.total, r.games, r.reached)
        for r in stored
    ]
    sign = _score_sign(match)
    return _ranked(sorted(lines, key=lambda s: (sign * s.total, s.reached, s.name)))


def standings_counted(match: Match) -> list[Standing]:
    """The standings summed over every finished game (one query, O(games)): what the
    stored totals must equal.

    Games are counted 1…N within the match: every match game but the last is finished
    (an aborted game ends the match), so the finished games' order is the match's."""
    rows = (
        GamePlayer.objects.filter(game__match=match, game__status=Game.Status.FINISHED)
        .order_by("game__number", "seat")
        .values_list("user_id", "cpu_level", "room_seat_index", "username", "game__number",
                     "delta", seat_kind())
    )
    table: dict[tuple[str, int], Standing] = {}
    index, last_number = 0, None
    for user_id, level, room_seat, name, number, delta, kind in rows:
        if number != last_number:
            index, last_number = index + 1, number
        key = player_key(user_id, level, room_seat)
        name = player_name(name, level, room_seat)
        line = table.setdefault(key, Standing(key, name, "cpu" if level else panel.HUMAN))
        line.name, line.games = name, line.games + 1
        if kind == panel.PROGRAM:
            line.kind = panel.PROGRAM
        if delta or not line.reached:  # a total no game changed was reached in the first
            line.total += delta or 0
            line.reached = index
    sign = _score_sign(match)
    ranked = sorted(table.values(), key=lambda s: (sign * s.total, s.reached, s.name))
    return _ranked(ranked)


def _score_sign(match: Match) -> int:
    """§T21.Q11: the standings follow the game's score order: -1 ranks the highest total
    first, 1 the lowest (trump standard)."""
    low = match.room.game_kind == "trump_dobon" and match.room.trump_preset == "standard"
    return 1 if low else -1


def _ranked(lines: list[Standing]) -> list[Standing]:
    for place, line in enumerate(lines, start=1):
        line.rank = place
    return lines


def game_results(match: Match, after: int | None = None,
                 readable: Q | None = None) -> list[dict[str, Any]]:
    """The match's games in order: number, status, how each ended and who gained what.
    `after`: only the games after the one numbered so (what a page that has them lacks);
    `readable`: only the games it selects (a past member's), numbered as in the match."""
    games_q = match.games.filter(readable or Q())
    skipped = 0
    if after is not None:
        skipped = match.games.filter(number__lte=after).count()
        games_q = games_q.filter(number__gt=after)
    # match_id too: the related manager sets each game's match, and a deferred match_id
    # would cost a query per game (1,006 queries for a 1,000-game match).
    games = list(games_q.order_by("number").only("pk", "match_id", "number", "status",
                                                 "result", "rate"))
    names: dict[int, dict[int, str]] = {}
    for game_id, seat, name, level, room_seat in GamePlayer.objects.filter(
        game__in=[g.pk for g in games]
    ).values_list("game_id", "seat", "username", "cpu_level", "room_seat_index"):
        names.setdefault(game_id, {})[seat] = player_name(name, level, room_seat)
    positions = _positions(match, games, skipped, readable is not None)
    results = []
    for index, game in zip(positions, games, strict=True):
        result = game.result or {}
        seat_names = names.get(game.pk, {})
        results.append({
            "index": index,
            "game": game,
            "kind": result.get("kind"),
            "kind_label": RESULT_KINDS.get(result.get("kind", ""), result.get("kind")),
            "winners": [seat_names.get(s, "?") for s in result.get("winners", [])],
            "deltas": [
                (seat_names.get(s, "?"), d) for s, d in enumerate(result.get("deltas", [])) if d
            ],
        })
    return results


def _positions(match: Match, games: list[Game], skipped: int, filtered: bool) -> list[int]:
    """Each game's place (1…N) in the match."""
    if not filtered:
        return list(range(skipped + 1, skipped + len(games) + 1))
    numbers = list(match.games.order_by("number").values_list("number", flat=True))
    place = {number: i for i, number in enumerate(numbers, start=1)}
    return [place[g.number] for g in games]
