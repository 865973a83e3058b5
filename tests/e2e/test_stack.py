"""The production shape, for real: several daphne processes, Celery worker and beat,
PostgreSQL and Redis. Players on different processes see each other's moves, and a
seat that does nothing is played by Celery's timeout, seen by a websocket client."""

from __future__ import annotations

import asyncio
import statistics
from typing import Any

import pytest
from stack_helpers import WsPlayer, post_start, require_stack, session_cookie, stack

from game.models import Game, Membership, Room

pytestmark = [pytest.mark.stack, pytest.mark.django_db(transaction=True)]


def room_of(owner: Any, *others: Any, timeout: int = 60) -> Room:
    room = Room.objects.create(name="stack", owner=owner, timeout_seconds=timeout)
    for index, person in enumerate([owner, *others]):
        Membership.objects.create(room=room, user=person, seat_index=index)
    return room


def choose(view: dict[str, Any]) -> dict[str, Any] | None:
    """A simple player: pass after drawing, else draw (or take), else the first choice."""
    legal = view["legal_actions"]
    mine = view["turn"] == view["seat"] or view["chooser"] == view["seat"]
    if not legal or not mine:
        return None
    for kind in ("pass", "draw"):
        for action in legal:
            if action["type"] == kind:
                return action
    return legal[0]


def test_players_on_two_daphne_processes_see_each_others_moves(tmp_path, alice, bob):
    require_stack()
    room = room_of(alice, bob)
    cookies = {"alice": session_cookie(alice), "bob": session_cookie(bob)}

    async def scenario(port1: int, port2: int) -> None:
        players = [WsPlayer("alice", port1, room.pk, cookies["alice"]),
                   WsPlayer("bob", port2, room.pk, cookies["bob"])]
        for p in players:
            await p.connect()
            await p.wait_for(lambda s: s["view"] is None)
        assert await asyncio.to_thread(post_start, port1, room.pk, cookies["alice"]) == 302
        version = 0
        for _ in range(8):
            states = [await p.wait_for(lambda s, v=version: s["version"] == v) for p in players]
            assert states[0]["view"]["top"] == states[1]["view"]["top"]
            assert states[0]["view"]["hand_counts"] == states[1]["view"]["hand_counts"]
            actor = next((p, s) for p, s in zip(players, states, strict=True) if choose(s["view"]))
            await actor[0].send({"type": "action", "action": choose(actor[1]["view"])})
            version += 1
        for p in players:
            await p.wait_for(lambda s, v=version: s["version"] == v)
            seen = [s["version"] for s in p.states if s["version"] is not None]
            assert seen == list(range(version + 1)), (p.name, seen)
            await p.close()

    with stack(tmp_path) as running:
        port1, port2 = running.daphne(), running.daphne()
        asyncio.run(scenario(port1, port2))
    game = Game.objects.get(room=room)
    assert game.version == 8 and game.events.count() >= 9


def test_celery_plays_an_idle_seat_and_the_client_sees_it_in_time(tmp_path, alice, bob):
    require_stack()
    room = room_of(alice, bob, timeout=5)
    cookie = session_cookie(alice)
    delays: list[float] = []

    async def scenario(port: int) -> None:
        watcher = WsPlayer("alice", port, room.pk, cookie)
        await watcher.connect()
        await watcher.wait_for(lambda s: s["view"] is None)
        assert await asyncio.to_thread(post_start, port, room.pk, cookie) == 302
        for version in range(3):  # three timeouts in a row: nobody ever acts
            state = await watcher.wait_for(lambda s, v=version: s["version"] == v)
            deadline = state["view"]["turn_deadline"]
            await watcher.wait_for(lambda s, v=version: s["version"] == v + 1, timeout=12)
            arrived = next(t for t, m in watcher.messages
                           if m["type"] == "state" and m["version"] == version + 1)
            delays.append(arrived - deadline)
            timeouts = [e for _, m in watcher.messages
                        if m["type"] == "state" and m["version"] == version + 1
                        for e in m["events"] if e["type"] == "timeout"]
            assert timeouts, "the automatic action is announced"
        await watcher.close()

    with stack(tmp_path) as running:
        port = running.daphne()
        running.celery()
        asyncio.run(scenario(port))
    print(f"auto-action delay after the deadline: {[round(d * 1000) for d in delays]} ms, "
          f"max {max(delays) * 1000:.0f} ms, median {statistics.median(delays) * 1000:.0f} ms")
    assert all(d >= 0 for d in delays)
    assert max(delays) < 0.5, delays
    events = list(Game.objects.get(room=room).events.values_list("data__type", flat=True))
    assert events.count("timeout") >= 3
