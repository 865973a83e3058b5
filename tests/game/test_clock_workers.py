"""The clock split in two (issue #22): beat only finds what is due and sends one task per
game (a person's timeout first, then rooms' CPU moves, then matches), holding what is not
yet due until its moment; a worker claims, locks, checks the version and moves; a version
due before the next sweep is sent for its exact moment; a clock back after an outage
resumes games with fresh timeouts. Time is injected; `send` is a recorder instead of the
broker."""

from __future__ import annotations

from typing import Any

import pytest
from play_helpers import NOW, B, C, engine_of, event_types, make_room, position, seat_cpus, started

from game.history.replay import Version, rebuild
from game.models import Game, GameEvent, Room
from game.services import clock, matches, play

pytestmark = pytest.mark.django_db


class Sent(list):
    """What beat would have published: (task, args, priority, eta)."""

    def __call__(self, name: str, args: list[int], priority: int = clock.BULK,
                 eta: float | None = None) -> None:
        self.append((name, args, priority, eta))


@pytest.fixture
def sent(settings, monkeypatch) -> Sent:
    settings.CELERY_BROKER_URL = "memory://"  # workers exist: beat sends, does not move
    recorder = Sent()
    monkeypatch.setattr(clock, "send_task", recorder)
    return recorder


@pytest.fixture
def game(alice, bob, carol, dave) -> Game:
    hands = [["G1", "G2"], ["R5", "B7"], ["Y9", "Y8"], ["G9", "G8"]]
    return started(make_room(alice, bob, carol, dave), alice, position(hands, first_player=B))


def cpu_match_game(owner: Any) -> Game:
    room = Room.objects.create(name="arena", owner=owner, seat_count=4)
    match = matches.start_match(room, owner, games=1, cpu_level="easy", now=NOW)
    return Game.objects.get(match=match)


# -- beat finds, workers move ---------------------------------------------------------------------


def test_beat_sends_due_games_to_workers_and_moves_nothing_itself(game, sent):
    assert clock.dispatch_due_games(now=NOW + 10) == 1
    assert sent == [(clock.RUN_TASK, [game.pk, 0], clock.PERSON, None)]
    game.refresh_from_db()
    assert game.version == 0 and game.claim_version == 0  # claimed, not played


def test_beat_holds_what_falls_due_before_its_next_tick_and_sends_it_at_its_moment(
    game, sent, settings
):
    """Not up to one tick late, and not as an ETA task: a worker runs the ETA tasks it
    holds first come, first served, so beat keeps a deadline 0.1 s ahead itself and sends
    it at the deadline, with its priority, for Redis to order."""
    from game.clock.beat import Held

    settings.DOBON_SWEEP_SECONDS = 0.25
    held = Held()
    assert clock.dispatch_due_games(now=NOW + 9.9, hold=held.add) == 1
    assert sent == [] and len(held) == 1
    assert held.sleep(NOW + 9.9, 0.25) == pytest.approx(0.1, abs=1e-3)  # beat wakes at the deadline
    assert held.release(NOW + 9.95, clock.send_now) == 0
    assert held.release(NOW + 10, clock.send_now) == 1
    assert sent == [(clock.RUN_TASK, [game.pk, 0], clock.PERSON, None)]
    assert clock.dispatch_due_games(now=NOW + 9.5, hold=held.add) == 0  # the claim holds


def test_a_published_sweep_sends_what_falls_due_before_its_next_tick_with_an_eta(
    game, sent, settings
):
    """DOBON_SWEEP_IN_BEAT=false: the sweep runs in a worker and nobody holds; the
    deadline goes as the task's ETA."""
    settings.DOBON_SWEEP_SECONDS = 0.25
    assert clock.dispatch_due_games(now=NOW + 9.9) == 1
    assert sent == [(clock.RUN_TASK, [game.pk, 0], clock.PERSON, pytest.approx(NOW + 10))]


def test_beat_sends_rooms_with_people_before_matches(game, sent, alice, bob):
    match_game = cpu_match_game(bob)
    Game.objects.filter(pk=match_game.pk).update(next_deadline=play.to_datetime(NOW))
    clock.dispatch_due_games(now=NOW + 10)
    runs = [(args[0], priority) for name, args, priority, _ in sent if name == clock.RUN_TASK]
    # The match game was due 10 s earlier, yet the room with people goes first.
    assert runs == [(game.pk, clock.PERSON), (match_game.pk, clock.BULK)]


