"""The rating pages and JSON (issue #34 items 5 and 6, docs/ratings.md):
`/leaderboard.json`, `ratings` in `/games/<id>.json`, the rating leaderboards with the
viewer's own position, the game page's before → after, and constant query counts."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from game.models import Rating, RatingChange
from game.ratings.anchors import ANCHORS
from game.ratings.scale import displayed
from tests.game.history_helpers import play_agari, play_dobon
from tests.game.play_helpers import NOW, make_room

pytestmark = pytest.mark.django_db


def _rated(user, mu, sigma=2.0, games=12, days_ago=1, game="dobon_uno", track="people"):
    return Rating.objects.create(
        user=user, game=game, track=track, mu=mu, sigma=sigma, ordinal=mu - 3 * sigma,
        games=games, last_played_at=timezone.now() - timedelta(days=days_ago))


def _english(client):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"


# -- JSON --------------------------------------------------------------------------------


def test_leaderboard_json_has_every_rated_player_of_the_game_and_track(client, alice, bob,
                                                                       carol):
    _rated(alice, 30.0)
    _rated(bob, 25.0, sigma=8.0, games=2)  # provisional: listed too
    _rated(carol, 40.0, track="programs")  # another track: not here
    client.force_login(alice)
    data = client.get("/leaderboard.json?game=dobon_uno&track=people").json()
    assert set(data) == {"game", "track", "model", "cpu_anchors", "players"}
    assert (data["game"], data["track"], data["model"]) == (
        "dobon_uno", "people", "openskill.PlackettLuce")
    assert data["cpu_anchors"] == {lv: [s.mu, s.sigma] for lv, s in ANCHORS["dobon_uno"].items()}
    assert [p["name"] for p in data["players"]] == ["alice", "bob"]
    first = data["players"][0]
    assert set(first) == {"name", "mu", "sigma", "rating", "rank_label", "games", "provisional"}
    assert (first["mu"], first["sigma"], first["games"], first["provisional"]) == (30.0, 2.0, 12,
                                                                                   False)
    assert first["rating"] == displayed(30.0, 2.0) == 1960
    assert first["rank_label"] == "2段"  # Japanese by default
    assert data["players"][1]["provisional"] is True


def test_leaderboard_json_refuses_an_unknown_board_clearly(client, alice):
    client.force_login(alice)
    response = client.get("/leaderboard.json?game=chess&track=people")
    assert response.status_code == 400 and response.json()["error"] == "bad_board"
    assert client.get("/leaderboard.json?game=trump_au&track=robots").status_code == 400


def test_leaderboard_json_needs_a_signed_in_reader(client):
    assert client.get("/leaderboard.json").status_code == 302


def test_game_json_carries_the_rating_changes_and_null_when_unrated(client, people):
    rated = play_agari(make_room(*people), people)
    unrated = play_agari(make_room(*people, rated=False), people, now=NOW + 500)
    client.force_login(people[0])
    log = client.get(reverse("game:game_json", args=[rated.pk])).json()
    assert log["ratings"]["track"] == "people"
    changes = log["ratings"]["changes"]
    assert [c["seat"] for c in changes] == [0, 1, 2, 3]
    stored = RatingChange.objects.get(game=rated, seat=0)
    assert changes[0] == {"seat": 0, "mu_before": stored.mu_before,
                          "sigma_before": stored.sigma_before, "mu": stored.mu,
                          "sigma": stored.sigma}
    assert client.get(reverse("game:game_json", args=[unrated.pk])).json()["ratings"] is None


# -- the leaderboard page ------------------------------------------------------------------


def test_the_board_lists_established_players_only(client, alice, bob, carol, dave):
    _rated(alice, 30.0)
    _rated(bob, 35.0, games=9)  # too few games
    _rated(carol, 35.0, days_ago=91)  # not within 90 days
    _rated(dave, 20.0)
    client.force_login(dave)
    _english(client)
    html = client.get(reverse("game:ratings")).content.decode()
    board = html.split('data-testid="rating-board"')[1]
    assert ">alice<" in board and ">dave<" in board
    assert ">bob<" not in board and ">carol<" not in board
    assert "2 dan" in board  # alice: 1960


def test_the_viewer_sees_their_position_outside_the_top_100(client, django_user_model,
                                                             django_assert_num_queries):
    for i in range(120):
        _rated(django_user_model.objects.create_user(f"top{i:03d}"), 40.0 - i * 0.05)
    me = django_user_model.objects.create_user("me", password="pw")
    _rated(me, 10.0)
    client.force_login(me)
    client.get(reverse("game:ratings"))
    with django_assert_num_queries(5):  # session, user, top 100, mine, my position
        html = client.get(reverse("game:ratings")).content.decode()
    assert html.count('<tr class="mine"') == 1 and 'data-testid="my-row"' in html
    row = html.split('data-testid="my-row">')[1].split("</tr>")[0]
    assert '<td class="num">121</td>' in row
    assert html.count("<tr") == 1 + 100 + 1  # header, the top 100, my own line


def test_the_board_query_count_does_not_grow(client, django_user_model,
                                             django_assert_num_queries):
    for i in range(30):
        _rated(django_user_model.objects.create_user(f"u{i}"), 20.0 + i)
    client.force_login(django_user_model.objects.get(username="u0"))
    client.get(reverse("game:ratings"))
    with django_assert_num_queries(5):
        client.get(reverse("game:ratings"))
    with django_assert_num_queries(4):  # no line of mine there: no position to count
        client.get(reverse("game:ratings") + "?game=trump_standard&track=programs")


# -- the game page -------------------------------------------------------------------------


def test_the_game_page_shows_every_seats_change_before_and_after(client, people,
                                                                 django_assert_num_queries):
    game = play_dobon(make_room(*people), people)
    client.force_login(people[0])
    _english(client)
    client.get(game.get_absolute_url())
    with django_assert_num_queries(5):  # as before ratings: read with the seats
        html = client.get(game.get_absolute_url()).content.decode()
    section = html.split('data-testid="rating-changes"')[1].split("</table>")[0]
    assert section.count("<tr") == 1 + 4
    assert "? → ?" in section  # a first game: provisional before and after


# -- names at the table --------------------------------------------------------------------


def test_the_room_panel_gives_each_rated_seat_its_rating(people, django_assert_num_queries):
    from game.services.panel import room_panel

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    room = make_room(*people)
    with CaptureQueriesContext(connection) as unrated:
        room_panel(room)
    _rated(people[0], 30.0)  # established: 1960, 2 dan
    _rated(people[1], 30.0, games=3)  # provisional
    _rated(people[2], 45.0, game="trump_au")  # another game: not at this table
    with django_assert_num_queries(len(unrated)):  # as before: read with the seats
        seats = room_panel(room)["seats"]
    assert seats[0]["rating"] == {"rating": 1960, "text": "1960", "label": "2段",
                                  "provisional": False}
    assert seats[1]["rating"]["text"] == "?" and seats[1]["rating"]["label"] == ""
    assert "rating" not in seats[2] and "rating" not in seats[3]
