"""The deploy check's websocket players (deploy/check/players.py) on the way back from a
restart (issue #30): the game they played ended while they were away and the next one
began, so the table on connecting is the next game's and the answer to their resuming
sync is the ended game's catch-up frame, then the current table. Every version of the
ended game counts as reached, and the catch-up does not move their place."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "deploy" / "check"))

from players import Player  # noqa: E402


class Recorded:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send(self, text: str) -> None:
        self.sent.append(json.loads(text))


def frame(game: int, version: int, since: int, status: str = "running",
          events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"type": "state", "game": game, "version": version, "from_version": since,
            "status": status, "view": None, "events": events or []}


def test_a_catch_up_frame_after_the_next_games_table_covers_the_ended_game():
    started: list[int] = []

    async def on_finished(player: Player, game: int) -> None:
        started.append(game)

    player = Player("room1/player1", 1, 0, "", "198.18.0.1", "dobon.test", None,  # type: ignore[arg-type]
                    act=False, on_finished=on_finished)
    socket = Recorded()
    result = {"kind": "agari", "winners": [1], "deltas": [-5, 5]}

    async def scenario() -> None:
        await player.handle(socket, frame(5, 0, -1))
        await player.handle(socket, frame(5, 1, 0))
        player.connected = False  # 1012; the session resumes with (5, 1)
        await player.handle(socket, frame(6, 2, 2))  # the connect's table: game 6
        await player.handle(socket, frame(5, 3, 1, "finished",
                                          [{"type": "finished", "result": result}]))
        await player.handle(socket, frame(6, 2, 2))

    asyncio.run(scenario())
    assert player.covered[5] == {0, 1, 2, 3}
    assert player.finished == {5: result}
    assert (player.game, player.version) == (6, 0), "its place stays in game 6"
    # Game 6 began while away: its versions are asked for from 0; game 5 is not asked
    # for again, and no "next game" is started for a game that already has a successor.
    assert {"type": "sync", "game": 5, "version": 0} not in socket.sent
    assert socket.sent[0] == {"type": "sync", "game": 6, "version": 0}
    assert started == []
