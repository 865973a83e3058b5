"""Logs an operator can read (issue #30, part 7): JSON lines with the request, room, game
and user ids where known, and no card of a hidden hand in any line at any level.

The hidden-hand test plays whole games through a real socket (both game kinds, several
presets, CPU players) with every logger at DEBUG, Django's DEBUG on (its SQL lines) and
the JSON format, and looks for every card that was in any seat's hand at any moment of
the game in every line written. Two tests show that the check sees a leak: a log line
that prints a hand, and Django's SQL lines without the site's filter.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from play_helpers import make_room, seat_cpus
from socket_helpers import open_socket

from game import logs
from game.models import Game
from game.rules.dobon_uno.house import PRESETS
from game.services import clock, engines, play

ROOT = Path(__file__).resolve().parents[2]


# -- the JSON format and the context ids -------------------------------------------------------


def test_json_format_from_the_environment_one_object_a_line():
    """DOBON_LOG_FORMAT=json configures the console handler (settings.LOGGING)."""
    script = (
        "import django, logging; django.setup()\n"
        "from game import logs\n"
        "with logs.bound(room=3, game=7, user=5, request_id='abc12345'):\n"
        "    logging.getLogger('game.x').warning('hello %s', 'there')\n"
        "try:\n"
        "    1 / 0\n"
        "except ZeroDivisionError:\n"
        "    logging.getLogger('game.y').exception('it broke')\n"
        "import warnings; warnings.warn('careful now')\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "dobon_site.settings",
           "DOBON_LOG_FORMAT": "json", "LOG_LEVEL": "INFO"}
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60, check=True)
    lines = [json.loads(line) for line in done.stderr.splitlines()]
    hello = next(line for line in lines if line["logger"] == "game.x")
    assert hello == {**hello, "level": "WARNING", "message": "hello there", "room": 3,
                     "game": 7, "user": 5, "request_id": "abc12345"}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", hello["time"])
    broke = next(line for line in lines if line["logger"] == "game.y")
    assert broke["message"] == "it broke" and "room" not in broke
    assert broke["exception"].endswith("ZeroDivisionError: division by zero")
    warned = next(line for line in lines if line["logger"] == "py.warnings")
    assert "UserWarning: careful now" in warned["message"]


def test_plain_text_stays_the_default():
    script = "import django, logging; django.setup(); logging.getLogger('game.x').warning('hi')"
    env = {k: v for k, v in os.environ.items() if k != "DOBON_LOG_FORMAT"}
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT,
                          env={**env, "DJANGO_SETTINGS_MODULE": "dobon_site.settings"},
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stderr.strip().splitlines()[-1] == "hi"


def test_an_unknown_format_stops_the_process():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "dobon_site.settings",
           "DOBON_LOG_FORMAT": "xml"}
    done = subprocess.run([sys.executable, "-c", "import django; django.setup()"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "DOBON_LOG_FORMAT must be text or json" in done.stderr


@pytest.fixture
def json_lines() -> Iterator[io.StringIO]:
    """Every record any logger emits, at every level, as the JSON console writes it."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.JsonFormatter())
    handler.addFilter(logs.ContextFilter())
    root = logging.getLogger()
    levels = {name: logger.level for name, logger in logging.root.manager.loggerDict.items()
              if isinstance(logger, logging.Logger)}
    root_level = root.level
    for name in levels:
        logging.getLogger(name).setLevel(logging.DEBUG)
    root.setLevel(logging.DEBUG)
    root.addHandler(handler)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(root_level)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


def records(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line]


@pytest.mark.django_db
def test_a_request_gets_an_id_in_its_lines_and_its_response(json_lines, alice, settings):
    settings.DEBUG = True  # its SQL lines: the session, the user
    client = Client()
    client.force_login(alice)
    response = client.get("/how-to-play/")
    request_id = response["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", request_id)
    lines = [r for r in records(json_lines) if r.get("request_id") == request_id]
    assert lines, "no line of the request carries its id"


@pytest.mark.django_db
def test_a_proxys_request_id_is_kept_when_sane_and_replaced_when_not(json_lines):
    given = "0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9"
    assert Client().get("/healthz", HTTP_X_REQUEST_ID=given)["X-Request-ID"] == given
    for bad in ("short", "x" * 200, "two words here", "evil\\u0000id-123"):
        answered = Client().get("/healthz", HTTP_X_REQUEST_ID=bad)["X-Request-ID"]
        assert answered != bad and re.fullmatch(r"[0-9a-f]{32}", answered)
    response = Client().get("/no-such-page/", HTTP_X_REQUEST_ID=given)
    assert response.status_code == 404
    not_found = [r for r in records(json_lines) if r["logger"] == "django.request"]
    assert not_found and not_found[-1]["request_id"] == given


