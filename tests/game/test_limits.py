"""Per-account and per-site limits on running matches and games with CPU players (issue
#22: nothing stopped one account from keeping the clock busy), each with a clear refusal."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from play_helpers import make_room, seat_cpus

from game.messages import message_for
from game.models import Game, Room
from game.models.matches import Match
from game.services import cpu, matches, play

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def cpu_only_room(owner: Any, name: str = "arena") -> Room:
    return Room.objects.create(name=name, owner=owner, seat_count=4)


def test_one_account_may_run_only_so_many_games_against_cpus(settings, alice):
    settings.DOBON_CPU_GAMES_PER_ACCOUNT = 2
    cpu.start_game_against_cpus(alice, "easy")
    cpu.start_game_against_cpus(alice, "easy")
    rooms_before = Room.objects.count()
    with pytest.raises(play.PlayError) as refused:
        cpu.start_game_against_cpus(alice, "easy")
    assert refused.value.code == "too_many_cpu_games"
    assert Room.objects.count() == rooms_before  # the refused click left no room behind


def test_a_finished_cpu_game_no_longer_counts(settings, alice):
    settings.DOBON_CPU_GAMES_PER_ACCOUNT = 1
    game = cpu.start_game_against_cpus(alice, "easy")
    play.abort_game(game, alice)
    cpu.start_game_against_cpus(alice, "easy")


def test_the_site_refuses_cpu_games_beyond_its_limit(settings, alice, bob):
    settings.DOBON_CPU_GAMES_PER_SITE = 1
    cpu.start_game_against_cpus(alice, "easy")
    with pytest.raises(play.PlayError) as refused:
        cpu.start_game_against_cpus(bob, "easy")
    assert refused.value.code == "site_busy"


def test_a_table_of_people_is_not_limited(settings, alice, bob, carol):
    settings.DOBON_CPU_GAMES_PER_ACCOUNT = 0
    settings.DOBON_CPU_GAMES_PER_SITE = 0
    play.start_game(make_room(alice, bob), alice)
    with pytest.raises(play.PlayError):
        play.start_game(seat_cpus(make_room(carol), "easy"), carol)


def test_the_lobby_says_why_a_cpu_game_was_refused(settings, alice):
    settings.DOBON_CPU_GAMES_PER_ACCOUNT = 1
    client = signed_in(alice)
    client.post(reverse("game:play_against_cpu"), {"level": "easy"})
    page = client.post(reverse("game:play_against_cpu"), {"level": "easy"}, follow=True)
    assert message_for("too_many_cpu_games") in page.content.decode()
    assert Game.objects.filter(status=Game.Status.RUNNING).count() == 1


def test_one_account_may_run_only_so_many_matches(settings, alice):
    settings.DOBON_MATCHES_PER_ACCOUNT = 1
    matches.start_match(cpu_only_room(alice, "one"), alice, games=1000, cpu_level="easy")
    with pytest.raises(matches.MatchError) as refused:
        matches.start_match(cpu_only_room(alice, "two"), alice, games=1000, cpu_level="easy")
    assert str(refused.value) == message_for("too_many_matches")
    assert Match.objects.filter(status=Match.Status.RUNNING).count() == 1


def test_the_site_refuses_matches_beyond_its_limit(settings, alice, bob):
    settings.DOBON_MATCHES_PER_SITE = 1
    matches.start_match(cpu_only_room(alice, "one"), alice, games=10, cpu_level="easy")
    with pytest.raises(matches.MatchError) as refused:
        matches.start_match(cpu_only_room(bob, "two"), bob, games=10, cpu_level="easy")
    assert str(refused.value) == message_for("site_busy")


def test_a_match_counts_as_a_match_not_as_cpu_games(settings, alice):
    """A match's games (with CPU demo players) are limited by the match limit; they never
    use up the account's CPU games, and the match's next game is never refused."""
    settings.DOBON_CPU_GAMES_PER_ACCOUNT = 1
    match = matches.start_match(cpu_only_room(alice), alice, games=2, cpu_level="easy")
    cpu.start_game_against_cpus(alice, "easy")
    running = Game.objects.get(match=match, status=Game.Status.RUNNING)
    play.abort_game(running, alice)  # ends the match (an aborted game ends its match)
    assert Match.objects.get(pk=match.pk).status == Match.Status.ABORTED


def test_the_match_form_shows_the_refusal(settings, alice):
    settings.DOBON_MATCHES_PER_ACCOUNT = 0
    room = cpu_only_room(alice)
    client = signed_in(alice)
    client.post(reverse("game:start_match", args=[room.pk]),
                {"games": "10", "cpu_level": "easy"})
    page = client.get(room.get_absolute_url()).content.decode()
    assert message_for("too_many_matches") in page
    assert not Match.objects.exists()
