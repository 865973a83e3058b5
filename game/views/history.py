"""Match-history pages: a room's games, one game (settlement, timeline, replay), its
JSON log, and the leaderboard. Each view checks who may read, asks game.history.selectors and
renders. A running game is never shown here: only games that are over exist for these
pages (the live table is the running game's only view)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils.timezone import localtime
from django.utils.translation import gettext as _

from game import house_text
from game.history import present, ratings, selectors
from game.history.replay import Frame, ReplayError, rebuild, rules_of
from game.models import Game, GameEvent, Room
from game.services import panel
from game.services.history import (
    can_read_game,
    can_read_history,
    games_read_by,
    is_cpu_seat,
    kind_key,
    kind_label,
    reads_whole_room,
    standing_kind,
)
from game.templatetags.history import signed

LOG_FORMAT = "dobon-game-log/1"


class _LoginFirst(Exception):
    """An anonymous visitor asked for something a signed-in person could read."""


def _check_readable(request: HttpRequest, room: Room, readable: bool | None = None) -> None:
    """404 for a private room the user may not read, whoever asks (anonymous visitors
    included), so nobody learns that it exists; the login page for anonymous visitors
    of a public room, as everywhere else on the site. `readable` is the answer of a
    narrower rule (one game) when there is one."""
    if readable is None:
        readable = can_read_history(room, request.user)
    if readable:
        return
    if not request.user.is_authenticated and room.is_public:
        raise _LoginFirst
    raise Http404


def _guarded(view: Any) -> Any:
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            response: HttpResponse = view(request, *args, **kwargs)
        except _LoginFirst:
            return redirect_to_login(request.get_full_path())
        return response

    wrapper.__name__ = view.__name__
    wrapper.__doc__ = view.__doc__
    return wrapper


# -- a room's history -----------------------------------------------------------------------


@_guarded
def room_history(request: HttpRequest, room_id: int) -> HttpResponse:
    room = get_object_or_404(Room, pk=room_id)
    _check_readable(request, room)
    # A past member lists the games they played in; the room's totals are not theirs.
    whole = reads_whole_room(room, request.user)
    page = selectors.room_history_page(room, request.GET.get("page"),
                                       games_read_by(room, request.user))
    rows = [_history_row(game) for game in page.object_list]
    context = {
        "room": room,
        "page": page,
        "rows": rows,
        "winner_label": _("winner"),
        "whole_room": whole,
        "standings": selectors.standings(room) if whole else [],
        "sessions": selectors.ended_sessions(room) if whole else [],
        "matrices": selectors.dobon_matrices(room) if whole else [],
    }
    return render(request, "game/history/room_history.html", context)


def _history_row(game: Game) -> dict[str, Any]:
    """One line of the list, with its strings made here: a page of 25 games renders a
    hundred seats, and each template lookup costs more than these few Python calls."""
    players = list(game.players.all())
    names = present.names_of(players)
    started = localtime(game.started_at)
    return {
        "number": game.number,
        "url": game.get_absolute_url(),
        "rate": game.rate,
        "rated": game.rated,  # #34: an unrated game says so in the list
        "started_iso": started.isoformat(),
        "started": started.strftime("%Y-%m-%d %H:%M"),
        "kind": present.result_kind(game),
        "label": present.result_label(game),
        "winners": ", ".join(present.winners_of(game, names)),
        "seats": [_seat_line(p) for p in players],
        "rules": house_text.summarize(getattr(game, "house_rules", None)),  # §G10, D4
        "game": _game_kind(game),
    }


def _game_kind(game: Game) -> dict[str, str]:
    """Which game and preset the row played (a room may switch between games)."""
    kind = standing_kind(game.game_kind, game.preset)
    return {"key": kind_key(kind), "label": kind_label(kind)}


def _seat_line(player: Any) -> tuple[str, bool, str, str, str]:
    delta = player.delta
    css = "plus" if delta and delta > 0 else ("minus" if delta and delta < 0 else "")
    return player.display_name, is_cpu_seat(player), signed(delta), css, _rating_after(player)


def _rating_after(player: Any) -> str:
    """The seat's rating after the game ("1820 初段", "?"), "" if unrated or a CPU."""
    change = ratings.seat_change(player)
    if change is None or change["cpu"]:
        return ""
    after = change["after"]
    return f"{after.text} {after.label}".strip()


