"""game.live.sender: pushes from plain threads share one kept event loop per process
(so channels-redis keeps its connection); under daphne they run on the server's loop."""

from __future__ import annotations

import asyncio
import threading

from asgiref.sync import sync_to_async

from game.live import sender


def _recording(loops: list[asyncio.AbstractEventLoop]):
    async def make() -> None:
        loops.append(asyncio.get_running_loop())

    return make


def test_plain_thread_calls_share_one_kept_loop():
    loops: list[asyncio.AbstractEventLoop] = []
    sender.run(_recording(loops))
    other = threading.Thread(target=sender.run, args=(_recording(loops),))
    other.start()
    other.join()
    sender.run(_recording(loops))
    assert len(loops) == 3 and loops[0] is loops[1] is loops[2]
    assert loops[0].is_running()


async def test_under_an_outer_loop_the_work_runs_on_it():
    loops: list[asyncio.AbstractEventLoop] = []
    await sync_to_async(sender.run)(_recording(loops))
    assert loops == [asyncio.get_running_loop()]


def test_an_error_in_the_coroutine_reaches_the_caller():
    async def failing() -> None:
        raise ValueError("no such group")

    try:
        sender.run(failing)
    except ValueError as exc:
        assert str(exc) == "no such group"
    else:
        raise AssertionError("the error was swallowed")
