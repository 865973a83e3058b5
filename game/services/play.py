"""Live play: start games, apply actions and timeouts, push each person their own table.

Every change is one short transaction: lock the game row (`select_for_update`), load
the engine from `Game.state`, apply what is due (`advance(now)`) and then the action,
save the state with `version + 1` and its next deadline, append the events. Pushes are
sent only after the commit (`transaction.on_commit`). Timeouts need no message per
move: the sweep (game/services/clock.py, run by Celery beat or the in-process scheduler)
finds due games by the indexed `Game.next_deadline`. No lock is held while anything is awaited,
and no game state lives in process memory: any daphne process or Celery worker can
serve any room.

Names follow the check_/do_/notify_ split: `check_*` validate and raise `PlayError`,
`do_*` change rows under the lock, `notify_*` build payloads and send them. Time is an
input everywhere (`now`, unix seconds; engine time is unix time too).

Privacy: a seat's payload is built from `engine.view(seat)` and the events whose `to`
is that seat or nobody, and reaches only that seat's user's sockets; every other socket
of the room gets the spectator view (`view(None)`) and public events. Between processes
a move travels as one message to the processes serving the room, each handing its own
sockets their share (game/live/fanout.py; with `DOBON_PROCESS_FANOUT` off, the seat's
user group and the room's watchers group). The room group carries only the room panel
and presence (game/services/panel.py, game/live/presence.py). Nothing else leaves this
module.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from channels.layers import get_channel_layer
from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, Max, OuterRef, Q, Subquery
from django.db.models.functions import JSONObject

from game.json_values import storable
from game.live import fanout, sender
from game.live.groups import room_group, user_group, watch_group  # noqa: F401 (room_group: API)
from game.logs import action_type, withheld
from game.messages import message_for
from game.models import Game, GameEvent, GamePlayer, Match, Membership, Room
from game.rules import IllegalAction, registry
from game.services import changes, engines, limits, panel, rooms

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser
    from django.contrib.auth.models import AnonymousUser

log = logging.getLogger(__name__)

Action = dict[str, Any]
Event = dict[str, Any]

# The default kind's engine class, kept under its old name for callers that typed or
# patched it; every engine is reached by the room's kind (game/services/engines.py).
Engine = registry.engine_class(registry.DOBON_UNO)
# Every action type of every kind (the 7's swap of §H6.4 included); the engine refuses
# another kind's own with its code.
ACTION_TYPES = engines.ALL_ACTION_TYPES
# The beat sweep handles at most this many games per run; the rest wait one second.


# -- errors ------------------------------------------------------------------------------


class PlayError(Exception):
    """A refusal the client is told about: `code` is stable snake_case, `message` human."""

    def __init__(self, code: str, message: str | None = None) -> None:
        self.code = code
        self.message = message if message is not None else message_for(code)
        super().__init__(self.message)


class ActionRefused(PlayError):
    """The engine said no (`IllegalAction`): its code passes straight through."""

    def __init__(self, code: str, engine_message: str = "") -> None:
        super().__init__(code)
        self.engine_message = engine_message


class NotRoomOwner(PlayError, PermissionDenied):
    """Only the owner may start a game; a PermissionDenied, so views answer 403."""

    def __init__(self) -> None:
        super().__init__("not_owner")


# -- time and groups -----------------------------------------------------------------------


def now_or(now: float | None) -> float:
    return time.time() if now is None else float(now)


def to_datetime(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts, tz=UTC)


def _game_id(game_or_id: Game | int) -> int:
    return game_or_id.pk if isinstance(game_or_id, Game) else int(game_or_id)


# -- what a change produced: the input of notify_* ---------------------------------------


@dataclass(frozen=True)
class Seat:
    seat: int
    user_id: int | None
    username: str
    room_seat_index: int
    present: bool = True  # the user still sits in the room (else: plays by timeouts)
    kind: str = panel.HUMAN  # "human", "cpu" (with `level`) or "program"
    level: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A game's player as every client sees it (`players[]` of a state frame, and
        the result's `players`): the one place a player's kind is said."""
        player: dict[str, Any] = {
            "seat": self.seat, "username": self.username, "room_seat": self.room_seat_index,
            "kind": self.kind,
        }
        if self.level is not None:
            player["level"] = self.level
        return player

    @property
    def cpu_level(self) -> str | None:
        """A CPU seat's level; None for a person (or a program)."""
        return self.level if self.kind == panel.CPU else None