def test_a_persons_timeout_goes_before_cpu_moves_at_other_tables(game, sent, alice):
    """Three priorities: a CPU's move in a room with people (TABLE) waits behind a
    person's own clock (PERSON), though it fell due first."""
    cpu_game = started(seat_cpus(make_room(alice), "easy", "easy", "easy"), alice)
    cpu_turn = play.to_datetime(NOW + 1)
    Game.objects.filter(pk=cpu_game.pk).update(cpu_due=cpu_turn, next_deadline=cpu_turn)
    clock.dispatch_due_games(now=NOW + 10)
    runs = [(args[0], priority) for name, args, priority, _ in sent if name == clock.RUN_TASK]
    assert runs == [(game.pk, clock.PERSON), (cpu_game.pk, clock.TABLE)]
    assert clock.PERSON < clock.TABLE < clock.BULK  # Redis serves the lowest first


def test_a_claimed_version_is_not_sent_again_until_its_claim_runs_out(game, sent):
    clock.dispatch_due_games(now=NOW + 10)
    assert clock.dispatch_due_games(now=NOW + 10.25) == 0  # its worker is on it
    # A worker that died (or a lost task): the sweep sends it again after the claim.
    assert clock.dispatch_due_games(now=NOW + 10 + clock.CLAIM_SECONDS + 0.25) == 1
    assert len(sent) == 2


def test_a_new_version_is_sent_although_the_old_one_was_claimed(game, sent, carol):
    clock.dispatch_due_games(now=NOW + 10)
    # A person was faster than the worker: bob's timeout, then carol's draw, as version 1.
    play.perform_action(game, carol, {"type": "draw"}, now=NOW + 10.1)
    assert clock.dispatch_due_games(now=NOW + 21) == 1
    assert sent[-1][1] == [game.pk, 1]


def test_the_worker_applies_what_is_due_for_its_version(game):
    assert clock.run_due_game(game.pk, 0, now=NOW + 10) == 1
    game.refresh_from_db()
    assert game.version == 1 and event_types(game)[1] == "timeout"


def test_the_worker_does_nothing_if_the_version_moved_on(game, bob):
    """Claim, don't assume: another worker (or a person) got there first."""
    play.perform_action(game, bob, {"type": "draw"}, now=NOW + 1)
    assert clock.run_due_game(game.pk, 0, now=NOW + 30) == 0
    game.refresh_from_db()
    assert game.version == 1


def test_the_worker_does_nothing_before_the_deadline(game):
    Game.objects.filter(pk=game.pk).update(claim_version=0,
                                           claimed_until=play.to_datetime(NOW + 20))
    assert clock.run_due_game(game.pk, 0, now=NOW + 5) == 0
    game.refresh_from_db()
    assert game.version == 0 and game.claimed_until is None  # released for the sweep


@pytest.mark.django_db(transaction=True)  # the holder's connection must see the game
def test_the_worker_leaves_a_row_another_process_holds(game, postgres_only):
    """skip_locked: a person's move holds the row; the task says so (and is retried)."""
    import threading

    from django.db import connections, transaction

    locked, release = threading.Event(), threading.Event()

    def hold() -> None:
        with transaction.atomic():
            Game.objects.select_for_update().get(pk=game.pk)
            locked.set()
            release.wait(10)
        connections.close_all()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert locked.wait(10)
        assert clock.run_due_game(game.pk, 0, now=NOW + 10) == clock.SKIPPED
    finally:
        release.set()
        holder.join()
    assert clock.run_due_game(game.pk, 0, now=NOW + 10) == 1


def cpu_on_turn(alice: Any, django_capture_on_commit_callbacks: Any) -> Game:
    """alice draws and passes (the pushes and sends after each commit run): the CPU's turn."""
    room = seat_cpus(make_room(alice), "easy")
    hands = [["G1", "G2"], ["R5", "B7"]]
    game = started(room, alice, position(hands, first_player=0))
    with django_capture_on_commit_callbacks(execute=True):
        play.perform_action(game, alice, {"type": "draw"}, now=NOW + 1)
        play.perform_action(game, alice, {"type": "pass"}, now=NOW + 1.5)
    game.refresh_from_db()
    assert game.version == 2 and game.cpu_due is not None
    return game


