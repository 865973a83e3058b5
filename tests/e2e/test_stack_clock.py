"""The clock split in the production shape (issue #22): beat and a Celery worker as
separate processes. Beat only finds what is due; the worker plays the idle person's §R14
timeout and the CPU's moves; a clock that was down resumes the game with a fresh timeout
instead of a burst of automatic actions."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from stack_helpers import WsPlayer, post_start, require_stack, session_cookie, stack, wait_for_log

from game.models import Game, GameEvent, Membership, Room

pytestmark = [pytest.mark.stack, pytest.mark.django_db(transaction=True)]


def room_of(owner: Any, *others: Any, cpu: str | None = None, timeout: int = 5) -> Room:
    room = Room.objects.create(name="clock", owner=owner, timeout_seconds=timeout)
    for index, person in enumerate([owner, *others]):
        Membership.objects.create(room=room, user=person, seat_index=index)
    if cpu is not None:
        Membership.objects.create(room=room, cpu_level=cpu, seat_index=len(others) + 1)
    return room


def events_of(message: dict[str, Any]) -> list[str]:
    return [e["type"] for e in message["events"]]


CPU_MOVES = ("play", "draw", "pass", "color", "dobon", "return", "decline")


def test_a_worker_plays_the_timeouts_and_cpu_moves_that_beat_finds(tmp_path, alice):
    """alice sits with a CPU and never acts. The CPU plays first (its think time ends ->
    its task runs), alice's turn times out (beat finds it, the worker applies it), and
    so on; beat moves nothing and says nothing per tick."""
    require_stack()
    room = room_of(alice, cpu="easy")
    cookie = session_cookie(alice)

    async def scenario(port: int) -> WsPlayer:
        me = WsPlayer("alice", port, room.pk, cookie)
        await me.connect()
        await me.wait_for(lambda s: s["view"] is None)
        assert await asyncio.to_thread(post_start, port, room.pk, cookie) == 302
        await me.wait_for(lambda s: any(e["type"] == "timeout" and e["seat"] == 0
                                        for e in s["events"]), timeout=25)
        # A first S skips the CPU (§R3.2): then alice's turn times out before the CPU's
        # first move, which the assertions below also want to see.
        await me.wait_for(lambda s: any(e["seat"] == 1 and e["type"] in CPU_MOVES
                                        for e in s["events"]), timeout=25)
        await me.close()
        return me

    with stack(tmp_path) as running:
        port = running.daphne()
        running.celery()
        me = asyncio.run(scenario(port))
        worker_log = (tmp_path / "worker.log").read_text(errors="replace")
        beat_log = (tmp_path / "beat.log").read_text(errors="replace")
    game = Game.objects.get(room=room)
    steps = {e.version: e.step for e in GameEvent.objects.filter(game=game, step__isnull=False)}
    cpu_moves = [v for v, s in steps.items() if s.get("seat") == 1 and not s.get("auto")]
    assert cpu_moves, "the CPU moved"
    assert "game.tasks.run_due_game" in worker_log and "succeeded" in worker_log
    assert "Sending due task" not in beat_log  # quiet: no line per tick
    assert "Traceback" not in worker_log + beat_log
    # Every state alice got arrived in version order (the worker's pushes reach daphne).
    seen = [s["version"] for s in me.states if s["version"] is not None]
    assert seen == sorted(seen)
    timeouts = [(t, m) for t, m in me.messages if m["type"] == "state"
                and any(e["type"] == "timeout" and e["seat"] == 0 for e in m["events"])]
    arrived, frame = timeouts[0]
    deadline = next(e for e in frame["events"] if e["type"] == "timeout")
    previous = next(s for s in me.states if s["version"] == frame["version"] - 1)
    late = arrived - previous["view"]["turn_deadline"]
    print(f"alice's timeout arrived {late * 1000:.0f} ms after its deadline; "
          f"CPU moves at versions {cpu_moves}; {deadline}")
    assert 0 <= late < 1.5, late


def test_a_clock_back_after_an_outage_resumes_with_a_fresh_timeout(tmp_path, alice, bob):
    """Beat and the worker die right after the start (SIGKILL) and come back 12 s after
    the 5 s deadline: the game resumes with a fresh full timeout (one `resume`), not with
    ⌊D / timeout⌋ automatic actions; then the clock goes on as usual."""
    require_stack()
    room = room_of(alice, bob)
    cookie = session_cookie(alice)

    async def scenario(port: int, running: Any) -> list[tuple[float, dict[str, Any]]]:
        me = WsPlayer("alice", port, room.pk, cookie)
        await me.connect()
        await me.wait_for(lambda s: s["view"] is None)
        worker, beat = running.start_worker(), running.start_beat()
        await asyncio.to_thread(wait_for_log, tmp_path / "worker.log", "ready.")
        assert await asyncio.to_thread(post_start, port, room.pk, cookie) == 302
        start = await me.wait_for(lambda s: s["version"] == 0)
        running.kill(worker)
        running.kill(beat)
        await asyncio.sleep(max(0.0, start["view"]["turn_deadline"] + 12 - time.time()))
        back = time.time()
        running.start_worker("worker-again")
        running.start_beat("beat-again")
        resumed = await me.wait_for(lambda s: s["version"] == 1, timeout=30)
        assert events_of(resumed) == ["resume"], events_of(resumed)
        arrived = next(t for t, m in me.messages if m["type"] == "state" and m["version"] == 1)
        # The fresh timeout runs from the moment the clock was back (workers take a few
        # seconds to start on a busy machine), a full 5 s.
        assert back <= resumed["view"]["turn_deadline"] - 5 <= arrived + 0.05
        after = await me.wait_for(lambda s: s["version"] == 2, timeout=15)
        assert "timeout" in events_of(after)  # the next timeout, at its fresh deadline
        await me.close()
        return me.messages

    with stack(tmp_path, DOBON_CLOCK_OUTAGE_SECONDS="3") as running:
        port = running.daphne()
        asyncio.run(scenario(port, running))
    game = Game.objects.get(room=room)
    automatic = GameEvent.objects.filter(game=game, data__type="timeout").count()
    assert automatic == 1, automatic  # only the one after the fresh timeout
    assert GameEvent.objects.get(game=game, version=1).step["resume"] is True
