"""Live play service: starting games, every action path, settlement, §R13, races."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from django.db import connection
from play_helpers import (
    NOW,
    A,
    B,
    C,
    D,
    engine_of,
    event_types,
    make_room,
    play_action,
    position,
    set_position,
    started,
)

from game.models import Game, GameEvent, GamePlayer, Membership, Room
from game.rules import Game as Engine
from game.services import clock, play

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_broker(settings):
    # No ETA tasks into a real broker from unit tests; test_timeouts covers scheduling.
    settings.CELERY_BROKER_URL = ""


@pytest.fixture
def room(alice, bob, carol, dave) -> Room:
    return make_room(alice, bob, carol, dave)


@pytest.fixture
def spy_new(monkeypatch) -> list[dict[str, Any]]:
    """Record the arguments start_game gives the engine."""
    calls: list[dict[str, Any]] = []
    real = Engine.new

    def recording(**kwargs: Any) -> Engine:
        calls.append(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(play.Engine, "new", staticmethod(recording))
    return calls


def four_hands(**overrides: list[str]) -> list[list[str]]:
    hands = {"a": ["G1", "G2"], "b": ["R5", "B7"], "c": ["Y9", "Y8"], "d": ["G9", "G8"]}
    hands.update(overrides)
    return [hands["a"], hands["b"], hands["c"], hands["d"]]


def seq_numbers(game: Game) -> list[int]:
    return list(game.events.order_by("seq").values_list("seq", flat=True))


# -- start ----------------------------------------------------------------------------------


def test_start_game_records_players_in_clockwise_room_seat_order(alice, bob, carol, spy_new):
    room = make_room(alice, carol, bob, seats=[5, 0, 2], seat_count=6, timeout_seconds=7)
    game = play.start_game(room, alice, now=NOW)
    rows = GamePlayer.objects.filter(game=game).values_list("seat", "username", "room_seat_index")
    players = list(rows)
    assert players == [(0, "carol", 0), (1, "bob", 2), (2, "alice", 5)]
    assert game.number == 1 and game.version == 0 and game.status == "running"
    assert game.rate == 1 and game.started_by == alice
    assert spy_new[0]["players"] == 3 and spy_new[0]["timeout"] == 7.0
    assert engine_of(game).next_deadline == pytest.approx(NOW + 7)
    assert game.next_deadline.timestamp() == pytest.approx(NOW + 7)
    assert event_types(game) == ["start"]


def test_first_game_first_player_is_owners_left_neighbour_r3_2(alice, bob, carol, spy_new):
    # alice owns room seat 5; clockwise after 5 wraps round to room seat 0 (carol).
    room = make_room(alice, carol, bob, seats=[5, 0, 2], seat_count=6)
    play.start_game(room, alice, now=NOW)
    assert spy_new[0]["first_player"] == 0  # carol
    room2 = make_room(alice, bob, carol)
    play.start_game(room2, alice, now=NOW)
    assert spy_new[1]["first_player"] == B


def test_first_game_with_owner_not_seated_starts_at_engine_seat_0(alice, bob, carol, spy_new):
    room = make_room(alice, bob, carol, seats=[0, 2, 3])
    Membership.objects.filter(room=room, user=alice).delete()
    play.start_game(room, alice, now=NOW)
    assert spy_new[0]["first_player"] == 0 and spy_new[0]["players"] == 2


def test_only_the_owner_may_start(room, bob, mallory):
    for who in (bob, mallory):
        with pytest.raises(PermissionDenied) as info:
            play.start_game(room, who, now=NOW)
        assert info.value.code == "not_owner"
    assert not Game.objects.exists()


def test_start_needs_two_seated_members(alice):
    room = make_room(alice)
    with pytest.raises(play.PlayError) as info:
        play.start_game(room, alice, now=NOW)
    assert info.value.code == "too_few_players"


def test_start_refused_while_a_game_runs(room, alice):
    play.start_game(room, alice, now=NOW)
    with pytest.raises(play.PlayError) as info:
        play.start_game(room, alice, now=NOW)
    assert info.value.code == "game_running"
    assert Game.objects.count() == 1


# -- actions ------------------------------------------------------------------------------


def test_play_on_turn_saves_state_version_and_contiguous_events(room, alice, bob):
    game = started(room, alice, position(four_hands(), first_player=B))
    out = play.perform_action(game, bob, play_action("R5"), now=NOW + 1)
    game.refresh_from_db()
    assert out.version == game.version == 1
    assert engine_of(game).top == "R5" and engine_of(game).turn == C
    assert event_types(game) == ["start", "play", "turn"]
    assert seq_numbers(game) == [0, 1, 2]
    assert list(game.events.values_list("version", flat=True)) == [0, 1, 1]
    assert game.next_deadline.timestamp() == pytest.approx(NOW + 11)


def test_refusal_carries_engine_code_and_changes_nothing(room, alice, bob, carol):
    game = started(room, alice, position(four_hands(), first_player=B))
    before = Game.objects.get(pk=game.pk).state
    with pytest.raises(play.ActionRefused) as info:
        play.perform_action(game, carol, play_action("Y9"), now=NOW + 1)
    assert info.value.code == "not_your_turn" and info.value.message
    with pytest.raises(play.ActionRefused) as info:
        play.perform_action(game, bob, play_action("B7"), now=NOW + 1)
    assert info.value.code == "does_not_match"
    game.refresh_from_db()
    assert game.version == 0 and game.state == before and event_types(game) == ["start"]


@pytest.mark.parametrize(
    "action",
    [
        None,
        "draw",
        {"type": "fly"},
        {"type": "play", "cards": "R5"},
        {"type": "play", "cards": []},
        {"type": "color", "color": 3},
    ],
)
def test_malformed_actions_are_refused_as_bad_action(room, alice, bob, action):
    game = started(room, alice, position(four_hands(), first_player=B))
    with pytest.raises(play.PlayError) as info:
        play.perform_action(game, bob, action, now=NOW + 1)
    assert info.value.code == "bad_action"
    assert Game.objects.get(pk=game.pk).version == 0


def test_unknown_card_passes_the_engine_code_through(room, alice, bob):
    game = started(room, alice, position(four_hands(), first_player=B))
    with pytest.raises(play.ActionRefused) as info:
        play.perform_action(game, bob, play_action("Q9"), now=NOW + 1)
    assert info.value.code == "unknown_card"


def test_outsider_is_not_seated(room, alice, mallory):
    game = started(room, alice)
    with pytest.raises(play.PlayError) as info:
        play.perform_action(game, mallory, {"type": "draw"}, now=NOW + 1)
    assert info.value.code == "not_seated"


def test_no_game_when_the_game_is_over(room, alice, bob):
    game = started(room, alice)
    play.abort_game(game, alice, now=NOW + 1)
    with pytest.raises(play.PlayError) as info:
        play.perform_action(game, bob, {"type": "draw"}, now=NOW + 2)
    assert info.value.code == "no_game"
    with pytest.raises(play.PlayError) as info:
        play.act_in_room(room.pk, bob, {"type": "draw"}, now=NOW + 2)
    assert info.value.code == "no_game"


def test_draw_then_pass(room, alice, bob):
    game = started(room, alice, position(four_hands(), first_player=B))
    play.perform_action(game, bob, {"type": "draw"}, now=NOW + 1)
    assert engine_of(game).hand(B) == ["R5", "B7", "Y0"]
    play.perform_action(game.pk, bob, {"type": "pass"}, now=NOW + 2)
    assert engine_of(game).turn == C
    assert event_types(game)[1:] == ["draw", "drawn", "turn", "pass", "turn"]
    drawn = game.events.get(data__type="drawn")
    assert drawn.to_seat == B


def test_wild_then_colour_choice(room, alice, bob):
    game = started(room, alice, position(four_hands(b=["W", "B7"]), first_player=B))
    play.perform_action(game, bob, play_action("W"), now=NOW + 1)
    assert engine_of(game).phase == "color"
    play.perform_action(game, bob, {"type": "color", "color": "G"}, now=NOW + 2)
    engine = engine_of(game)
    assert engine.color == "G" and engine.turn == C and game.version == 2


def test_taking_a_draw_stack(room, alice, bob):
    game = started(room, alice, position(four_hands(), first="R+2", first_player=B))
    play.perform_action(game, bob, {"type": "draw"}, now=NOW + 1)
    engine = engine_of(game)
    assert len(engine.hand(B)) == 4 and engine.turn == C
    assert "take" in event_types(game)


def test_cut_in_moves_turn_after_cutter(room, alice, bob):
    game = started(room, alice, position(four_hands(a=["R5", "G2"]), first_player=B))
    play.perform_action(game, bob, play_action("R5"), now=NOW + 1)
    play.perform_action(game, alice, play_action("R5"), now=NOW + 2)
    engine = engine_of(game)
    assert engine.turn == B and engine.hand(A) == ["G2"]
    cut = game.events.filter(data__type="play").order_by("seq").last()
    assert cut.data["cut_in"] is True and cut.data["seat"] == A


def test_decline_lets_a_dobon_chance_lapse(room, alice, bob, carol):
    hands = four_hands(c=["Y5", "Y8"], d=["Y3", "R2"])
    game = started(room, alice, position(hands, first_player=B))
    play.perform_action(game, bob, play_action("R5"), now=NOW + 1)
    assert engine_of(game).chances(D) == ["dobon"]
    dave = GamePlayer.objects.get(game=game, seat=D).user
    play.perform_action(game, dave, {"type": "decline"}, now=NOW + 2)
    assert engine_of(game).chances(D) == []
    assert game.events.filter(data__type="decline", to_seat=D).exists()


def test_dobon_settles_points_and_resets_streak(room, alice, bob, carol):
    room.deck_out_streak = 2
    room.save()
    game = started(room, alice, position(four_hands(c=["Y5"]), first_player=B, rate=4))
    play.perform_action(game, bob, play_action("R5"), now=NOW + 1)
    play.perform_action(game, carol, {"type": "dobon"}, now=NOW + 2)
    game.refresh_from_db()
    assert game.status == "finished" and game.finished_at is not None
    assert game.next_deadline is None
    # §R11.2: T = A 3 + B 12 (7 + the 5 counted back) + C 5 + D 17 = 37, times rate 4.
    assert game.result["kind"] == "dobon" and game.result["payments"] == [[B, C, 148]]
    assert [p["username"] for p in game.result["players"]] == ["alice", "bob", "carol", "dave"]
    points = dict(Membership.objects.filter(room=room).values_list("user__username", "points"))
    assert points == {"alice": 0, "bob": -148, "carol": 148, "dave": 0}
    deltas = dict(GamePlayer.objects.filter(game=game).values_list("seat", "delta"))
    assert deltas == {A: 0, B: -148, C: 148, D: 0}
    room.refresh_from_db()
    assert room.deck_out_streak == 0 and room.next_rate == 1


def test_dobon_return_pays_the_returner(room, alice, bob, carol):
    game = started(room, alice, position(four_hands(b=["R5", "Y5"], c=["G5"]), first_player=B))
    play.perform_action(game, bob, play_action("R5"), now=NOW + 1)
    play.perform_action(game, carol, {"type": "dobon"}, now=NOW + 2)
    assert "return" in engine_of(game).chances(B)
    play.perform_action(game, bob, {"type": "return"}, now=NOW + 3)
    game.refresh_from_db()
    # §R11.3: T = A 3 + B 10 + C 5 + D 17 = 35; carol pays bob.
    assert game.result["kind"] == "return" and game.result["payments"] == [[C, B, 35]]
    assert Membership.objects.get(room=room, user=bob).points == 35


def test_going_out_pays_the_winner(room, alice, bob):
    game = started(room, alice, position(four_hands(b=["R5"]), first_player=B))
    out = play.perform_action(game, bob, play_action("R5"), now=NOW + 1)
    assert out.finished
    game.refresh_from_db()
    assert game.result["kind"] == "agari" and game.result["winners"] == [B]
    points = dict(Membership.objects.filter(room=room).values_list("user__username", "points"))
    assert points == {"alice": -3, "bob": 37, "carol": -17, "dave": -17}
    assert event_types(game)[-1] == "finished"


def test_a_member_who_left_does_not_get_points_but_keeps_the_delta(room, alice, bob, dave):
    game = started(room, alice, position(four_hands(b=["R5"]), first_player=B))
    Membership.objects.filter(room=room, user=dave).delete()
    play.perform_action(game, bob, play_action("R5"), now=NOW + 1)
    assert GamePlayer.objects.get(game=game, seat=D).delta == -17
    assert not Membership.objects.filter(room=room, user=dave).exists()


# -- deck-outs, rates and the next first player -------------------------------------------------


def deck_out(room: Room, alice: Any, bob: Any, now: float) -> Game:
    """Bob (engine seat 1, first player) draws the last card: a deck-out (§R12.1)."""
    game = started(
        room, alice, position(four_hands(), deck=["Y0"], first_player=B, now=now), now=now
    )
    play.perform_action(game, bob, {"type": "draw"}, now=now + 1)
    game.refresh_from_db()
    assert game.status == "finished" and game.result["kind"] == "deck_out"
    return game


def test_deck_outs_double_the_rate_and_a_win_resets_it_r12_3(room, alice, bob, spy_new):
    deck_out(room, alice, bob, NOW)
    room.refresh_from_db()
    assert room.deck_out_streak == 1
    game2 = play.start_game(room, alice, now=NOW + 10)
    assert game2.rate == 2 and game2.number == 2 and spy_new[-1]["rate"] == 2
    play.abort_game(game2, alice, now=NOW + 11)
    deck_out(room, alice, bob, NOW + 20)
    room.refresh_from_db()
    assert room.deck_out_streak == 2
    game4 = play.start_game(room, alice, now=NOW + 30)
    assert game4.rate == 4
    set_position(game4, position(four_hands(b=["R5"]), first_player=B, rate=4, now=NOW + 30))
    play.perform_action(game4, bob, play_action("R5"), now=NOW + 31)
    room.refresh_from_db()
    assert room.deck_out_streak == 0 and room.next_rate == 1
    assert Membership.objects.get(room=room, user=bob).points == 37 * 4


def test_after_a_deck_out_the_seat_after_the_drawer_plays_first_r13_2(room, alice, bob, spy_new):
    deck_out(room, alice, bob, NOW)
    play.start_game(room, alice, now=NOW + 10)
    assert spy_new[-1]["first_player"] == C


def test_the_winner_plays_first_next_game_r13_1(room, alice, bob, carol, spy_new):
    game = started(room, alice, position(four_hands(c=["Y5"]), first_player=B))
    play.perform_action(game, bob, play_action("R5"), now=NOW + 1)
    play.perform_action(game, carol, {"type": "dobon"}, now=NOW + 2)
    play.start_game(room, alice, now=NOW + 10)
    assert spy_new[-1]["first_player"] == C


def test_winner_who_left_passes_first_play_clockwise_r13_3(alice, bob, carol, dave, spy_new):
    room = make_room(alice, bob, carol, dave, seats=[0, 2, 4, 6], seat_count=8)
    game = started(room, alice, position(four_hands(b=["R5"]), first_player=B))
    play.perform_action(game, bob, play_action("R5"), now=NOW + 1)  # bob (room seat 2) wins
    Membership.objects.filter(room=room, user=bob).delete()
    play.start_game(room, alice, now=NOW + 10)
    # Seated now: alice 0, carol 4, dave 6; after room seat 2 comes carol = engine seat 1.
    assert spy_new[-1]["first_player"] == 1


def test_winner_who_moved_seat_still_plays_first_r13_1(alice, bob, carol, dave, spy_new):
    room = make_room(alice, bob, carol, dave)
    game = started(room, alice, position(four_hands(b=["R5"]), first_player=B))
    play.perform_action(game, bob, play_action("R5"), now=NOW + 1)
    Membership.objects.filter(room=room, user=bob).update(seat_index=5)
    room.seat_count = 6
    room.save()
    play.start_game(room, alice, now=NOW + 10)
    assert spy_new[-1]["first_player"] == 3  # alice 0, carol 2, dave 3, bob 5


# -- time ---------------------------------------------------------------------------------------


def test_action_applies_due_timeouts_first(room, alice, carol):
    hands = four_hands(c=["R7", "Y8"])
    game = started(room, alice, position(hands, first_player=B))
    out = play.perform_action(game, carol, play_action("R7"), now=NOW + 10.5)
    types = [e["type"] for e in out.events]
    assert types[:5] == ["timeout", "draw", "drawn", "pass", "turn"]
    assert "play" in types
    engine = engine_of(game)
    assert engine.hand(B) == ["R5", "B7", "Y0"] and engine.top == "R7"


def test_refusal_after_a_deadline_rolls_the_timeouts_back_too(room, alice):
    game = started(room, alice, position(four_hands(), first_player=B))
    with pytest.raises(play.ActionRefused):
        play.perform_action(game, alice, play_action("G1"), now=NOW + 10.5)
    game.refresh_from_db()
    assert game.version == 0 and engine_of(game).turn == B


def test_a_seat_whose_user_left_plays_on_by_timeouts(room, alice, carol):
    game = started(room, alice, position(four_hands(), first_player=C))
    Membership.objects.filter(room=room, user=carol).delete()
    with pytest.raises(play.PlayError) as info:
        play.perform_action(game, carol, {"type": "draw"}, now=NOW + 1)
    assert info.value.code == "not_seated"
    assert clock.expire_due_games(now=NOW + 10.1) == 1
    engine = engine_of(game)
    assert engine.turn == D and len(engine.hand(C)) == 3


# -- pushes -------------------------------------------------------------------------------------


def test_pushes_give_each_seat_only_its_own_hand(room, alice, bob, carol, dave):
    game = started(room, alice, position(four_hands(), first_player=B))
    engine = engine_of(game)
    events = engine.draw(B, NOW + 1)
    change = play.TableChange(
        room.pk, game.pk, 1, 1, "running", engine, events, play.seats_of(game)
    )
    pushes = dict(play.build_pushes(change))
    for user, seat in ((alice, A), (bob, B), (carol, C), (dave, D)):
        push = pushes[play.user_group(user.pk)]
        assert push["view"]["hand"] == engine.hand(seat) and push["seat"] == seat
        drawn = [e for e in push["events"] if e["type"] == "drawn"]
        assert (drawn != []) == (seat == B)
        others = [engine.hand(s) for s in range(4) if s != seat]
        assert all(h != push["view"]["hand"] for h in others)
    assert play.room_group(room.pk) not in pushes  # every socket: no table payload there
    public = pushes[play.watch_group(room.pk)]
    assert "hand" not in public["view"] and public["view"]["legal_actions"] == []
    assert all(e.get("to") is None for e in public["events"])
    assert "drawn" not in [e["type"] for e in public["events"]]
    assert "Y0" not in str(public)


def test_pushes_wait_for_the_commit(
    room, alice, bob, monkeypatch, django_capture_on_commit_callbacks
):
    sent: list[Any] = []
    monkeypatch.setattr(play.sender, "send", lambda pushes: sent.append(pushes))
    game = started(room, alice, position(four_hands(), first_player=B))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        play.perform_action(game, bob, {"type": "draw"}, now=NOW + 1)
    assert sent == [] and len(callbacks) == 1
    callbacks[0]()
    assert len(sent) == 1 and {p[1]["version"] for p in sent[0]} == {1}


# -- abort ------------------------------------------------------------------------------------


def test_abort_stops_the_clock_and_bumps_the_version(room, alice):
    game = started(room, alice)
    play.abort_game(game, alice, now=NOW + 1)
    game.refresh_from_db()
    assert game.status == "aborted" and game.next_deadline is None and game.version == 1
    assert event_types(game)[-1] == "aborted"
    assert clock.expire_due_games(now=NOW + 100) == 0
    play.abort_game(game, alice, now=NOW + 2)  # idempotent
    assert Game.objects.get(pk=game.pk).version == 1


# -- a race on PostgreSQL -------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_simultaneous_cut_ins_exactly_one_wins_on_postgres(alice, bob, carol, dave, postgres_only):
    room = make_room(alice, bob, carol, dave)
    hands = four_hands(a=["R5"], b=["R5", "G7"], c=["R5"])
    game = started(room, alice, position(hands, first_player=B))
    play.perform_action(game, bob, play_action("R5"), now=NOW + 1)
    barrier = threading.Barrier(2)
    outcomes: dict[str, Any] = {}

    def cut_in(user: Any) -> None:
        try:
            barrier.wait()
            outcomes[user.username] = play.perform_action(
                game.pk, user, play_action("R5"), now=NOW + 2
            )
        except play.PlayError as exc:
            outcomes[user.username] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=cut_in, args=(u,)) for u in (alice, carol)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    winners = [k for k, v in outcomes.items() if isinstance(v, play.Outcome)]
    losers = [v for v in outcomes.values() if isinstance(v, play.PlayError)]
    assert len(winners) == 1 and len(losers) == 1, outcomes
    # The winner went out on a cut-in; §R7.3: no cut-in on a going-out play.
    assert losers[0].code == "no_cut_in_on_going_out" and losers[0].message
    game.refresh_from_db()
    assert game.version == 2
    versions = game.events.values_list("version", flat=True).distinct().order_by("version")
    assert list(versions) == [0, 1, 2]
    seqs = list(GameEvent.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(len(seqs)))