def test_a_cpu_think_time_is_left_to_beat_which_sends_it_at_its_moment(
    settings, sent, alice, django_capture_on_commit_callbacks
):
    """A CPU thinking 0.6–2 s: the worker that saved the version sends nothing (an ETA
    task would wait in a worker's memory, first come, first served); beat's sweep finds
    it a tick ahead, holds it and sends it when the think time ends."""
    from game.clock.beat import Held

    settings.DOBON_SWEEP_SECONDS = 0.25
    game = cpu_on_turn(alice, django_capture_on_commit_callbacks)
    assert sent == [] and game.claim_version != 2
    moment = game.cpu_due.timestamp()
    held = Held()
    assert clock.dispatch_due_games(now=moment - 0.2, hold=held.add) == 1
    assert sent == []
    held.release(moment, clock.send_now)
    # alice just played: the CPU's move is her wait, as urgent as her own clock.
    assert sent == [(clock.RUN_TASK, [game.pk, 2], clock.PERSON, None)]


def test_a_cpu_move_due_before_the_next_sweep_is_sent_at_once_for_its_moment(
    settings, sent, alice, django_capture_on_commit_callbacks
):
    """A think time shorter than a tick (here 10 % of the usual): beat might see it only
    after its moment, so the version that makes the CPU due sends its task after the
    commit, with the CPU's due time as ETA."""
    settings.DOBON_SWEEP_SECONDS = 0.25
    settings.DOBON_CPU_DELAY_PERCENT = 10  # 0.06–0.2 s
    game = cpu_on_turn(alice, django_capture_on_commit_callbacks)
    assert sent == [(clock.RUN_TASK, [game.pk, 2], clock.PERSON,
                     pytest.approx(game.cpu_due.timestamp()))]
    assert game.claim_version == 2  # the sweep will not send it a second time


def test_a_table_is_attended_while_its_person_plays_not_while_their_clock_does(
    sent, alice, bob, carol, django_capture_on_commit_callbacks
):
    """Whose wait a CPU's move is: at a table where the person has just played, theirs
    (PERSON); at a table whose person's turns are played by §R14 (a "play now" table left
    alone), nobody's (TABLE). Tables without CPUs are never marked (no cache write)."""
    played = cpu_on_turn(alice, django_capture_on_commit_callbacks)
    left = started(seat_cpus(make_room(bob), "easy"), bob, position(
        [["G1", "G2"], ["R5", "B7"]], first_player=0))
    assert clock.run_due_game(left.pk, 0, now=NOW + 10) == 1  # bob's timeout
    people_only = started(make_room(carol, bob), carol, position(
        [["G1", "G2"], ["R5", "B7"]], first_player=0))
    play.perform_action(people_only, carol, {"type": "draw"}, now=NOW + 1)
    assert clock.attended([played.pk, left.pk, people_only.pk]) == {played.pk}
    assert clock.priority_of(False, True, attended=True) == clock.PERSON
    assert clock.priority_of(False, True, attended=False) == clock.TABLE
    assert clock.priority_of(True, True, attended=True) == clock.BULK


class BrokenCache:
    def get_many(self, keys: list[str]) -> dict[str, Any]:
        raise ConnectionError("cache down")

    def set(self, key: str, value: Any, timeout: float) -> None:
        raise ConnectionError("cache down")


def test_a_cache_that_does_not_answer_costs_a_cpu_its_rank_not_a_move_or_the_clock(
    settings, sent, alice, monkeypatch, django_capture_on_commit_callbacks
):
    """The attended mark is a hint: alice's moves go in and the sweep still sends the
    CPU's move, as a table nobody plays at."""
    monkeypatch.setattr(clock, "cache", BrokenCache())
    game = cpu_on_turn(alice, django_capture_on_commit_callbacks)  # her moves committed
    assert clock.dispatch_due_games(now=game.cpu_due.timestamp()) == 1
    assert sent == [(clock.RUN_TASK, [game.pk, 2], clock.TABLE, None)]


