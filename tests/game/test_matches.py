"""Matches (docs/bots-api.md): N games back to back with no human start, CPU demo
players, the program-seat timeout, standings with the tie rule, the log download."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.test import Client
from django.urls import reverse
from play_helpers import NOW, make_room, set_position

from game.history.replay import Version, rebuild
from game.models import Game, GameEvent, GamePlayer, Membership, Room
from game.models.matches import Match
from game.services import clock, engines, matches, panel, play

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""


def cpu_only_room(owner: Any) -> Room:
    """alice owns it and watches; the match fills all four seats with CPUs."""
    return Room.objects.create(name="arena", owner=owner, seat_count=4)


def run_until_over(match: Match, limit: float = 300.0) -> Match:
    """The sweep, again and again, as the scheduler would run it: nobody starts games."""
    give_up = time.monotonic() + limit
    while True:
        match.refresh_from_db()
        if match.status != Match.Status.RUNNING:
            return match
        assert time.monotonic() < give_up, f"match stuck at {match.games_finished} games"
        clock.expire_due_games()


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_ten_game_match_of_cpus_runs_by_itself_to_the_end(alice):
    room = cpu_only_room(alice)
    match = matches.start_match(room, alice, games=10, cpu_level="easy")
    assert Membership.objects.filter(room=room, cpu_level="easy").count() == 4
    match = run_until_over(match)
    assert match.status == Match.Status.FINISHED and match.games_finished == 10
    games = list(Game.objects.filter(match=match).order_by("number"))
    assert [g.status for g in games] == ["finished"] * 10
    assert not Game.objects.filter(room=room, status=Game.Status.RUNNING).exists()
    lines = matches.standings(match)
    totals: dict[int, int] = {}
    for seat, delta in GamePlayer.objects.filter(game__match=match).values_list(
        "room_seat_index", "delta"
    ):
        totals[seat] = totals.get(seat, 0) + (delta or 0)
    assert sorted(line.total for line in lines) == sorted(totals.values())
    assert sum(totals.values()) == 0
    assert [line.total for line in lines] == sorted((line.total for line in lines), reverse=True)
    assert all(line.games == 10 for line in lines)

    page = signed_in(alice).get(match.get_absolute_url()).content.decode()
    assert page.count('data-testid="match-game"') == 10
    assert page.count('data-testid="standing-row"') == 4

    download = signed_in(alice).get(reverse("game:match_log", args=[match.pk]))
    assert download.status_code == 200
    log = json.loads(b"".join(download.streaming_content))
    assert log["format"] == "dobon-match-log/1" and len(log["games"]) == 10
    assert [s["points"] for s in log["standings"]] == [line.total for line in lines]
    assert [g["match_game"] for g in log["games"]] == list(range(1, 11))
    for game_log in log["games"]:
        assert game_log["format"] == "dobon-game-log/1"
        frames = rebuild(game_log["initial"]["engine_state"], versions_of(game_log["events"]))
        assert frames[-1].table["result"] is not None  # replayed to the settlement
        assert frames[-1].table["result"]["deltas"] == game_log["result"]["deltas"]


def versions_of(events: list[dict[str, Any]]) -> list[Version]:
    versions: list[Version] = []
    for e in events:
        if not versions or versions[-1].number != e["version"]:
            versions.append(Version(e["version"], e["input"], []))
        versions[-1].events.append(e["event"])
    return versions


def finished_game(match: Match, number: int, deltas: dict[Any, int]) -> None:
    """A finished game of `match` with the given per-player deltas (people by user)."""
    game = Game.objects.create(room=match.room, number=number, state={}, match=match,
                               status=Game.Status.FINISHED)
    for seat, (user, delta) in enumerate(deltas.items()):
        GamePlayer.objects.create(game=game, seat=seat, room_seat_index=seat, user=user,
                                  username=user.username, delta=delta)


def test_equal_totals_go_to_whoever_reached_the_score_first(alice, bob, carol, dave):
    """zed (bob) reaches 10 in game 1, amy (carol) only in game 2: zed ranks first,
    although "amy" sorts first by name."""
    bob.username, carol.username = "zed", "amy"
    bob.save()
    carol.save()
    room = make_room(alice, bob, carol, dave)
    match = Match.objects.create(room=room, started_by=alice, games_total=3,
                                 status=Match.Status.FINISHED)
    finished_game(match, 1, {alice: 0, bob: 10, carol: 0, dave: -10})
    finished_game(match, 2, {alice: 0, bob: 0, carol: 10, dave: -10})
    finished_game(match, 3, {alice: 5, bob: 0, carol: 0, dave: -5})
    lines = matches.standings(match)
    assert [(line.name, line.total, line.reached) for line in lines] == [
        ("zed", 10, 1), ("amy", 10, 2), ("alice", 5, 3), ("dave", -25, 3),
    ]
    assert [line.rank for line in lines] == [1, 2, 3, 4]


def test_standings_count_games_within_the_match_and_mark_program_players(alice, bob):
    """The room played five games before the match: the match's games are 1 and 2 in
    its standings. bob's seat was played by his program (the result says so): he is
    "program" in the standings and in every game of the log, never "human"."""
    room = make_room(alice, bob)
    match = Match.objects.create(room=room, started_by=alice, games_total=2,
                                 status=Match.Status.FINISHED)
    finished_game(match, 6, {alice: 10, bob: -10})
    finished_game(match, 7, {alice: -5, bob: 5})
    kinds = [{"seat": 0, "username": "alice", "room_seat": 0, "kind": "human"},
             {"seat": 1, "username": "bob", "room_seat": 1, "kind": "program"}]
    Game.objects.filter(match=match).update(result={"players": kinds})
    lines = {line.name: line for line in matches.standings(match)}
    assert (lines["alice"].reached, lines["bob"].reached) == (2, 2)
    assert (lines["alice"].kind, lines["bob"].kind) == ("human", "program")
    log = json.loads(b"".join(
        signed_in(alice).get(reverse("game:match_log", args=[match.pk])).streaming_content))
    assert [s["kind"] for s in log["standings"]] == ["human", "program"]
    assert [s["reached_at_game"] for s in log["standings"]] == [2, 2]
    for game in log["games"]:
        assert [p["kind"] for p in game["players"]] == ["human", "program"]
        assert [p["kind"] for p in game["result"]["players"]] == ["human", "program"]
    page = signed_in(alice).get(match.get_absolute_url()).content.decode()
    assert 'data-kind="program"' in page


def test_a_program_seat_gets_its_r14_action_after_the_match_timeout(alice, bob, settings):
    """§R14 with the match's 1-second program timeout, applied by the service layer (the
    engine keeps its 10 s): the program seat that does not act is moved by the sweep
    well before its engine deadline, with `auto` in the logged replay input."""
    room = make_room(bob, seats=[0])
    Membership.objects.filter(room=room, user=bob).update(program_sockets=1)
    match = matches.start_match(room, bob, games=1, program_timeout=1, cpu_level="easy",
                                now=NOW)
    game = Game.objects.get(match=match)
    now = NOW
    while not GameEvent.objects.filter(game=game, step__auto=True).exists():
        now += 0.25
        assert now < NOW + 30, "no automatic action for the program seat"
        clock.expire_due_games(now=now)
    auto = GameEvent.objects.filter(game=game, step__auto=True).order_by("seq").first()
    assert auto.step["seat"] == 0
    # The program seat became able to act with the version before this one; it was
    # moved 1 s after that (the sweep runs every 0.25 s here), not after 10 s.
    previous = GameEvent.objects.filter(game=game, version=auto.version - 1).first()
    became_able = previous.step["now"] if previous.step else NOW
    assert 1.0 <= auto.step["now"] - became_able <= 1.0 + 0.25 + 1e-6


def test_start_refuses_bad_settings_and_outsiders(alice, bob):
    room = make_room(alice, bob)
    for games in (0, 1001, "many"):
        with pytest.raises(matches.MatchError):
            matches.start_match(room, alice, games=games)
    with pytest.raises(matches.MatchError):
        matches.start_match(room, alice, games=5, program_timeout=0)
    with pytest.raises(PermissionDenied):
        matches.start_match(room, bob, games=5)
    assert not Match.objects.exists() and not Game.objects.exists()


def test_the_owner_starts_a_match_from_the_room_page(alice, bob):
    room = make_room(alice, bob)
    client = signed_in(alice)
    assert "start-match" in client.get(room.get_absolute_url()).content.decode()
    response = client.post(reverse("game:start_match", args=[room.pk]),
                           {"games": "3", "program_timeout": "2", "cpu_level": "normal"})
    match = Match.objects.get(room=room)
    assert response.status_code == 302 and response["Location"] == match.get_absolute_url()
    assert (match.games_total, match.program_timeout) == (3, 2)
    page = client.get(match.get_absolute_url())
    assert page.status_code == 200 and "match-progress" in page.content.decode()
    room_page = client.get(room.get_absolute_url()).content.decode()
    assert match.get_absolute_url() in room_page and "start-match" not in room_page
    assert signed_in(bob).post(reverse("game:stop_match", args=[match.pk])).status_code == 403
    client.post(reverse("game:stop_match", args=[match.pk]))
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED
    assert not Game.objects.filter(room=room, status=Game.Status.RUNNING).exists()


def test_stopping_a_match_asks_first_then_says_it_stopped(alice, bob):
    room = make_room(alice, bob)
    match = matches.start_match(room, alice, games=1000)
    client = signed_in(alice)
    stop_url = reverse("game:stop_match", args=[match.pk])
    assert f'href="{stop_url}"' in client.get(match.get_absolute_url()).content.decode()
    question = client.get(stop_url)
    assert question.status_code == 200
    assert f'action="{stop_url}"' in question.content.decode() and "1000" in \
        question.content.decode()
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING  # asking stops nothing
    assert signed_in(bob).get(stop_url).status_code == 403
    answer = client.post(stop_url, follow=True)
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED
    said = [str(m) for m in answer.context["messages"]]
    assert said and "0" in said[0] and "1000" in said[0]
    assert 'data-status="aborted"' in answer.content.decode()
    assert stop_url not in answer.content.decode()


def test_a_seated_viewer_is_told_their_seat_plays_in_the_match(alice, bob, mallory):
    room = make_room(alice, bob)
    match = matches.start_match(room, alice, games=3)
    page = signed_in(bob).get(match.get_absolute_url()).content.decode()
    assert "my-seat-hint" in page and f'href="{room.get_absolute_url()}"' in page
    assert "my-seat-hint" not in signed_in(mallory).get(match.get_absolute_url()).content.decode()
    matches.stop_match(match, alice)
    assert "my-seat-hint" not in signed_in(bob).get(match.get_absolute_url()).content.decode()


def test_the_live_part_of_the_match_page_is_the_changing_part_only(alice, bob):
    room = make_room(alice, bob)
    match = matches.start_match(room, alice, games=2)
    client = signed_in(alice)
    full = client.get(match.get_absolute_url()).content.decode()
    assert "js/match_live.js" in full and "?part=live" in full
    live = client.get(match.get_absolute_url() + "?part=live").content.decode()
    assert "<html" not in live and 'data-running="true"' in live and "match-progress" in live
    matches.stop_match(match, alice)
    assert 'data-running="false"' in client.get(
        match.get_absolute_url() + "?part=live").content.decode()
    assert "js/match_live.js" not in client.get(match.get_absolute_url()).content.decode()


def test_a_refused_match_start_shows_its_error_beside_the_form_with_the_entries(alice, bob):
    room = make_room(alice, bob)
    client = signed_in(alice)
    answer = client.post(reverse("game:start_match", args=[room.pk]),
                         {"games": "0", "program_timeout": "7", "cpu_level": "strong"})
    assert answer["Location"] == f"{room.get_absolute_url()}#match-panel"
    page = client.get(answer["Location"]).content.decode()
    panel = page[page.index('id="match-panel"'):]
    assert 'data-testid="match-error"' in panel
    assert 'name="games"' in panel and 'value="0"' in panel and 'value="7"' in panel
    assert '<option value="strong" selected>' in panel
    assert "match-error" not in client.get(room.get_absolute_url()).content.decode()  # once
    assert not Match.objects.exists()


def test_the_room_page_tells_a_seated_person_their_seat_plays_in_the_match(alice, bob, carol):
    room = make_room(alice, bob)
    matches.start_match(room, alice, games=3)
    assert "my-seat-hint" in signed_in(bob).get(room.get_absolute_url()).content.decode()
    assert "my-seat-hint" not in signed_in(carol).get(room.get_absolute_url()).content.decode()


def test_the_room_panel_says_which_match_the_last_game_belonged_to(alice, bob):
    """The table's end-of-game box links to the match results from this (docs/protocol.md)."""
    room = make_room(alice, bob)
    match = Match.objects.create(room=room, started_by=alice, games_total=1)
    finished_game(match, 1, {alice: 10, bob: -10})
    last = panel.room_panel(room)["last_result"]
    assert last["match"] == {"id": match.pk, "url": match.get_absolute_url(), "over": False}
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    assert panel.room_panel(room)["last_result"]["match"]["over"] is True
    Game.objects.create(room=room, number=2, state={}, status=Game.Status.FINISHED)
    assert panel.room_panel(room)["last_result"]["match"] is None


