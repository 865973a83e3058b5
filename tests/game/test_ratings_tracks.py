"""Which rating a game changes (issue #34 items 1-3): the game (`dobon_uno`, `trump_au`,
`trump_standard`, each trump round a game) and the track (`programs` for a game with a
program seat or in a match, else `people`); trump standard ranks lowest first (§T17.3)."""

from __future__ import annotations

from typing import Any

import pytest
from openskill.models import PlackettLuce

from game.models import Game, Membership, Rating, RatingChange
from game.ratings.anchors import ANCHORS
from game.services import clock, matches, play
from tests.game.play_helpers import NOW, make_room, seat_cpus

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _quick_cpus(settings):
    settings.CELERY_BROKER_URL = ""
    settings.DOBON_CPU_DELAY_PERCENT = 0


def _to_the_end(game: Game, now: float, limit: int = 4000) -> Game:
    """Nobody acts for the person or program: timeouts and CPU moves, through the sweep."""
    for _ in range(limit):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            return game
        now += 11.0
        clock.expire_due_games(now=now)
    raise AssertionError("the game did not end")


def _openskill_directly(game: Game, lower_is_better: bool) -> list[Any]:
    """The issue's model by hand: ranks from the points change, anchors for the CPUs."""
    model = PlackettLuce()
    players = list(game.players.order_by("seat"))
    key = "trump_" + game.preset if game.game_kind == "trump_dobon" else "dobon_uno"
    anchors = ANCHORS[key]
    teams = [[model.rating(mu=anchors[p.cpu_level].mu, sigma=anchors[p.cpu_level].sigma)]
             if p.cpu_level else [model.rating()] for p in players]
    deltas = [p.delta for p in players]
    better = (lambda o, d: o < d) if lower_is_better else (lambda o, d: o > d)
    ranks = [1 + sum(better(o, d) for o in deltas) for d in deltas]
    return [team[0] for team in model.rate(teams, ranks=ranks)]


def test_a_program_seat_puts_the_game_on_the_programs_track(bob):
    room = seat_cpus(make_room(bob), "easy", "normal", "strong")
    Membership.objects.filter(room=room, user=bob).update(program_sockets=1)
    game = _to_the_end(play.start_game(room, bob, now=NOW), NOW)
    assert [p["kind"] for p in game.result["players"]][0] == "program"
    line = Rating.objects.get(user=bob)
    assert (line.game, line.track, line.games) == ("dobon_uno", "programs", 1)
    assert set(RatingChange.objects.filter(game=game).values_list("track", flat=True)) == {
        "programs"}
    expected = _openskill_directly(game, lower_is_better=False)[0]
    assert (line.mu, line.sigma) == (expected.mu, expected.sigma)


def test_a_match_game_counts_on_the_programs_track(bob):
    room = make_room(bob, seats=[0])
    match = matches.start_match(room, bob, games=1, program_timeout=1, cpu_level="easy",
                                now=NOW)
    game = _to_the_end(Game.objects.get(match=match), NOW)
    assert game.status == Game.Status.FINISHED
    assert Rating.objects.get(user=bob).track == "programs"


@pytest.mark.parametrize(("preset", "lower"), [("au", False), ("standard", True)])
def test_each_trump_round_is_a_game_of_its_preset(alice, preset, lower):
    room = seat_cpus(make_room(alice, game_kind="trump_dobon", trump_preset=preset,
                               seat_count=4), "easy", "normal", "strong")
    game = _to_the_end(play.start_game(room, alice, now=NOW), NOW)
    line = Rating.objects.get(user=alice)
    assert (line.game, line.track) == (f"trump_{preset}", "people")
    expected = _openskill_directly(game, lower_is_better=lower)[0]
    assert (line.mu, line.sigma) == (expected.mu, expected.sigma)
    if len({p.delta for p in game.players.all()}) > 1:  # the order matters: check it did
        wrong = _openskill_directly(game, lower_is_better=not lower)[0]
        assert (line.mu, line.sigma) != (wrong.mu, wrong.sigma)