def test_a_match_chain_goes_behind_the_other_rooms_after_its_budget(
    sent, alice, monkeypatch, django_capture_on_commit_callbacks
):
    """CPUs in a match act without a pause; one task goes on for BUDGET_SECONDS at most,
    then sends the game's next version to the back of the queue."""
    game = cpu_match_game(alice)
    monkeypatch.setattr(clock, "BUDGET_SECONDS", 0.0)
    due = game.next_deadline.timestamp()
    with django_capture_on_commit_callbacks(execute=True):
        applied = clock.run_due_game(game.pk, game.version, now=due)
    assert applied == 1
    game.refresh_from_db()
    assert sent[-1][:3] == (clock.RUN_TASK, [game.pk, game.version], clock.BULK)


def test_in_one_process_a_match_chain_plays_on(alice):
    """The laptop default (no broker): the same process finds and moves, chaining."""
    game = cpu_match_game(alice)
    assert clock.run_due_game(game.pk, game.version, now=game.next_deadline.timestamp(),
                              inline=True) >= 1
    game.refresh_from_db()
    assert game.version > 1


# -- a clock back after an outage -----------------------------------------------------------------


def versions_of(game: Game) -> list[Version]:
    versions: list[Version] = []
    for e in GameEvent.objects.filter(game=game).order_by("seq"):
        if not versions or versions[-1].number != e.version:
            versions.append(Version(e.version, e.step, []))
        versions[-1].events.append(e.data)
    return versions


def test_a_clock_back_after_an_outage_gives_fresh_timeouts_not_a_burst(game):
    """26 minutes without a clock: bob's turn (10 s timeout) resumes with a full timeout
    from the moment the clock is back, instead of 156 automatic actions in one version."""
    back = NOW + 26 * 60
    assert clock.expire_due_games(now=back) == 1
    game.refresh_from_db()
    engine = engine_of(game)
    assert game.version == 1 and event_types(game)[1:] == ["resume"]
    assert engine.turn == B and len(engine.hand(B)) == 2
    assert game.next_deadline.timestamp() == pytest.approx(back + 10)
    step = GameEvent.objects.get(game=game, version=1).step
    assert step == {"now": back, "resume": True}
    assert clock.expire_due_games(now=back + 9.9) == 0
    assert clock.expire_due_games(now=back + 10) == 1  # then the clock goes on as usual
    assert engine_of(game).turn == C
    rebuild(game.initial_state, versions_of(game))  # the replay agrees (raises otherwise)


def test_a_person_acting_after_an_outage_burns_nobodys_turn(game, bob):
    back = NOW + 26 * 60
    play.perform_action(game, bob, {"type": "draw"}, now=back)
    game.refresh_from_db()
    assert "timeout" not in event_types(game) and event_types(game)[1] == "resume"
    assert engine_of(game).turn == B
    rebuild(game.initial_state, versions_of(game))


def test_a_late_clock_within_the_outage_limit_still_applies_each_timeout(game, settings):
    """Lateness below DOBON_CLOCK_OUTAGE_SECONDS is a slow clock, not an outage."""
    settings.DOBON_CLOCK_OUTAGE_SECONDS = 30
    clock.expire_due_games(now=NOW + 10 + 29)
    assert event_types(game).count("timeout") == 3 and "resume" not in event_types(game)


# -- the small items of issue #22 -----------------------------------------------------------------


def test_beat_is_quiet_when_idle(monkeypatch, tmp_path):
    """celery beat logs "Sending due task" at INFO for each entry it runs: four lines a
    second for the sweep. The sweep's entry runs without it; other entries keep it."""
    from celery import beat as celery_beat
    from celery.beat import PersistentScheduler, ScheduleEntry

    from dobon_site.celery import app
    from game.clock import beat

    said: list[tuple[Any, ...]] = []
    monkeypatch.setattr(celery_beat, "info", lambda *args, **kwargs: said.append(args))
    monkeypatch.setattr(beat, "sweep", lambda hold=None: 0)
    monkeypatch.setattr(PersistentScheduler, "apply_async", lambda self, entry, **kw: None)
    scheduler = beat.SweepingScheduler(app=app, schedule_filename=str(tmp_path / "s"),
                                       lazy=True)
    sweep_entry = ScheduleEntry(name="sweep", task=beat.SWEEP_TASK, schedule=0.25, app=app)
    for _ in range(8):  # two idle seconds
        scheduler.apply_entry(sweep_entry)
    assert said == []
    other = ScheduleEntry(name="other", task="game.tasks.other", schedule=60.0, app=app)
    scheduler.apply_entry(other)
    assert len(said) == 1


