"""Rooms: create them, sit down, stand up, and the owner's powers.

Every change runs in one transaction that first locks the room row
(`select_for_update`), so two requests can neither seat two people on one seat nor
hand the room to two owners. The database constraints on Membership stay the last
line of defence.

Errors the user can fix raise `RoomError` (its message is shown as it is); asking for
an owner's power without being the owner raises `PermissionDenied` (a 403).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, F, Max, OuterRef, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from game.models import (
    DEFAULT_ROUNDS,
    DEFAULT_SEATS,
    DEFAULT_START_POINTS,
    DEFAULT_TIMEOUT,
    MAX_ROUNDS,
    MAX_SEATS,
    MAX_START_POINTS,
    MAX_TIMEOUT,
    MIN_ROUNDS,
    MIN_SEATS,
    MIN_START_POINTS,
    MIN_TIMEOUT,
    TRUMP_SEATS,
    CpuLevel,
    Game,
    GameKind,
    Membership,
    Room,
    TrumpPreset,
    new_invite_code,
)
from game.services import access, house
from game.services.engines import seat_range_message
from game.services.invites import (  # noqa: F401 (part of this module's API)
    INVITED_SESSION_KEY,
    holds_current_invite,
    invited_room_ids,
    remember_invite,
)
from game.services.panel import notify_room_panel_on_commit

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser
    from django.contrib.auth.models import AnonymousUser

    from accounts.models import User


class RoomError(Exception):
    """A change the room's rules forbid. `field` names the form field it belongs to."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


# -- reading ---------------------------------------------------------------------------


def with_occupancy(rooms: QuerySet[Room]) -> QuerySet[Room]:
    """Annotate `seats_taken`, `seats_free` and `game_on` for lists of rooms."""
    running = Game.objects.filter(room=OuterRef("pk"), status=Game.Status.RUNNING)
    return rooms.annotate(
        seats_taken=Count("memberships", distinct=True),
        seats_free=F("seat_count") - Count("memberships", distinct=True),
        game_on=Exists(running),
    ).select_related("owner")


def rooms_of(user: User) -> QuerySet[Room]:
    """Rooms the user owns or sits in, private ones included."""
    # A subquery rather than a join: a join on memberships would make
    # with_occupancy() count only this user's own seat.
    seated = Membership.objects.filter(user=user).values("room_id")
    return Room.objects.filter(Q(owner=user) | Q(pk__in=seated))


def public_rooms() -> QuerySet[Room]:
    return Room.objects.filter(is_public=True)


# The rooms a browser session arrived at through an invite link or code, each with the
# code it came with (private rooms are visible to them before they sit down, as long as
# that code is still the room's: rotating the code ends every such invite).
def can_view_room(
    room: Room,
    user: AbstractBaseUser | AnonymousUser,
    invites: Mapping[int, str] | None = None,
) -> bool:
    """Public rooms are open to everyone signed in; private ones to their owner, their
    members and whoever arrived through the room's current invite link or code."""
    if not user.is_authenticated:
        return False
    if room.is_public or room.owner_id == user.pk or holds_current_invite(room, invites or {}):
        return True
    return room.memberships.filter(user_id=user.pk).exists()


def has_running_game(room: Room) -> bool:
    return Game.objects.filter(room=room, status=Game.Status.RUNNING).exists()


_CODE_RE = re.compile(r"[A-Za-z0-9_-]+")


def find_room_by_code(text: str) -> Room | None:
    """The room an invite code names. Accepts a pasted invite link as well as the code."""
    text = text.strip()
    candidates = _CODE_RE.findall(text)
    if not candidates:
        return None
    # The code is the last path segment of a link, or the whole text (typed as two
    # groups with a space between them, perhaps).
    return room_for_code(candidates[-1] if "/" in text else "".join(candidates))


def room_for_code(code: str) -> Room | None:
    """The room whose current invite code is `code`. Codes made since issue 21 are upper
    case without hyphens (Room.new_invite_code), so they are found however they are
    typed; an older mixed-case code must match exactly, as before, until rotated."""
    if not code:
        return None
    room = Room.objects.filter(invite_code=code).first()
    normalised = code.upper().replace("-", "")
    if room is None and normalised != code:
        room = Room.objects.filter(invite_code=normalised).first()
    return room


# -- checks ------------------------------------------------------------------------------


def _lock(room: Room) -> Room:
    """Lock the room row for a change; every socket of the room gets the new panel
    after the commit (nothing is sent if the change is refused and rolled back)."""
    locked = Room.objects.select_for_update().get(pk=room.pk)
    notify_room_panel_on_commit(locked.pk)
    return locked


def check_owner(room: Room, user: AbstractBaseUser | AnonymousUser) -> None:
    if not user.is_authenticated or room.owner_id != user.pk:
        raise PermissionDenied(_("Only the owner of the room may do this."))