@dataclass
class TableChange:
    """One committed change of a running (or just finished) game, ready to push."""

    room_id: int
    game_id: int
    number: int
    version: int
    status: str
    engine: Engine | None  # None for an aborted game: no table left to show
    events: list[Event]
    seats: list[Seat]
    room_info: dict[str, Any] | None = None
    match: dict[str, Any] | None = None  # the match it belongs to (frames say so)
    own_deadlines: dict[int, float] | None = None  # a program seat's own match clock
    game_kind: str = "dobon_uno"
    preset: str | None = None
    # `version` is the game's own count of changes (its log's); clients see the public
    # version (docs/protocol.md, "Versions and private answers"): None means the same.
    public_version: int | None = None
    # A private change: the seats told of it and each one's private step. None: public.
    private_steps: dict[int, int] | None = None

    @property
    def shown_version(self) -> int:
        return self.version if self.public_version is None else self.public_version


def frame_notes(game: Game) -> dict[str, Any]:
    """What the change port's `plan`/`describe` hooks noted on `game` for its frames
    (game/services/matches.py): the match, and program seats' own deadlines."""
    return {"match": getattr(game, "match_frame", None),
            "own_deadlines": getattr(game, "program_deadlines", None)}


def with_own_deadline(
    view: dict[str, Any] | None, own_deadlines: dict[int, float] | None, seat: int | None
) -> dict[str, Any] | None:
    """A program seat's view with its own (shorter) match clock as `deadline`: the clock
    that concerns it (docs/protocol.md)."""
    if view is None or not own_deadlines or seat not in own_deadlines:
        return view
    return {**view, "deadline": own_deadlines[seat]}


SEAT_FIELDS = ("seat", "user_id", "username", "room_seat_index", "cpu_level")


def seats_of(game: Game) -> list[Seat]:
    """The game's seats and whether each player still sits in the room, in one query.
    A CPU seat is present while a CPU still sits on its room seat."""
    locked = getattr(game, "seats_json", None)
    if locked is not None:  # read together with the row lock (_locked_with_seats)
        return [_seat(**row) for row in locked]
    rows = (
        game.players.order_by("seat")
        .annotate(**_presence(game.room_id))
        .values(*SEAT_FIELDS, "present", "cpu_present", "program")
    )
    return [_seat(**row) for row in rows]


def _presence(room_id: Any) -> dict[str, Exists]:
    """`present` (the user still sits in the room) and `cpu_present` (a CPU still sits on
    the room seat), as annotations of GamePlayer rows of a game in room `room_id`."""
    seated = Membership.objects.filter(room_id=room_id, user_id=OuterRef("user_id"))
    cpu_there = Membership.objects.filter(
        room_id=room_id, seat_index=OuterRef("room_seat_index"), cpu_level__isnull=False
    )
    return {
        "present": Exists(seated), "cpu_present": Exists(cpu_there),
        "program": Exists(seated.filter(program_sockets__gt=0)),  # game/services/programs.py
    }


def _seat(
    seat: int, user_id: int | None, username: str, room_seat_index: int,
    cpu_level: str | None, present: bool, cpu_present: bool, program: bool = False,
) -> Seat:
    present = present or (cpu_level is not None and cpu_present)
    kind, level = panel.kind_of(cpu_level)
    if program and cpu_level is None:
        kind = panel.PROGRAM  # a person's seat played by a token client
    return Seat(seat, user_id, username, room_seat_index, present, kind, level)


def locked_with_seats(skip_locked: bool = False, **running: Any) -> Game | None:
    """Lock the running game matching `running` and, on PostgreSQL, read its seats in
    the same statement (a JSON aggregate beside the row): one round trip instead of two
    on every move and every timeout. `skip_locked`: None when another worker holds it."""
    games = Game.objects.select_for_update(of=("self",), skip_locked=skip_locked).filter(
        status=Game.Status.RUNNING, **running
    )
    if connection.vendor == "postgresql":
        games = games.annotate(seats_json=_seats_aggregate())
    return games.first()


def _seats_aggregate() -> Subquery:
    from django.contrib.postgres.aggregates import JSONBAgg

    seat = JSONObject(**{f: f for f in SEAT_FIELDS}, **_presence(OuterRef(OuterRef("room_id"))))
    rows = (
        GamePlayer.objects.filter(game_id=OuterRef("pk")).order_by().values("game_id")
        .annotate(seats=JSONBAgg(seat, order_by="seat")).values("seats")
    )
    return Subquery(rows)


# -- access ----------------------------------------------------------------------------------


def check_can_watch(
    room_id: int,
    user: AbstractBaseUser | AnonymousUser,
    invited_room_ids: Mapping[int, str] | None = None,
) -> Room:
    """The room, if `user` may watch it live: the same rule as the room page
    (`rooms.can_view_room`): any signed-in user for a public room; the owner, members
    and invited sessions for a private one. Raises PlayError otherwise."""
    if not user.is_authenticated:
        raise PlayError("anonymous", "")
    room = Room.objects.filter(pk=room_id).first()
    if room is None:
        raise PlayError("no_room", "")
    if not rooms.can_view_room(room, user, invited_room_ids):
        # The same answer as for a room that does not exist: an outsider cannot tell a
        # private room is there (HTTP answers 404 for both too).
        raise PlayError("no_room", "")
    return room


