"""One clock, with a stand-in (issue #30, part 5): game/clock/lease.py against a real Redis
(REDIS_URL), with an injected monotonic clock. Two leases on one key play two beats:
one holds the clock, the other stands by; a release, an expiry or a lost lock hands the
clock over, and at no moment may both sweep."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from game.clock.lease import MARGIN, ClockLease, client_for

SECONDS, RENEW = 15.0, 2.0
SETTLE = RENEW + MARGIN  # a beat that just took the key waits this long before sweeping


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def client(redis_url: str) -> redis.Redis:
    return redis.Redis.from_url(redis_url)


@pytest.fixture
def key(client: redis.Redis) -> Iterator[str]:
    name = f"test:clock:{uuid.uuid4().hex}"
    yield name
    client.delete(name)


@pytest.fixture
def clock() -> Clock:
    return Clock()


def lease(client: redis.Redis, key: str, clock: Clock, token: str,
          seconds: float = SECONDS, renew: float = RENEW) -> ClockLease:
    return ClockLease(client, seconds, renew, key=key, token=token, clock=clock)


def holder(client: redis.Redis, key: str) -> str | None:
    value = client.get(key)
    return None if value is None else value.decode()


def test_one_beat_holds_the_clock_and_a_second_stands_by(client, key, clock):
    a, b = lease(client, key, clock, "a"), lease(client, key, clock, "b")
    assert a.may_run() is False and a.held  # took the key: waits one renewal period first
    assert b.may_run() is False and not b.held
    clock.t += SETTLE
    assert a.may_run() is True and b.may_run() is False
    assert holder(client, key) == "a"
    assert 0 < client.pttl(key) <= SECONDS * 1000


def test_the_holder_renews_its_lock_and_keeps_the_clock(client, key, clock):
    a, b = lease(client, key, clock, "a"), lease(client, key, clock, "b")
    a.may_run()
    for _ in range(40):  # 40 ticks of 1 s: twice the lock's lifetime
        clock.t += 1.0
        client.pexpire(key, int(SECONDS * 1000))  # what remains is renewed, not re-set
        assert b.may_run() is False
        assert a.may_run() is (clock.t >= 1000.0 + SETTLE)
    assert holder(client, key) == "a"


def test_a_renewal_resets_the_lifetime_in_redis(client, key, clock):
    a = lease(client, key, clock, "a")
    a.may_run()
    client.pexpire(key, 3000)  # as if most of its lifetime had passed
    clock.t += RENEW
    a.may_run()
    assert client.pttl(key) > 3000


def test_a_released_clock_passes_to_the_standby_at_its_next_question(client, key, clock):
    """A clean shutdown deletes the key: the standby takes over within one renewal
    period, not after the key's lifetime."""
    a, b = lease(client, key, clock, "a"), lease(client, key, clock, "b")
    a.may_run()
    b.may_run()
    clock.t += SETTLE
    assert a.may_run() and not b.may_run()
    a.release()
    assert holder(client, key) is None and a.may_run() is False
    clock.t += RENEW
    assert b.may_run() is False and b.held and holder(client, key) == "b"
    assert a.may_run() is False  # a's next question: b holds it now
    clock.t += SETTLE
    assert b.may_run() is True and a.may_run() is False


def test_an_expired_lock_passes_to_the_standby(client, key, clock):
    """kill -9: the holder stops renewing, Redis expires its key (a real TTL here, 1 s),
    the standby takes it; the old holder, if it ever comes back, finds it lost."""
    a = lease(client, key, clock, "a", seconds=1.0, renew=0.5)
    b = lease(client, key, clock, "b", seconds=1.0, renew=0.5)
    a.may_run()
    b.may_run()
    clock.t += 0.5 + MARGIN
    assert a.may_run() and not b.may_run()
    time.sleep(1.1)  # a is frozen: no renewal
    assert holder(client, key) is None
    clock.t += 0.6
    assert b.may_run() is False and b.held  # took it; sweeps after its wait
    clock.t += 0.5 + MARGIN
    assert b.may_run() is True
    assert a.may_run() is False and not a.held and holder(client, key) == "b"