def test_a_private_rooms_match_is_hidden_from_outsiders(alice, bob, mallory):
    room = make_room(alice, bob, is_public=False)
    match = matches.start_match(room, alice, games=2)
    outsider = signed_in(mallory)
    assert outsider.get(reverse("game:match", args=[match.pk])).status_code == 404
    assert outsider.get(reverse("game:match_log", args=[match.pk])).status_code == 404
    assert signed_in(bob).get(reverse("game:match", args=[match.pk])).status_code == 200


def test_one_sweep_plays_the_cpu_moves_that_are_due_at_once(alice):
    """In a match CPUs act without a pause: a sweep goes on from version to version (one
    transaction each) instead of waiting a sweep period per move. Over a whole game, the
    versions outnumber the sweeps that changed anything. (A single sweep may rightly
    stop at once: when every CPU waits in a window, nothing is due until it lapses.)"""
    room = cpu_only_room(alice)
    match = matches.start_match(room, alice, games=1, cpu_level="easy")
    game = Game.objects.get(match=match)
    now, productive = time.time(), 0
    for _ in range(500):
        if game.status != Game.Status.RUNNING:
            break
        now = max(now, game.next_deadline.timestamp()) + 0.01
        productive += clock.expire_due_games(now=now)
        game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.version > productive > 0