# -- one game -------------------------------------------------------------------------------


def _readable_game(request: HttpRequest, game_id: int) -> Game:
    game = selectors.visible_game(game_id)
    if game is None:
        raise Http404
    _check_readable(request, game.room, can_read_game(game, request.user))
    return game


def _frames(game: Game, events: list[GameEvent]) -> list[Frame] | None:
    if not game.initial_state:
        return None
    try:
        return rebuild(game.initial_state, selectors.versions_of(events), keep_states=False,
                       game_kind=game.game_kind)
    except (ReplayError, ValueError, KeyError) as exc:
        # An old log the engine no longer reproduces: show the timeline without replay.
        game.replay_error = str(exc)  # type: ignore[attr-defined]
        return None


def _start_time(game: Game) -> float | None:
    state = game.initial_state or {}
    if state.get("clock") is not None and state.get("timeout") is not None:
        return float(state["clock"]) - float(state["timeout"])
    return game.started_at.timestamp() if game.started_at else None


def _when(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts, tz=UTC)


@_guarded
def game_detail(request: HttpRequest, game_id: int) -> HttpResponse:
    game = _readable_game(request, game_id)
    events = selectors.game_events(game)
    players = list(game.players.all())  # with their rating changes (selectors)
    names = present.names_of(players)
    frames = _frames(game, events)
    start = _start_time(game)
    if frames is not None:
        moments = present.moments_of(frames, names)
        timeline = [(m, _when(m.time) if m.time is not None else _when(start)) for m in moments]
        replay = {
            "labels": replay_labels(),
            "names": names,
            "cpu": [is_cpu_seat(p) for p in players],
            "frames": [present.frame_payload(f, m, start) for f, m in zip(frames, moments,
                                                                         strict=True)],
        }
    else:
        timeline = _timeline_without_replay(events, names)
        replay = None
    context = {
        "game": game,
        "room": game.room,
        "players": players,
        "label": present.result_label(game),
        "settlement": present.settlement_of(game, players, [e.data for e in events]),
        "timeline": timeline,
        "replay": replay,
        "replay_error": getattr(game, "replay_error", ""),
        "rating_changes": [(p, c) for p in players if (c := ratings.seat_change(p))],
    }
    return render(request, "game/history/game.html", context)


def replay_labels() -> dict[str, Any]:
    """The replay script's words, in the reader's language."""
    return {
        "top": _("top card"), "colour": _("colour"), "direction": _("direction"),
        "clockwise": _("clockwise ↻"), "counter": _("counter-clockwise ↺"),
        "deck": _("deck"), "stack": _("draw stack"), "phase": _("phase"),
        "points": _("points"), "turn": _("on turn"), "chooser": _("choosing a colour"),
        "target": _("dobon'd"), "declarer": _("DOBON!"), "winner": _("winner"),
        "colors": {code: str(name) for code, name in present.COLOR_NAMES.items()},
        "suit": _("suit"), "auction": _("auction"),
        "phases": {
            "auction": _("auction"),
            "turn": _("playing"), "color": _("choosing a colour"),
            "agari_wait": _("waiting for dobon"), "dobon_wait": _("dobon declared"),
            "return_wait": _("waiting for a return"), "finished": _("game over"),
        },
    }


def _timeline_without_replay(
    events: list[GameEvent], names: list[str]
) -> list[tuple[present.Moment, datetime | None]]:
    timeline: list[tuple[present.Moment, datetime | None]] = []
    for e in events:
        line = present.describe(e.data, names, None)
        if line is not None:
            timeline.append((present.Moment(e.seq, None, [line], []), e.created_at))
    return timeline


@_guarded
def game_json(request: HttpRequest, game_id: int) -> HttpResponse:
    """The whole log of a game that is over, for analysis (docs/game-log.md)."""
    game = _readable_game(request, game_id)
    events = selectors.game_events(game)
    players = list(game.players.all())
    log = game_log(game, players, events)
    log["ratings"] = ratings.game_ratings(game)  # docs/ratings.md; null for an unrated game
    return JsonResponse(log, json_dumps_params={"ensure_ascii": False})