def test_the_game_log_names_r3_2s_first_player_and_times_version_0(alice, bob, carol):
    """After a first S the seat on turn is the first player's left neighbour; the log's
    `initial.first_player` is still §R3.2's first player, and version 0 has its time."""
    from game.views.history import game_log

    room = make_room(alice, bob, carol)
    hands = [["G1"], ["R5"], ["Y9"]]
    game = started(room, alice, position(hands, first="RS", first_player=B))
    assert engine_of(game).turn == C
    log = game_log(game, list(game.players.all()), list(game.events.order_by("seq")))
    assert log["initial"]["first_player"] == B
    assert log["events"][0]["input"] == {"now": NOW}
    wild = started(make_room(bob, carol), bob, position([["G1"], ["R5"]], first="W",
                                                           first_player=1))
    log = game_log(wild, list(wild.players.all()), list(wild.events.order_by("seq")))
    assert log["initial"]["first_player"] == 1  # the seat on turn is nobody (-1) here


def test_frames_say_a_match_runs_and_give_a_program_its_own_clock(
    bob, monkeypatch, django_capture_on_commit_callbacks
):
    """A program seat in a match with a 1 s program timeout (room: 10 s) sees its own
    deadline (`deadline`, `view.deadline`), and every frame says which match runs."""
    from game.models import Membership

    room = make_room(bob, seats=[0])
    Membership.objects.filter(room=room, user=bob).update(program_sockets=1)
    pushes: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(play.sender, "send", pushes.extend)
    now = NOW
    for _attempt in range(10):  # a random deal may let the CPUs end the game first
        with django_capture_on_commit_callbacks(execute=True):
            match = matches.start_match(room, bob, games=1, program_timeout=1,
                                        cpu_level="easy", now=now)
        game = Game.objects.get(match=match)
        while game.status == Game.Status.RUNNING and not engine_of(game).legal_actions(0):
            now = max(now, game.next_deadline.timestamp())  # the CPUs play until bob may act
            with django_capture_on_commit_callbacks(execute=True):
                clock.expire_due_games(now=now)
            game.refresh_from_db()
        if game.status == Game.Status.RUNNING:
            break
        now += 60
    assert game.status == Game.Status.RUNNING, "bob never got to act in ten deals"
    view = engine_of(game).view(0)
    own = view["deadline"] - view["timeout"] + 1  # able to act since then, 1 s to act
    expected_match = {"id": match.pk, "games": 1, "program_timeout": 1}
    private = [m for _, m in pushes if m["type"] == "game.private"]
    public = [m for _, m in pushes if m["type"] == "game.public"]
    assert private[-1]["version"] == game.version
    assert private[-1]["match"] == expected_match and public[-1]["match"] == expected_match
    assert private[-1]["view"]["deadline"] == pytest.approx(own)
    frame = play.table_for(room, bob)
    assert frame["match"] == expected_match
    assert frame["deadline"] == pytest.approx(own)
    assert frame["view"]["deadline"] == frame["deadline"]


def test_frames_outside_matches_say_no_match(game, alice):
    frame = play.table_for(game.room, alice)
    assert frame["match"] is None
    assert frame["deadline"] == engine_of(game).view(0)["turn_deadline"]


@pytest.mark.django_db(transaction=True)  # the scheduler's thread must see the match
async def test_the_laptop_scheduler_plays_a_cpu_match_alone(alice, settings, monkeypatch):
    """`make run` (no broker): the in-process scheduler finds and moves in one process,
    and a CPU move due before its next tick wakes it (here the tick is 10 s: every
    move below came from a wake-up, not from the tick)."""
    import asyncio

    from asgiref.sync import sync_to_async

    from game.clock import scheduler

    settings.CELERY_BROKER_URL = ""
    monkeypatch.setattr(scheduler, "INTERVAL", 10.0)
    game = await sync_to_async(cpu_match_game)(alice)
    task = asyncio.get_running_loop().create_task(scheduler.run_forever())
    try:
        await asyncio.sleep(0.2)
        await sync_to_async(clock.send_due)(  # the first wake, as the start's commit sends
            clock.Due(game.pk, game.version, game.next_deadline.timestamp(), False))
        await asyncio.sleep(3)
    finally:
        task.cancel()
    await sync_to_async(game.refresh_from_db)()
    assert game.version > 10 or game.status != Game.Status.RUNNING
