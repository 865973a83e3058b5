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
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from game.services.panel import room_panel

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


# -- lobby, history list, profile ----------------------------------------------------------


def test_the_lobby_shows_my_ratings_with_their_rank(client, alice):
    _rated(alice, 30.0)
    _rated(alice, 25.0, sigma=7.0, games=4, game="trump_au")
    client.force_login(alice)
    section = client.get(reverse("game:lobby")).content.decode().split(
        'data-testid="my-ratings"')[1].split("</section>")[0]
    assert "1960</strong> <span class=\"rank-label\">2段</span>" in section
    assert "<strong class=\"rating\">?</strong>" in section  # trump au: provisional


def test_the_room_history_shows_each_seats_rating_after_the_game(client, people,
                                                                 django_assert_num_queries):
    room = make_room(*people)
    play_agari(room, people)
    client.force_login(people[0])
    client.get(reverse("game:room_history", args=[room.pk]))
    with django_assert_num_queries(9):  # as before ratings: read with the seats
        html = client.get(reverse("game:room_history", args=[room.pk])).content.decode()
    assert html.count('data-testid="seat-rating">?<') == 4  # a first game: provisional


def _career(user, games, room_owner):
    """`games` rated games of `user` (stored rows, no play): rating changes 1..games."""
    from game.models import Game, GamePlayer, Room

    room = Room.objects.create(name="career", owner=room_owner)
    rows = Game.objects.bulk_create(
        Game(room=room, number=n, state={}, status="finished", rated=True,
             finished_at=timezone.now()) for n in range(1, games + 1))
    GamePlayer.objects.bulk_create(GamePlayer(game=g, seat=0, room_seat_index=0, user=user,
                                              username=user.username) for g in rows)
    RatingChange.objects.bulk_create(
        RatingChange(game=g, seat=0, user=user, rated_game="dobon_uno", track="people",
                     mu_before=20 + n * 0.01, sigma_before=2.0, mu=20 + (n + 1) * 0.01,
                     sigma=2.0, number=n)
        for n, g in enumerate(rows, start=1))
    last = 20 + (games + 1) * 0.01
    _rated(user, last, games=games)


