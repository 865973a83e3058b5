"""Timeouts (R14) through the service layer, with an injected clock; Celery and the
in-process scheduler only call these functions."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from play_helpers import NOW, B, C, engine_of, event_types, make_room, position, started

from game import scheduler, tasks
from game.models import Game
from game.services import play

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
    assert play.expire_due_games(now=NOW + 9.99) == 0
    assert play.expire_game(game.pk, 0, now=NOW + 9.99) is None
    game.refresh_from_db()
    assert game.version == 0 and event_types(game) == ["start"]


def test_sweep_draws_and_passes_for_the_idle_seat(game):
    assert play.expire_due_games(now=NOW + 10) == 1
    game.refresh_from_db()
    engine = engine_of(game)
    assert game.version == 1 and engine.turn == C and len(engine.hand(B)) == 3
    assert event_types(game)[1:] == ["timeout", "draw", "drawn", "pass", "turn"]
    # R14.1: the next clock starts from the deadline, not from when the sweep ran.
    assert game.next_deadline.timestamp() == pytest.approx(NOW + 20)


def test_a_late_sweep_applies_every_timeout_due_in_order(game):
    play.expire_due_games(now=NOW + 35)
    game.refresh_from_db()
    assert game.version == 1
    assert event_types(game).count("timeout") == 3
    assert engine_of(game).turn == 0 and game.next_deadline.timestamp() == pytest.approx(NOW + 40)


def test_expire_game_does_nothing_when_the_version_moved_on(game, bob):
    play.perform_action(game, bob, {"type": "draw"}, now=NOW + 1)
    assert play.expire_game(game.pk, 0, now=NOW + 30) is None
    game.refresh_from_db()
    assert game.version == 1
    out = play.expire_game(game.pk, 1, now=NOW + 11)
    assert out is not None and out.version == 2
    assert [e["type"] for e in out.events][:2] == ["timeout", "pass"]


def test_sweep_skips_games_that_are_not_running(game, alice):
    play.abort_game(game, alice, now=NOW)
    assert play.expire_due_games(now=NOW + 60) == 0


def test_sweep_handles_every_due_game(room, alice, bob, carol, dave):
    other = make_room(bob, carol)
    first = started(room, alice)
    second = started(other, bob)
    assert play.expire_due_games(now=NOW + 10) == 2
    assert Game.objects.get(pk=first.pk).version == 1
    assert Game.objects.get(pk=second.pk).version == 1


def test_an_expiry_schedules_the_next_eta_task_after_commit(
    game, settings, monkeypatch, django_capture_on_commit_callbacks
):
    settings.CELERY_BROKER_URL = "redis://example.invalid/0"
    settings.DOBON_INPROCESS_SCHEDULER = False
    queued: list[tuple[Any, Any]] = []
    monkeypatch.setattr(play, "_send", lambda pushes: None)
    monkeypatch.setattr(
        tasks.expire_game_task, "apply_async",
        lambda args, eta, retry: queued.append((args, eta)),
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        play.expire_due_games(now=NOW + 10)
    assert queued == []
    for callback in callbacks:
        callback()
    play.wait_for_scheduling()
    assert queued == [((game.pk, 1), play.to_datetime(NOW + 20))]


def test_no_eta_tasks_without_a_broker_or_with_the_inprocess_scheduler(settings):
    assert not play.timeout_tasks_enabled()
    settings.CELERY_BROKER_URL = "redis://example.invalid/0"
    settings.DOBON_INPROCESS_SCHEDULER = True
    assert not play.timeout_tasks_enabled()
    settings.DOBON_INPROCESS_SCHEDULER = False
    assert play.timeout_tasks_enabled()


def test_an_early_eta_task_reschedules_itself_for_the_deadline(
    game, monkeypatch, django_capture_on_commit_callbacks
):
    again: list[tuple[int, int, float | None]] = []
    monkeypatch.setattr(play, "schedule_expiry_soon", lambda *args: again.append(args))
    with django_capture_on_commit_callbacks(execute=True):
        assert play.expire_game(game.pk, 0, now=NOW + 9.998) is None
    assert again == [(game.pk, 0, pytest.approx(NOW + 10))]


def test_celery_tasks_call_the_service(game, monkeypatch):
    monkeypatch.setattr(play, "_now", lambda now: NOW + 10 if now is None else now)
    assert tasks.expire_game_task.run(game.pk, 0) is True
    assert tasks.expire_game_task.run(game.pk, 0) is False  # another worker got there first
    assert tasks.expire_due_games_task.run() == 0


@pytest.mark.django_db(transaction=True)  # tick() closes connections, as a thread must
def test_inprocess_scheduler_tick_runs_the_sweep(game, monkeypatch):
    monkeypatch.setattr(play, "_now", lambda now: NOW + 10 if now is None else now)
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


def test_the_beat_sweep_leaves_fresh_deadlines_to_their_eta_task(game, monkeypatch):
    monkeypatch.setattr(play, "_now", lambda now: NOW + 10.2 if now is None else now)
    assert tasks.expire_due_games_task.run() == 0  # 0.2 s late: the ETA task's turn
    monkeypatch.setattr(play, "_now", lambda now: NOW + 10.6 if now is None else now)
    assert tasks.expire_due_games_task.run() == 1  # 0.6 s late: the ETA task was lost
    assert Game.objects.get(pk=game.pk).version == 1
