"""Every committed move is announced (issue #22): a player on one daphne sends a move
and closes its socket at once; the other seat, on the same daphne or the other one,
receives the new state (before: 22 of 22 such moves were committed and never pushed)."""

from __future__ import annotations

import asyncio
import json

import pytest
from stack_helpers import WsPlayer, post_start, require_stack, session_cookie, stack
from test_stack import choose, room_of

from game.models import Game

pytestmark = [pytest.mark.stack, pytest.mark.django_db(transaction=True)]

TRIES = 6


def test_a_move_whose_sender_closes_at_once_reaches_the_other_seat(tmp_path, alice, bob):
    require_stack()
    room = room_of(alice, bob)
    cookies = {"alice": session_cookie(alice), "bob": session_cookie(bob)}
    ports: dict[str, int] = {}

    async def move_and_close(name: str, port: int, version: int) -> None:
        """Open a socket, read the table, send this seat's move, close at once."""
        from websockets.asyncio.client import connect

        url = f"ws://127.0.0.1:{port}/ws/rooms/{room.pk}/"
        async with connect(url, origin=f"http://127.0.0.1:{port}",
                           additional_headers={"Cookie": cookies[name]}) as ws:
            while (state := json.loads(await ws.recv()))["type"] != "state":
                pass
            assert state["version"] == version, (name, state["version"], version)
            await ws.send(json.dumps({"type": "action", "action": choose(state["view"])}))
        # Leaving the block sent the close frame right after the move.

    async def scenario() -> None:
        watchers = {name: WsPlayer(name, ports[name], room.pk, cookies[name])
                    for name in ("alice", "bob")}
        for player in watchers.values():
            await player.connect()
        assert await asyncio.to_thread(post_start, ports["alice"], room.pk,
                                       cookies["alice"]) == 302
        version = 0
        for _ in range(TRIES):
            states = {n: await p.wait_for(lambda s, v=version: s["version"] == v)
                      for n, p in watchers.items()}
            mover = next(n for n, s in states.items() if choose(s["view"]))
            other = "bob" if mover == "alice" else "alice"
            # The move comes from a second socket of the mover that closes right after
            # it, on the other seat's daphne or on the other one, in turn.
            port = ports[other] if version % 2 else ports[mover]
            await move_and_close(mover, port, version)
            version += 1
            await watchers[other].wait_for(lambda s, v=version: s["version"] == v, timeout=10)
        for player in watchers.values():
            await player.close()

    with stack(tmp_path) as running:
        ports["alice"], ports["bob"] = running.daphne(), running.daphne()
        asyncio.run(scenario())
    assert Game.objects.get(room=room).version == TRIES