def _check_no_game(room: Room, message: str) -> None:
    if has_running_game(room):
        raise RoomError(message)


def _check_settings(seat_count: int, timeout_seconds: int) -> None:
    if not MIN_SEATS <= seat_count <= MAX_SEATS:
        raise RoomError(
            _("A room has %(min)d to %(max)d seats.") % {"min": MIN_SEATS, "max": MAX_SEATS},
            field="seat_count",
        )
    if not MIN_TIMEOUT <= timeout_seconds <= MAX_TIMEOUT:
        raise RoomError(
            _("The timeout is %(min)d to %(max)d seconds.")
            % {"min": MIN_TIMEOUT, "max": MAX_TIMEOUT},
            field="timeout_seconds",
        )


def _check_game(
    game_kind: str, trump_preset: str, seat_count: int, starting_points: int,
    rounds_per_match: int,
) -> None:
    """The game and its settings (TRUMP-RULES.md §T1.2, §T1.4, §T1.5)."""
    if game_kind not in GameKind.values:
        raise RoomError(_("Choose a game."), field="game_kind")
    if game_kind != GameKind.TRUMP_DOBON:
        return
    if trump_preset not in TrumpPreset.values:
        raise RoomError(_("Choose a preset."), field="trump_preset")
    low, high = TRUMP_SEATS[trump_preset]
    if not low <= seat_count <= high:
        raise RoomError(
            seat_range_message(trump_preset) + " " + _("Give the room %(low)d to %(high)d seats.")
            % {"low": low, "high": high},
            field="seat_count",
        )
    if not MIN_START_POINTS <= starting_points <= MAX_START_POINTS:
        raise RoomError(_("Starting points are 100 to 100,000."), field="starting_points")
    if not MIN_ROUNDS <= rounds_per_match <= MAX_ROUNDS:
        raise RoomError(_("A match has 1 to 1,000 rounds."), field="rounds_per_match")


def _seat_of(room: Room, user_id: int) -> Membership | None:
    return room.memberships.filter(user_id=user_id).first()


# -- changing ----------------------------------------------------------------------------


def create_room(
    owner: User,
    *,
    name: str,
    seat_count: int = DEFAULT_SEATS,
    timeout_seconds: int = DEFAULT_TIMEOUT,
    is_public: bool = True,
    stamps_enabled: bool = True,
    rated: bool = True,
    game_kind: str = GameKind.DOBON_UNO,
    trump_preset: str = TrumpPreset.AU,
    starting_points: int | None = None,
    rounds_per_match: int | None = None,
) -> Room:
    """Create a room and seat its owner at seat 0 (§R3.2 counts from the owner), within
    the account's limits (`check_room_allowance`)."""
    name = name.strip()
    if not name:
        raise RoomError(_("Give the room a name."), field="name")
    starting_points = starting_points or DEFAULT_START_POINTS
    rounds_per_match = rounds_per_match or DEFAULT_ROUNDS
    _check_settings(seat_count, timeout_seconds)
    _check_game(game_kind, trump_preset, seat_count, starting_points, rounds_per_match)
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=owner.pk).first()  # one at a time
        check_room_allowance(owner)
        room = Room.objects.create(
            name=name,
            owner=owner,
            seat_count=seat_count,
            timeout_seconds=timeout_seconds,
            is_public=is_public,
            stamps_enabled=stamps_enabled,
            rated=rated,
            game_kind=game_kind,
            trump_preset=trump_preset,
            starting_points=starting_points,
            rounds_per_match=rounds_per_match,
        )
        Membership.objects.create(room=room, user=owner, seat_index=0)
    return room


def check_room_allowance(owner: User) -> None:
    """At most DOBON_MAX_ROOMS_PER_USER rooms owned, and DOBON_ROOMS_PER_DAY created in
    24 hours (issue 20: 1,000 public rooms in 19 s filled the lobby's first page)."""
    owned = Room.objects.filter(owner=owner)
    if owned.count() >= settings.DOBON_MAX_ROOMS_PER_USER:
        raise RoomError(
            _("You already own %(count)d rooms, the most an account may own.")
            % {"count": settings.DOBON_MAX_ROOMS_PER_USER}
        )
    since = timezone.now() - timedelta(days=1)
    if owned.filter(created_at__gte=since).count() >= settings.DOBON_ROOMS_PER_DAY:
        raise RoomError(
            _("You have created %(count)d rooms in the last 24 hours: try again tomorrow.")
            % {"count": settings.DOBON_ROOMS_PER_DAY}
        )


