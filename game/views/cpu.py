"""HTTP side of CPU players: the owner seats and unseats them between games, and the
lobby's "play now against CPU" button. POST only (CSRF-checked); each view calls one
service and redirects with a message."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from game.forms import CpuSeatForm, SoloGameForm
from game.models import CpuLevel, Game, GameKind, TrumpPreset, cpu_display_name
from game.services import cpu, play, rooms
from game.services.rooms import RoomError
from game.views.rooms import _owned_room

if TYPE_CHECKING:
    from accounts.models import User


@login_required
@require_POST
def add_cpu(request: HttpRequest, room_id: int) -> HttpResponse:
    """The owner puts a CPU player on a free seat (403 for anyone else)."""
    room = _owned_room(request, room_id)
    form = CpuSeatForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose a free seat and a CPU level: easy, normal or strong."))
        return redirect(room)
    index, level = form.cleaned_data["seat_index"], form.cleaned_data["level"]
    try:
        rooms.add_cpu(room, request.user, index, level)
    except RoomError as exc:
        messages.error(request, exc.message)
    else:
        name = cpu_display_name(level, index)
        messages.success(request, _("%(name)s sits on seat %(number)d.")
                         % {"name": name, "number": index + 1})
    return redirect(room)


@login_required
@require_POST
def remove_cpu(request: HttpRequest, room_id: int, seat_index: int) -> HttpResponse:
    """The owner takes a CPU player off its seat (403 for anyone else)."""
    room = _owned_room(request, room_id)
    try:
        rooms.remove_cpu(room, request.user, seat_index)
    except RoomError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Seat %(number)d is free.") % {"number": seat_index + 1})
    return redirect(room)


@login_required
@require_POST
def play_against_cpu(request: HttpRequest) -> HttpResponse:
    """One click from the lobby: a private room with three CPU players, game started."""
    form = SoloGameForm(request.POST)
    level = form.cleaned_data["level"] if form.is_valid() else None
    if level is None:
        messages.error(request, _("Choose a CPU level: easy, normal or strong."))
        return redirect("game:lobby")
    try:
        person = cast("User", request.user)  # login_required: a signed-in user
        game_kind, preset = form.cleaned_data["game"]
        game = cpu.start_game_against_cpus(person, level, game_kind=game_kind,
                                           trump_preset=preset)
    except (RoomError, play.PlayError) as exc:
        messages.error(request, exc.message)
        return redirect("game:lobby")
    messages.success(request, _started_note(game, CpuLevel(level).label))
    return redirect("game:room", room_id=game.room_id)


def _started_note(game: Game, level: str) -> str:
    """What the player is told as the table opens; a standard game says it is the first
    round of a match (§T17: the lowest total after the room's rounds wins)."""
    if game.game_kind == GameKind.TRUMP_DOBON and game.preset == TrumpPreset.STANDARD:
        return _(
            "A %(rounds)d-round match of trump Dobon (standard) against %(level)s CPU players "
            "has started: the lowest total after %(rounds)d rounds wins."
        ) % {"rounds": game.room.rounds_per_match, "level": level}
    return _("A game against %(level)s CPU players has started.") % {"level": level}
