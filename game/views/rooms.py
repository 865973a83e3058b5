"""Lobby and room pages: each view checks who may see what, calls one service from
game.services.rooms and renders or redirects with a message."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from accounts.throttle import client_ip
from game import house_text
from game.forms import HouseRulesForm, JoinCodeForm, RoomForm, SeatForm
from game.history import ratings
from game.models import DEFAULT_ROUNDS, CpuLevel, Membership, Room
from game.services import engines, invite_guesses, rooms
from game.services import house as house_service
from game.services.rooms import RoomError

PUBLIC_ROOMS_PER_PAGE = 20


@dataclass(frozen=True)
class Seat:
    index: int
    membership: Membership | None

    @property
    def number(self) -> int:
        """Seats are 0-based in the rules (§R1.1) and 1-based on screen."""
        return self.index + 1


def _visible_room(request: HttpRequest, room_id: int) -> Room:
    """The room, or a 404 that does not tell outsiders a private room exists."""
    room = get_object_or_404(Room.objects.select_related("owner"), pk=room_id)
    if not rooms.can_view_room(room, request.user, rooms.invited_room_ids(request.session)):
        raise Http404
    return room


def _owned_room(request: HttpRequest, room_id: int) -> Room:
    room = _visible_room(request, room_id)
    rooms.check_owner(room, request.user)
    return room


def _start_url(room: Room) -> str:
    # Starting a game belongs to the live-play layer; without its URL the page simply
    # shows no start button.
    try:
        return reverse("game:start", args=[room.pk])
    except NoReverseMatch:
        return ""


def _member(room: Room, user_id: int) -> Membership | None:
    return room.memberships.select_related("user").filter(user_id=user_id).first()


@never_cache  # Back from a game must show it running: no copy kept (static/js/fresh.js)
def lobby(request: HttpRequest) -> HttpResponse:
    """The lobby for signed-in people; a landing page that explains the game otherwise."""
    if not request.user.is_authenticated:
        return render(request, "game/landing.html")
    mine = rooms.rooms_of(request.user)
    others = rooms.public_rooms().exclude(pk__in=mine.values("pk"))
    page = Paginator(
        rooms.with_occupancy(others).order_by("-updated_at", "-pk"), PUBLIC_ROOMS_PER_PAGE
    ).get_page(request.GET.get("page"))
    context = {
        "my_rooms": rooms.with_occupancy(mine).order_by("-updated_at", "-pk"),
        "public_page": page,
        "join_form": JoinCodeForm(),
        "cpu_levels": CpuLevel.choices,
        "standard_rounds": DEFAULT_ROUNDS,  # a play-now standard game is a match this long
        "my_ratings": ratings.lines_of(request.user),  # docs/ratings.md
    }
    return render(request, "game/lobby.html", context)


@login_required
def create_room(request: HttpRequest) -> HttpResponse:
    form = RoomForm.for_new(request.user.get_username(), request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            room = rooms.create_room(request.user, **form.cleaned_data)
        except RoomError as exc:
            form.add_error(exc.field, exc.message)
        else:
            messages.success(request, _("Room “%(name)s” is ready.") % {"name": room.name})
            return redirect(room)
    return render(request, "game/room_form.html", {"form": form})


def trump_match_lines(room: Room, by_seat: dict[int, Any]) -> dict[str, Any] | None:
    """The room's trump match (§T17) as the room page shows it: round, over, and each
    seat's total and place, best first."""
    info = engines.of(room).match_info(room)
    if info is None:
        return None
    room_seats = info["room_seats"]
    places = dict((seat, place) for seat, place in info["standing"])
    lines = []
    for seat, total in enumerate(info["totals"]):
        member = by_seat.get(room_seats[seat]) if seat < len(room_seats) else None
        name = member.display_name if member is not None else "—"
        lines.append({"name": name, "total": total, "place": places.get(seat),
                      "wins": info["wins"][seat]})
    lines.sort(key=lambda line: (line["place"] or 99, line["name"]))
    return {"round": info["round"], "over": info["over"], "lines": lines,
            "number": info["number"], "preset": info["preset"], "settings": info["settings"]}


# Session key: the match form's entries and its error, from a refused start to the room page.
MATCH_FORM = "match_form"