def check_seated(seats: list[Seat], user: AbstractBaseUser | AnonymousUser) -> int:
    """The engine seat `user` plays. Someone who left the room mid-game no longer
    acts: their seat goes on by timeouts (§R14) and blocks nobody."""
    for s in seats:
        if s.user_id is not None and s.user_id == user.pk and s.present:
            return s.seat
    raise PlayError("not_seated")


def check_action_shape(action: Any) -> Action:
    """Cheap structural check before the engine sees it (the engine judges legality).
    A number no JSON column keeps (NaN, an infinity, beyond 64 bits) is
    `malformed_action`: the socket refuses those as `bad_json` already, this is for
    other callers."""
    kind = action.get("type") if isinstance(action, dict) else None
    if not isinstance(kind, str) or kind not in ACTION_TYPES:  # a list is unhashable
        raise PlayError("bad_action")
    if not storable(action):
        raise PlayError("malformed_action")
    cards = action.get("cards")
    if action["type"] == "play" and not (
        isinstance(cards, list) and 0 < len(cards) <= 112 and all(isinstance(c, str) for c in cards)
    ):
        raise PlayError("bad_action")
    if action["type"] == "color" and not isinstance(action.get("color"), str):
        raise PlayError("bad_action")
    target = action.get("target")
    if action["type"] == "swap" and not (isinstance(target, int) and not isinstance(target, bool)):
        raise PlayError("bad_action")
    return action


def check_can_start(room: Room, by: AbstractBaseUser, seated: list[Membership]) -> None:
    if not by.is_authenticated or room.owner_id != by.pk:
        raise NotRoomOwner()
    if rooms.has_running_game(room):
        raise PlayError("game_running")
    if len(seated) < 2:
        raise PlayError("too_few_players")
    try:
        engines.of(room).check_seats(room, len(seated))
    except engines.StartRefused as exc:
        raise PlayError(exc.code, exc.message) from exc


# -- who plays first (§R3.2, §R13) ---------------------------------------------------------------


def _engine_seat_after(room_seats: list[int], room_seat: int) -> int:
    """The engine seat of the first occupied room seat clockwise strictly after `room_seat`."""
    for engine_seat, index in enumerate(room_seats):
        if index > room_seat:
            return engine_seat
    return 0


def first_player_for(room: Room, seated: list[Membership]) -> int:
    """The engine seat that plays first in the game about to start.

    Engine seats are the seated members in clockwise room-seat order, so a room seat's
    left neighbour is the next occupied room seat clockwise.

    - §R3.2, first game (no finished game in the room yet): the owner's left neighbour.
      If the owner is not seated, their old seat is unknown: engine seat 0 (the first
      occupied room seat from seat 0 clockwise).
    - §R13: the previous finished game's `next_first_player`, mapped through its
      GamePlayer to the user; if that user still sits here, their new engine seat.
    - §R13.3: if they left, the first occupied room seat clockwise after the room seat
      they had. A CPU player is the same player while a CPU still sits on its room seat.
    """
    room_seats = [m.seat_index for m in seated]
    previous = (
        room.games.filter(status=Game.Status.FINISHED, result__isnull=False)
        .order_by("-number")
        .first()
    )
    if previous is None:
        owner = [m.seat_index for m in seated if m.user_id == room.owner_id]
        return _engine_seat_after(room_seats, owner[0]) if owner else 0
    starter = previous.players.filter(seat=previous.result["next_first_player"]).first()
    if starter is None:
        return 0
    for engine_seat, membership in enumerate(seated):
        if starter.user_id is not None and membership.user_id == starter.user_id:
            return engine_seat
        if starter.cpu_level is not None and membership.is_cpu and (
            membership.seat_index == starter.room_seat_index
        ):
            return engine_seat
    return _engine_seat_after(room_seats, starter.room_seat_index)


# -- reading the table ------------------------------------------------------------------------


def room_info(room: Room) -> dict[str, Any]:
    """The live room panel (`room` of a state frame): game/services/panel.py."""
    return panel.room_panel(room)


def table_for(
    room: Room, user: AbstractBaseUser, since: tuple[int, int] | None = None
) -> dict[str, Any]:
    """The exact current table as `user` may see it: a client `state` message.

    `since` is a resuming client's (game, version): when that game still runs and the
    version is behind, the events of the later versions that `user` may see come
    along (`from_version` = that version); otherwise none (`from_version` = version)."""
    return tables_for(room, user, since)[-1]