# -- §R14's automatic action for a program seat, situation by situation -----------------------


def auto_for(engine: Any, seat: int, seed: int = 1) -> dict[str, Any] | None:
    import random

    return matches.auto_action(engine.legal_actions(seat), random.Random(seed), None, engine,
                               seat)


def test_h6_a_program_seat_choosing_a_swap_swaps_with_the_next_seat():
    """§R14 with HOUSE-RULES §H6 / §6: the engine's own clock swaps with the next seat in
    the direction of play; a program's clock in a match does the same (it used to have no
    action here and the program waited for the room's clock instead of the match's)."""
    from game.rules import Game as Engine

    def four(first_hand: list[str]) -> Any:
        return Engine.from_setup(
            hands=[first_hand, ["R3", "B1"], ["Y2", "B2"], ["R7", "G6"]], first_card="R5",
            deck=["G1"] * 8, first_player=0, house_rules={"seven_zero": True}, now=NOW)

    clockwise = four(["R7", "G4"])
    clockwise.play(0, ["R7"], NOW)
    assert (clockwise.phase, clockwise.chooser, clockwise.direction) == ("swap", 0, 1)
    assert auto_for(clockwise, 0) == {"type": "swap", "target": 1}

    reversed_ = four(["RR", "G4"])  # seat 0 reverses; seat 3 then plays its 7
    reversed_.play(0, ["RR"], NOW)
    reversed_.play(3, ["R7"], NOW)
    assert (reversed_.phase, reversed_.chooser, reversed_.direction) == ("swap", 3, -1)
    assert auto_for(reversed_, 3) == {"type": "swap", "target": 2}


