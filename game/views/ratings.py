"""The rating pages (docs/ratings.md): a leaderboard per game and track, and its JSON
for programs and checks. Signed-in readers, as the points leaderboard."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone

from game.history import ratings
from game.ratings.scale import PROVISIONAL_GAMES


@login_required
def rating_board(request: HttpRequest) -> HttpResponse:
    try:
        game, track = ratings.board_of(request.GET.get("game"), request.GET.get("track"))
    except ValueError:
        game, track = "dobon_uno", "people"
    context = {
        **ratings.leaderboard(game, track, request.user, timezone.now()),
        "game": game, "track": track, "games": ratings.game_names(),
        "tracks": ratings.track_names(), "min_games": PROVISIONAL_GAMES,
        "days": ratings.ACTIVE_DAYS, "leaders": ratings.LEADERS,
    }
    return render(request, "game/history/ratings.html", context)


@login_required
def leaderboard_json(request: HttpRequest) -> HttpResponse:
    """`/leaderboard.json?game=…&track=…`: every rated player of that game and track."""
    try:
        game, track = ratings.board_of(request.GET.get("game"), request.GET.get("track"))
    except ValueError as exc:
        return JsonResponse({"error": "bad_board", "message": str(exc)}, status=400)
    return JsonResponse(ratings.leaderboard_json(game, track),
                        json_dumps_params={"ensure_ascii": False})
