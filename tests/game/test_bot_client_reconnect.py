"""docs/bot-client.py after a server restart (issue #30): a 1012 close is followed by a
reconnect within a random 0.25-1.5 s that resumes by version (`sync` with the last game
and version seen), and the table is answered again (a move sent just before the restart
may have been dropped unread). Against a stand-in server speaking protocol v2."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def reference_client() -> Any:
    spec = importlib.util.spec_from_file_location("bot_client", ROOT / "docs" / "bot-client.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def state(version: int, status: str = "running") -> dict[str, Any]:
    view = {"legal_actions": [{"type": "draw"}]} if status == "running" else None
    return {"type": "state", "game": 5, "number": 1, "version": version,
            "from_version": version, "events": [], "status": status, "seat": 0,
            "view": view, "deadline": None, "server_time": time.time()}


def test_the_bot_client_resumes_by_version_soon_after_1012():
    client = reference_client()
    heard: list[list[dict[str, Any]]] = []
    closed_at: list[float] = []
    opened_at: list[float] = []

    async def server(ws: Any) -> None:
        opened_at.append(time.monotonic())
        got: list[dict[str, Any]] = []
        heard.append(got)
        if len(heard) == 1:
            await ws.send(json.dumps(state(7)))
            got.append(json.loads(await ws.recv()))  # the bot's move
            closed_at.append(time.monotonic())
            await ws.close(1012, "service restart")
            return
        got.append(json.loads(await ws.recv()))  # the resuming sync comes first
        await ws.send(json.dumps(state(7)))  # the move was dropped: still version 7
        got.append(json.loads(await ws.recv()))
        await ws.send(json.dumps(state(8, status="finished")))
        await ws.wait_closed()

    async def scenario() -> None:
        from websockets.asyncio.server import serve

        async with serve(server, "127.0.0.1", 0) as running:
            port = running.sockets[0].getsockname()[1]
            bot = client.Bot(f"ws://127.0.0.1:{port}/", "dobon_test", games=1)
            await asyncio.wait_for(bot.run(), 10)

    asyncio.run(scenario())
    first, second = heard
    assert first == [{"type": "action", "action": {"type": "draw"}, "version": 7}]
    assert second == [{"type": "sync", "game": 5, "version": 7, "private": 0},
                      {"type": "action", "action": {"type": "draw"}, "version": 7}]
    waited = opened_at[1] - closed_at[0]
    assert 0.25 <= waited < 1.5 + 0.5, waited


def test_the_bot_client_takes_the_end_of_a_game_that_ended_while_it_was_away():
    """The game (5) ended and the next (6) began during the restart: the table on
    connecting is game 6's; the answer to the resuming sync is game 5's catch-up frame
    (its end), then game 6's table. The bot counts game 5 as finished and keeps its place
    in game 6."""
    client = reference_client()
    heard: list[list[dict[str, Any]]] = []
    finished = {"type": "finished", "to": None, "seat": 1,
                "result": {"kind": "agari", "deltas": [-9, 9]}}

    def next_game() -> dict[str, Any]:
        return {**state(0), "game": 6, "number": 2}

    async def server(ws: Any) -> None:
        got: list[dict[str, Any]] = []
        heard.append(got)
        if len(heard) == 1:
            await ws.send(json.dumps(state(7)))
            got.append(json.loads(await ws.recv()))
            await ws.close(1012, "service restart")
            return
        got.append(json.loads(await ws.recv()))  # the resuming sync
        await ws.send(json.dumps(next_game()))  # the connect's table
        got.append(json.loads(await ws.recv()))  # the bot plays game 6 at once
        await ws.send(json.dumps({**state(9, status="finished"), "from_version": 7,
                                  "events": [finished]}))
        await ws.send(json.dumps(next_game()))
        await ws.wait_closed()

    async def scenario() -> Any:
        from websockets.asyncio.server import serve

        async with serve(server, "127.0.0.1", 0) as running:
            port = running.sockets[0].getsockname()[1]
            bot = client.Bot(f"ws://127.0.0.1:{port}/", "dobon_test", games=1)
            await asyncio.wait_for(bot.run(), 10)
            return bot

    bot = asyncio.run(scenario())
    assert heard[1] == [{"type": "sync", "game": 5, "version": 7, "private": 0},
                        {"type": "action", "action": {"type": "draw"}, "version": 0}]
    assert bot.finished == {5} and (bot.game, bot.version) == (6, 0)