@login_required
def room_detail(request: HttpRequest, room_id: int) -> HttpResponse:
    room = _visible_room(request, room_id)
    members = list(room.memberships.select_related("user").order_by("seat_index"))
    by_seat = {m.seat_index: m for m in members}
    mine = next((m for m in members if m.user_id == request.user.pk), None)
    is_owner = room.owner_id == request.user.pk
    running_game = room.running_game()
    invite_url = reverse("game:join", args=[room.invite_code])
    context = {
        "room": room,
        "trump_match": trump_match_lines(room, by_seat),
        "seats": [Seat(i, by_seat.get(i)) for i in range(room.seat_count)],
        "members": members,
        "my_membership": mine,
        "is_owner": is_owner,
        "has_free_seat": len(members) < room.seat_count,
        "running_game": running_game,
        # A room with free seats and no game on: inviting is what the owner needs next.
        "invite_first": len(members) < room.seat_count and running_game is None,
        "invite_url": request.build_absolute_uri(invite_url) if mine or is_owner else "",
        "start_url": _start_url(room) if is_owner and running_game is None else "",
        # The table's "next game" button posts here after a game ends, without a reload.
        "owner_start_url": _start_url(room) if is_owner else "",
        "can_change_cpu": is_owner and running_game is None,
        "cpu_levels": CpuLevel.choices,
        "ws_url": f"/ws/rooms/{room.pk}/",
        # A refused match start comes back here with what was entered and why.
        "match_form": request.session.pop(MATCH_FORM, None),
        "session": house_service.session_info(room),  # §H14
    }
    return render(request, "game/room.html", context)


@login_required
@require_POST
def take_seat(request: HttpRequest, room_id: int) -> HttpResponse:
    room = _visible_room(request, room_id)
    form = SeatForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("This room has no such seat."))
        return redirect(room)
    try:
        membership = rooms.take_seat(room, request.user, form.cleaned_data["seat_index"])
    except RoomError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request, _("You sit on seat %(number)d.") % {"number": membership.seat_index + 1}
        )
    return redirect(room)


_MID_GAME_NOTE = gettext_lazy(
    "A game is running: the seat stays in it and plays on by timeouts until it ends."
)


def _leave_note(room: Room, user_id: int) -> str:
    notes = []
    if rooms.has_running_game(room):
        notes.append(str(_MID_GAME_NOTE))
    if room.owner_id == user_id:
        others = room.memberships.filter(user__isnull=False).exclude(user_id=user_id)
        notes.append(str(
            _("You are the owner: the member seated longest becomes the new owner.")
            if others.exists() else
            _("You are the owner and nobody else sits here: you stay the owner.")
        ))
    return " ".join(notes)


@login_required
def leave_room(request: HttpRequest, room_id: int) -> HttpResponse:
    room = _visible_room(request, room_id)
    if request.method == "POST":
        try:
            rooms.leave_room(room, request.user)
        except RoomError as exc:
            messages.error(request, exc.message)
            return redirect(room)
        messages.success(request, _("You left “%(name)s”.") % {"name": room.name})
        return redirect("game:lobby")
    if _member(room, request.user.pk) is None:
        messages.error(request, _("You do not sit in this room."))
        return redirect(room)
    return _confirm(
        request,
        room,
        title=_("Leave the room?"),
        question=_("You give up your seat in “%(name)s”.") % {"name": room.name},
        note=_leave_note(room, request.user.pk),
        action=reverse("game:leave_room", args=[room.pk]),
        button=_("Leave"),
    )


@login_required
def room_settings(request: HttpRequest, room_id: int) -> HttpResponse:
    room = _owned_room(request, room_id)
    form = RoomForm.for_room(room, request.POST or None)
    house_form = HouseRulesForm.for_room(room, request.POST or None)
    # A post without the house-rule fields (an older page) leaves the rules as they are.
    with_house = request.method != "POST" or "house-preset" in request.POST
    if request.method == "POST" and form.is_valid() and (not with_house or house_form.is_valid()):
        house = house_form.cleaned_data if with_house else {}
        try:
            rooms.update_room_settings(
                room, request.user, **form.cleaned_data,
                house_rules=house.get("rules"), house_base=house.get("base") or "",
            )
        except RoomError as exc:
            form.add_error(exc.field, exc.message)
        else:
            messages.success(request, _("The room's settings are saved."))
            return redirect(room)
    context = {
        "room": room, "form": form, "house_form": house_form,
        "presets": HouseRulesForm.presets_json(),
        "game_on": rooms.has_running_game(room),
        "house": house_text.summarize(room.house_rules, room.house_base),
    }
    return render(request, "game/room_settings.html", context)


def _change_member(request: HttpRequest, room: Room, user_id: int, member: Membership | None,
                   change: Callable[[Room, Any, int], Room], *, done: str) -> HttpResponse:
    """The owner's post that removes a member or hands the room over: the service refuses
    what may not be done (its message is shown), else ``done`` names the member."""
    try:
        change(room, request.user, user_id)
    except RoomError as exc:
        messages.error(request, exc.message)
    else:
        name = member.user.username if member else ""
        messages.success(request, done % {"name": name})
    return redirect(room)


