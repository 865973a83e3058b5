"""Trump Dobon on the production shape (issue #18): daphne, Celery worker and beat,
PostgreSQL and Redis, players on real websockets.

One stack, several rooms at once (so the 5-second clocks run side by side and the whole
test stays short): a whole au round with a dobon chain and a return, with a reload
(reconnect and resume) in the middle of it; a standard round with its auction and a
しばり; and every kind of timeout of §T18, applied by the real beat sweep.

Rounds start from fixed deals (game/services/fixed_setups.py, test-only) in this process;
the sockets connect afterwards, so their first frame is the resuming sync of a running
round, as after a page reload.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db import connections
from stack_helpers import WsPlayer, require_stack, session_cookie, stack

from game.models import Game, Membership, Room

pytestmark = [pytest.mark.stack, pytest.mark.django_db(transaction=True)]

TIMEOUT = 5  # seconds: §T1.3's minimum, the clock of every §T18 timeout below


@pytest.fixture
def fixed(settings):
    settings.DOBON_TEST_SETUPS_ALLOWED = True


def trump_room(preset: str, people: list[Any]) -> Room:
    room = Room.objects.create(
        name=f"stack {preset}", owner=people[0], timeout_seconds=TIMEOUT,
        game_kind="trump_dobon", trump_preset=preset, seat_count=len(people),
    )
    for index, person in enumerate(people):
        Membership.objects.create(room=room, user=person, seat_index=index)
    return room


def start(room: Room, hands: list[list[str]], first: str, first_player: int | None = 0,
          deck: list[str] | None = None) -> Game:
    from game.services import fixed_setups

    setup = fixed_setups.FixedSetup(
        hands=hands, first_card=first, first_player=first_player,
        deck=deck or ["S9", "D1", "C3", "H13", "S4", "H6", "C1", "D8", "S10", "H10"],
    )
    return fixed_setups.start_fixed_game(room, room.owner, setup)


def events_of(player: WsPlayer) -> list[dict[str, Any]]:
    """Every event the player's frames carried, in order (no duplicates by version)."""
    seen: dict[int, list[dict[str, Any]]] = {}
    for state in player.states:
        if state.get("from_version") is not None or state["events"]:
            seen.setdefault(state["version"], state["events"])
    return [e for v in sorted(seen) for e in seen[v]]


async def seated(room_id: int, people: list[Any], port: int,
                 cookies: dict[str, str]) -> list[WsPlayer]:
    """Everybody's socket open on the room before its round starts."""
    players = [WsPlayer(p.username, port, room_id, cookies[p.username]) for p in people]
    for p in players:
        await p.connect()
        await p.wait_for(lambda s: s["view"] is None)
    return players


async def synced(game: Game, players: list[WsPlayer]) -> list[WsPlayer]:
    """The round started: every client asks for the table (as the page does on a push it
    cannot place) and has the running round's first frame."""
    for p in players:
        await p.send({"type": "sync"})
    for p in players:
        await p.wait_for(lambda s: s["game"] == game.pk and s["view"] is not None)
    return players


async def act(player: WsPlayer, action: dict[str, Any], after: int) -> dict[str, Any]:
    """Send `action` once the player has seen version `after`; the next version's frame."""
    await player.wait_for(lambda s: s["version"] == after)
    await player.send({"type": "action", "action": action, "version": after})
    return await player.wait_for(lambda s: s["version"] == after + 1)


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


async def closed(players: list[WsPlayer]) -> None:
    for p in players:
        await p.close()


# -- the scenarios (each its own room, all at once) ------------------------------------------


# au, 3 seats: 0 plays D10 (sum 10); 1 (C4 H6) and 2 (S5 C5) may dobon; 0 holds S3 H7 (10).
CHAIN = dict(hands=[["D10", "S3", "H7"], ["C4", "H6"], ["S5", "C5"]], first="D6",
             deck=["H9", "C8", "S1"])


async def au_chain_and_return(game: Game, players: list[WsPlayer], port: int,
                              cookies: dict[str, str]) -> None:
    """A whole au round by hand: a play, a dobon, a dobon on top (the chain), a return;
    carol reloads the page while her dobon chance is open."""
    alice, bob, carol = await synced(game, players)
    state = await act(alice, {"type": "play", "cards": ["D10"]}, 0)
    assert state["view"]["phase"] != "auction"
    # The reload: carol's page goes away after the play, bob dobons meanwhile; her new
    # socket's first frame is the current table, and a resume from the version she had
    # brings the events she missed.
    await carol.wait_for(lambda s: s["version"] == 1)
    await carol.close()
    await act(bob, {"type": "dobon"}, 1)
    carol = WsPlayer("carol", port, game.room_id, cookies["carol"])
    await carol.connect()
    now = await carol.wait_for(lambda s: s["version"] == 2)
    assert now["game"] == game.pk and now["events"] == []
    assert "dobon" in [a["type"] for a in now["view"]["legal_actions"]]
    await carol.send({"type": "sync", "game": game.pk, "version": 1})
    resumed = await carol.wait_for(lambda s: s.get("from_version") == 1 and s["events"])
    assert "dobon" in kinds(resumed["events"]) and resumed["version"] == 2
    await act(carol, {"type": "dobon"}, 2)
    state = await act(alice, {"type": "return"}, 3)
    assert kinds(state["events"])[-1] == "finished"
    await closed([alice, bob, carol])