def tables_for(
    room: Room, user: AbstractBaseUser, since: tuple[int, int] | None = None
) -> list[dict[str, Any]]:
    """The answer to a sync: the current table (`table_for`), preceded, when `since`
    names a game of this room that has ended (finished or aborted) at a version after
    the client's, by that game's catch-up frame: its final table as `user` may see it
    and the events after the client's version. A client that was away while its game
    ended misses nothing of it (docs/protocol.md, "resume"). One query more than a
    plain table only when `since` names a game that is not running."""
    game = room.games.filter(status=Game.Status.RUNNING).first()
    info = room_info(room)
    frames = []
    if since is not None and (game is None or since[0] != game.pk):
        ended = ended_game_after(room, since)
        if ended is not None:
            frames.append(_table_message(ended, user, info, since))
    frames.append(_table_message(game, user, info, since))
    return frames


def ended_game_after(room: Room, since: tuple[int, int]) -> Game | None:
    """The game `since` names, if it belongs to `room`, has ended, and has versions
    after the client's: never another room's game, whatever id the client sends."""
    # Public versions, as the client counts (docs/protocol.md, "Versions and private
    # answers"): another seat's private steps move `version` and must not look like news.
    return room.games.filter(
        pk=since[0], status__in=(Game.Status.FINISHED, Game.Status.ABORTED),
        public_version__gt=since[1],
    ).first()


def _table_message(
    game: Game | None, user: AbstractBaseUser, info: dict[str, Any],
    since: tuple[int, int] | None,
) -> dict[str, Any]:
    """`game`'s table as `user` may see it (no game: `game: null`), with the events
    after `since`'s version when `since` names it at an earlier version. An aborted
    game's table has no view, as its live push (`build_pushes`)."""
    if game is None:
        return _state_message(None, None, None, None, info)
    engine = engines.load(game) if game.status != Game.Status.ABORTED else None
    seats = seats_of(game)
    seat = next((s.seat for s in seats if s.user_id == user.pk), None)
    if engine is not None:
        changes.describe(game, engine, seats)
    message = _state_message(game, engine, seat, seats, info)
    if since is not None and since[0] == game.pk and behind(since, message):
        version = max(since[1], -1)  # below −1 counts as −1 (docs/protocol.md)
        step = since[2] if len(since) > 2 and version == since[1] else 0
        message["events"] = events_since(game, version, seat, step)
        message["from_version"] = version
    return message


def behind(since: tuple[int, ...], table: dict[str, Any]) -> bool:
    """Whether a resuming client at `since` (game, public version[, private step]) lacks
    something of `table` (the state message read for it)."""
    step = since[2] if len(since) > 2 else 0
    return (since[1], step) < (table["version"], table["private"])


def events_since(game: Game, version: int, seat: int | None, step: int = 0) -> list[Event]:
    """The logged events of `game` after public version `version` and, at that version,
    after private step `step` of `seat` (up to the version read with it) that `seat` may
    see, in order: public ones and those to that seat, exactly the filter of the live
    pushes (`build_pushes`). `seat` None is a watcher. Another seat's private changes
    are never visible, so they leave no trace here either."""
    visible = Q(to_seat__isnull=True)
    if seat is not None:
        visible |= Q(to_seat=seat)
    later = Q(public_version__gt=version) | Q(public_version=version, private_step__gt=step)
    rows = GameEvent.objects.filter(
        visible, later, game=game, version__lte=game.version
    ).order_by("seq")
    return list(rows.values_list("data", flat=True))


def _state_message(
    game: Game | None,
    engine: Engine | None,
    seat: int | None,
    seats: list[Seat] | None,
    info: dict[str, Any] | None,
) -> dict[str, Any]:
    version = game.public_version if game else None
    notes = frame_notes(game) if game else {"match": None, "own_deadlines": None}
    view = engine.view(seat) if engine is not None else None
    return state_frame(
        game=game.pk if game else None, number=game.number if game else None,
        version=version, status=game.status if game else None, seat=seat,
        view=with_own_deadline(view, notes["own_deadlines"], seat),
        players=[s.to_dict() for s in seats or []], events=[], from_version=version,
        room=info, match=notes["match"], game_kind=game.game_kind if game else None,
        preset=game.preset or None if game else None,
        private=private_step_of(game, seat) if game else 0,
    )


def private_step_of(game: Game, seat: int | None) -> int:
    """`seat`'s private changes since the public version (0 for a watcher)."""
    if seat is None:
        return 0
    return int((game.private_steps or {}).get(str(seat), 0))


