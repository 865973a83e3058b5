"""Issue 20: a match page's cost grew with the match. For 1,000 games the live part
polled every 3 s cost 1.2 s of CPU, the log 5.7 s and 26 MB. Standings are now stored
totals counted as each game finishes, the live part sends only the games after the
client's last one, and the log streams a batch of games at a time."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from play_helpers import make_room
from test_matches import cpu_only_room, run_until_over

from game.models import Game, GamePlayer, Match, MatchStanding
from game.services import matches

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""


def _signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_stored_standings_equal_the_sum_over_every_game(alice):
    room = cpu_only_room(alice)
    match = run_until_over(matches.start_match(room, alice, games=4, cpu_level="easy"))
    assert MatchStanding.objects.filter(match=match).count() == 4
    stored = [(s.name, s.total, s.games, s.reached, s.kind) for s in matches.standings(match)]
    counted = [(s.name, s.total, s.games, s.reached, s.kind)
               for s in matches.standings_counted(match)]
    assert stored == counted
    assert all(games == 4 for _, _, games, _, _ in stored)


def _bulk_match(owner: Any, people: list[Any], games: int) -> Match:
    room = make_room(*people)
    match = Match.objects.create(room=room, started_by=owner, games_total=games + 1,
                                 games_finished=games)
    for number in range(1, games + 1):
        game = Game.objects.create(room=room, number=number, state={}, match=match,
                                   status=Game.Status.FINISHED,
                                   result={"kind": "agari", "winners": [0],
                                           "deltas": [3, -1, -1, -1]})
        for seat, user in enumerate(people):
            GamePlayer.objects.create(game=game, seat=seat, room_seat_index=seat, user=user,
                                      username=user.username, delta=3 if seat == 0 else -1)
    matches.rebuild_standings(match)
    return match


def _live(client: Client, match: Match, after: int) -> tuple[str, int]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(match.get_absolute_url(), {"part": "live", "after": after})
    assert response.status_code == 200
    return response.content.decode(), len(queries)


def test_a_poll_sends_only_the_games_after_the_clients_last(people):
    match = _bulk_match(people[0], people, 6)
    html, _ = _live(_signed_in(people[1]), match, after=4)
    numbers = re.findall(r'data-number="(\d+)"', html)
    assert numbers == ["5", "6"]
    assert 'data-partial="true"' in html
    assert html.count('data-testid="standing-row"') == 4  # the standings, whole


def test_a_polls_queries_do_not_grow_with_the_match(people):
    small, big = _bulk_match(people[0], people, 3), _bulk_match(people[0], people, 40)
    client = _signed_in(people[1])
    small_html, few = _live(client, small, after=3)
    big_html, many = _live(client, big, after=40)
    assert few == many
    assert small_html.count('data-testid="match-game"') == big_html.count(
        'data-testid="match-game"') == 0
    assert abs(len(big_html) - len(small_html)) < 200  # the same page, other numbers


def test_the_whole_pages_queries_do_not_grow_with_the_match(people):
    """The page listed its games with one query more per game (a deferred match_id)."""
    small, big = _bulk_match(people[0], people, 3), _bulk_match(people[0], people, 30)
    client = _signed_in(people[1])
    counts = []
    for match in (small, big):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(match.get_absolute_url()).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_the_whole_page_lists_only_the_latest_games(people, monkeypatch):
    """Its rendering does not grow with the match either: the latest PAGE_GAMES games,
    and a line that says where the others are."""
    from game.views import matches as match_views

    monkeypatch.setattr(match_views, "PAGE_GAMES", 3)
    match = _bulk_match(people[0], people, 5)
    html = _signed_in(people[0]).get(match.get_absolute_url()).content.decode()
    numbers = re.findall(r'data-testid="match-game" data-number="(\d+)"', html)
    assert numbers == ["3", "4", "5"]
    assert 'data-testid="older-games-hidden"' in html
    assert 'data-partial="true"' not in html  # the whole page, not a poll's answer


def test_a_short_match_page_lists_every_game(people, monkeypatch):
    from game.views import matches as match_views

    monkeypatch.setattr(match_views, "PAGE_GAMES", 3)
    match = _bulk_match(people[0], people, 3)
    html = _signed_in(people[0]).get(match.get_absolute_url()).content.decode()
    assert re.findall(r'data-testid="match-game" data-number="(\d+)"', html) == ["1", "2", "3"]
    assert 'data-testid="older-games-hidden"' not in html
