"""Timeouts (§R14) through the service layer, with an injected clock; Celery and the
in-process scheduler only call these functions."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from play_helpers import NOW, B, C, engine_of, event_types, make_room, position, started

from game import tasks
from game.clock import scheduler
from game.models import Game
from game.services import clock, play

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""


@pytest.fixture
def room(alice, bob, carol, dave):
    return make_room(alice, bob, carol, dave)


@pytest.fixture
def game(room, alice) -> Game:
    hands = [["G1", "G2"], ["R5", "B7"], ["Y9", "Y8"], ["G9", "G8"]]
    return started(room, alice, position(hands, first_player=B))


def test_nothing_happens_before_the_deadline(game):
    assert clock.expire_due_games(now=NOW + 9.99) == 0
    game.refresh_from_db()
    assert game.version == 0 and event_types(game) == ["start"]


def test_sweep_draws_and_passes_for_the_idle_seat(game):
    assert clock.expire_due_games(now=NOW + 10) == 1
    game.refresh_from_db()
    engine = engine_of(game)
    assert game.version == 1 and engine.turn == C and len(engine.hand(B)) == 3
    assert event_types(game)[1:] == ["timeout", "draw", "drawn", "pass", "turn"]
    # §R14.1: the next clock starts from the deadline, not from when the sweep ran.
    assert game.next_deadline.timestamp() == pytest.approx(NOW + 20)


def test_a_late_sweep_applies_every_timeout_due_in_order(game):
    clock.expire_due_games(now=NOW + 35)
    game.refresh_from_db()
    assert game.version == 1
    assert event_types(game).count("timeout") == 3
    assert engine_of(game).turn == 0 and game.next_deadline.timestamp() == pytest.approx(NOW + 40)


def test_the_sweep_applies_the_timeout_of_the_version_a_move_left(game, bob):
    """§R14: after bob's draw, his clock runs on; the sweep passes for him at the deadline."""
    play.perform_action(game, bob, {"type": "draw"}, now=NOW + 1)
    assert clock.expire_due_games(now=NOW + 9.9) == 0
    assert clock.expire_due_games(now=NOW + 11) == 1
    game.refresh_from_db()
    assert game.version == 2
    swept = game.events.filter(version=2).order_by("seq").values_list("data__type", flat=True)
    assert list(swept)[:2] == ["timeout", "pass"]


def test_sweep_skips_games_that_are_not_running(game, alice):
    play.abort_game(game, alice, now=NOW)
    assert clock.expire_due_games(now=NOW + 60) == 0


def test_sweep_handles_every_due_game(room, alice, bob, carol, dave):
    other = make_room(bob, carol)
    first = started(room, alice)
    second = started(other, bob)
    assert clock.expire_due_games(now=NOW + 10) == 2
    assert Game.objects.get(pk=first.pk).version == 1
    assert Game.objects.get(pk=second.pk).version == 1


def test_a_move_publishes_no_task(game, bob, settings, monkeypatch,
                                  django_capture_on_commit_callbacks):
    """The clock is the sweep over the indexed next_deadline: no Celery message per move."""
    from celery.app.task import Task

    settings.CELERY_BROKER_URL = "redis://example.invalid/0"
    settings.DOBON_INPROCESS_SCHEDULER = False
    published: list[Any] = []
    monkeypatch.setattr(Task, "apply_async", lambda *args, **kwargs: published.append(args))
    monkeypatch.setattr(play.sender, "send", lambda pushes: None)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        play.perform_action(game, bob, {"type": "draw"}, now=NOW + 1)
    assert callbacks and published == []
    game.refresh_from_db()
    assert game.next_deadline == play.to_datetime(engine_of(game).next_deadline)