def state_frame(
    *, game: int | None, number: int | None, version: int | None, status: str | None,
    seat: int | None, view: dict[str, Any] | None, players: list[dict[str, Any]],
    events: list[Event], from_version: int | None, room: dict[str, Any] | None = None,
    match: dict[str, Any] | None = None,
    game_kind: str | None = None, preset: str | None = None, private: int = 0,
) -> dict[str, Any]:
    """A `state` frame (docs/protocol.md), stamped with the server's clock now.
    `game_kind` and `preset` are the running game's (else the room's, when known);
    `private` the recipient's private step at `version`."""
    if game_kind is None and room is not None:
        game_kind, preset = room.get("game_kind"), room.get("preset")
    frame: dict[str, Any] = {
        "type": "state", "game": game, "number": number, "version": version,
        "game_kind": game_kind or "dobon_uno", "preset": preset,
        "private": private,
        "status": status, "seat": seat, "view": view, "deadline": deadline_of(view),
        "players": players, "events": events, "from_version": from_version,
        "match": match, "server_time": time.time(),
    }
    if room is not None:
        frame["room"] = room
    return frame


def deadline_of(view: dict[str, Any] | None) -> float | None:
    """The clock a client counts down: the recipient's own deadline, else the table's."""
    if view is None:
        return None
    own = view.get("deadline")
    return own if own is not None else view.get("turn_deadline")


# -- changing: start -------------------------------------------------------------------------------


def start_game(
    room: Room, by: AbstractBaseUser, now: float | None = None, match: Match | None = None
) -> Game:
    """Start the next game of `room` (owner only, two seated members or more), as a
    game of `match` when given (game/services/matches.py)."""
    now = now_or(now)
    with transaction.atomic():
        room = Room.objects.select_for_update().get(pk=room.pk)
        seated = list(room.memberships.select_related("user").order_by("seat_index"))
        check_can_start(room, by, seated)
        refusal = limits.cpu_game_refusal(by, seated) if match is None else None
        if refusal is not None:
            raise PlayError(refusal)
        kind = engines.of(room)
        engine = kind.new_game(
            room, seated, first_player_for(room, seated), now, secrets.randbits(63)
        )
        game, seats = do_create_game(room, by, seated, engine, match)
        events = kind.start_events(engine)
        do_append_events(game, events, step={"now": now})  # version 0's input: when
        changes.plan(game, engine, seats, now, None)
        game.save(update_fields=["event_count", "cpu_due", "next_deadline"])
        change = TableChange(
            room.pk, game.pk, game.number, game.version, game.status, engine, events, seats,
            room_info=room_info(room), **frame_notes(game), game_kind=game.game_kind,
            preset=game.preset or None,
        )
        transaction.on_commit(lambda: notify_change(change))
        changes.saved(game)  # after the push above: e.g. a CPU that plays first
    return game


def do_create_game(
    room: Room, by: AbstractBaseUser, seated: list[Membership], engine: Engine,
    match: Match | None = None,
) -> tuple[Game, list[Seat]]:
    number = (room.games.aggregate(n=Max("number"))["n"] or 0) + 1
    state = engine.to_dict()
    try:
        with transaction.atomic():
            game = Game.objects.create(
                room=room,
                number=number,
                state=state,
                initial_state=state,
                version=0,
                next_deadline=to_datetime(engine.next_deadline),
                rate=engine.rate,
                started_by=by,
                match=match,
                game_kind=room.game_kind,
                preset=engines.of(room).preset(room),
                rated=room.rated,
            )
    except IntegrityError as exc:  # the one-running-game constraint, in a race
        raise PlayError("game_running") from exc
    seats = [
        _seat(engine_seat, m.user_id, panel.member_name(m), m.seat_index, m.cpu_level,
              present=True, cpu_present=False, program=m.program_sockets > 0)
        for engine_seat, m in enumerate(seated)
    ]
    GamePlayer.objects.bulk_create(
        GamePlayer(
            game=game, seat=s.seat, room_seat_index=s.room_seat_index,
            user_id=s.user_id, username=s.username, cpu_level=s.cpu_level,
        )
        for s in seats
    )
    return game, seats


def initial_events(engine: Engine) -> list[Event]:
    """The event that opens a Dobon UNO game (each kind's: `engines.of(room).start_events`)."""
    return engines.KINDS["dobon_uno"].start_events(engine)


# -- changing: actions and timeouts ---------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What an accepted action or timeout did: the new version and the events."""

    game_id: int
    version: int
    events: list[Event]
    finished: bool