def test_h7_a_program_seat_that_drew_until_playable_plays_the_drawn_card():
    """§R14 with HOUSE-RULES §H7 / §6: after drawing until a card is playable there is no pass; the
    engine's clock plays the last drawn card alone, and so does a program's match clock."""
    from game.rules import Game as Engine

    engine = Engine.from_setup(hands=[["B3", "G4"], ["R3"], ["Y2"]], first_card="R7",
                               deck=["G1", "B5", "R2", "Y9"], first_player=0,
                               house_rules={"draw_until_playable": True}, now=NOW)
    assert auto_for(engine, 0) == {"type": "draw"}
    engine.apply(0, {"type": "draw"}, NOW)
    assert not any(a["type"] == "pass" for a in engine.legal_actions(0))
    assert auto_for(engine, 0) == {"type": "play", "cards": ["R2"]}


def test_r14_a_program_seat_that_may_dobon_lets_the_chance_lapse():
    from game.rules import Game as Engine

    engine = Engine.from_setup(hands=[["R5"], ["R3", "B2"]], first_card="R7",
                               deck=["G1"] * 5, first_player=0, now=NOW)
    engine.play(0, ["R5"], NOW)
    assert engine.chances(1) == ["dobon"]
    assert auto_for(engine, 1) == {"type": "decline"}


