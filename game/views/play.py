"""HTTP side of live play: the owner starts the next game from the room page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from game.models import Room
from game.services import play, rooms


@login_required
@require_POST
def start_game(request: HttpRequest, room_id: int) -> HttpResponse:
    """POST only; anyone but the owner gets 403 (NotRoomOwner is a PermissionDenied)."""
    room = get_object_or_404(Room, pk=room_id)
    if not rooms.can_view_room(room, request.user, rooms.invited_room_ids(request.session)):
        raise Http404  # do not tell outsiders that a private room exists
    try:
        game = play.start_game(room, request.user)
    except play.NotRoomOwner:
        raise
    except play.PlayError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Game %(number)d has started.") % {"number": game.number})
    return redirect("game:room", room_id=room.pk)
