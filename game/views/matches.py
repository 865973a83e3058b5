"""Matches over HTTP: the owner starts or stops one (POST, CSRF); whoever may read its
games (game/services/history.py, one rule with the game pages) reads its page and
downloads every game's log as one JSON file, streamed and limited per user."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.handlers.asgi import ASGIRequest
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from game.history import selectors
from game.models import Game, Membership
from game.models.matches import Match
from game.services import matches, rooms
from game.services.history import can_read_match, games_read_by, reads_whole_room
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
    """The match, or a 404 that does not tell outsiders a private room exists. Read by
    whoever may read one of its games (an invite shows the live table, not history)."""
    match = get_object_or_404(Match.objects.select_related("room", "room__owner"), pk=match_id)
    if not can_read_match(match, request.user):
        raise Http404
    return match


def _readable(match: Match, user: Any) -> Q | None:
    """None when `user` reads every game of the match, else the filter of theirs."""
    return None if reads_whole_room(match.room, user) else games_read_by(match.room, user)


# The whole page lists the match's latest games only: its rendering would otherwise grow
# with the match (1,000 rows); every game is in the log and on the room's history.
PAGE_GAMES = 100


def _first_shown(match: Match) -> int | None:
    """The number of the game before the last PAGE_GAMES of the match (None: all shown)."""
    older = match.games.order_by("-number").values_list("number", flat=True)
    before = list(older[PAGE_GAMES:PAGE_GAMES + 1])
    return before[0] if before else None


def _after(request: HttpRequest) -> int | None:
    try:
        return max(0, int(request.GET.get("after", "")))
    except ValueError:
        return None


@login_required
def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    """The match page; `?part=live` answers only the parts that change while it runs
    (static/js/match_live.js fetches them every few seconds), and with `after=<game
    number>` only the games after the last one the page has: a poll costs the same on
    the 1,000th game as on the first."""
    match = _visible_match(request, match_id)
    readable = _readable(match, request.user)
    live = request.GET.get("part") == "live"
    after = _after(request) if live else _first_shown(match)
    context = {
        "match": match,
        "room": match.room,
        # The totals count every game: a past member sees only their own games.
        "standings": matches.standings(match) if readable is None else [],
        "whole_match": readable is None,
        "results": matches.game_results(match, after, readable),
        "after": after,
        "partial": live and after is not None,
        "older_hidden": not live and after is not None,
        "page_games": PAGE_GAMES,
        "is_owner": match.room.owner_id == request.user.pk,
        "my_seat": _my_seat(match, request.user),
        "percent": int(100 * match.games_finished / match.games_total),
    }
    if live:
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
def match_log(request: HttpRequest, match_id: int) -> HttpResponse:
    """Every game of the match in history's game-log format (docs/game-log.md), in one
    JSON document, streamed a batch of games at a time by an asynchronous iterator (a
    synchronous one is read whole into memory under ASGI), at most one download per user
    every DOBON_MATCH_LOG_SECONDS (429 otherwise)."""
    match = _visible_match(request, match_id)
    if not cache.add(f"match-log:{request.user.pk}", 1, settings.DOBON_MATCH_LOG_SECONDS):
        response = HttpResponse(
            _("You downloaded a match log a moment ago: try again in %(seconds)d seconds.")
            % {"seconds": settings.DOBON_MATCH_LOG_SECONDS},
            status=429, content_type="text/plain; charset=utf-8",
        )
        response["Retry-After"] = str(settings.DOBON_MATCH_LOG_SECONDS)
        return response
    readable = _readable(match, request.user)
    # Each server its own kind of iterator: daphne (ASGI) reads a synchronous one whole
    # into memory before sending a byte; a WSGI server (and the test client) streams it.
    chunks = (_log_chunks(match, readable) if isinstance(request, ASGIRequest)
              else _log_chunks_sync(match, readable))
    response = StreamingHttpResponse(chunks, content_type="application/json")
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


# Games per database round (their players and events in two queries). Memory follows it:
# 25 games of ~490 events peaked at 25.5 MiB per request (docs/performance.md); 5 keep a
# request to a few MiB for 400 queries per 1,000 games.
LOG_BATCH = 5


async def _log_chunks(match: Match, readable: Q | None) -> AsyncIterator[str]:
    """The document a batch of games at a time; each batch is read on the database thread
    and the event loop sends it before the next is read."""
    yield await sync_to_async(_log_head)(match, readable)
    after, position, separator = 0, 0, ""
    while True:
        text, after, position = await sync_to_async(_log_batch)(
            match, readable, after, position, separator)
        if after == 0:
            break
        if text:
            yield text
            separator = ","
    yield "]}"


def _log_chunks_sync(match: Match, readable: Q | None) -> Iterator[str]:
    yield _log_head(match, readable)
    after, position, separator = 0, 0, ""
    while True:
        text, after, position = _log_batch(match, readable, after, position, separator)
        if after == 0:
            break
        if text:
            yield text
            separator = ","
    yield "]}"


def _log_head(match: Match, readable: Q | None) -> str:
    standings = [line.to_dict() for line in matches.standings(match)] if readable is None else []
    head = {"format": MATCH_LOG_FORMAT, "match": match_header(match), "standings": standings}
    return json.dumps(head, ensure_ascii=False)[:-1] + ', "games": ['


def _log_batch(match: Match, readable: Q | None, after: int, position: int,
               separator: str) -> tuple[str, int, int]:
    """The games after number `after` (LOG_BATCH of them) as JSON text, the last number
    read (0: none left) and the match position reached. Games the reader may not read
    keep their place in the numbering but are left out."""
    games = list(match.games.select_related("room").exclude(status=Game.Status.RUNNING)
                 .filter(number__gt=after).order_by("number")[:LOG_BATCH])
    if not games:
        return "", 0, position
    ids = [g.pk for g in games]
    allowed = set(ids if readable is None else
                  match.games.filter(readable, pk__in=ids).values_list("pk", flat=True))
    players = selectors.players_of(ids)
    events = selectors.events_of([pk for pk in ids if pk in allowed])
    parts = []
    for game in games:
        position += 1
        if game.pk not in allowed:
            continue
        log = game_log(game, players.get(game.pk, []), events.get(game.pk, []))
        # The game's place in the match (1…N) beside its number in the room's history.
        log["match_game"] = position
        parts.append(json.dumps(log, ensure_ascii=False))
    text = (separator + ",".join(parts)) if parts else ""
    return text, games[-1].number, position