def test_a_holder_whose_lock_was_taken_stops_sweeping_at_its_next_renewal(client, key, clock,
                                                                           caplog):
    """Redis restarted without persistence (the key is gone) and the standby took it
    before the holder's renewal: the holder's compare-and-renew fails and it stops at
    once; the standby had not swept yet, and sweeps only after that renewal."""
    start = clock.t
    a, b = lease(client, key, clock, "a"), lease(client, key, clock, "b")
    a.may_run()
    clock.t += 1.0
    b.may_run()  # b asks a second after a: at 3, 5, 7 ...
    clock.t = start + SETTLE
    assert a.may_run() and not b.may_run()  # a renewed at 2.5: next at 4.5
    client.delete(key)
    clock.t = start + 3.0
    assert b.may_run() is False and b.held  # b took the key ...
    assert a.may_run() is True  # ... while a, not asking yet, still sweeps
    with caplog.at_level(logging.INFO, logger="game.clock.lease"):
        clock.t = start + 4.5  # a's renewal
        assert a.may_run() is False and not a.held
        assert b.may_run() is False  # b's wait is not over: never both
        clock.t = start + 3.0 + SETTLE
        assert b.may_run() is True and a.may_run() is False
    assert "beat a lost the clock" in caplog.text and "held by b" in caplog.text


def test_never_two_sweepers_whatever_happens_to_the_key(client, key, clock):
    """Two beats ticking every 0.25 s while the key is deleted, expired and released at
    random moments: at no tick may both sweep, and the clock never stays unheld."""
    import random

    rng = random.Random(7)
    beats = [lease(client, key, clock, "a"), lease(client, key, clock, "b")]
    sweeping_ticks = 0
    for tick in range(2000):
        clock.t += 0.25
        if rng.random() < 0.01:
            client.delete(key)  # Redis restarted empty, or the key ran out
        if rng.random() < 0.005:
            rng.choice(beats).release()
        rng.shuffle(beats)
        sweeping = [b.token for b in beats if b.may_run()]
        assert len(sweeping) <= 1, (tick, sweeping)
        sweeping_ticks += bool(sweeping)
    assert sweeping_ticks > 2000 * 0.6  # takeovers cost a few seconds each, no more


def test_a_holder_that_cannot_reach_redis_stops_sweeping_and_goes_on_when_it_answers(
    client, key, clock, caplog
):
    """A renewal that fails (Redis unreachable) stops the sweeping at once; when Redis
    answers again and the key is still ours, the holder goes on after its wait."""
    a = lease(client, key, clock, "a")
    a.may_run()
    clock.t += SETTLE
    assert a.may_run()
    pool = client.connection_pool
    port = pool.connection_kwargs["port"]
    pool.connection_kwargs["port"] = 1  # nothing listens there: connection refused
    pool.reset()
    with caplog.at_level(logging.INFO, logger="game.clock.lease"):
        clock.t += RENEW
        assert a.may_run() is False
        for _ in range(5):  # still down: not sweeping, one line for the whole outage
            clock.t += RENEW
            assert a.may_run() is False
        assert caplog.text.count("cannot reach Redis") == 1
        pool.connection_kwargs["port"] = port
        pool.reset()
        client.pexpire(key, int(SECONDS * 1000))  # the outage was shorter than its lifetime
        clock.t += RENEW
        assert a.may_run() is False and a.held  # ours still: after one renewal period ...
        clock.t += SETTLE
        assert a.may_run() is True  # ... it sweeps again
    assert "beat a holds the clock again" in caplog.text


def test_each_beat_says_once_whether_it_holds_the_clock(client, key, clock, caplog):
    with caplog.at_level(logging.INFO, logger="game.clock.lease"):
        a, b = lease(client, key, clock, "a"), lease(client, key, clock, "b")
        for _ in range(100):
            a.may_run()
            b.may_run()
            clock.t += 0.25
    lines = [r.getMessage() for r in caplog.records]
    assert [line for line in lines if "holds the clock" in line] == [
        f"beat a holds the clock (lock {key}, 15 s, renewed every 2 s); first sweep in 2.5 s"
    ]
    assert [line for line in lines if "stands by" in line] == [
        "beat b stands by: the clock is held by a"
    ]
    assert all(r.levelno == logging.INFO for r in caplog.records)


def test_a_lease_renewed_less_than_twice_per_lifetime_is_refused(client, key, clock):
    with pytest.raises(ValueError, match="DOBON_CLOCK_LOCK_RENEW_SECONDS"):
        lease(client, key, clock, "a", seconds=3.0, renew=2.0)
    with pytest.raises(ValueError):
        lease(client, key, clock, "a", seconds=3.0, renew=0.0)