@login_required
def remove_member(request: HttpRequest, room_id: int, user_id: int) -> HttpResponse:
    room = _owned_room(request, room_id)
    member = _member(room, user_id)
    if request.method == "POST":
        return _change_member(request, room, user_id, member, rooms.remove_member,
                              done=_("%(name)s no longer sits here."))
    if member is None or user_id == request.user.pk:
        messages.error(request, _("That person does not sit in this room."))
        return redirect(room)
    return _confirm(
        request,
        room,
        title=_("Remove a member?"),
        question=_("%(name)s loses their seat in “%(room)s”.")
        % {"name": member.user.username, "room": room.name},
        note=_MID_GAME_NOTE if rooms.has_running_game(room) else "",
        action=reverse("game:remove_member", args=[room.pk, user_id]),
        button=_("Remove"),
    )


@login_required
def transfer_ownership(request: HttpRequest, room_id: int, user_id: int) -> HttpResponse:
    room = _owned_room(request, room_id)
    member = _member(room, user_id)
    if request.method == "POST":
        return _change_member(request, room, user_id, member, rooms.transfer_ownership,
                              done=_("%(name)s now owns this room."))
    if member is None or user_id == request.user.pk:
        messages.error(request, _("Only someone seated in the room can become its owner."))
        return redirect(room)
    return _confirm(
        request,
        room,
        title=_("Hand over the room?"),
        question=_("%(name)s becomes the owner of “%(room)s”.")
        % {"name": member.user.username, "room": room.name},
        note=_("You keep your seat but can no longer change the settings."),
        action=reverse("game:transfer_ownership", args=[room.pk, user_id]),
        button=_("Hand over"),
    )


def _confirm(
    request: HttpRequest,
    room: Room,
    *,
    title: str,
    question: str,
    note: str,
    action: str,
    button: str,
) -> HttpResponse:
    context = {
        "room": room,
        "title": title,
        "question": question,
        "note": note,
        "action": action,
        "button": button,
    }
    return render(request, "game/confirm.html", context)


@login_required
@require_POST
def rotate_invite(request: HttpRequest, room_id: int) -> HttpResponse:
    """The owner replaces the invite code; the old link and code stop working."""
    room = _owned_room(request, room_id)
    rooms.rotate_invite_code(room, request.user)
    messages.success(
        request, _("The invite link is new: the old link and code no longer work.")
    )
    return redirect(f"{room.get_absolute_url()}#invite")


def _guessing_limited(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Over its invite guesses (game/services/invite_guesses.py), this address or account
    gets 429 and when to try again, whatever the code: a right guess must not stand out."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        wait = invite_guesses.wait_seconds(client_ip(request), request.user.pk)
        if wait is None:
            return view(request, *args, **kwargs)
        response = render(request, "game/too_many_guesses.html",
                          {"minutes": max(1, (wait + 59) // 60)}, status=429)
        response["Retry-After"] = str(wait)
        return response

    return wrapper


def _wrong_guess(request: HttpRequest) -> None:
    invite_guesses.note_wrong_guess(client_ip(request), request.user.pk)


@login_required
@_guessing_limited
def join_by_code(request: HttpRequest) -> HttpResponse:
    form = JoinCodeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        return redirect("game:join", code=form.cleaned_data["code"])
    if request.method == "POST" and "code" in form.errors:
        _wrong_guess(request)
    return render(request, "game/join.html", {"form": form})


@login_required
@_guessing_limited
def join_by_invite(request: HttpRequest, code: str) -> HttpResponse:
    """An invite lets this session see the room, private or not; taking a seat is a
    separate, deliberate POST on the room page (a GET never seats anyone). A code the
    owner replaced says so (404, like a code that never existed)."""
    room = rooms.room_for_code(code)
    if room is None:
        _wrong_guess(request)
        return render(
            request, "game/join.html", {"form": JoinCodeForm(), "invite_invalid": True}, status=404
        )
    rooms.remember_invite(request.session, room)
    if _member(room, request.user.pk) is None:
        messages.info(request, _invite_note(room))
    return redirect(room)


def _invite_note(room: Room) -> str:
    """What an invited person who does not sit there yet is told: pick a seat, or, in a
    full room, that they may watch (and sit when a seat frees up)."""
    if room.memberships.count() < room.seat_count:
        return _("You are invited to “%(name)s”. Pick a free seat to join.") % {"name": room.name}
    return _(
        "“%(name)s” is full: every seat is taken. You can watch the game here, and take a "
        "seat when one becomes free."
    ) % {"name": room.name}


def how_to_play(request: HttpRequest) -> HttpResponse:
    """The rules as a player needs them (RULES.md), in the page's language."""
    return render(request, "game/how_to_play.html")