def test_r14_a_program_seat_that_may_cut_in_lets_the_chance_lapse():
    from game.rules import Game as Engine

    engine = Engine.from_setup(hands=[["R5", "B1"], ["G3", "G2"], ["R5", "Y4"]],
                               first_card="R7", deck=["G1"] * 5, first_player=0, now=NOW)
    engine.play(0, ["R5"], NOW)
    assert "cut_in" in engine.chances(2)
    assert auto_for(engine, 2) == {"type": "decline"}


def test_r14_a_program_seat_choosing_a_colour_gets_a_random_colour():
    from game.rules import Game as Engine

    engine = Engine.from_setup(hands=[["W", "B1"], ["G3", "G2"]], first_card="R7",
                               deck=["G1"] * 5, first_player=0, now=NOW)
    engine.play(0, ["W"], NOW)
    assert engine.phase == "color"
    colours = {auto_for(engine, 0, seed)["color"] for seed in range(40)}
    assert colours == {"R", "B", "G", "Y"}


def test_r14_a_program_seat_facing_a_draw_stack_takes_it():
    from game.rules import Game as Engine

    engine = Engine.from_setup(hands=[["R+2", "B1"], ["G+2", "G2"]], first_card="R7",
                               deck=["G1"] * 8, first_player=0, now=NOW)
    engine.play(0, ["R+2"], NOW)
    legal = engine.legal_actions(1)
    assert {"type": "play", "cards": ["G+2"]} in legal  # it could stack, but does not
    assert auto_for(engine, 1) == {"type": "draw"}
    engine.apply(1, {"type": "draw"}, NOW)
    assert len(engine.view(1)["hand"]) == 4 and engine.turn == 0  # took 2, turn ended


def test_r14_a_program_seat_on_turn_draws_then_passes():
    from game.rules import Game as Engine

    engine = Engine.from_setup(hands=[["R5", "B1"], ["G3", "G2"]], first_card="R7",
                               deck=["Y1"] * 5, first_player=0, now=NOW)
    assert auto_for(engine, 0) == {"type": "draw"}
    engine.apply(0, {"type": "draw"}, NOW)
    assert engine.has_drawn and auto_for(engine, 0) == {"type": "pass"}


def test_r14_after_a_program_seats_automatic_draw_its_pass_follows_at_once(alice, bob):
    """A program seat that never acts plays match games by automatic actions only: each
    is §R14's for its situation, and each automatic draw that leaves the turn with it is
    followed by the automatic pass in the next version, at the same moment. (Deals are
    random: one-game matches are played until one had such a draw.)"""
    room = make_room(bob, seats=[0])
    Membership.objects.filter(room=room, user=bob).update(program_sockets=1)
    passes_checked = 0
    for attempt in range(8):
        start = NOW + attempt * 10_000
        match = matches.start_match(room, bob, games=1, program_timeout=1,
                                    cpu_level="easy", now=start)
        passes_checked += check_automatic_steps(match, start)
        if passes_checked:
            break
    assert passes_checked > 0


def check_automatic_steps(match: Match, now: float) -> int:
    """Plays the match's one game by the sweep; returns how many draw-then-pass pairs
    of seat 0 it checked."""
    game = Game.objects.get(match=match)
    give_up = now + 3600
    while game.status == Game.Status.RUNNING:
        now += 0.25
        assert now < give_up, "the game did not end"
        clock.expire_due_games(now=now)
        game.refresh_from_db()
    steps = {e.version: e.step for e in GameEvent.objects.filter(game=game, step__isnull=False)}
    mine = {v: s for v, s in steps.items() if s.get("seat") == 0}
    assert all(s.get("auto") for s in mine.values())  # it never acted itself
    assert {s["action"]["type"] for s in mine.values()} <= {"draw", "pass", "color", "decline"}
    checked = 0
    for version, step in mine.items():
        turn = GameEvent.objects.filter(game=game, version=version, data__type="turn").last()
        if step["action"]["type"] != "draw" or turn is None or turn.data["seat"] != 0:
            continue  # not a draw, or the draw took a stack or ended the game (deck-out)
        follow = steps[version + 1]
        assert follow["seat"] == 0 and follow["action"] == {"type": "pass"}
        assert follow["now"] == step["now"]
        checked += 1
    return checked