# -- the schedulers: celery beat runs its schedule only while it holds the clock ----------------


def scheduler_pair(client, key, clock, tmp_path, monkeypatch):
    """Two beats in one process, as celery builds them (lazy: no schedule file is read),
    each with its lease on the test's key and clock; celery's own tick is a recorder."""
    from celery.beat import PersistentScheduler

    from dobon_site.celery import app
    from game.clock import beat

    ran: list[str] = []
    monkeypatch.setattr(PersistentScheduler, "tick",
                        lambda self, *a, **kw: ran.append(self.lease.token) or 0.25)
    pair = []
    for token in ("a", "b"):
        scheduler = beat.SweepingScheduler(app=app, schedule_filename=str(tmp_path / token),
                                           lazy=True)
        scheduler.lease = lease(client, key, clock, token)
        pair.append(scheduler)
    return pair, ran


def test_a_standing_by_beat_runs_no_entry_of_its_schedule(client, key, clock, tmp_path,
                                                          monkeypatch):
    (a, b), ran = scheduler_pair(client, key, clock, tmp_path, monkeypatch)
    waits = []
    for _ in range(40):  # ten seconds of ticks
        a.tick()
        waits.append(b.tick())
        clock.t += 0.25
    assert set(ran) == {"a"} and len(ran) == 40 - SETTLE / 0.25
    assert all(0 < w <= RENEW for w in waits)  # a standby sleeps until its next question


def test_a_beat_stopped_cleanly_hands_the_clock_over_at_once(client, key, clock, tmp_path,
                                                             monkeypatch):
    """celery beat closes its scheduler on SIGTERM/SIGINT: the lock goes with it."""
    (a, b), ran = scheduler_pair(client, key, clock, tmp_path, monkeypatch)
    a.tick()
    b.tick()
    a.close()
    assert holder(client, key) is None
    clock.t += RENEW
    b.tick()
    clock.t += SETTLE
    b.tick()
    assert ran == ["b"] and holder(client, key) == "b"


@pytest.mark.django_db(transaction=True)  # beat closes its connections, as its thread must
def test_a_beat_that_loses_the_clock_hands_back_what_it_held(client, key, clock, tmp_path,
                                                             monkeypatch, settings, alice,
                                                             bob):
    """The holder found a version due before its next tick and held it (claimed); then it
    lost the clock. It sends nothing more, and the claim goes back, so that the new
    holder's sweep sends that version at once rather than after CLAIM_SECONDS."""
    from play_helpers import NOW, make_room, position, started

    from game.models import Game
    from game.services import clock as game_clock

    settings.CELERY_BROKER_URL = "memory://"
    settings.DOBON_SWEEP_SECONDS = 0.25
    sent: list[Any] = []
    monkeypatch.setattr(game_clock, "send_task", lambda *args, **kwargs: sent.append(args))
    game = started(make_room(alice, bob), alice, position([["G1", "G2"], ["R5", "B7"]]))
    (a, b), _ = scheduler_pair(client, key, clock, tmp_path, monkeypatch)
    a.tick()
    b.tick()
    clock.t += SETTLE
    assert game_clock.dispatch_due_games(now=NOW + 9.9, hold=a.held.add) == 1
    assert len(a.held) == 1 and game_clock.find_due(NOW + 10.1) == []  # claimed by a
    client.delete(key)
    clock.t += RENEW
    b.tick()  # takes the clock
    a.tick()  # renews: lost
    assert len(a.held) == 0 and sent == []
    assert Game.objects.get(pk=game.pk).claimed_until is None
    assert [d.game_id for d in game_clock.find_due(NOW + 10.1)] == [game.pk]


def test_a_beat_built_from_the_settings_guards_its_schedule_with_the_lock(
    settings, tmp_path, client
):
    """Not lazy, as `celery beat` runs it: the lease comes from REDIS_URL and the
    DOBON_CLOCK_LOCK_* settings; closing the scheduler releases it."""
    from dobon_site.celery import app
    from game.clock import beat
    from game.clock.lease import KEY

    settings.DOBON_CLOCK_LOCK_SECONDS, settings.DOBON_CLOCK_LOCK_RENEW_SECONDS = 12.0, 3.0
    client.delete(KEY)
    scheduler = beat.SweepingScheduler(app=app, schedule_filename=str(tmp_path / "s"))
    try:
        assert scheduler.lease is not None
        assert (scheduler.lease.seconds, scheduler.lease.renew_seconds) == (12.0, 3.0)
        assert scheduler.tick() == pytest.approx(3.0, abs=0.1)  # took it; waits to sweep
        assert holder(client, KEY) == scheduler.lease.token
    finally:
        scheduler.close()
    assert holder(client, KEY) is None