async def standard_auction_and_shibari(game: Game, players: list[WsPlayer], port: int,
                                       cookies: dict[str, str]) -> None:
    """standard, 3 seats: alice and bob bid, carol is silent (§T18: she bids 1); bob wins
    and plays C2 (しばり on carol), who does nothing (§T18: she takes the accumulation);
    alice then does nothing on a plain turn (§T18: she draws one)."""
    alice, bob, carol = await synced(game, players)
    assert alice.states[-1]["view"]["phase"] == "auction"
    await act(alice, {"type": "bid", "amount": 1}, 0)
    await act(bob, {"type": "bid", "amount": 5}, 1)
    ended = await bob.wait_for(lambda s: "auction_end" in kinds(s["events"]), timeout=TIMEOUT + 8)
    assert [(e["type"], e.get("seat"), e.get("action")) for e in ended["events"][:2]] == [
        ("timeout", 2, "bid"), ("bid", 2, None)]
    state = await act(bob, {"type": "play", "cards": ["C2"]}, ended["version"])
    assert state["view"]["shibari"] is True
    took = await alice.wait_for(lambda s: s["version"] == state["version"] + 1, timeout=TIMEOUT + 8)
    assert took["events"][0] == {**took["events"][0], "type": "timeout", "action": "take",
                                 "seat": 2}
    drew = await alice.wait_for(lambda s: s["version"] == took["version"] + 1, timeout=TIMEOUT + 8)
    assert drew["events"][0] == {**drew["events"][0], "type": "timeout", "action": "draw",
                                 "seat": 0}
    await closed([alice, bob, carol])


async def au_obligation(game: Game, players: list[WsPlayer], port: int,
                        cookies: dict[str, str]) -> None:
    """au, 2 seats: alice plays S2; bob, under the draw obligation, does nothing (§T18: he
    draws the obligation)."""
    alice, bob = await synced(game, players)
    state = await act(alice, {"type": "play", "cards": ["S2"]}, 0)
    took = await bob.wait_for(lambda s: s["version"] == state["version"] + 1, timeout=TIMEOUT + 8)
    assert took["events"][0] == {**took["events"][0], "type": "timeout", "action": "take",
                                 "seat": 1}
    assert next(e for e in took["events"] if e["type"] == "take")["count"] == 2
    await closed([alice, bob])


async def au_chance_lapses(game: Game, players: list[WsPlayer], port: int,
                           cookies: dict[str, str]) -> None:
    """au, 3 seats: alice plays D10; carol (S4 H6) may dobon and does not, bob on turn does
    nothing: at the one deadline carol's chance lapses first (privately), then bob draws."""
    alice, bob, carol = await synced(game, players)
    state = await act(alice, {"type": "play", "cards": ["D10"]}, 0)
    later = await carol.wait_for(lambda s: any(e["type"] == "timeout" for e in s["events"]),
                                 timeout=TIMEOUT + 8)
    seen = [(e["type"], e.get("to"), e.get("action")) for e in events_of(carol)
            if e["type"] in ("decline", "timeout")]
    assert seen[:2] == [("decline", 2, None), ("timeout", None, "draw")], seen
    assert later["version"] > state["version"]
    assert all(e["type"] != "decline" for e in events_of(alice))  # private to carol
    await closed([alice, bob, carol])


async def au_chain_lapses(game: Game, players: list[WsPlayer], port: int,
                          cookies: dict[str, str]) -> None:
    """au, the chain deal: bob dobons; carol (may dobon on top) and alice (may return)
    do nothing (§T18: both leave the chain), and bob's dobon stands."""
    alice, bob, carol = await synced(game, players)
    await act(alice, {"type": "play", "cards": ["D10"]}, 0)
    state = await act(bob, {"type": "dobon"}, 1)
    done = await bob.wait_for(lambda s: "finished" in kinds(s["events"]), timeout=TIMEOUT + 8)
    assert done["version"] > state["version"]
    await closed([alice, bob, carol])


