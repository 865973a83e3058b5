"""Ratings written with a rated game's result (issue #34, docs/ratings.md): the model of
item 3 exactly (openskill's PlackettLuce with its defaults, one-seat teams, ranks from
the points change, ties shared, CPU anchors fixed), rated rooms only, finished games
only, the same transaction as the result, and a rebuild that gives the same numbers."""

from __future__ import annotations

import random
from typing import Any

import pytest
from openskill.models import PlackettLuce

from game.models import Game, Rating, RatingChange, Room
from game.ratings.anchors import ANCHORS
from game.services import clock, play, ratings
from game.services.ratings import rebuild_all
from tests.game.history_helpers import play_agari, play_deck_out, play_dobon, play_return
from tests.game.play_helpers import NOW, make_room, seat_cpus

pytestmark = pytest.mark.django_db

PLAYS = (play_agari, play_dobon, play_return, play_deck_out)


def _line(user: Any, game: str = "dobon_uno", track: str = "people") -> Rating:
    return Rating.objects.get(user=user, game=game, track=track)


def _issue_ranks(deltas: list[int], lower_is_better: bool = False) -> list[int]:
    """Item 3 in the test's own words: a seat's rank is 1 + the seats that did better."""
    better = (lambda o, d: o < d) if lower_is_better else (lambda o, d: o > d)
    return [1 + sum(better(o, d) for o in deltas) for d in deltas]


def test_r11_1_a_rated_game_moves_the_winner_up_and_the_others_down(people):
    alice, bob = people[:2]
    game = play_agari(make_room(*people), people)
    deltas = [p.delta for p in game.players.order_by("seat")]
    model = PlackettLuce()
    expected = model.rate([[model.rating()] for _ in range(4)], ranks=_issue_ranks(deltas))
    for seat, person in enumerate(people):
        assert (_line(person).mu, _line(person).sigma) == (
            expected[seat][0].mu, expected[seat][0].sigma)
    worst = people[deltas.index(min(deltas))]
    assert _line(alice).mu > 25 > _line(worst).mu
    changes = list(RatingChange.objects.filter(game=game).order_by("seat"))
    assert [c.seat for c in changes] == [0, 1, 2, 3]
    assert changes[0].mu_before == 25.0 and changes[0].mu == _line(alice).mu
    assert _line(alice).games == 1 and changes[0].number == 1
    assert _line(alice).last_played_at == game.finished_at


def test_equal_changes_share_a_rank_r12_deck_out_is_a_four_way_tie(people):
    play_deck_out(make_room(*people), people)
    model = PlackettLuce()
    tie = model.rate([[model.rating()] for _ in range(4)], ranks=[1, 1, 1, 1])
    assert {(_line(p).mu, _line(p).sigma) for p in people} == {(tie[0][0].mu, tie[0][0].sigma)}


def test_an_unrated_room_changes_nothing(people):
    room = make_room(*people, rated=False)
    game = play_dobon(room, people)
    assert game.rated is False
    assert not Rating.objects.exists() and not RatingChange.objects.exists()
    assert rebuild_all() == 0 and not Rating.objects.exists()


def test_an_aborted_game_changes_nothing(people):
    room = make_room(*people)
    game = play.start_game(room, people[0], now=NOW)
    play.abort_game(game, by=people[0], now=NOW + 5)
    assert not Rating.objects.exists() and not RatingChange.objects.exists()
    assert rebuild_all() == 0


def test_the_rated_flag_is_the_rooms_when_the_game_started(people):
    room = make_room(*people)
    game = play.start_game(room, people[0], now=NOW)
    Room.objects.filter(pk=room.pk).update(rated=False)  # cannot happen through the form
    assert Game.objects.get(pk=game.pk).rated is True


def test_cpu_anchors_never_move_and_the_person_is_rated_against_them(alice):
    room = seat_cpus(make_room(alice), "easy", "normal", "strong")
    clock_now = NOW
    for _ in range(3):
        game = play.start_game(room, alice, now=clock_now)
        game = _play_to_the_end(game, clock_now)
        clock_now = game.finished_at.timestamp() + 10
    rows = RatingChange.objects.filter(cpu_level__isnull=False)
    assert rows.count() == 9
    for row in rows:
        anchor = ANCHORS["dobon_uno"][row.cpu_level]
        assert (row.mu_before, row.sigma_before, row.mu, row.sigma) == (
            anchor.mu, anchor.sigma, anchor.mu, anchor.sigma)
    assert _line(alice).games == 3
    assert not Rating.objects.exclude(user=alice).exists()  # CPUs have no rating line


def _play_to_the_end(game: Game, now: float, limit: int = 3000) -> Game:
    """Nobody acts for the person: timeouts (§R14) and CPU moves, through the sweep."""
    for _ in range(limit):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            return game
        now += 11.0
        clock.expire_due_games(now=now)
    raise AssertionError("the game did not end")


def test_a_crash_while_rating_loses_the_result_too(people, monkeypatch):
    """One transaction: a failure in the rating write rolls back the whole finish."""
    room = make_room(*people)

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(ratings.RatingChange.objects, "bulk_create", broken)
    with pytest.raises(RuntimeError):
        play_agari(room, people)
    game = Game.objects.get(room=room)
    assert game.status == Game.Status.RUNNING and game.result is None
    assert not Rating.objects.exists()
    assert game.players.filter(delta__isnull=False).count() == 0