def test_without_redis_a_beat_runs_its_schedule_as_before(settings, tmp_path, monkeypatch):
    from celery.beat import PersistentScheduler

    from dobon_site.celery import app
    from game.clock import beat

    settings.REDIS_URL, settings.CELERY_BROKER_URL = "", "memory://"
    monkeypatch.setattr(PersistentScheduler, "tick", lambda self, *a, **kw: 0.25)
    scheduler = beat.SweepingScheduler(app=app, schedule_filename=str(tmp_path / "s"))
    try:
        assert scheduler.lease is None and scheduler.tick() == 0.25
    finally:
        scheduler.close()


@pytest.mark.parametrize(("sweep_in_beat", "scheduler"), [
    ("true", "game.clock.beat:SweepingScheduler"),
    ("false", "game.clock.beat:OneBeatScheduler"),
])
def test_both_ways_of_sweeping_run_beat_under_the_lock(sweep_in_beat, scheduler):
    assert settings_of(DOBON_SWEEP_IN_BEAT=sweep_in_beat) == scheduler


def test_a_lock_renewed_less_than_twice_per_lifetime_stops_the_site_starting():
    with pytest.raises(subprocess.CalledProcessError) as failed:
        settings_of(DOBON_CLOCK_LOCK_SECONDS="4", DOBON_CLOCK_LOCK_RENEW_SECONDS="3")
    assert "DOBON_CLOCK_LOCK_RENEW_SECONDS" in failed.value.stderr


def settings_of(**env: str) -> str:
    """CELERY_BEAT_SCHEDULER as a fresh process reads it from this environment."""
    code = "from dobon_site import settings; print(settings.CELERY_BEAT_SCHEDULER)"
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env},
                          capture_output=True, text=True, check=True, timeout=60)
    return done.stdout.strip()


# -- Redis itself stopped and started again (the deploy check does it on its data host) ---------


KEY_OF_TEST = "test:clock:restart"  # on a Redis server of the test's own


class PrivateRedis:
    """A redis-server of this test's own, without persistence, that it may stop."""

    def __init__(self, tmp_path: Any) -> None:
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.dir = tmp_path
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
             "--appendonly", "no", "--dir", str(self.dir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.monotonic() + 10
        while time.monotonic() < end:
            try:
                if redis.Redis(port=self.port).ping():
                    return
            except redis.ConnectionError:
                time.sleep(0.05)
        pytest.fail("redis-server did not start")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


@pytest.mark.stack
def test_after_a_redis_restart_exactly_one_beat_holds_the_clock_again(tmp_path, clock):
    """Redis dies under the holder: no beat sweeps while it is down (nobody can confirm);
    it comes back empty: exactly one beat takes the clock and sweeps, after its wait."""
    import shutil

    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server")
    server = PrivateRedis(tmp_path)
    server.start()
    try:
        client = client_for(f"redis://127.0.0.1:{server.port}/0", RENEW)
        beats = [lease(client, KEY_OF_TEST, clock, "a"), lease(client, KEY_OF_TEST, clock, "b")]
        for _ in range(20):
            clock.t += 0.25
            sweeping = [b.token for b in beats if b.may_run()]
        assert sweeping == ["a"]
        server.kill()
        down = clock.t
        for _ in range(40):  # ten seconds without Redis: a stops at its next renewal
            clock.t += 0.25
            sweeping = [b.token for b in beats if b.may_run()]
            assert sweeping == ([] if clock.t >= down + RENEW else sweeping[:1] and ["a"])
        server.start()
        swept: list[list[str]] = []
        for _ in range(40):
            clock.t += 0.25
            swept.append([b.token for b in beats if b.may_run()])
        assert all(len(s) <= 1 for s in swept)
        assert swept[-1] in (["a"], ["b"]) and len({s[0] for s in swept if s}) == 1
        assert client.get(KEY_OF_TEST).decode() == swept[-1][0]
    finally:
        server.kill()