async def standard_waits_lapse(game: Game, players: list[WsPlayer], port: int,
                               cookies: dict[str, str]) -> None:
    """standard, 4 seats: bob's S2 lets alice and dave dobon; dave does (2 cards), alice
    does not (§T18: the dobon wait lapses), then bob may return and does not (§T18)."""
    alice, bob, carol, dave = await synced(game, players)
    await act(alice, {"type": "play", "cards": ["JK"]}, 0)
    await act(bob, {"type": "play", "cards": ["S2"]}, 1)
    await act(dave, {"type": "dobon", "count": 2}, 2)
    done = await carol.wait_for(lambda s: "finished" in kinds(s["events"]),
                                timeout=2 * TIMEOUT + 10)
    assert done["status"] != "running" or done["events"][-1]["type"] == "finished"
    # Each seat's frame of a version reaches its own socket in its own time: carol seeing the
    # end says nothing about whether bob's (carrying his private decline) has arrived yet.
    for seat in (alice, bob):
        await seat.wait_for(lambda s: s.get("game") == done["game"]
                            and (s["version"] or 0) >= done["version"], timeout=10)
    mine = [(e["type"], e.get("timeout")) for e in events_of(alice) if e["type"] == "decline"]
    assert mine == [("decline", True)]
    bobs = [(e["type"], e.get("timeout")) for e in events_of(bob) if e["type"] == "decline"]
    assert bobs == [("decline", True)]
    await closed([alice, bob, carol, dave])


def test_trump_rounds_and_every_t18_timeout_over_the_live_stack(tmp_path, fixed, alice, bob,
                                                                 carol, dave):
    require_stack()
    cookies = {p.username: session_cookie(p) for p in (alice, bob, carol, dave)}
    three = [alice, bob, carol]
    # alice sits in all six rooms: one socket each, over the default cap of 8 with a reload.
    with stack(tmp_path, DOBON_WS_MAX_SOCKETS_PER_USER="16") as running:
        ports = [running.daphne(), running.daphne()]
        running.celery()
        games: dict[str, Game] = {}
        deals: dict[str, tuple[Any, list[Any], tuple[Any, ...], dict[str, Any]]] = {
            "chain": (au_chain_and_return, three, ("au", three), CHAIN),
            "standard": (standard_auction_and_shibari, three, (
                "standard", three, [["H3", "S7", "D3"], ["C2", "D9", "H4"], ["H5", "C8", "D4"]],
                "C7"), {"first_player": None}),
            "obligation": (au_obligation, [alice, bob], (
                "au", [alice, bob], [["S2", "D7"], ["C9", "H13"]], "S5"), {}),
            "lapse": (au_chance_lapses, three, (
                "au", three, [["D10", "S3", "H7"], ["C13", "H12"], ["S4", "H6"]], "D6"), {}),
            "chain_lapse": (au_chain_lapses, three, ("au", three), CHAIN),
            "waits": (standard_waits_lapse, [alice, bob, carol, dave], (
                "standard", [alice, bob, carol, dave],
                [["JK", "C2"], ["S2", "H2"], ["S13", "H9", "D6"], ["H1", "D1"]], "S8"), {}),
        }
        started = time.monotonic()

        async def room(index: int, name: str) -> None:
            # The sockets open first, then the round starts (its clocks run from then,
            # §T18.1): slow connections on the loaded machine cannot eat into them. The
            # rooms alternate between the two daphnes.
            scenario, people, args, kwargs = deals[name]
            table = await sync_to_async(trump_room)(args[0], people)
            where = ports[index % 2]
            players = await seated(table.pk, people, where, cookies)
            games[name] = await sync_to_async(start)(table, *args[2:], **kwargs)
            await scenario(games[name], players, where, cookies)

        async def everything() -> None:
            try:
                await asyncio.gather(*(room(i, name) for i, name in enumerate(deals)))
            finally:  # the helper thread's own connection, or the test database stays in use
                await sync_to_async(connections.close_all)()

        asyncio.run(everything())
        print(f"all six rooms played in {time.monotonic() - started:.1f} s")
    results = {name: Game.objects.get(pk=g.pk) for name, g in games.items()}
    chain = results["chain"]
    assert chain.status == Game.Status.FINISHED and chain.result["kind"] == "return"
    # §T12.6 (iv): a return on top of two dobons; the second declarer pays the returner.
    assert chain.result["chain"] == [[1, "dobon"], [2, "dobon"], [0, "return"]]
    assert chain.result["payments"] == [[2, 0, 240]]
    assert results["chain_lapse"].result["kind"] == "dobon"
    assert results["chain_lapse"].result["winners"] == [1]
    waits = results["waits"]
    assert waits.result["kind"] == "dobon" and waits.result["winners"] == [3]
    # Every automatic action of §T18 came from the beat sweep's game clock, logged as such.
    logged = {name: list(g.events.values_list("data", flat=True)) for name, g in results.items()}
    assert {e["action"] for e in logged["standard"] if e["type"] == "timeout"} >= {
        "bid", "take", "draw"}
    assert any(e["type"] == "timeout" and e["action"] == "take" for e in logged["obligation"])
    assert any(e["type"] == "decline" and e.get("timeout") for e in logged["lapse"])
    declines = [e for e in logged["chain_lapse"] if e["type"] == "decline"]
    assert {e["to"] for e in declines if e.get("timeout")} == {0, 2}
    assert [e["to"] for e in logged["waits"] if e["type"] == "decline" and e.get("timeout")] == [
        0, 1]
