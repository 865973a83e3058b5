"""The load benchmark's players behave like the site's own clients when a server says
"come back later" (docs/protocol.md: 4410, 4411, 4503 are not final)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

from game.management.bench.players import Player

STATE = {"type": "state", "game": None, "version": None}


async def serve_refusals(refusals: list[int], seen: list[str]) -> Any:
    """A server that closes the first sockets with `refusals`' codes (after accepting,
    as daphne does), then sends a state frame."""
    async def handler(ws: ServerConnection) -> None:
        seen.append(ws.request.path if ws.request else "")
        if refusals:
            await ws.close(refusals.pop(0))
            return
        await ws.send(json.dumps(STATE))
        await ws.wait_closed()
    return await serve(handler, "127.0.0.1", 0)


async def refusing(monkeypatch: pytest.MonkeyPatch, codes: list[int]) -> tuple[Any, list[str], int]:
    """A server refusing with `codes` first, the handshakes it saw and its port; the
    players' backoff does not wait."""
    monkeypatch.setattr(asyncio, "sleep", _no_wait)
    seen: list[str] = []
    server = await serve_refusals(codes, seen)
    return server, seen, server.sockets[0].getsockname()[1]


def player(port: int) -> Player:
    return Player(name="p", room=7, port=port, cookie="sessionid=x", act=False)


@pytest.mark.asyncio
async def test_a_bench_player_told_to_come_back_later_tries_again_until_it_gets_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server, seen, port = await refusing(monkeypatch, [4411, 4503, 4410])
    p = player(port)
    first = await p.first_state()
    assert first is not None and json.loads(first)["type"] == "state"
    assert len(seen) == 4 and p.retries == 3
    await p.ws.close()
    server.close()


@pytest.mark.asyncio
async def test_a_bench_player_refused_for_good_does_not_try_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from websockets.exceptions import ConnectionClosed

    server, seen, port = await refusing(monkeypatch, [4401])
    with pytest.raises(ConnectionClosed):
        await player(port).first_state()
    assert len(seen) == 1
    server.close()


_real_sleep = asyncio.sleep


async def _no_wait(seconds: float, *args: Any) -> None:
    await _real_sleep(0)


def test_the_slowest_moves_are_reported_with_when_they_were_sent_in_the_window():
    from game.management.bench.players import Sent, slowest

    a, b = player(1), player(1)
    # Three actions at 100.0 s, 105.0 s and 110.0 s of the clock; the window began at 100.
    a.sent = [Sent(1, 1, 100.0), Sent(1, 2, 105.0), Sent(1, 3, 110.0)]
    a.arrivals = [(1, 2, 100.01), (1, 3, 105.9), (1, 4, 110.02)]
    b.arrivals = [(1, 2, 100.02), (1, 3, 105.5), (1, 4, 110.3)]
    assert slowest([a, b], 100.0, 200.0, count=2) == [(5.0, 900.0), (10.0, 300.0)]
