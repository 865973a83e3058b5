"""Issue 20: one access rule for history. The findings: a removed member still read every
later game of a private room, hands included ("anyone who ever played there"); an
invite-only visitor who got 404 on `/games/<id>.json` read the same hands through
`/matches/<id>.json`; staff who read every game got 404 on match pages.

The rule now: a private room's games are read by its owner, its members and staff, and
by a past member for the games they played in; an invite shows the live table only,
never history. A match page and its log follow the rule of the games they contain."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from game.models import Game, Match, Membership
from game.services import rooms
from tests.game.history_helpers import play_agari, play_dobon
from tests.game.play_helpers import NOW, make_room

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _logs_without_a_wait(settings):
    settings.DOBON_MATCH_LOG_SECONDS = 0  # several logs per user here; the limit has its test

PERSONAS = ["owner", "member", "removed member", "invite holder", "outsider", "anonymous",
            "staff"]


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("steve", password="x", is_staff=True)


@pytest.fixture
def eve(django_user_model):
    return django_user_model.objects.create_user("eve", password="x")


def _as_match(room, games: list[Game], by: Any) -> Match:
    match = Match.objects.create(room=room, started_by=by, games_total=len(games),
                                 games_finished=len(games), status=Match.Status.FINISHED)
    Game.objects.filter(pk__in=[g.pk for g in games]).update(match=match)
    return match


@pytest.fixture
def frank(django_user_model):
    return django_user_model.objects.create_user("frank", password="x")


def _replace_carol(room, people, newcomer) -> list[Any]:
    """carol (room seat 2) is removed by the owner; `newcomer` takes her seat."""
    alice, bob, carol, dave = people
    rooms.remove_member(room, alice, carol.pk)
    Membership.objects.create(room=room, user=newcomer, seat_index=2)
    room.refresh_from_db()
    return [alice, bob, newcomer, dave]


@pytest.fixture
def history(people, frank):
    """A private room: carol plays a match and a game, is removed, and the table plays on
    without her."""
    alice, bob, carol, dave = people
    room = make_room(*people, is_public=False)
    before = [play_agari(room, people, now=NOW), play_dobon(room, people, now=NOW + 100)]
    match_before = _as_match(room, before[:1], alice)
    after = [play_agari(room, _replace_carol(room, people, frank), now=NOW + 200)]
    match_after = _as_match(room, after, alice)
    return room, before, after, match_before, match_after


def _client(persona: str, people, mallory, staff, eve, room) -> Client:
    alice, bob, carol, _ = people
    user = {"owner": alice, "member": bob, "removed member": carol, "invite holder": eve,
            "outsider": mallory, "anonymous": None, "staff": staff}[persona]
    client = Client()
    if user is not None:
        client.force_login(user)
    if persona == "invite holder":
        room.refresh_from_db()
        client.get(reverse("game:join", args=[room.invite_code]))
    return client


def _game_urls(game: Game) -> list[str]:
    return [game.get_absolute_url(), reverse("game:game_json", args=[game.pk])]


def _match_urls(match: Match) -> list[str]:
    return [reverse("game:match", args=[match.pk]), reverse("game:match_log", args=[match.pk])]


@pytest.mark.parametrize("persona", PERSONAS)
def test_games_and_matches_follow_one_rule(persona, history, people, mallory, staff, eve):
    room, before, after, match_before, match_after = history
    client = _client(persona, people, mallory, staff, eve, room)
    reads_all = persona in ("owner", "member", "staff")
    reads_before = reads_all or persona == "removed member"

    def status(url: str) -> int:
        response = client.get(url)
        return 200 if response.status_code == 200 else 404 if response.status_code in (
            302, 404) else response.status_code

    for game in before:
        for url in _game_urls(game):
            assert status(url) == (200 if reads_before else 404), (persona, url)
    for url in _match_urls(match_before):
        assert status(url) == (200 if reads_before else 404), (persona, url)
    for url in _game_urls(after[0]) + _match_urls(match_after):
        assert status(url) == (200 if reads_all else 404), (persona, url)


def test_a_removed_member_lists_only_the_games_they_played(client, history, people):
    room, before, after, _, _ = history
    client.force_login(people[2])
    page = client.get(reverse("game:room_history", args=[room.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert all(g.get_absolute_url() in html for g in before)
    assert after[0].get_absolute_url() not in html


def test_a_match_log_holds_only_the_games_its_reader_may_read(client, people, frank):
    """A past member's match log: the games they played, not the ones after they left."""
    alice, bob, carol, dave = people
    room = make_room(*people, is_public=False)
    first = play_agari(room, people, now=NOW)
    second = play_agari(room, _replace_carol(room, people, frank), now=NOW + 100)
    match = _as_match(room, [first, second], alice)
    client.force_login(carol)
    response = client.get(reverse("game:match_log", args=[match.pk]))
    assert response.status_code == 200
    content = b"".join(response.streaming_content) if response.streaming else response.content
    log = json.loads(content)
    assert len(log["games"]) == 1
    client.force_login(bob)
    content = b"".join(client.get(reverse("game:match_log", args=[match.pk])).streaming_content)
    assert len(json.loads(content)["games"]) == 2


# -- the match log: streamed, and limited per user -------------------------------------------


def test_a_match_log_is_limited_per_user(client, people, settings):
    """Issue 20: 6 concurrent log requests for a 1,000-game match took 19 s of CPU."""
    settings.DOBON_MATCH_LOG_SECONDS = 60
    room = make_room(*people)
    match = _as_match(room, [play_agari(room, people)], people[0])
    url = reverse("game:match_log", args=[match.pk])
    client.force_login(people[1])
    assert client.get(url).status_code == 200
    again = client.get(url)
    assert again.status_code == 429 and again["Retry-After"] == "60"
    client.force_login(people[2])  # another user is not held up
    assert client.get(url).status_code == 200


@pytest.mark.django_db(transaction=True)
async def test_under_asgi_the_match_log_streams_from_an_async_iterator(people):
    """Under ASGI a synchronous iterator is read whole into memory before the first byte
    (issue 20: 26 MB per request): the log is an asynchronous iterator there."""
    from asgiref.sync import sync_to_async
    from django.test import AsyncClient

    def build() -> tuple[Match, str]:
        room = make_room(*people)
        games = [play_agari(room, people, now=NOW + 100 * i) for i in range(3)]
        match = _as_match(room, games, people[0])
        return match, reverse("game:match_log", args=[match.pk])

    match, url = await sync_to_async(build)()
    client = AsyncClient()
    await sync_to_async(client.force_login)(people[1])
    response = await client.get(url)
    assert response.status_code == 200 and response.is_async
    chunks = [chunk async for chunk in response.streaming_content]
    assert len(chunks) >= 3  # head, the games, the end
    log = json.loads(b"".join(chunks))
    assert [g["match_game"] for g in log["games"]] == [1, 2, 3]
    assert [s["points"] for s in log["standings"]] == [
        line.total for line in await sync_to_async(_standings)(match)]


def _standings(match: Match) -> list[Any]:
    from game.services import matches

    return matches.standings_counted(match)
