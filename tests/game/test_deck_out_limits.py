"""Issue 20: the deck-out rate overflowed. After 31 consecutive deck-outs the next game
could not start (`integer out of range`), its match stayed running for ever and the
sweep retried it 4 times a second; at rate 2^26 a winning move failed. §R12.3 / §R16.14
now cap the rate at 2^20, every stored rate and point total is a 64-bit column, and a
match whose next game cannot start ends, saying why.

The columns matter on PostgreSQL (SQLite integers are 64-bit anyway): CI runs these
tests there (DATABASE_URL)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import DataError
from django.test import Client
from django.urls import reverse
from history_helpers import AGARI, DECK_OUT, DOBON
from play_helpers import NOW, make_room, position, started

from game.models import (
    DobonTally,
    Game,
    GamePlayer,
    Match,
    Membership,
    PlayerStats,
    Room,
    RoomStanding,
)
from game.rules import MAX_RATE
from game.services import matches, play

pytestmark = pytest.mark.django_db(transaction=True)

NEAR_32_BITS = 2**31 - 1_000


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""


def _start(room: Room, people: list[Any], hands: list[list[str]], now: float,
           deck: list[str] | None = None) -> Game:
    """A fixed position (tests/game/history_helpers.py) at the rate the room is at."""
    room.refresh_from_db()
    engine = position(hands, deck=deck, now=now, rate=room.next_rate)
    return started(room, people[0], engine, now=now)


def play_agari(room: Room, people: list[Any], now: float = NOW) -> Game:
    game = _start(room, people, AGARI, now)
    play.perform_action(game, people[0], {"type": "play", "cards": ["R5"]}, now=now + 1)
    return _over(game)


def play_dobon(room: Room, people: list[Any], now: float = NOW) -> Game:
    game = _start(room, people, DOBON, now)
    play.perform_action(game, people[0], {"type": "play", "cards": ["R5"]}, now=now + 1)
    play.perform_action(game, people[1], {"type": "dobon"}, now=now + 2)
    return _over(game)


def play_deck_out(room: Room, people: list[Any], now: float = NOW) -> Game:
    game = _start(room, people, DECK_OUT, now, deck=["G1"])
    play.perform_action(game, people[0], {"type": "draw"}, now=now + 1)
    return _over(game)


def _over(game: Game) -> Game:
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED, game.status
    return game


def _streak(room: Room, deck_outs: int) -> Room:
    Room.objects.filter(pk=room.pk).update(deck_out_streak=deck_outs)
    room.refresh_from_db()
    return room


def test_r16_14_a_streak_past_the_cap_starts_games_at_2_to_the_20(people):
    """The finding: after 31 deck-outs the next game could not start."""
    room = _streak(make_room(*people), 31)
    assert room.next_rate == MAX_RATE
    game = play_deck_out(room, people)  # starts at the cap, and is itself a deck-out
    assert game.rate == MAX_RATE
    room.refresh_from_db()
    assert room.deck_out_streak == 32 and room.next_rate == MAX_RATE
    following = play.start_game(room, people[0])
    assert following.rate == MAX_RATE


def test_r16_14_wins_at_the_largest_rate_are_stored_past_32_bits(people):
    """The finding: at a large rate a winning move failed with server_error."""
    room = _streak(make_room(*people), 20)
    play_dobon(room, people)  # creates every history row at rate 2^20
    # Totals that a long streak of wins at the cap reaches: near the 32-bit limit.
    for model in (Membership, RoomStanding, PlayerStats, DobonTally):
        model.objects.filter(points__gt=0).update(points=NEAR_32_BITS)
        model.objects.filter(points__lt=0).update(points=-NEAR_32_BITS)
    _streak(room, 20)
    game = play_dobon(room, people, now=1_700_000_100.0)
    assert game.rate == MAX_RATE
    won = {p.user_id: p.delta for p in GamePlayer.objects.filter(game=game)}
    winner = max(won, key=lambda user_id: won[user_id])
    assert won[winner] > 0
    assert Membership.objects.get(room=room, user_id=winner).points == NEAR_32_BITS + won[winner]
    assert PlayerStats.objects.get(user_id=winner).points == NEAR_32_BITS + won[winner]
    loser = min(won, key=lambda user_id: won[user_id])
    assert RoomStanding.objects.get(room=room, user_id=loser).points == -NEAR_32_BITS + won[loser]
    assert GamePlayer.objects.get(game=game, user_id=winner).user_net_after > 2**31


def test_r16_14_going_out_at_the_cap_after_a_long_streak(people):
    room = _streak(make_room(*people), 10_000)
    game = play_agari(room, people)
    assert game.rate == MAX_RATE
    assert GamePlayer.objects.get(game=game, user=people[0]).delta == 40 * MAX_RATE


# -- a match whose next game cannot start ends -----------------------------------------------


def test_a_match_whose_next_game_cannot_start_is_aborted_with_its_reason(people, monkeypatch):
    """The finding: a failing start left the match running for ever, retried 4 times a
    second by the sweep with a traceback each time."""
    room = make_room(*people)
    match = matches.start_match(room, people[0], games=3)
    Game.objects.filter(match=match).update(status=Game.Status.FINISHED)
    calls = []

    def broken_start(*args: Any, **kwargs: Any) -> Game:
        calls.append(1)
        Room.objects.filter(pk=room.pk).update(deck_out_streak=-1)  # a failing statement
        raise DataError("integer out of range")

    monkeypatch.setattr(play, "start_game", broken_start)
    assert matches.start_next(match.pk) is None
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED and match.finished_at is not None
    assert match.end_reason == "start_failed"
    # The sweep does not try again.
    assert matches.start_waiting() == 0 and len(calls) == 1
    page = _signed_in(people[1]).get(reverse("game:match", args=[match.pk])).content.decode()
    assert 'data-testid="match-end-reason"' in page


def test_the_sweep_ends_a_match_whose_start_raises_anything(people, monkeypatch):
    room = make_room(*people)
    match = matches.start_match(room, people[0], games=3)
    Game.objects.filter(match=match).update(status=Game.Status.FINISHED)
    monkeypatch.setattr(play, "start_game", _raise_runtime_error)
    assert matches.start_waiting() == 0
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED and match.end_reason == "start_failed"


def _raise_runtime_error(*args: Any, **kwargs: Any) -> Game:
    raise RuntimeError("boom")


def _signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client