def game_log(game: Game, players: list[Any], events: list[GameEvent]) -> dict[str, Any]:
    initial = game.initial_state or {}
    kinds = _recorded_kinds(game)
    return {
        "format": LOG_FORMAT,
        "game": {
            "id": game.pk,
            "room": {"id": game.room_id, "name": game.room.name},
            "number": game.number,
            "status": game.status,
            "game_kind": game.game_kind,
            "preset": game.preset or None,
            "rate": game.rate,
            "started_at": game.started_at.isoformat() if game.started_at else None,
            "finished_at": game.finished_at.isoformat() if game.finished_at else None,
            "url": game.get_absolute_url(),
            # §G10: the rule set by name ("standard", a preset, or "custom" and the keys);
            # Dobon UNO's house rules only: a trump round has none (its preset is above)
            "rules": rules_of(initial) if initial and not _is_trump(initial) else None,
        },
        "players": [
            {
                "seat": p.seat,
                "username": p.display_name,
                "kind": kinds.get(p.seat) or ("cpu" if is_cpu_seat(p) else "human"),
                "room_seat": p.room_seat_index,
                "delta": p.delta,
            }
            for p in players
        ],
        "initial": _initial_deal(initial) if initial else None,
        "events": [
            {
                "seq": e.seq,
                "version": e.version,
                "time": e.created_at.isoformat(),
                "input": e.step,
                "event": e.data,
            }
            for e in events
        ],
        "result": panel.result_in_active_language(game.result),
    }


def _recorded_kinds(game: Game) -> dict[int, str]:
    """Each seat's kind as the finished game's result recorded it ("program" for a seat a
    program played); a game without a result falls back to CPU or human."""
    players = (game.result or {}).get("players") or []
    return {p["seat"]: p["kind"] for p in players if "seat" in p and "kind" in p}


def _is_trump(state: dict[str, Any]) -> bool:
    return "preset" in state  # trump Dobon's saved round names its preset


def _initial_deal(state: dict[str, Any]) -> dict[str, Any]:
    """The deal as the engine made it: hands, the first card, the deck in draw order, and
    §R3.2's first player (not the seat on turn at version 0: present.first_player_of).
    A trump round's rate is 1 (§T1.7) and its `streaks` are the rounds each seat had won
    in a row before it (§T16's streak bonus; §T17's record after the round is in
    `result.match`), so a lone round replays from documented fields."""
    trump = _is_trump(state)
    return {
        "hands": state["hands"],
        # trump Dobon keeps its field card apart from the discards under it
        "first_card": state["top"] if "top" in state
        else state["discards"][-1] if state.get("discards") else None,
        "deck": state["deck"],  # deck[0] is drawn first
        "first_player": present.first_player_of(state),
        "direction": state.get("direction"),
        "color": state.get("color"),
        "rate": 1 if trump else state.get("rate"),
        "timeout": state.get("timeout"),
        "streaks": list(state["streaks"]) if trump else None,
        "engine_state": state,
    }


# -- everyone -------------------------------------------------------------------------------


@_guarded
def leaderboard(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        raise _LoginFirst
    board = request.GET.get("game")
    board = board if board in selectors.BOARDS else "dobon_uno"
    if board == "dobon_uno":
        page: Any = selectors.leaderboard_page(request.GET.get("page"))
    else:  # a trump preset's own board: its points never mix with Dobon UNO's
        page = selectors.trump_leaderboard_page(board.removeprefix("trump_"),
                                                request.GET.get("page"))
    first_rank = (page.number - 1) * selectors.LEADERS_PER_PAGE + 1
    rows = [(first_rank + i, s) for i, s in enumerate(page.object_list)]
    context = {
        "page": page,
        "rows": rows,
        "min_games": selectors.LEADERBOARD_MIN_GAMES,
        "title": _("Leaderboard"),
        "board": board,
        "boards": [("dobon_uno", _("Dobon UNO")), ("trump_au", _("Trump Dobon (au)")),
                   ("trump_standard", _("Trump Dobon (standard)"))],
    }
    return render(request, "game/history/leaderboard.html", context)
