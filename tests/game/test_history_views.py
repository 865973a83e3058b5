"""The match-history pages (issue 8): what each shows after real games, who may see
them, pagination, empty states, the JSON log's schema, and constant query counts."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from game.models import Game
from game.services import play, rooms
from tests.game.history_helpers import play_agari, play_deck_out, play_dobon, play_return
from tests.game.play_helpers import NOW, make_room

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("steve", password="x", is_staff=True)


@pytest.fixture
def played(people):
    """A private room where every ending happened; carol then left (a past member)."""
    room = make_room(*people, is_public=False)
    games = [
        play_agari(room, people, now=NOW),
        play_dobon(room, people, now=NOW + 100),
        play_return(room, people, now=NOW + 200),
        play_deck_out(room, people, now=NOW + 300),
    ]
    rooms.leave_room(room, people[2])
    return room, games


def _get(client, user, url):
    if user is not None:
        client.force_login(user)
    return client.get(url)


# -- what the pages show -------------------------------------------------------------------


def test_room_history_lists_games_newest_first_with_kind_winners_and_deltas(client, played,
                                                                            people):
    room, games = played
    html = _get(client, people[0], reverse("game:room_history", args=[room.pk])).content.decode()
    positions = [html.index(games[i].get_absolute_url()) for i in (3, 2, 1, 0)]
    assert positions == sorted(positions)
    for word in ("badge-agari", "badge-dobon", "badge-return", "badge-deck_out"):
        assert word in html
    assert "+51" in html and "−51" in html  # the dobon's deltas
    assert 'data-testid="standings"' in html and 'data-testid="dobon-matrix"' in html


def test_game_page_shows_settlement_sums_and_timeline(client, played, people):
    room, games = played
    dobon = games[1]
    client.cookies["django_language"] = "en"
    html = _get(client, people[0], dobon.get_absolute_url()).content.decode()
    # §R11.2: T = 12 + 5 + 17 + 17 = 51 (alice's 7 plus the R5 counted back).
    assert "T = 12 + 5 + 17 + 17 = 51" in html
    assert "alice pays bob: T × 1 = 51" in html
    assert 'data-card="G7"' in html  # alice's final hand, revealed after the game
    assert 'id="replay-data"' in html
    assert "static/js/replay.js" in html and "<script>" not in html  # no inline script


def test_game_page_of_each_kind_renders(client, played, people):
    room, games = played
    for game in games:
        response = _get(client, people[1], game.get_absolute_url())
        assert response.status_code == 200
        assert 'data-testid="settlement"' in response.content.decode()


def test_english_page_and_japanese_by_default(client, played, people):
    room, games = played
    client.force_login(people[0])
    html = client.get(reverse("game:room_history", args=[room.pk])).content.decode()
    assert "対戦履歴" in html
    client.cookies["django_language"] = "en"
    html = client.get(reverse("game:room_history", args=[room.pk])).content.decode()
    assert "Match history" in html


def test_room_page_links_to_history_and_shows_standings(client, played, people):
    room, _ = played
    html = _get(client, people[0], room.get_absolute_url()).content.decode()
    assert reverse("game:room_history", args=[room.pk]) in html
    assert 'data-testid="standings"' in html


def test_profile_shows_statistics_rank_chart_and_recent_games(client, played, people):
    room, games = played
    alice = people[0]
    html = _get(client, alice, reverse("accounts:profile", args=["alice"])).content.decode()
    assert 'data-testid="stat-games">4<' in html
    assert 'data-testid="stat-dobonned">1<' in html
    assert "<svg" in html and "points-chart" in html
    for game in games:
        assert game.get_absolute_url() in html


def test_leaderboard_ranks_by_points_per_game(client, played, people, settings):
    from game.history import selectors

    room, _ = played
    selectors.LEADERBOARD_MIN_GAMES, old = 4, selectors.LEADERBOARD_MIN_GAMES
    try:
        html = _get(client, people[0], reverse("game:leaderboard")).content.decode()
        # alice: 38/4 = 9.5 per game is first; bob: (-6+51-49+0)/4 = -1.0.
        assert html.index(">alice<") < html.index(">bob<")
        profile = client.get(reverse("accounts:profile", args=["alice"])).content.decode()
        assert 'data-testid="stat-rank"><a href="/leaderboard/">#1<' in profile
    finally:
        selectors.LEADERBOARD_MIN_GAMES = old


# -- empty states and pagination -----------------------------------------------------------


def test_empty_states(client, alice):
    room = make_room(alice)
    client.force_login(alice)
    html = client.get(reverse("game:room_history", args=[room.pk])).content.decode()
    assert 'data-testid="history-empty"' in html
    assert "empty-state" in client.get(reverse("game:leaderboard")).content.decode()
    profile = client.get(reverse("accounts:profile", args=["alice"])).content.decode()
    assert "empty-state" in profile


def test_history_is_paginated(client, alice, bob, monkeypatch):
    from game.history import selectors

    monkeypatch.setattr(selectors, "GAMES_PER_PAGE", 2)
    room = make_room(alice, bob)
    people = [alice, bob]
    for i in range(5):
        game = play.start_game(room, alice, now=NOW + i * 10)
        play.abort_game(game, by=alice, now=NOW + i * 10 + 1)
    client.force_login(alice)
    url = reverse("game:room_history", args=[room.pk])
    first = client.get(url).content.decode()
    assert first.count('class="game-link"') == 2 and 'rel="next"' in first
    last = client.get(url + "?page=3").content.decode()
    assert last.count('class="game-link"') == 1 and 'rel="next"' not in last
    assert "badge-aborted" in last
    assert len(people) == 2


# -- who may see what ------------------------------------------------------------------------


PERSONAS = ["owner", "member", "past member", "outsider", "anonymous", "staff"]


def _persona(name, people, mallory, staff):
    alice, bob, carol, _ = people
    return {"owner": alice, "member": bob, "past member": carol, "outsider": mallory,
            "anonymous": None, "staff": staff}[name]


@pytest.mark.parametrize("persona", PERSONAS)
def test_private_room_history_only_for_members_past_members_and_staff(
    client, played, people, mallory, staff, persona
):
    room, games = played
    user = _persona(persona, people, mallory, staff)
    urls = [
        reverse("game:room_history", args=[room.pk]),
        games[1].get_absolute_url(),
        reverse("game:game_json", args=[games[1].pk]),
    ]
    allowed = persona in ("owner", "member", "past member", "staff")
    for url in urls:
        response = _get(client, user, url)
        assert response.status_code == (200 if allowed else 404), (persona, url)
    profile = _get(client, user, reverse("accounts:profile", args=["alice"]))
    if user is not None:
        assert (games[1].get_absolute_url() in profile.content.decode()) == allowed
    room_page = _get(client, user, room.get_absolute_url())
    if persona in ("outsider", "past member"):
        assert room_page.status_code == 404 or "standings" not in room_page.content.decode()


def test_public_room_history_for_anyone_signed_in_and_login_for_anonymous(client, people,
                                                                          mallory):
    room = make_room(*people)
    game = play_agari(room, people)
    assert _get(client, mallory, game.get_absolute_url()).status_code == 200
    client.logout()
    response = client.get(game.get_absolute_url())
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_running_game_is_never_shown(client, people, staff):
    """§R15.2: no history page or log exposes a game that is still running."""
    room = make_room(*people)
    game = play.start_game(room, people[0], now=NOW)
    for user in (people[0], staff):
        client.force_login(user)
        assert client.get(game.get_absolute_url()).status_code == 404
        assert client.get(reverse("game:game_json", args=[game.pk])).status_code == 404
        html = client.get(reverse("game:room_history", args=[room.pk])).content.decode()
        assert game.get_absolute_url() not in html


def test_unknown_room_and_game_are_404(client, alice):
    client.force_login(alice)
    assert client.get(reverse("game:room_history", args=[999])).status_code == 404
    assert client.get(reverse("game:game", args=[999])).status_code == 404


# -- the JSON log ----------------------------------------------------------------------------


def test_json_log_schema(client, played, people):
    room, games = played
    game = games[2]  # the return
    client.force_login(people[0])
    log = json.loads(client.get(reverse("game:game_json", args=[game.pk])).content)
    assert log["format"] == "dobon-game-log/1"
    assert set(log) == {"format", "game", "players", "initial", "events", "result", "ratings"}
    assert log["game"]["id"] == game.pk and log["game"]["status"] == "finished"
    assert [p["username"] for p in log["players"]] == ["alice", "bob", "carol", "dave"]
    assert {p["kind"] for p in log["players"]} == {"human"}
    assert log["initial"]["hands"][0] == ["R5", "B5"] and log["initial"]["first_card"] == "R3"
    assert log["initial"]["first_player"] == 0
    types = [e["event"]["type"] for e in log["events"]]
    assert types[0] == "start" and "dobon" in types and "return" in types
    assert types[-1] == "finished"
    assert all({"seq", "version", "time", "input", "event"} <= set(e) for e in log["events"])
    assert log["result"]["kind"] == "return" and log["result"]["deltas"] == [49, -49, 0, 0]


# -- constant queries ------------------------------------------------------------------------


def _many_games(room, people, count):
    for i in range(count):
        play_agari(room, people, now=NOW + 100 * i)


@pytest.mark.parametrize("count", [1, 6])
def test_room_history_query_count_does_not_grow(client, people, django_assert_num_queries,
                                                count):
    room = make_room(*people)
    _many_games(room, people, count)
    client.force_login(people[0])
    client.get(reverse("game:room_history", args=[room.pk]))  # warm the session
    with django_assert_num_queries(9):
        assert client.get(reverse("game:room_history", args=[room.pk])).status_code == 200


@pytest.mark.parametrize("count", [5, 9])  # both ranked (LEADERBOARD_MIN_GAMES = 5)
def test_profile_query_count_does_not_grow(client, people, django_assert_num_queries, count):
    from game.models import TrumpPlayerStats

    room = make_room(*people)
    _many_games(room, people, count)
    for preset in ("au", "standard"):  # the trump lines and their ranks: one query more
        for user in people:
            TrumpPlayerStats.objects.create(user=user, preset=preset, games=count,
                                            points=count * user.pk, points_per_game=user.pk)
    client.force_login(people[1])
    url = reverse("accounts:profile", args=["alice"])
    client.get(url)
    with django_assert_num_queries(10):  # issue #34: one more for the rating graphs
        html = client.get(url).content.decode()
    assert 'data-testid="trump-stats-au"' in html and 'data-testid="trump-stats-standard"' in html


@pytest.mark.parametrize("count", [1, 6])
def test_room_page_with_standings_query_count_does_not_grow(
    client, people, django_assert_num_queries, count
):
    room = make_room(*people)
    _many_games(room, people, count)
    client.force_login(people[0])
    client.get(room.get_absolute_url())
    with django_assert_num_queries(7):
        assert client.get(room.get_absolute_url()).status_code == 200


def test_game_page_query_count(client, people, django_assert_num_queries):
    room = make_room(*people)
    game = play_dobon(room, people)
    client.force_login(people[0])
    client.get(game.get_absolute_url())
    with django_assert_num_queries(5):
        assert client.get(game.get_absolute_url()).status_code == 200
    assert Game.objects.count() == 1


def test_many_bulk_games_same_queries_and_a_sampled_chart(client, people,
                                                          django_assert_num_queries):
    """Hundreds of games (bulk-made as the benchmark makes them): the same query counts
    as above, and the profile chart samples at most CHART_POINTS of them."""
    from game.history import selectors
    from game.management.commands.bench_history import bulk_games

    room = make_room(*people)
    bulk_games(room, people, 300)
    client.force_login(people[1])
    history = reverse("game:room_history", args=[room.pk])
    profile = reverse("accounts:profile", args=["alice"])
    client.get(history)
    with django_assert_num_queries(9):
        assert client.get(history).status_code == 200
    client.get(profile)
    with django_assert_num_queries(10):  # 8, the trump lines. one, the rating graphs. one (#34)
        html = client.get(profile).content.decode()
    points = selectors.chart_points(people[0], 300)
    assert len(points) == selectors.CHART_POINTS
    assert points[0][0] == 1 and points[-1][0] == 300
    assert 'data-testid="stat-games">300<' in html


def test_aborted_game_page_and_log(client, alice, bob):
    room = make_room(alice, bob)
    game = play.start_game(room, alice, now=NOW)
    play.abort_game(game, by=alice, now=NOW + 3)
    client.force_login(bob)
    html = client.get(game.get_absolute_url()).content.decode()
    assert "badge-aborted" in html and 'id="replay-data"' in html
    log = json.loads(client.get(reverse("game:game_json", args=[game.pk])).content)
    assert log["result"] is None and log["game"]["status"] == "aborted"
    assert [e["event"]["type"] for e in log["events"]] == ["start", "aborted"]