@pytest.mark.parametrize("games", [3, 400])
def test_the_profile_draws_a_rating_graph_per_game_in_fixed_queries(
        client, alice, bob, games, django_assert_num_queries):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(bob)
    url = reverse("accounts:profile", args=["alice"])
    client.get(url)
    with CaptureQueriesContext(connection) as unrated:
        client.get(url)
    _career(alice, games, bob)
    with django_assert_num_queries(len(unrated.captured_queries)):  # the same with 400
        html = client.get(url).content.decode()
    line = html.split('data-testid="rating-dobon_uno-people"')[1].split("</div>")[0]
    assert line.count("<svg") == 1
    points = line.split('points="')[1].split('"')[0].split()
    step = -(-games // 120)  # every k-th game, k = ceil(games / 120), and the last
    assert len(points) == len([n for n in range(1, games + 1) if (n - 1) % step == 0
                               or n == games])
    assert games < 120 or 100 <= len(points) <= 121
    _english(client)
    html_en = client.get(url).content.decode()
    line_en = html_en.split('data-testid="rating-dobon_uno-people"')[1].split("</div>")[0]
    assert f"{games} rated games" in line_en
    assert "レーティング対局" in line  # Japanese by default (#34: not レート, the stake)


def test_the_points_leaderboard_links_the_rating_boards(client, alice):
    client.force_login(alice)
    html = client.get(reverse("game:leaderboard")).content.decode()
    assert f'href="{reverse("game:ratings")}" data-testid="ratings-link"' in html


# -- words ---------------------------------------------------------------------------------


def test_japanese_says_reitingu_for_the_skill_rating_and_keeps_reto_for_the_stake(
        client, people):
    """#34: レート is the stake multiplier (レート ×1, RULES.md); the skill rating is
    レーティング on the board, the game page and the room list, never レート."""
    _rated(people[0], 30.0)
    game = play_dobon(make_room(*people), people)
    client.force_login(people[0])
    board = client.get(reverse("game:ratings")).content.decode()
    head = board.split('data-testid="rating-board"')[1].split("</thead>")[0]
    assert ">レーティング<" in head and ">レーティング対局<" in head
    assert ">レート<" not in head
    page = client.get(game.get_absolute_url()).content.decode()
    changes = page.split('data-testid="rating-changes"')[1].split("</thead>")[0]
    assert ">レーティング<" in changes and ">レート<" not in changes
    lobby = client.get(reverse("game:lobby")).content.decode()
    assert "レーティング戦" in lobby and "レート戦" not in lobby


def test_an_unrated_game_says_so_at_the_table_on_its_page_and_in_the_list(
        client, people, django_assert_num_queries):
    """#34: the table header, the game page and the room's history list mark an unrated
    room's games (Game.rated, the room's `rated`); a rated room's show no such badge."""
    unrated = make_room(*people, rated=False)
    game = play_agari(unrated, people)
    rated = make_room(*people)
    rated_game = play_agari(rated, people)
    client.force_login(people[0])
    _english(client)
    table = client.get(unrated.get_absolute_url()).content.decode()
    badge = table.split('data-testid="table-unrated"')[1].split("</span>")[0]
    assert "hidden" not in badge and ">unrated" in badge
    rated_table = client.get(rated.get_absolute_url()).content.decode()
    assert 'data-testid="table-unrated" hidden' in rated_table
    game_page = client.get(game.get_absolute_url()).content.decode()
    assert 'data-testid="game-unrated"' in game_page
    assert 'data-testid="game-unrated"' not in client.get(
        rated_game.get_absolute_url()).content.decode()
    client.get(reverse("game:room_history", args=[unrated.pk]))
    with django_assert_num_queries(9):  # the flag is read with the games
        listing = client.get(reverse("game:room_history", args=[unrated.pk])).content.decode()
    assert listing.count('data-testid="row-unrated"') == 1
    assert 'data-testid="row-unrated"' not in client.get(
        reverse("game:room_history", args=[rated.pk])).content.decode()


@pytest.mark.parametrize(("games", "numbers_shown"), [(3, False), (12, True)])
def test_the_profile_graph_hides_the_numbers_while_the_rating_shows_a_question_mark(
        client, alice, bob, games, numbers_shown):
    """#34: a provisional player's profile says "?", so its graph has no y-axis values;
    once established the graph is labelled with the lowest and highest rating."""
    _career(alice, games, bob)
    client.force_login(bob)
    html = client.get(reverse("accounts:profile", args=["alice"])).content.decode()
    line = html.split('data-testid="rating-dobon_uno-people"')[1].split("</svg>")[0]
    assert ('<strong class="rating">?<' in line) is not numbers_shown
    svg = line.split("<svg")[1]
    assert 'preserveAspectRatio="none"' not in svg  # no stretched text on a wide screen
    values = [displayed(20 + (n + 1) * 0.01, 2.0) for n in range(1, games + 1)]
    labels = [t.split(">")[1].split("<")[0] for t in svg.split('<text class="axis')[1:]]
    assert labels[-1] == f"#{games}"
    assert (str(max(values)) in labels and str(min(values)) in labels) is numbers_shown
    assert len(labels) == (3 if numbers_shown else 1)


def test_a_rating_change_is_written_with_a_true_minus_sign(client, people):
    """#34: the game page's change reads (−N) as points do, not (-N)."""
    game = play_dobon(make_room(*people), people)
    RatingChange.objects.filter(game=game).update(number=12, mu_before=30.0, sigma_before=2.0,
                                                  mu=29.0, sigma=2.0)
    client.force_login(people[0])
    html = client.get(game.get_absolute_url()).content.decode()
    section = html.split('data-testid="rating-changes"')[1].split("</table>")[0]
    drop = displayed(30.0, 2.0) - displayed(29.0, 2.0)
    assert section.count(f"(−{drop})") == 4 and "(-" not in section


@pytest.mark.parametrize(("games", "japanese", "english"), [
    (6, "あと4局で確定", "4 more rated games to be established"),
    (9, "あと1局で確定", "1 more rated game to be established"),
    (12, None, None),
])
def test_a_provisional_player_sees_how_many_games_until_established(client, alice, games,
                                                                      japanese, english):
    """#34: beside the "?" in the lobby and on the leaderboard's own line."""
    _rated(alice, 30.0, games=games)
    client.force_login(alice)
    for language, expected in (("ja", japanese), ("en", english)):
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        lobby = client.get(reverse("game:lobby")).content.decode()
        mine = lobby.split('data-testid="my-ratings"')[1].split("</section>")[0]
        board = client.get(reverse("game:ratings")).content.decode()
        own = board.split('data-testid="my-rating"')[1].split("</p>")[0]
        for page in (mine, own):
            if expected is None:
                assert 'data-testid="to-establish"' not in page
            else:
                assert expected in page and ">?<" in page
