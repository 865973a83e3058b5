"""CPU players' names in the reader's language: a game stores them once, in the site's
language, and every page, log and live frame shows them in the language of whoever
reads ("CPU 2 (強い)" in Japanese, "CPU 2 (strong)" in English)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.test import Client
from play_helpers import NOW, make_room, position, started
from socket_helpers import next_state, open_socket

from game.models import Game, Membership
from game.models.matches import Match
from game.services import clock, matches, panel, play

pytestmark = pytest.mark.django_db(transaction=True)

JA, EN = "CPU 2 (強い)", "CPU 2 (strong)"


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""


def finished_game_with_a_cpu(alice: Any) -> Game:
    """alice (seat 0) goes out at once against a strong CPU on room seat 1 (§R8)."""
    room = make_room(alice)
    Membership.objects.create(room=room, cpu_level="strong", seat_index=1)
    game = started(room, alice, position([["R5"], ["B1", "G7"]]))
    play.perform_action(game, alice, {"type": "play", "cards": ["R5"]}, now=NOW + 1)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game


def reader(user: Any, language: str) -> Client:
    client = Client()
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    return client


def test_the_game_page_its_log_and_the_room_history_name_cpus_in_the_readers_language(alice):
    game = finished_game_with_a_cpu(alice)
    assert game.players.get(seat=1).username == JA  # stored once, in the site's language
    pages = [game.get_absolute_url(), f"/rooms/{game.room_id}/history/"]
    for language, name, other in (("en", EN, JA), ("ja", JA, EN)):
        for url in pages:
            html = reader(alice, language).get(url).content.decode()
            assert name in html and other not in html, (language, url)
        log = json.loads(reader(alice, language).get(f"/games/{game.pk}.json").content)
        assert [p["username"] for p in log["players"]] == ["alice", name]
        assert [p["username"] for p in log["result"]["players"]] == ["alice", name]


def test_the_match_page_names_cpus_in_the_readers_language(alice):
    room = make_room(alice)
    Membership.objects.filter(room=room, user=alice).delete()
    match = matches.start_match(room, alice, games=1, cpu_level="strong")
    while Match.objects.get(pk=match.pk).status == Match.Status.RUNNING:
        clock.expire_due_games()
    for language, name, other in (("en", EN, JA), ("ja", JA, EN)):
        html = reader(alice, language).get(match.get_absolute_url()).content.decode()
        assert name in html and other not in html


def test_a_frame_is_renamed_for_an_english_reader_only():
    cpu = {"username": JA, "kind": "cpu", "level": "strong"}
    frame = {
        "type": "state", "players": [{**cpu, "seat": 1, "room_seat": 1},
                                     {"username": "alice", "kind": "human", "seat": 0,
                                      "room_seat": 0}],
        "room": {"seats": [None, {**cpu, "index": 1, "points": 3}],
                 "standings": [{"username": JA, "kind": "cpu", "points": 3}],
                 "last_result": {"result": {"players": [{**cpu, "seat": 1, "room_seat": 1}]}}},
    }
    assert panel.in_language(frame, "ja") is frame
    english = panel.in_language(frame, "en")
    assert [p["username"] for p in english["players"]] == [EN, "alice"]
    assert english["room"]["seats"][1]["username"] == EN
    assert english["room"]["standings"][0]["username"] == EN
    assert english["room"]["last_result"]["result"]["players"][0]["username"] == EN
    assert frame["players"][0]["username"] == JA  # the shared frame is left as it was


async def test_an_english_socket_sees_english_cpu_names(alice):
    room = await sync_to_async(make_room)(alice)
    await sync_to_async(Membership.objects.create)(room=room, cpu_level="strong",
                                                   seat_index=1)
    await sync_to_async(play.start_game)(room, alice, now=NOW)
    english = await open_socket(alice, room.pk, language="en")
    japanese = await open_socket(alice, room.pk, language="ja")
    _, state_en = await next_state(english)
    _, state_ja = await next_state(japanese)
    assert [p["username"] for p in state_en["players"]] == ["alice", EN]
    assert [p["username"] for p in state_ja["players"]] == ["alice", JA]
    assert state_en["room"]["seats"][1]["username"] == EN
    for socket in (english, japanese):
        await socket.disconnect()