@pytest.mark.django_db
def test_a_room_page_names_its_room(json_lines, alice, settings):
    settings.DEBUG = True
    room = make_room(alice)
    client = Client()
    client.force_login(alice)
    response = client.get(f"/rooms/{room.pk}/")
    assert response.status_code == 200
    lines = [r for r in records(json_lines) if r.get("request_id") == response["X-Request-ID"]]
    assert any(r.get("room") == room.pk for r in lines)
    # Once the request has read its user (logging itself never queries for it).
    assert any(r.get("user") == alice.pk for r in lines)


def test_an_action_is_logged_by_its_type_only():
    assert logs.action_type({"type": "play", "cards": ["R5", "W+4"]}) == "play"
    assert logs.action_type({"type": "R5 W+4"}) == "?"
    assert logs.action_type(["R5"]) == "?"


def test_a_withheld_exception_keeps_its_place_not_its_message():
    try:
        {"R5": 1}["W+4"]
    except KeyError as exc:
        kind, value, trace = logs.withheld(exc)
    text = logs.JsonFormatter().formatException((kind, value, trace))
    assert "test_logs.py" in text and "builtins.KeyError (message withheld)" in text
    assert "W+4" not in text.splitlines()[-1]


def test_sql_lines_keep_their_shape_without_their_values():
    sql = """UPDATE "game_game" SET "state" = '{"hands": [["R5", "it''s"]]}', "version" = 4"""
    record = logging.LogRecord(
        "django.db.backends", logging.DEBUG, __file__, 1, "(%.3f) %s; args=%s; alias=%s",
        (0.002, sql, ['{"hands": [["R5"]]}', 4], "default"), None)
    record.sql, record.params = record.args[1], record.args[2]
    logs.QueryValuesFilter().filter(record)
    assert record.getMessage() == (
        """(0.002) UPDATE "game_game" SET "state" = '…', "version" = 4; """
        """args=<2 values>; alias=default""")


# -- no card of a hidden hand --------------------------------------------------------------------

CARD = r"(?<![A-Za-z0-9+]){}(?![A-Za-z0-9+])"


def hidden_cards_seen(room_id: int, seen: set[str]) -> None:
    """Add every card in any seat's hand of the room's running games now."""
    for game in Game.objects.filter(room_id=room_id, status=Game.Status.RUNNING):
        engine = engines.load(game)
        for seat in range(engine.players):
            seen.update(engine.hand(seat))


def leaks(stream: io.StringIO, cards: set[str]) -> list[tuple[str, str]]:
    """(card, line) for every line naming one of `cards` as a token of its own."""
    assert cards, "no hand was seen: the check would be empty"
    pattern = re.compile("|".join(CARD.format(re.escape(c))
                                  for c in sorted(cards, key=len, reverse=True)))
    found = []
    for line in stream.getvalue().splitlines():
        match = pattern.search(line)
        if match:
            found.append((match.group(), line))
    return found


def choose(legal: list[dict[str, Any]]) -> dict[str, Any]:
    for kind in ("dobon", "return", "play", "color", "draw", "pass"):
        for action in legal:
            if action["type"] == kind:
                return action
    return legal[0]


async def play_until_finished(socket, room_id: int, seen: set[str],
                              frames_at_most: int | None = None, limit: float = 240.0) -> int:
    """Play the person's seat by its legal actions, running the clock (the CPU players)
    whenever nothing arrives, until the game's end (or `frames_at_most` frames); the
    hands of every moment go into `seen`. Returns the frames read."""
    answered: tuple[int, int] | None = None
    give_up = time.monotonic() + limit
    frames = 0
    while frames_at_most is None or frames < frames_at_most:
        assert time.monotonic() < give_up, "the game did not finish in time"
        await sync_to_async(hidden_cards_seen)(room_id, seen)
        if await socket.receive_nothing(0.02):
            await sync_to_async(clock.expire_due_games)()
            continue
        frame = await socket.receive_json_from(5)
        frames += 1
        if frame["type"] == "error":
            answered = None
        if frame["type"] != "state" or frame["game"] is None:
            continue
        if frame["status"] != "running":
            return frames
        key = (frame["game"], frame["version"])
        legal = (frame["view"] or {}).get("legal_actions") or []
        if legal and key != answered:
            answered = key
            await socket.send_json_to({"type": "action", "action": choose(legal),
                                       "version": frame["version"]})
    return frames


