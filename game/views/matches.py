"""Matches over HTTP: the owner starts or stops one (POST, CSRF), anyone who may see the
room reads its page, and downloads every game's log as one JSON file."""

from __future__ import annotations

import json
from collections.abc import Iterator

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from game.history import selectors
from game.models import Game, Membership
from game.models.matches import Match
from game.services import matches, rooms
from game.views.history import game_log
from game.views.rooms import MATCH_FORM, _owned_room

MATCH_LOG_FORMAT = "dobon-match-log/1"


@login_required
@require_POST
def start_match(request: HttpRequest, room_id: int) -> HttpResponse:
    room = _owned_room(request, room_id)
    try:
        match = matches.start_match(
            room, request.user, request.POST.get("games"),  # type: ignore[arg-type]
            request.POST.get("program_timeout"), request.POST.get("cpu_level"),
        )
    except matches.MatchError as exc:
        # Shown beside the form, with the entries kept (a toast far above was missed).
        request.session[MATCH_FORM] = {
            "error": str(exc),
            **{name: request.POST.get(name, "")[:10]
               for name in ("games", "program_timeout", "cpu_level")},
        }
        return redirect(f"{room.get_absolute_url()}#match-panel")
    return redirect(match)


@login_required
@require_http_methods(["GET", "POST"])
def stop_match(request: HttpRequest, match_id: int) -> HttpResponse:
    """GET asks (one tap must not end a 1,000-game match), POST stops."""
    match = _visible_match(request, match_id)
    rooms.check_owner(match.room, request.user)  # PermissionDenied (403) unless the owner
    if not match.is_running:
        messages.info(request, _("This match is already over."))
        return redirect(match)
    if request.method == "POST":
        match = matches.stop_match(match, request.user)  # type: ignore[arg-type]
        messages.success(request, _("The match is stopped after %(done)d of %(total)d games.")
                         % {"done": match.games_finished, "total": match.games_total})
        return redirect(match)
    return _confirm_stop(request, match)


def _confirm_stop(request: HttpRequest, match: Match) -> HttpResponse:
    context = {
        "room": match.room,
        "title": _("Stop the match?"),
        "question": _("%(done)d of %(total)d games are finished. The running game is "
                      "aborted and no further game starts.")
        % {"done": match.games_finished, "total": match.games_total},
        "note": _("Finished games and the standings are kept."),
        "action": reverse("game:stop_match", args=[match.pk]),
        "button": _("Stop the match"),
        "cancel_url": match.get_absolute_url(),
    }
    return render(request, "game/confirm.html", context)


def _visible_match(request: HttpRequest, match_id: int) -> Match:
    """The match, or a 404 that does not tell outsiders a private room exists."""
    match = get_object_or_404(Match.objects.select_related("room", "room__owner"), pk=match_id)
    invited = rooms.invited_room_ids(request.session)
    if not rooms.can_view_room(match.room, request.user, invited):
        raise Http404
    return match


@login_required
def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    """The match page; `?part=live` answers only the parts that change while it runs
    (static/js/match_live.js fetches them every few seconds)."""
    match = _visible_match(request, match_id)
    context = {
        "match": match,
        "room": match.room,
        "standings": matches.standings(match),
        "results": matches.game_results(match),
        "is_owner": match.room.owner_id == request.user.pk,
        "my_seat": _my_seat(match, request.user),
        "percent": int(100 * match.games_finished / match.games_total),
    }
    if request.GET.get("part") == "live":
        return render(request, "game/_match_live.html", context)
    return render(request, "game/match.html", context)


def _my_seat(match: Match, user: object) -> Membership | None:
    """The viewer's own seat in the match's room while it runs: their seat plays every
    game, by their hand, their program, or else by timeouts."""
    if not match.is_running:
        return None
    return Membership.objects.filter(room_id=match.room_id, user_id=getattr(user, "pk", None)
                                     ).first()


@login_required
def match_log(request: HttpRequest, match_id: int) -> StreamingHttpResponse:
    """Every game of the match in history's game-log format (docs/game-log.md), in one
    JSON document, streamed game by game so a 1,000-game match is not built in memory."""
    match = _visible_match(request, match_id)
    response = StreamingHttpResponse(_log_chunks(match), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="match-{match.pk}.json"'
    return response


def match_header(match: Match) -> dict[str, object]:
    return {
        "id": match.pk,
        "room": {"id": match.room_id, "name": match.room.name},
        "status": match.status,
        "games_total": match.games_total,
        "games_finished": match.games_finished,
        "program_timeout": match.program_timeout,
        "started_at": match.created_at.isoformat(),
        "finished_at": match.finished_at.isoformat() if match.finished_at else None,
    }


def _log_chunks(match: Match) -> Iterator[str]:
    standings = [line.to_dict() for line in matches.standings(match)]
    head = {"format": MATCH_LOG_FORMAT, "match": match_header(match), "standings": standings}
    yield json.dumps(head, ensure_ascii=False)[:-1] + ', "games": ['
    games = match.games.select_related("room").exclude(status=Game.Status.RUNNING)
    separator = ""
    games_in_order = games.order_by("number").iterator(chunk_size=50)  # over games only
    for position, game in enumerate(games_in_order, start=1):
        log = game_log(game, list(game.players.all()), selectors.game_events(game))
        # The game's place in the match (1…N) beside its number in the room's history.
        log["match_game"] = position
        yield separator + json.dumps(log, ensure_ascii=False)
        separator = ","
    yield "]}"

