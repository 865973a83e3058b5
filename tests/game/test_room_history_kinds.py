"""Issue #33 item 2: a room that has played Dobon UNO and both trump presets keeps them
apart in its history: each game labelled with its kind and preset, a standings table
per kind (never au points added to standard or Dobon UNO points), each in its own order
(§T17.3: standard lowest total first; au and Dobon UNO highest first), and who dobon'd
whom counting trump dobons, per kind. The room page's standings the same."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.translation import gettext, override
from history_helpers import play_agari, play_dobon
from kind_helpers import play_standard_round, play_trump_au_dobon, switch
from play_helpers import NOW, make_room

from game.models import Room
from game.services.panel import room_panel

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _setup(settings):
    settings.CELERY_BROKER_URL = ""
    settings.DOBON_CPU_DELAY_PERCENT = 0
    settings.DOBON_TEST_SETUPS_ALLOWED = True


@pytest.fixture
def mixed_room(alice, bob, carol, dave) -> Room:
    """Dobon UNO (bob dobons alice: +51/−51), then trump au (carol dobons alice: +60/−60),
    then trump standard (a round to its end: the room plays standard now)."""
    people = [alice, bob, carol, dave]
    room = make_room(*people)
    play_dobon(room, people, now=NOW)
    play_trump_au_dobon(switch(room, "trump_dobon", "au"), people, NOW + 100)
    room = switch(room, "trump_dobon", "standard")
    standard = play_standard_round(room, alice, NOW + 20000)
    room.standard_deltas = dict(zip(  # type: ignore[attr-defined]
        ("alice", "bob", "carol", "dave"), standard.result["deltas"], strict=True))
    return room


def section(html: str, testid: str, kind: str) -> str:
    """The element marked `data-testid="<testid>" data-kind="<kind>"`, up to the next one."""
    start = html.index(f'data-testid="{testid}" data-kind="{kind}"')
    end = html.find(f'data-testid="{testid}"', start + 1)
    return html[start:end if end > 0 else len(html)]


def standings_of(html: str) -> list[tuple[str, str]]:
    """(name, points) of a standings table, top to bottom."""
    rows = re.findall(r'<th scope="row">.*?>(\w+)</a>.*?<td class="num points">([^<]+)</td>',
                      html, re.S)
    return [(name, points) for name, points in rows]


def ja(text: str) -> str:
    """The Japanese the pages show by default."""
    with override("ja"):
        return gettext(text)


def signed(value: int) -> str:
    return f"+{value}" if value > 0 else ("±0" if value == 0 else f"−{-value}")


def expected_standard(room: Room) -> list[tuple[str, str]]:
    """§T17.3: standard ranks the lowest total first."""
    deltas = room.standard_deltas  # type: ignore[attr-defined]
    order = sorted(deltas, key=lambda name: (deltas[name], name))
    return [(name, signed(deltas[name])) for name in order]


def test_the_history_page_labels_each_game_with_its_kind_and_preset(client, alice, mixed_room):
    client.force_login(alice)
    html = client.get(reverse("game:room_history", args=[mixed_room.pk])).content.decode()
    badges = re.findall(r'data-testid="row-game" data-kind="(\w+)">([^<]+)<', html)
    assert badges == [("trump_standard", ja("Trump Dobon (standard)")),
                      ("trump_au", ja("Trump Dobon (au)")), ("dobon_uno", ja("Dobon UNO"))]
    # Dobon UNO's house rules ("Standard" too) are not said of a trump game.
    assert html.count('data-testid="row-rules"') == 1


def test_the_history_page_has_a_standings_table_per_kind_in_its_own_order(
    client, alice, mixed_room,
):
    """Never au points added to standard or Dobon UNO points; §T17.3 orders."""
    client.force_login(alice)
    html = client.get(reverse("game:room_history", args=[mixed_room.pk])).content.decode()
    kinds = re.findall(r'data-testid="standings-kind" data-kind="(\w+)"', html)
    assert kinds == ["trump_standard", "dobon_uno", "trump_au"]  # the room's own kind first
    assert standings_of(section(html, "standings-kind", "trump_standard")) == (
        expected_standard(mixed_room))
    assert ja("lowest total first") in section(html, "standings-kind", "trump_standard")
    au = section(html, "standings-kind", "trump_au")
    assert standings_of(au) == [("carol", "+60"), ("bob", "±0"), ("dave", "±0"),
                                ("alice", "−60")]
    assert ja("highest total first") in au
    assert standings_of(section(html, "standings-kind", "dobon_uno")) == [
        ("bob", "+51"), ("carol", "±0"), ("dave", "±0"), ("alice", "−51")]


def test_who_dobon_d_whom_counts_trump_dobons_per_kind(client, alice, mixed_room):
    client.force_login(alice)
    html = client.get(reverse("game:room_history", args=[mixed_room.pk])).content.decode()
    matrix = html[html.index('id="dobon-matrix"'):]
    assert re.findall(r'data-testid="dobon-matrix" data-kind="(\w+)"', matrix) == [
        "dobon_uno", "trump_au"]  # standard had no dobon
    au = section(matrix, "dobon-matrix", "trump_au")
    assert re.findall(r'<th scope="col">(\w+)</th>', au) == ["carol", "alice"]
    assert re.search(r'<th scope="row">carol</th><td class="num"><span class="muted">·</span>'
                     r'</td><td class="num"><span class="count">1×</span> '
                     r'<span class="points">\+60</span>', au)
    uno = section(matrix, "dobon-matrix", "dobon_uno")
    assert re.findall(r'<th scope="col">(\w+)</th>', uno) == ["bob", "alice"]
    assert '<span class="points">+51</span>' in uno and "+60" not in uno


def test_the_room_page_standings_are_per_kind_too(client, alice, mixed_room):
    client.force_login(alice)
    html = client.get(mixed_room.get_absolute_url()).content.decode()
    panel = html[html.index('id="standings"'):]
    panel = panel[:panel.index("</section>")]
    assert re.findall(r'data-testid="standings-kind" data-kind="(\w+)"', panel) == [
        "trump_standard", "dobon_uno", "trump_au"]
    assert 'data-role="room-standings"' in panel  # the part roompanel.js fetches again
    assert standings_of(section(panel, "standings-kind", "trump_standard")) == (
        expected_standard(mixed_room))
    assert standings_of(section(panel, "standings-kind", "trump_au"))[0] == ("carol", "+60")


def test_the_room_panel_counts_the_games_of_the_rooms_kind_only(mixed_room):
    """The live panel's standings: the standard match's totals beside standard games (one
    each), not the room's three games of every kind."""
    rows = room_panel(mixed_room)["standings"]
    assert {r["username"]: r["games"] for r in rows} == dict.fromkeys(
        ["alice", "bob", "carol", "dave"], 1)
    points = [r["points"] for r in rows]
    assert points == sorted(points)  # lowest first


def test_the_mixed_history_page_keeps_its_query_count(client, alice, mixed_room,
                                                      django_assert_num_queries):
    """As many queries as a one-kind room's (test_history_views: 9)."""
    client.force_login(alice)
    url = reverse("game:room_history", args=[mixed_room.pk])
    client.get(url)
    with django_assert_num_queries(9):
        assert client.get(url).status_code == 200


def test_the_mixed_room_page_keeps_its_query_count(client, alice, bob, carol, dave,
                                                   mixed_room):
    """More games of another kind cost the room page no query more."""
    client.force_login(alice)
    url = mixed_room.get_absolute_url()
    client.get(url)
    with CaptureQueriesContext(connection) as before:
        client.get(url)
    room = switch(mixed_room, "dobon_uno")
    play_agari(room, [alice, bob, carol, dave], now=NOW + 90000)
    room = switch(room, "trump_dobon", "standard")
    with CaptureQueriesContext(connection) as after:
        client.get(url)
    assert len(after) == len(before)