TABLES = [
    pytest.param({}, ("easy", "normal", "strong"), id="dobon-uno-standard"),
    pytest.param({"house_rules": dict(PRESETS["party"])}, ("normal", "strong", "easy"),
                 id="dobon-uno-party"),
    pytest.param({"game_kind": "trump_dobon", "trump_preset": "au", "seat_count": 3},
                 ("normal", "strong"), id="trump-au"),
    pytest.param({"game_kind": "trump_dobon", "trump_preset": "standard"},
                 ("strong", "easy", "normal"), id="trump-standard"),
]


@pytest.fixture
def live_debug(settings) -> None:
    """Django's DEBUG on (its SQL lines), CPUs without thinking time, the clock inline."""
    settings.DEBUG = True
    settings.CELERY_BROKER_URL = ""
    settings.DOBON_CPU_DELAY_PERCENT = 0


def cpu_table(owner: Any, fields: dict[str, Any], levels: tuple[str, ...]) -> int:
    room = seat_cpus(make_room(owner, **fields), *levels)
    play.start_game(room, owner)
    return room.pk


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("fields", "levels"), TABLES)
async def test_no_hidden_card_in_any_line_of_whole_games(fields, levels, live_debug,
                                                         json_lines, alice):
    room_id = await sync_to_async(cpu_table)(alice, fields, levels)
    seen: set[str] = set()
    socket = await open_socket(alice, room_id)
    await play_until_finished(socket, room_id, seen)
    await socket.disconnect()
    lines = records(json_lines)
    assert len(lines) > 100, "DEBUG logging did not reach the capture"
    assert any(r["logger"] == "django.db.backends" for r in lines)  # SQL lines were written
    assert any(r.get("room") == room_id and r.get("user") == alice.pk for r in lines)
    assert any(r.get("game") for r in lines)  # the clock's lines name their game
    assert leaks(json_lines, seen) == []


@pytest.mark.django_db(transaction=True)
async def test_the_check_sees_a_line_that_prints_a_hand(live_debug, json_lines, alice,
                                                        monkeypatch):
    apply_action = play.apply_action

    def careless(engine, seat, action, now):
        logging.getLogger("game.services.play").debug("hand %s", engine.hand(seat))
        return apply_action(engine, seat, action, now)

    monkeypatch.setattr(play, "apply_action", careless)
    room_id = await sync_to_async(cpu_table)(alice, {}, ("easy", "normal", "strong"))
    seen: set[str] = set()
    socket = await open_socket(alice, room_id)
    await play_until_finished(socket, room_id, seen, frames_at_most=8)
    await socket.disconnect()
    assert any("hand [" in line for _, line in leaks(json_lines, seen))


@pytest.mark.django_db(transaction=True)
async def test_the_check_sees_sql_lines_without_the_filter(live_debug, json_lines, alice):
    backends = logging.getLogger("django.db.backends")
    kept = backends.filters[:]
    assert any(isinstance(f, logs.QueryValuesFilter) for f in kept)  # as LOGGING says
    for installed in kept:
        backends.removeFilter(installed)
    try:
        room_id = await sync_to_async(cpu_table)(alice, {}, ("easy", "normal", "strong"))
        seen: set[str] = set()
        socket = await open_socket(alice, room_id)
        await play_until_finished(socket, room_id, seen, frames_at_most=8)
        await socket.disconnect()
    finally:
        for installed in kept:
            backends.addFilter(installed)
    assert any('"logger": "django.db.backends"' in line for _, line in leaks(json_lines, seen))


# -- daphne's access log -------------------------------------------------------------------------


def test_json_mode_sends_daphnes_access_log_through_logging(monkeypatch, json_lines):
    from daphne import cli as daphne_cli

    from dobon_site import server

    monkeypatch.setattr(daphne_cli, "AccessLogGenerator", daphne_cli.AccessLogGenerator)
    monkeypatch.setattr(server.LimitedCommandLine, "run", lambda self, argv: None)
    monkeypatch.setenv("DOBON_LOG_FORMAT", "json")
    server.main([])
    assert daphne_cli.AccessLogGenerator is server.LoggedAccess

    server.LoggedAccess(None)("http", "complete", {
        "client": "127.0.0.1:50000", "method": "GET", "path": "/healthz", "status": 200,
        "size": 16})
    line = [r for r in records(json_lines) if r["logger"] == "dobon_site.access"][-1]
    assert line["level"] == "INFO"
    assert line["message"] == '127.0.0.1:50000 "GET /healthz" 200 16'


def test_text_mode_keeps_daphnes_own_access_log(monkeypatch):
    from daphne import cli as daphne_cli

    from dobon_site import server

    original = daphne_cli.AccessLogGenerator
    monkeypatch.setattr(server.LimitedCommandLine, "run", lambda self, argv: None)
    monkeypatch.delenv("DOBON_LOG_FORMAT", raising=False)
    server.main([])
    assert daphne_cli.AccessLogGenerator is original