def test_reached_at_game_is_1_to_n_even_when_no_game_changed_a_total(alice, bob, carol):
    """docs/bots-api.md: `reached_at_game` is 1…N. carol's total never changed: she has
    had it since her first game (1), not since game 0; bob and alice tie fully (same
    total, same game): the name decides, in code-point order."""
    room = make_room(alice, bob, carol)
    match = Match.objects.create(room=room, started_by=alice, games_total=2,
                                 status=Match.Status.FINISHED)
    finished_game(match, 1, {alice: 10, bob: 10, carol: 0})
    finished_game(match, 2, {alice: -5, bob: -5, carol: 0})
    lines = matches.standings(match)
    assert [(line.name, line.total, line.reached) for line in lines] == [
        ("alice", 5, 2), ("bob", 5, 2), ("carol", 0, 1),
    ]
    assert all(1 <= line.reached <= 2 for line in lines)


# -- §H6 / §H7 in a match, end to end: the program seat's own clock, not the room's ----------------

PARTY_RULES = {"seven_zero": True, "draw_until_playable": True}


def program_match_at(bob: Any, hands: list[list[str]], deck: list[str]) -> Game:
    """A one-game match: bob's program on seat 0 (1 s program timeout, the room keeps
    10 s), CPUs on seats 1-3, the position `hands`/`deck` saved as a version of its own
    (so that the program clock is planned for it, as after any move)."""
    from game.rules import Game as Engine

    room = make_room(bob, seats=[0], house_rules=PARTY_RULES)
    Membership.objects.filter(room=room, user=bob).update(program_sockets=1)
    match = matches.start_match(room, bob, games=1, program_timeout=1, cpu_level="easy",
                                now=NOW)
    game = Game.objects.get(match=match)
    set_position(game, Engine.from_setup(hands=hands, first_card="R5", deck=deck,
                                         first_player=0, now=NOW, house_rules=PARTY_RULES))
    with transaction.atomic():
        locked = Game.objects.select_for_update().get(pk=game.pk)
        play.do_save(locked, engines.load(locked), [], NOW, step={"now": NOW})
    return game


def automatic_steps(game: Game, count: int, limit: float = 20.0) -> list[dict[str, Any]]:
    """Run the sweep every 0.25 s until the program seat had `count` automatic actions."""
    now = NOW
    while GameEvent.objects.filter(game=game, step__auto=True).count() < count:
        now += 0.25
        assert now < NOW + limit, "the program seat was not moved by its own clock"
        clock.expire_due_games(now=now)
    autos = GameEvent.objects.filter(game=game, step__auto=True).order_by("seq")
    return [e.step for e in autos][:count]


def test_h6_a_program_seats_swap_in_a_match_comes_after_the_program_timeout(bob):
    """§H6.4 / §6 with a match's program clock: the 7's player is a program seat that does
    not answer; it swaps with the next seat after 1 s, not after the room's 10 s."""
    game = program_match_at(bob, [["R7", "G4", "B2"], ["R3", "B1"], ["Y2", "B2"], ["Y8", "G6"]],
                            ["G1"] * 8)
    play.perform_action(game, bob, {"type": "play", "cards": ["R7"]}, now=NOW)
    [swap] = automatic_steps(game, 1)
    assert swap["action"] == {"type": "swap", "target": 1} and swap["now"] == NOW + 1.0


def test_h7_a_program_seats_automatic_draw_is_followed_by_its_play_at_once(bob):
    """§H7 / §6 with a match's program clock: after 1 s the program seat draws until a card
    is playable and, as the engine's own §H7 timeout does (`draw_play`) and as §R14's pass
    follows an automatic draw, plays it at once: no second wait for an absent player."""
    game = program_match_at(bob, [["B3", "G4", "B2"], ["R3", "B1"], ["Y2", "B2"], ["Y8", "G6"]],
                            ["G1", "Y3", "R2"] + ["G1"] * 6)
    draw, played = automatic_steps(game, 2)
    assert draw["action"] == {"type": "draw"} and draw["now"] == NOW + 1.0
    assert played["action"] == {"type": "play", "cards": ["R2"]} and played["now"] == NOW + 1.0


def test_h7_with_h6_a_program_seats_automatic_7_swaps_at_once(bob):
    """S28 with a match's program clock: the card drawn and played automatically is a 7;
    the swap follows at once with the next seat (the engine's own clock does the same)."""
    game = program_match_at(bob, [["B3", "G4", "B2"], ["R3", "B1"], ["Y2", "B2"], ["Y8", "G6"]],
                            ["G1", "Y3", "R7"] + ["G1"] * 6)
    draw, played, swap = automatic_steps(game, 3)
    assert played["action"] == {"type": "play", "cards": ["R7"]}
    assert swap["action"] == {"type": "swap", "target": 1}
    assert draw["now"] == played["now"] == swap["now"] == NOW + 1.0
