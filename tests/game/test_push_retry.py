"""Issue #30, restarts and outages that lose no move: a push the channel layer refused
(Redis stopped for a few seconds, as the deploy check does) is tried again until it goes
through, so the clients get the game's last move even when nothing comes after it
(game/live/retry.py). Before, it was logged and dropped."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from game.live import fanout, retry, sender
from game.live.groups import fanout_group


class FlakyLayer:
    """A channel layer that refuses the first `refusals` sends, then takes them."""

    def __init__(self, refusals: int) -> None:
        self.refusals = refusals
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        if self.refusals > 0:
            self.refusals -= 1
            raise ConnectionError("Redis is down")
        self.sent.append((group, message))


@pytest.fixture
def quick(monkeypatch):
    monkeypatch.setattr(retry, "RETRY_PAUSES", (0.01, 0.01, 0.01, 0.01))


async def test_a_refused_send_goes_through_on_a_later_try(quick):
    layer = FlakyLayer(refusals=2)
    went = await retry.with_retries(lambda: layer.group_send("room.1", {"v": 7}), "a push")
    assert went and layer.sent == [("room.1", {"v": 7})]


async def test_it_gives_up_after_its_tries_without_raising(quick, caplog):
    layer = FlakyLayer(refusals=100)
    went = await retry.with_retries(lambda: layer.group_send("room.1", {}), "a push")
    assert not went and layer.sent == [] and "gave up a push" in caplog.text


def test_pushes_refused_in_a_database_thread_are_sent_later(quick, monkeypatch):
    """`play.notify_change`'s path: `send` raised, `send_later` tries again on the kept
    loop without holding up the caller."""
    layer = FlakyLayer(refusals=3)
    monkeypatch.setattr("channels.layers.get_channel_layer", lambda *a: layer)
    pushes = [("user.5", {"type": "game.state", "version": 9})]
    sender.send_later(pushes, "the push of game 1 v9")
    deadline = time.monotonic() + 5
    while not layer.sent and time.monotonic() < deadline:
        time.sleep(0.01)
    assert layer.sent == [("user.5", {"type": "game.state", "version": 9})]


async def test_a_fanout_refused_by_the_layer_reaches_the_other_processes_later(quick):
    """A daphne's own sockets get the move at once; the other processes' copy is tried
    again until the layer takes it."""
    layer = FlakyLayer(refusals=2)
    process = fanout.Fanout(layer)
    move = {"type": fanout.MOVE, "room": 3, "version": 4, "pushes": {}}
    await process.publish(move)
    for _ in range(200):
        if layer.sent:
            break
        await asyncio.sleep(0.01)
    assert [group for group, _ in layer.sent] == [fanout_group(3)]