def take_seat(room: Room, user: User, seat_index: int | None = None) -> Membership:
    """Sit down on `seat_index` (or the first free seat clockwise when None).

    A member who is already seated moves to the new seat, keeping their place in the
    seniority order; moving is refused while a game runs because the game maps its
    players to room seats. A room without an owner (the owner deleted their account)
    is adopted by whoever sits down.
    """
    with transaction.atomic():
        room = _lock(room)
        taken = dict(room.memberships.values_list("seat_index", "user_id"))
        if seat_index is None:
            if user.pk in taken.values():
                return room.memberships.get(user=user)
            seat_index = _first_free_seat(room, taken)
        elif not 0 <= seat_index < room.seat_count:
            raise RoomError(_("This room has no such seat."))
        if taken.get(seat_index) == user.pk:
            return room.memberships.get(user=user)
        if seat_index in taken:
            raise RoomError(_("Someone already sits on that seat."))
        membership = _sit(room, user, seat_index)
        if room.owner_id is None:
            room.owner = user
        room.save(update_fields=["owner", "updated_at"])
    return membership


def join_room(room: Room, user: User) -> Membership:
    """Take the first free seat clockwise (or keep the seat already held)."""
    return take_seat(room, user, None)


def _first_free_seat(room: Room, taken: dict[int, int]) -> int:
    for index in range(room.seat_count):
        if index not in taken:
            return index
    raise RoomError(_("Every seat in this room is taken."))


def _sit(room: Room, user: User, seat_index: int) -> Membership:
    membership = _seat_of(room, user.pk)
    if membership is not None:
        _check_no_game(room, _("You cannot change seats while a game is running."))
        membership.seat_index = seat_index
        membership.save(update_fields=["seat_index"])
        return membership
    try:
        # A savepoint, so PostgreSQL can go on after a lost race for the seat.
        with transaction.atomic():
            return Membership.objects.create(room=room, user=user, seat_index=seat_index)
    except IntegrityError as exc:
        raise RoomError(_("Someone already sits on that seat.")) from exc


def leave_room(room: Room, user: User) -> Room:
    """Stand up. When the owner leaves, the longest-seated member becomes owner; an
    owner who leaves an otherwise empty room keeps it (rooms persist)."""
    with transaction.atomic():
        room = _lock(room)
        membership = _seat_of(room, user.pk)
        if membership is None:
            raise RoomError(_("You do not sit in this room."))
        # Leaving mid-game is allowed: the game keeps its GamePlayer row and plays the
        # seat by timeouts, so nobody can hold the table hostage by walking away.
        membership.delete()
        if room.owner_id == user.pk:
            _pass_ownership_on(room)
        room.save(update_fields=["owner", "updated_at"])
    return room


def _pass_ownership_on(room: Room) -> None:
    # Only a person can own a room: CPU seats are passed over.
    humans = room.memberships.filter(user__isnull=False)
    successor = humans.order_by("joined_at", "pk").first()
    if successor is not None:
        room.owner_id = successor.user_id


def update_room_settings(
    room: Room,
    by: User,
    *,
    name: str,
    seat_count: int,
    timeout_seconds: int,
    is_public: bool,
    stamps_enabled: bool = True,
    rated: bool | None = None,
    house_rules: Mapping[str, Any] | None = None,
    house_base: str = "",
    game_kind: str | None = None,
    trump_preset: str | None = None,
    starting_points: int | None = None,
    rounds_per_match: int | None = None,
) -> Room:
    """The owner changes the room between games. Seats cannot vanish under people.
    `house_rules` (None: unchanged) take effect from the next game (§G1); a change ends
    the running session (§H14.6). Changing the game, the preset or a trump setting ends
    the running trump match (§T1.1, §T17.5): the next round starts a new one. Omitted game
    settings stay."""
    name = name.strip()
    if not name:
        raise RoomError(_("Give the room a name."), field="name")
    _check_settings(seat_count, timeout_seconds)
    rules = None
    if house_rules is not None:
        try:
            rules = house.check_house_rules(house_rules)
        except house.HouseRulesError as exc:
            raise RoomError(str(exc), field=None) from exc
    with transaction.atomic():
        room = _lock(room)
        check_owner(room, by)
        _check_no_game(room, _("Settings can only change between games."))
        highest = room.memberships.aggregate(highest=Max("seat_index"))["highest"]
        if highest is not None and seat_count <= highest:
            raise RoomError(
                _("Seat %(seat)d is taken: the room needs at least %(count)d seats.")
                % {"seat": highest + 1, "count": highest + 1},
                field="seat_count",
            )
        game = {
            "game_kind": game_kind or room.game_kind,
            "trump_preset": trump_preset or room.trump_preset,
            "starting_points": starting_points or room.starting_points,
            "rounds_per_match": rounds_per_match or room.rounds_per_match,
        }
        _check_game(seat_count=seat_count, **game)
        if any(getattr(room, key) != value for key, value in game.items()):
            room.trump_match = None  # §T1.1: a change ends the running match
        for key, value in game.items():
            setattr(room, key, value)
        turned_private = room.is_public and not is_public
        room.name, room.seat_count = name, seat_count
        room.timeout_seconds, room.is_public = timeout_seconds, is_public
        room.stamps_enabled = stamps_enabled
        if rated is not None:  # docs/ratings.md: the next game is rated or not
            room.rated = rated
        if rules is not None:
            house.do_change_rules(room, rules, house_base)
        room.save()
        if turned_private:
            access.notify_access_changed(room.pk)
        # The open tables learn the new settings (the panel's Game row; a switch of kind or
        # preset also clears the other kind's settlement from the table).
        notify_room_panel_on_commit(room.pk)
    return room


