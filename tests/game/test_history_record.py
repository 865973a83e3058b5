"""The aggregates counted in the finishing transaction (issue 8): standings, player
statistics, who dobon'd whom, and the profile chart's running totals."""

from __future__ import annotations

import pytest

from game.models import Game, GamePlayer
from game.models.history import DobonTally, PlayerStats, RoomStanding
from game.services import play, rooms
from game.services.history import room_standings
from tests.game.history_helpers import play_agari, play_deck_out, play_dobon, play_return
from tests.game.play_helpers import NOW, make_room

pytestmark = pytest.mark.django_db


@pytest.fixture
def room(people):
    return make_room(*people)


def _standing(room, user):
    return RoomStanding.objects.get(room=room, user=user)


def test_r11_1_going_out_counts_a_win_and_points(room, people):
    alice, bob = people[:2]
    play_agari(room, people)
    line = _standing(room, alice)
    assert (line.games, line.points, line.wins_agari, line.wins) == (1, 40, 1, 1)
    assert _standing(room, bob).points == -6
    stats = PlayerStats.objects.get(user=alice)
    assert (stats.games, stats.points, stats.points_per_game, stats.best_delta) == (1, 40, 40.0, 40)


def test_r11_2_dobon_counts_declarer_win_target_dobonned_and_tally(room, people):
    alice, bob = people[:2]
    play_dobon(room, people)
    assert _standing(room, bob).wins_dobon == 1
    assert _standing(room, alice).dobonned == 1
    tally = DobonTally.objects.get(room=room)
    assert (tally.declarer.user, tally.target.user) == (bob, alice)
    assert (tally.count, tally.returned, tally.points) == (1, 0, 51)


def test_r11_3_return_counts_as_the_targets_win_not_dobonned(room, people):
    alice, bob = people[:2]
    play_return(room, people)
    line = _standing(room, alice)
    assert (line.wins_return, line.dobonned, line.points) == (1, 0, 49)
    tally = DobonTally.objects.get(room=room)
    assert (tally.count, tally.returned, tally.points) == (1, 1, -49)


def test_r12_deck_out_counts_for_every_seat_and_no_points(room, people):
    play_deck_out(room, people)
    for person in people:
        line = _standing(room, person)
        assert (line.games, line.deck_outs, line.points, line.wins) == (1, 1, 0, 0)


def test_totals_over_several_games_and_chart_numbers(room, people):
    alice = people[0]
    play_agari(room, people, now=NOW)
    play_dobon(room, people, now=NOW + 100)
    returned = play_return(room, people, now=NOW + 200)
    play_deck_out(room, people, now=NOW + 300)
    stats = PlayerStats.objects.get(user=alice)
    assert stats.games == 4
    assert stats.points == 40 - 51 + 49 + 0
    assert (stats.wins_agari, stats.wins_dobon, stats.wins_return) == (1, 0, 1)
    assert (stats.dobonned, stats.deck_outs) == (1, 1)
    assert (stats.best_delta, stats.best_game) == (49, returned)
    rows = GamePlayer.objects.filter(user=alice).order_by("user_game_number")
    assert [r.user_game_number for r in rows] == [1, 2, 3, 4]
    assert [r.user_net_after for r in rows] == [40, -11, 38, 38]
    # Net points in the room equal the sum of the games' deltas.
    assert _standing(room, alice).points == sum(r.delta for r in rows)


def test_past_member_keeps_their_line_and_is_marked_not_seated(room, people):
    alice, bob = people[:2]
    play_agari(room, people)
    rooms.leave_room(room, bob)
    lines = {row["username"]: row for row in room_standings(room)}
    assert lines["bob"]["points"] == -6 and lines["bob"]["seated"] is False
    assert lines["alice"]["seated"] is True
    assert lines["alice"]["wins"] == {"agari": 1, "dobon": 0, "return": 0}
    assert [row["username"] for row in room_standings(room)][0] == "alice"  # best first


def test_aborted_game_counts_nowhere(room, people):
    alice = people[0]
    game = play.start_game(room, alice, now=NOW)
    play.abort_game(game, by=alice, now=NOW + 5)
    assert Game.objects.get(pk=game.pk).status == Game.Status.ABORTED
    assert not RoomStanding.objects.exists()
    assert not PlayerStats.objects.exists()


def test_cpu_seat_has_a_standing_but_no_player_stats(room, people):
    """A seat without a user is a CPU player (helper cpuroom's GamePlayer rows): it
    gets a room line marked CPU and never reaches PlayerStats (the leaderboard)."""
    alice, bob = people[:2]
    game = play_agari(room, people)
    GamePlayer.objects.filter(game=game, user=bob).update(
        user=None, cpu_level="normal", username="CPU (普通)"
    )
    # Count a second game with the CPU seat through the same hook the live layer calls.
    from game.rules import Game as Engine
    from game.services.history import record_finished
    from game.services.play import seats_of

    seats = seats_of(game)
    engine = Engine.from_dict(game.state)
    record_finished(game, engine, seats, engine.result.to_dict())
    cpu = RoomStanding.objects.get(room=room, user__isnull=True)
    assert cpu.is_cpu and cpu.name == "CPU (普通)" and cpu.games == 1
    assert cpu.cpu_key.endswith("@1")  # keyed by its room seat, not by its translated name
    assert PlayerStats.objects.filter(user=bob).get().games == 1  # only the first game
    kinds = {row["username"]: row["kind"] for row in room_standings(room)}
    # Shown by its level and room seat in the reader's language, whatever name was stored.
    assert kinds["CPU 2 (普通)"] == "cpu" and kinds["alice"] == "human"


def test_rebuild_counts_the_same_as_the_finishing_transaction(room, people):
    """manage.py rebuild_history (games finished before the aggregates existed)."""
    from django.core.management import call_command

    from game.services.history import room_standings as standings_of

    play_agari(room, people, now=NOW)
    play_dobon(room, people, now=NOW + 100)
    play_return(room, people, now=NOW + 200)
    play_deck_out(room, people, now=NOW + 300)
    before = (standings_of(room), list(PlayerStats.objects.order_by("user_id").values()),
              list(DobonTally.objects.values("count", "returned", "points")),
              list(GamePlayer.objects.order_by("pk").values_list("user_game_number",
                                                                 "user_net_after")))
    RoomStanding.objects.all().delete()
    PlayerStats.objects.all().delete()
    call_command("rebuild_history", stdout=open("/dev/null", "w"))  # noqa: SIM115
    after = (standings_of(room), list(PlayerStats.objects.order_by("user_id").values()),
             list(DobonTally.objects.values("count", "returned", "points")),
             list(GamePlayer.objects.order_by("pk").values_list("user_game_number",
                                                                "user_net_after")))
    assert after == before