def act_in_room(
    room_id: int, user: AbstractBaseUser, action: Any, now: float | None = None,
    version: int | None = None,
) -> Outcome:
    """`perform_action` on the room's running game (what a websocket client asks for).
    With `version` (the version the client decided on), a game that moved on since
    refuses the action as `stale`: the client's reason for it may be gone.

    game/services/lean_moves.py does the same for the common move on the event loop,
    calling the steps below; a change here (or in `do_action`, `do_save`) must keep
    both in step (tests/game/test_lean_moves.py compares them move by move)."""
    now = now_or(now)
    action = check_action_shape(action)
    with transaction.atomic():
        game = locked_with_seats(room_id=room_id)
        if game is None:
            raise PlayError("no_game")
        check_current(game, action, version)
        return do_action(game, user, action, now)


def check_current(game: Game, action: Action, version: int | None) -> None:
    """Refuse as `stale` an action decided on a version the game has moved past, except
    a bid while the auction runs: sealed bids are simultaneous (§T4), so another seat's
    bid (a new version) changes nothing this one was decided on; the engine judges it
    against the auction (issue #31: about half the bids of a 3-seat table were stale)."""
    if version is None or version == game.public_version:
        return
    if action.get("type") == "bid" and (game.state or {}).get("phase") == "auction":
        return
    raise PlayError("stale")


def perform_action(
    game_or_id: Game | int, user: AbstractBaseUser, action: Any, now: float | None = None
) -> Outcome:
    """Apply `user`'s action in one short transaction; raise PlayError on refusal.

    Due timeouts are applied first (the engine never applies them on its own). A
    refusal rolls everything back, those timeouts included: they are still due and the
    sweep applies them within its period, so a refusal changes nothing at all.
    """
    now = now_or(now)
    action = check_action_shape(action)
    with transaction.atomic():
        return do_action(_lock_running(_game_id(game_or_id)), user, action, now)


def do_action(game: Game, user: AbstractBaseUser, action: Action, now: float) -> Outcome:
    """Under the row lock: due timeouts, then the action, then save (or raise)."""
    relax_commit()
    seats = seats_of(game)
    seat = check_seated(seats, user)
    engine = engines.load(game)
    action = engines.of(game).normal_action(action)
    events, step = advance_clock(engine, now)
    events += apply_action(engine, seat, action, now)
    step = {**step, "seat": seat, "action": action}
    change = do_save(game, engine, events, now, seats, step=step)
    return Outcome(game.pk, change.version, change.events, change.status != Game.Status.RUNNING)


def advance_clock(engine: Engine, now: float) -> tuple[list[Event], dict[str, Any]]:
    """The engine's due timeouts up to `now` (§R14) and the version's input for replays.

    When the earliest deadline lies more than DOBON_CLOCK_OUTAGE_SECONDS in the past, the
    clock was stopped (beat or the workers were down; a working clock is late by well
    under a second): the game resumes with fresh full timeouts from `now` instead of
    playing the outage's ⌊D / timeout⌋ automatic actions in one version, and the input
    says so (`"resume": true`, replayed by game/history/replay.py)."""
    deadline = engine.next_deadline
    outage = deadline is not None and now - deadline > settings.DOBON_CLOCK_OUTAGE_SECONDS
    if outage:
        return engine.resume(now), {"now": now, "resume": True}
    return engine.advance(now), {"now": now}


def relax_commit() -> None:
    """Opt-in (DOBON_ASYNC_COMMIT=true): let PostgreSQL acknowledge a commit before its
    WAL reaches the disk.

    Off by default because a PostgreSQL crash could then lose the last fraction of a
    second of acknowledged moves, and nothing may be lost. Measured here it saved only
    ~0.5 ms of ~6 ms per move; it pays off only on disks with slow fsync.
    """
    if connection.vendor == "postgresql" and settings.DOBON_ASYNC_COMMIT:
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")


def _lock_running(game_id: int) -> Game:
    game = locked_with_seats(pk=game_id)
    if game is None:
        raise PlayError("no_game")
    return game


def apply_action(engine: Engine, seat: int, action: Action, now: float) -> list[Event]:
    try:
        return list(engine.apply(seat, action, now))
    except IllegalAction as exc:
        raise ActionRefused(exc.code, str(exc)) from exc
    except (ValueError, TypeError, KeyError) as exc:
        # A malformed dict the shape check let through; the engine left the game as it was.
        # Neither the action nor the message: either may name a card of the hand.
        log.warning("engine rejected a malformed %s action (%s)", action_type(action),
                    type(exc).__name__)
        raise PlayError("bad_action") from exc