def remove_member(room: Room, by: User, user_id: int) -> Room:
    """The owner unseats someone else; during a game their seat plays on by timeouts.

    The invite code rotates too, so the removed member cannot walk back in with the
    code they saw; their open sockets in the room close."""
    with transaction.atomic():
        room = _lock(room)
        check_owner(room, by)
        if user_id == by.pk:
            raise RoomError(_("To give up your own seat, leave the room."))
        membership = _seat_of(room, user_id)
        if membership is None:
            raise RoomError(_("That person does not sit in this room."))
        membership.delete()
        room.invite_code = new_invite_code()
        room.save(update_fields=["invite_code", "updated_at"])
        access.notify_removed(room.pk, user_id)
        access.notify_access_changed(room.pk)
    return room


def rotate_invite_code(room: Room, by: User) -> Room:
    """The owner replaces the invite code: old links and codes stop working, and
    sessions that came in through them no longer see a private room."""
    with transaction.atomic():
        room = _lock(room)
        check_owner(room, by)
        room.invite_code = new_invite_code()
        room.save(update_fields=["invite_code", "updated_at"])
        access.notify_access_changed(room.pk)
    return room


def transfer_ownership(room: Room, by: User, user_id: int) -> Room:
    """The owner hands the room to a seated member."""
    with transaction.atomic():
        room = _lock(room)
        check_owner(room, by)
        if user_id == by.pk:
            raise RoomError(_("You already own this room."))
        if _seat_of(room, user_id) is None:
            raise RoomError(_("Only someone seated in the room can become its owner."))
        room.owner_id = user_id
        room.save(update_fields=["owner", "updated_at"])
    return room


# -- CPU players ---------------------------------------------------------------------------


def check_cpu_level(level: str) -> CpuLevel:
    if level not in CpuLevel.values:
        raise RoomError(_("Choose a CPU level: easy, normal or strong."), field="level")
    return CpuLevel(level)


def check_can_change_cpu(room: Room, by: AbstractBaseUser | AnonymousUser) -> None:
    """The owner seats and unseats CPU players, between games only (a running game maps
    its players to room seats)."""
    check_owner(room, by)
    _check_no_game(room, _("CPU players can only join or leave between games."))


def add_cpu(
    room: Room, by: AbstractBaseUser | AnonymousUser, seat_index: int, level: str
) -> Membership:
    """The owner puts a CPU player of `level` on the free seat `seat_index`."""
    level = check_cpu_level(level)
    with transaction.atomic():
        room = _lock(room)
        check_can_change_cpu(room, by)
        if not 0 <= seat_index < room.seat_count:
            raise RoomError(_("This room has no such seat."))
        membership = do_seat_cpu(room, seat_index, level)
        room.save(update_fields=["updated_at"])  # _lock pushes the new panel on commit
    return membership


def do_seat_cpu(room: Room, seat_index: int, level: str) -> Membership:
    """Under the room lock: a CPU membership on a seat that must be free."""
    try:
        with transaction.atomic():  # a savepoint: a lost race for the seat is not fatal
            return Membership.objects.create(room=room, cpu_level=level, seat_index=seat_index)
    except IntegrityError as exc:
        raise RoomError(_("Someone already sits on that seat.")) from exc


def remove_cpu(room: Room, by: AbstractBaseUser | AnonymousUser, seat_index: int) -> Room:
    """The owner takes the CPU player off `seat_index`."""
    with transaction.atomic():
        room = _lock(room)
        check_can_change_cpu(room, by)
        cpu = room.memberships.filter(seat_index=seat_index, cpu_level__isnull=False).first()
        if cpu is None:
            raise RoomError(_("No CPU player sits on that seat."))
        cpu.delete()
        room.save(update_fields=["updated_at"])  # _lock pushes the new panel on commit
    return room



def reset_deck_out_streak(room: Room) -> Room:
    """Back to rate ×1 (§R12.3): an admin's repair when a room's counter went wrong."""
    with transaction.atomic():
        room = _lock(room)
        room.deck_out_streak = 0
        room.save(update_fields=["deck_out_streak", "updated_at"])
    return room