def test_the_service_does_not_import_the_tasks():
    """tasks → service only: the service module never imports game.tasks."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(play))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert "game.tasks" not in imported and "game" not in imported


def test_the_celery_task_runs_the_sweep(game, monkeypatch):
    monkeypatch.setattr(play, "now_or", lambda now: NOW + 10 if now is None else now)
    assert tasks.expire_due_games_task.run() == 1
    assert tasks.expire_due_games_task.run() == 0  # done: the next deadline is NOW + 20
    assert Game.objects.get(pk=game.pk).version == 1


@pytest.mark.django_db(transaction=True)  # tick() closes connections, as a thread must
def test_inprocess_scheduler_tick_runs_the_sweep(game, monkeypatch):
    monkeypatch.setattr(play, "now_or", lambda now: NOW + 10 if now is None else now)
    assert scheduler.tick() == 1
    assert Game.objects.get(pk=game.pk).version == 1


async def test_scheduler_starts_once_per_loop(monkeypatch):
    ticks: list[int] = []
    monkeypatch.setattr(scheduler, "tick", lambda: ticks.append(1) or 0)
    monkeypatch.setattr(scheduler, "INTERVAL", 0.01)
    monkeypatch.setattr(scheduler, "_task", None)
    seen: list[str] = []

    async def app(scope, receive, send):
        seen.append(scope["type"])

    wrapped = scheduler.StartSchedulerMiddleware(app)
    await wrapped({"type": "http"}, None, None)
    await wrapped({"type": "websocket"}, None, None)
    task = scheduler._task
    assert task is not None and seen == ["http", "websocket"]
    assert scheduler.ensure_started() is False
    await asyncio.sleep(0.3)
    task.cancel()
    assert len(ticks) >= 2


def test_the_beat_sweeps_within_half_a_second(settings, game, monkeypatch):
    """Auto-actions land at most one sweep period after their deadline (p99 ≤ 0.5 s)."""
    entry = settings.CELERY_BEAT_SCHEDULE["expire-due-games"]
    assert entry["task"] == tasks.expire_due_games_task.name
    assert 0 < float(entry["schedule"]) <= 0.5
    monkeypatch.setattr(play, "now_or", lambda now: NOW + 10.01 if now is None else now)
    assert tasks.expire_due_games_task.run() == 1  # due 10 ms ago: no grace period


def test_beat_sweeps_in_place_and_publishes_any_other_task(settings, monkeypatch, tmp_path):
    """game.clock.beat: the sweep entry runs inside beat (no broker message); others publish."""
    from celery.beat import PersistentScheduler, ScheduleEntry

    from dobon_site.celery import app
    from game.clock import beat

    assert settings.CELERY_BEAT_SCHEDULER == "game.clock.beat:SweepingScheduler"
    swept: list[int] = []
    published: list[str] = []
    monkeypatch.setattr(beat, "sweep", lambda hold=None: swept.append(hold) or 0)
    monkeypatch.setattr(PersistentScheduler, "apply_async",
                        lambda self, entry, **kwargs: published.append(entry.task))
    scheduler = beat.SweepingScheduler(app=app, schedule_filename=str(tmp_path / "s"),
                                       lazy=True)
    sweep_entry = ScheduleEntry(name="sweep", task=beat.SWEEP_TASK, schedule=0.25, app=app)
    other = ScheduleEntry(name="other", task="game.tasks.other", schedule=60.0, app=app)
    scheduler.apply_async(sweep_entry, advance=False)
    scheduler.apply_async(other, advance=False)
    assert swept == [scheduler.held.add] and published == ["game.tasks.other"]


def test_beat_sends_a_held_version_at_its_moment_and_sleeps_no_longer(monkeypatch, tmp_path):
    """What a sweep found before its moment leaves beat when the moment comes, with its
    priority and no ETA; beat's sleep ends then, not at the next sweep."""
    from celery.beat import PersistentScheduler

    from dobon_site.celery import app
    from game.clock import beat

    sent: list[clock.Due] = []
    monkeypatch.setattr(beat, "send_now", sent.append)
    monkeypatch.setattr(PersistentScheduler, "tick", lambda self, *a, **kw: 0.25)
    scheduler = beat.SweepingScheduler(app=app, schedule_filename=str(tmp_path / "s"),
                                       lazy=True)
    later, sooner = clock.Due(1, 0, NOW + 0.2, clock.TABLE), clock.Due(2, 5, NOW + 0.1,
                                                                        clock.PERSON)
    scheduler.held.add(later)
    scheduler.held.add(sooner)
    scheduler.clock = lambda: NOW
    assert scheduler.tick() == pytest.approx(0.1, abs=1e-3) and sent == []
    scheduler.clock = lambda: NOW + 0.1
    assert scheduler.tick() == pytest.approx(0.1, abs=1e-3) and sent == [sooner]
    scheduler.clock = lambda: NOW + 0.3
    assert scheduler.tick() == 0.25 and sent == [sooner, later]


@pytest.mark.django_db(transaction=True)  # sweep() closes connections, as beat's thread must
def test_the_beat_sweep_applies_due_timeouts(game, monkeypatch):
    from game.clock import beat

    monkeypatch.setattr(play, "now_or", lambda now: NOW + 10 if now is None else now)
    assert beat.sweep() == 1
    assert Game.objects.get(pk=game.pk).version == 1


def test_the_sweep_reads_the_seats_with_the_row_lock(game, postgres_only):
    """§R14 through the sweep on PostgreSQL: the game's seats come with its row lock (one
    statement), not from a query of their own, on every timeout and CPU move."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        assert clock.expire_due_games(now=NOW + 10) == 1
    own_seat_reads = [q["sql"] for q in queries.captured_queries
                      if q["sql"].startswith("SELECT") and "FOR UPDATE" not in q["sql"]
                      and 'FROM "game_gameplayer"' in q["sql"]]
    assert own_seat_reads == []