def do_save(
    game: Game,
    engine: Engine,
    events: list[Event],
    now: float,
    seats: list[Seat] | None = None,
    step: dict[str, Any] | None = None,
) -> TableChange:
    """Save the engine state as the next version with its next deadline (the sweep's
    index), log the events (with `step`, the input that made them, for replays), settle
    a finished game, and arrange the push for after the commit. A change nobody but
    the seats it tells may observe keeps the public version (`count_change`)."""
    before = game.state
    game.state = engine.to_dict()
    game.version += 1
    private = count_change(game, before, engine, events)
    seats = seats_of(game) if seats is None else seats
    info = None
    if engine.phase == "finished":
        do_finish(game, engine, seats, now)
    changes.plan(game, engine, seats, now, step)
    do_append_events(game, events, step, private)
    game.save(
        update_fields=[
            "state", "version", "next_deadline", "cpu_due", "status", "result", "finished_at",
            "event_count", "public_version", "private_steps",
        ]
    )
    if game.status != Game.Status.RUNNING:
        info = room_info(Room.objects.select_related("owner").get(pk=game.room_id))
    change = TableChange(
        game.room_id, game.pk, game.number, game.version, game.status, engine, events, seats,
        room_info=info, **frame_notes(game), game_kind=game.game_kind,
        preset=game.preset or None, public_version=game.public_version,
        private_steps=private,
    )
    transaction.on_commit(lambda: notify_change(change))
    changes.saved(game)  # after the push above: a match's next start follows the end
    return change


def count_change(
    game: Game, before: dict[str, Any], engine: Engine, events: list[Event]
) -> dict[int, int] | None:
    """Count a change that was just applied: public (the public version grows, every
    private step is back to 0; None), or private to the seats its events go to (each
    one's private step grows; returned as {seat: step})."""
    told = private_to(game, before, engine, events)
    if told is None:
        game.public_version += 1
        game.private_steps = {}
        return None
    steps = {**(game.private_steps or {})}
    for seat in told:
        steps[str(seat)] = int(steps.get(str(seat), 0)) + 1
    game.private_steps = steps
    return {seat: steps[str(seat)] for seat in told}


def private_to(
    game: Game, before: dict[str, Any], engine: Engine, events: list[Event]
) -> set[int] | None:
    """The seats a change is private to, or None when anybody else could observe it
    (§T19.3, §R15: a declined or lapsed chance is its seat's alone). Private: it has
    events, each addressed to a seat, and every view but those seats' (a watcher's,
    the other seats') is what it was. Views are compared only then (rare: declines and
    lapsing chances); every ordinary move has a public event."""
    if not events or engine.phase == "finished":
        return None
    told = {e.get("to") for e in events}
    if None in told:
        return None
    earlier = engines.of(game).load(before)
    others = [None, *(s for s in range(engine.players) if s not in told)]
    if any(earlier.view(x) != engine.view(x) for x in others):
        return None
    return {int(seat) for seat in told if seat is not None}


def do_finish(game: Game, engine: Engine, seats: list[Seat], now: float) -> None:
    """Settle: deltas to GamePlayer (everyone), then the room's side of the game kind
    (Dobon UNO: Membership.points and the deck-out streak, §R11/§R12.3; trump: the match
    record of §T17), the result summary on the game."""
    result = engine.result
    summary = result.to_dict()
    deltas = list(summary["deltas"])
    summary["players"] = [s.to_dict() for s in seats]
    for s in seats:
        GamePlayer.objects.filter(game=game, seat=s.seat).update(delta=deltas[s.seat])
    engines.of(game).settle(game, seats, summary)
    game.finished_at = to_datetime(now)  # before the hooks: ratings record it
    changes.finished(game, engine, seats, summary)
    game.result = summary
    game.status = Game.Status.FINISHED
    game.next_deadline = None


def do_append_events(
    game: Game, events: list[Event], step: dict[str, Any] | None = None,
    private: dict[int, int] | None = None,
) -> None:
    """Append `events` at `game.version`, with sequence numbers that never skip; the
    version's first row carries `step` (its input) for replays, and every row the
    public version and, for a private change, its seat's private step (`private`).

    Under the game's row lock; the caller saves `game.event_count` with the game."""
    if not events:
        return
    start = game.event_count
    GameEvent.objects.bulk_create(
        GameEvent(
            game=game, seq=start + i, version=game.version, to_seat=e.get("to"), data=e,
            step=step if i == 0 else None, public_version=game.public_version,
            private_step=(private or {}).get(e.get("to"), 0),  # type: ignore[arg-type]
        )
        for i, e in enumerate(events)
    )
    game.event_count = start + len(events)


def abort_game(game: Game, by: AbstractBaseUser | None = None, now: float | None = None) -> Game:
    """Stop a running game without settlement (an admin's or owner's decision)."""
    now = now_or(now)
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        if game.status != Game.Status.RUNNING:
            return game
        game.status = Game.Status.ABORTED
        game.next_deadline = game.cpu_due = None
        game.finished_at = to_datetime(now)
        game.version += 1
        game.public_version += 1
        game.private_steps = {}
        who = getattr(by, "username", None)
        changes.aborted(game)
        events = [{"type": "aborted", "to": None, "seat": None, "by": who}]
        do_append_events(game, events)
        game.save(
            update_fields=[
                "status", "next_deadline", "cpu_due", "finished_at", "version", "event_count",
                "public_version", "private_steps",
            ]
        )
        room = Room.objects.select_related("owner").get(pk=game.room_id)
        change = TableChange(
            game.room_id, game.pk, game.number, game.version, game.status,
            None, events, seats_of(game), room_info=room_info(room),
            game_kind=game.game_kind, preset=game.preset or None,
            public_version=game.public_version,
        )
        transaction.on_commit(lambda: notify_change(change))
    return game


