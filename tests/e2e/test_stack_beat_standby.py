"""One clock, with a stand-in (issue #30, part 5), with real processes: two
`celery -A dobon_site beat` against PostgreSQL and Redis, as the stack tests start them.
One holds the clock and sweeps, the other stands by; `kill -9` of the holder hands the
clock to the standby within 30 s (the default lock: 15 s, renewed every 2 s) and the
game's timeouts go on; a holder stopped cleanly (SIGTERM) releases the clock, and a
standby takes it over at once, long before the lock's lifetime."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from stack_helpers import require_stack, stack, wait_for_log

from game.models import Game, GameEvent, Membership, Room
from game.services import play

pytestmark = [pytest.mark.stack, pytest.mark.django_db(transaction=True)]

HOLDS, STANDS_BY = "holds the clock", "stands by: the clock is held by"


def said_at(path: Path, text: str, timeout: float) -> float:
    """When (unix time, polled every 0.1 s) the log first said `text`."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if path.exists() and text in path.read_text(errors="replace"):
            return time.time()
        time.sleep(0.1)
    pytest.fail(f"{path.name} never said {text!r}:\n{path.read_text(errors='replace')[-3000:]}")


def timeouts_after(game: Game, moment: float, count: int, timeout: float) -> list[float]:
    """Wait until the clock has applied `count` timeouts at versions made after
    `moment` (the version's input `now`, server time); their moments."""
    end = time.monotonic() + timeout
    while True:
        steps = GameEvent.objects.filter(game=game, step__isnull=False, data__type="timeout")
        moments = sorted(s for s in steps.values_list("step__now", flat=True) if s > moment)
        if len(moments) >= count:
            return moments
        if time.monotonic() > end:
            pytest.fail(f"only {len(moments)} timeouts after {moment}: {moments}")
        time.sleep(0.2)


def test_a_second_beat_stands_by_and_takes_over_when_the_holder_dies(tmp_path, alice, bob):
    require_stack()
    room = Room.objects.create(name="clock", owner=alice, timeout_seconds=5)
    Membership.objects.create(room=room, user=alice, seat_index=0)
    Membership.objects.create(room=room, user=bob, seat_index=1)
    with stack(tmp_path) as running:
        running.start_worker()
        wait_for_log(tmp_path / "worker.log", "ready.", timeout=90)  # a busy machine
        first = running.start_beat("beat-a")
        said_at(tmp_path / "beat-a.log", HOLDS, 90)
        second = running.start_beat("beat-b")
        said_at(tmp_path / "beat-b.log", STANDS_BY, 90)

        game = play.start_game(room, alice)  # nobody acts: §R14 timeouts every 5 s
        timeouts_after(game, 0, 2, 30)
        assert HOLDS not in (tmp_path / "beat-b.log").read_text()

        running.kill(first)  # kill -9: no release, the lock runs out
        killed = time.time()
        took_over = said_at(tmp_path / "beat-b.log", HOLDS, 30)
        # The clock goes on: the timeouts due meanwhile are applied at the new holder's
        # first sweep, within 30 s of the kill, and the next ones after them.
        first, second_timeout = timeouts_after(game, took_over, 2, 30)[:2]
        print(f"kill -9 -> the standby holds the clock: {took_over - killed:.1f} s, "
              f"its first timeout: {first - killed:.1f} s")
        assert first - killed < 30

        running.start_beat("beat-c")
        said_at(tmp_path / "beat-c.log", STANDS_BY, 90)
        os.killpg(second.pid, signal.SIGTERM)  # a clean stop releases the lock
        stopped = time.time()
        second.wait(15)
        handed = said_at(tmp_path / "beat-c.log", HOLDS, 30)
        print(f"SIGTERM -> the standby holds the clock: {handed - stopped:.1f} s")
        assert "released the clock" in (tmp_path / "beat-b.log").read_text()
        assert handed - stopped < 10  # the lock lives 15 s: it was released, not run out
        timeouts_after(game, handed, 1, 30)
        logs = running.log_text()
    assert "Traceback" not in logs
    assert (tmp_path / "beat-a.log").read_text().count(HOLDS) == 1  # one line, not one a tick