def test_a_few_hundred_random_games_equal_openskill_directly_and_the_rebuild(
        django_user_model, settings):
    """240 finished games in 8 rooms of 4 drawn from 7 players (some rooms unrated),
    each ending in one of four ways with a random seat order; every stored number equals
    openskill's PlackettLuce run by this test itself in (finished_at, id) order; then
    `rebuild_all` reproduces every row exactly. (The farming cap is off here: these are
    4 hours of games among 7 people; the cap has its own test below.)"""
    settings.DOBON_RATED_PAIR_GAMES_PER_DAY = 0
    rng = random.Random(34)
    pool = [django_user_model.objects.create_user(f"p{i}", password="pw") for i in range(7)]
    rooms = []
    for r in range(8):
        members = rng.sample(pool, 4)
        rooms.append((make_room(*members, rated=r != 3), members))
    now = NOW
    for _ in range(240):
        room, members = rng.choice(rooms)
        rng.choice(PLAYS)(room, members, now=now)
        now += 60
    model = PlackettLuce()
    mine: dict[int, Any] = {}
    rated_games = Game.objects.filter(status="finished", rated=True).order_by("finished_at", "pk")
    assert rated_games.count() > 180
    for game in rated_games.prefetch_related("players"):
        players = sorted(game.players.all(), key=lambda p: p.seat)
        teams = [[mine.get(p.user_id, model.rating())] for p in players]
        new = model.rate(teams, ranks=_issue_ranks([p.delta for p in players]))
        for p, team in zip(players, new, strict=True):
            mine[p.user_id] = team[0]
    stored = {r.user_id: (r.mu, r.sigma) for r in Rating.objects.all()}
    assert stored == {user: (r.mu, r.sigma) for user, r in mine.items()}
    before = _snapshot()
    assert rebuild_all() == rated_games.count()
    assert _snapshot() == before


def _snapshot() -> tuple[set[tuple[Any, ...]], set[tuple[Any, ...]]]:
    lines = set(Rating.objects.values_list("user_id", "game", "track", "mu", "sigma", "ordinal",
                                           "games", "last_played_at"))
    changes = set(RatingChange.objects.values_list(
        "game_id", "seat", "user_id", "cpu_level", "rated_game", "track", "mu_before",
        "sigma_before", "mu", "sigma", "number"))
    return lines, changes


# -- abuse (item 7) ------------------------------------------------------------------------


def test_two_accounts_count_a_capped_number_of_games_together_a_day(people, settings):
    """Farming by two accounts trading wins: after DOBON_RATED_PAIR_GAMES_PER_DAY rated
    games together in 24 hours, more games finish but change no rating; a day later they
    count again; the rebuild applies the same cap and gives the same numbers."""
    settings.DOBON_RATED_PAIR_GAMES_PER_DAY = 3
    room = make_room(*people)
    for i in range(5):
        play_agari(room, people, now=NOW + 60 * i)
    assert _line(people[0]).games == 3
    assert RatingChange.objects.values("game").distinct().count() == 3
    assert Game.objects.filter(status="finished").count() == 5
    play_dobon(room, people, now=NOW + 60 * 4 + 24 * 3600 + 1)  # the window moved on
    assert _line(people[0]).games == 4
    before = _snapshot()
    assert rebuild_all() == 4
    assert _snapshot() == before


def test_no_cap_between_a_person_and_cpus(alice, settings):
    settings.DOBON_RATED_PAIR_GAMES_PER_DAY = 1
    room = seat_cpus(make_room(alice), "easy", "normal", "strong")
    now = NOW
    for _ in range(2):
        game = _play_to_the_end(play.start_game(room, alice, now=now), now)
        now = game.finished_at.timestamp() + 10
    assert _line(alice).games == 2


def test_leaving_does_not_dodge_the_loss(people):
    """A player who leaves mid-game plays on by timeouts (§R14) and the loss is rated."""
    from game.services import rooms as room_services

    alice, bob = people[:2]
    room = make_room(*people)
    game = play.start_game(room, alice, now=NOW)
    room_services.leave_room(room, bob)
    game = _play_to_the_end(game, NOW)
    assert game.status == Game.Status.FINISHED
    change = RatingChange.objects.get(game=game, user=bob)
    assert _line(bob).games == 1 and change.mu == _line(bob).mu


def test_whole_random_games_equal_openskill_directly(people, settings):
    """Whole games of random legal actions and timeouts (history_helpers), one after the
    other in one room, the random hands deciding every points change: the stored numbers
    are openskill's own, and the rebuild gives them again."""
    from tests.game.history_helpers import play_random_game

    settings.DOBON_RATED_PAIR_GAMES_PER_DAY = 0
    room = make_room(*people)
    rng = random.Random(3434)
    now = NOW
    model = PlackettLuce()
    mine = {p.pk: model.rating() for p in people}
    for _ in range(12):
        game, _states = play_random_game(room, people[0], rng, now=now)
        players = list(game.players.order_by("seat"))
        new = model.rate([[mine[p.user_id]] for p in players],
                         ranks=_issue_ranks([p.delta for p in players]))
        for p, team in zip(players, new, strict=True):
            mine[p.user_id] = team[0]
        now = game.finished_at.timestamp() + 30
    assert {r.user_id: (r.mu, r.sigma) for r in Rating.objects.all()} == {
        user: (r.mu, r.sigma) for user, r in mine.items()}
    assert len({r.games for r in Rating.objects.all()}) == 1
    before = _snapshot()
    rebuild_all()
    assert _snapshot() == before