# -- notify: after commit ---------------------------------------------------------------------


def build_pushes(change: TableChange) -> list[tuple[str, dict[str, Any]]]:
    """(group, channel message) pairs: one per seated user with that seat's view and
    the events addressed to it, and one for the watchers with the spectator view.
    Sending packs them into one message to the processes serving the room
    (`fanout.packed`), each of which hands every socket its own."""
    version, private = change.shown_version, change.private_steps
    base = {
        "room": change.room_id, "game": change.game_id, "number": change.number,
        "game_kind": change.game_kind, "preset": change.preset,
        "version": version, "from_version": version - (private is None),
        "change": change.version, "private": 0,
        "status": change.status,
        "players": [s.to_dict() for s in change.seats], "room_info": change.room_info,
        "match": change.match,
    }
    engine = change.engine  # None for an aborted game: its frames say so with view null
    pushes = []
    for s in change.seats:
        if s.user_id is None or (private is not None and s.seat not in private):
            continue  # a private change reaches only the seats it tells
        view = engine.view(s.seat) if engine is not None else None
        view = with_own_deadline(view, change.own_deadlines, s.seat)
        events = [e for e in change.events if e.get("to") in (None, s.seat)]
        pushes.append(
            (user_group(s.user_id), {**base, "type": "game.private", "seat": s.seat,
                                      "user": s.user_id, "view": view, "events": events,
                                      "private": (private or {}).get(s.seat, 0)})
        )
    if private is not None:
        return pushes  # watchers (and everyone else) see nothing of it, no version either
    public = [e for e in change.events if e.get("to") is None]
    seated_users = [s.user_id for s in change.seats if s.user_id is not None]
    pushes.append(
        (watch_group(change.room_id), {**base, "type": "game.public", "seat": None,
                                      "view": engine.view(None) if engine is not None else None,
                                      "events": public,
                                      "seated": seated_users})
    )
    return pushes


Push = tuple[str, dict[str, Any]]
_deferred = threading.local()


@contextmanager
def deferred_pushes() -> Iterator[list[Push]]:
    """Collect the pushes of the changes committed inside the block instead of sending
    them, so that an async caller can send them from its event loop (`send_pushes`)
    without holding the database thread meanwhile. They are still only collected
    after the commit."""
    pending: list[Push] = []
    _deferred.pending = pending
    try:
        yield pending
    finally:
        _deferred.pending = None


async def send_pushes(pushes: list[Push]) -> None:
    """Send `pushes` (e.g. `build_pushes`'s) from the event loop: each move as one
    message, this process's own sockets served directly (game/live/fanout.py)."""
    layer = get_channel_layer()
    if layer is None:
        return

    async def push(group: str, message: dict[str, Any]) -> None:
        try:
            if message["type"] == fanout.MOVE:
                await fanout.publish(layer, message)
            else:
                await layer.group_send(group, message)
        except Exception:  # clients resync by version; a failed push must not undo a move
            log.exception("push to %s failed", group)

    async def in_order(moves: list[Push]) -> None:
        # A finishing move and the next game of a match come in one batch: handed out
        # to this process's sockets concurrently, the new game could overtake the old
        # one's end, and a socket drops a push older than what it has (`deliver`), so
        # the players would never see the settlement.
        for group, message in moves:
            await push(group, message)

    packed = fanout.packed(pushes)
    moves = [(g, m) for g, m in packed if m["type"] == fanout.MOVE]
    others = [(g, m) for g, m in packed if m["type"] != fanout.MOVE]
    # The rest all at once: one round trip to Redis instead of one per message, so the
    # next version (perhaps committed by another process) is less likely to overtake this.
    await asyncio.gather(in_order(moves), *(push(group, message) for group, message in others))


def notify_change(change: TableChange) -> None:
    """Push a committed change to every client."""
    try:
        pushes = build_pushes(change)
        pending = getattr(_deferred, "pending", None)
        if pending is not None:
            pending.extend(pushes)
        else:
            sender.send(pushes)
    except Exception as exc:  # clients resync by version; a failed push must not undo a move
        log.error("push failed for game %s v%s", change.game_id, change.version,
                  exc_info=withheld(exc))


