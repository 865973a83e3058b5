"""Budgets over many sockets (game/live/budgets.py, issue #22 "A crowd stalls everyone"):
syncs per user and per client address, messages per client address.

Time is injected: the budgets take `now`, the sockets read the `clock` fixture, and the
wait for a sync budget goes through a `Gate` instead of sleeping. Nothing asserts on
speed: the tests assert on what is answered and what is not."""

from __future__ import annotations

import asyncio
import json
import time
from types import SimpleNamespace
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from play_helpers import make_room, position, started
from socket_helpers import closed_with, next_frame, next_state, open_socket, quiet

from game.live.budgets import MAX_KEYS, Budget, ProcessBudgets
from game.live.consumers import RoomConsumer
from game.live.transport import Closing
from game.models import Game

HANDS = [["G1", "G2", "B4"], ["R5", "B7", "G4"], ["Y9", "Y8", "B9"]]
CROWD, HOME = "198.51.100.7", "203.0.113.9"


# -- the buckets, without sockets -------------------------------------------------------------


def test_a_users_syncs_burst_then_wait_at_the_rate(settings):
    settings.DOBON_WS_SYNCS_PER_SECOND, settings.DOBON_WS_SYNC_BURST = 2, 3
    budgets = ProcessBudgets()
    for user in (1, 1, 2, 2):  # two sockets each: their burst is the setting's 3
        budgets.socket_opened(user, 10.0)
    assert [budgets.sync_wait(1, None, 10.0) for _ in range(3)] == [0.0] * 3
    assert budgets.sync_wait(1, None, 10.0) == pytest.approx(0.5)
    assert budgets.sync_wait(2, None, 10.0) == 0.0, "another user has a budget of their own"
    assert budgets.sync_wait(1, None, 10.25) == pytest.approx(0.25)
    assert budgets.sync_wait(1, None, 10.5) == 0.0
    assert budgets.sync_wait(1, None, 10.5) == pytest.approx(0.5)
    # A long pause refills the burst, never more.
    assert [budgets.sync_wait(1, None, 100.0) for _ in range(4)][-1] > 0.0


def test_a_users_sync_burst_is_two_per_socket_they_hold_here(settings):
    """Issue #22, a crowd of 50 accounts: each account's first seconds got the whole
    burst (32 tables) whatever it held. Now a socket brings the two syncs it may need at
    once (its connect table and a resuming sync), up to the setting."""
    settings.DOBON_WS_SYNCS_PER_SECOND, settings.DOBON_WS_SYNC_BURST = 2, 32
    budgets = ProcessBudgets()
    budgets.socket_opened(1, 0.0)
    assert [budgets.sync_wait(1, None, 0.0) for _ in range(3)] == [0.0, 0.0, 0.5]
    for _ in range(3):  # three more sockets: two syncs each, at once
        budgets.socket_opened(1, 0.0)
    assert [budgets.sync_wait(1, None, 0.0) for _ in range(7)] == [0.0] * 6 + [0.5]
    # Refilled at the rate, up to 2 × 4 sockets.
    assert [budgets.sync_wait(1, None, 100.0) for _ in range(9)] == [0.0] * 8 + [0.5]
    for _ in range(3):
        budgets.socket_closed(1)
    assert [budgets.sync_wait(1, None, 200.0) for _ in range(3)] == [0.0, 0.0, 0.5], (
        "one socket left: two at most"
    )
    for _ in range(40):
        budgets.socket_opened(2, 0.0)
    assert sum(budgets.sync_wait(2, None, 0.0) == 0.0 for _ in range(80)) == 32, (
        "never more than the setting"
    )


def test_an_address_shares_one_sync_budget_and_spends_both_or_neither(settings):
    settings.DOBON_WS_SYNCS_PER_SECOND, settings.DOBON_WS_SYNC_BURST = 1, 10
    settings.DOBON_WS_SYNCS_PER_ADDRESS_PER_SECOND = 4
    settings.DOBON_WS_SYNC_BURST_PER_ADDRESS = 2
    budgets = ProcessBudgets()
    assert budgets.sync_wait(1, CROWD, 0.0) == 0.0
    assert budgets.sync_wait(2, CROWD, 0.0) == 0.0
    assert budgets.sync_wait(3, CROWD, 0.0) == pytest.approx(0.25), "the address is spent"
    # User 3 was refused by the address alone: none of their own tokens went.
    assert budgets.user_syncs.tokens(3, 0.0) == 10.0
    assert budgets.sync_wait(3, HOME, 0.0) == 0.0, "another address is not held"
    assert budgets.sync_wait(3, None, 0.0) == 0.0, "an unknown address is not grouped"


def test_an_address_messages_are_counted_over_all_its_sockets(settings):
    settings.DOBON_WS_MESSAGES_PER_ADDRESS_PER_SECOND = 5
    budgets = ProcessBudgets()
    assert [budgets.message_allowed(CROWD, 1, 0.0) for _ in range(6)] == [True] * 5 + [False]
    assert budgets.message_allowed(HOME, 1, 0.0)
    assert all(budgets.message_allowed(None, 1, 0.0) for _ in range(50))
    assert budgets.message_allowed(CROWD, 1, 0.2)  # a fifth of a second: one more


def test_a_users_messages_are_counted_over_all_their_sockets_and_addresses(settings):
    """Each message spends one of its user's and one of its address's, or nothing."""
    settings.DOBON_WS_MESSAGES_PER_USER_PER_SECOND = 2
    settings.DOBON_WS_MESSAGE_BURST_PER_USER = 3
    settings.DOBON_WS_MESSAGES_PER_ADDRESS_PER_SECOND = 4
    budgets = ProcessBudgets()
    sent = [budgets.message_allowed(address, 1, 0.0) for address in (CROWD, HOME, None, None)]
    assert sent == [True, True, True, False], "three over every address, then refused"
    assert budgets.address_messages.tokens(CROWD, 0.0) == 3.0, "refused: nothing spent"
    assert budgets.message_allowed(CROWD, 2, 0.0), "another user has a budget of their own"
    assert budgets.message_allowed(None, 1, 0.5), "half a second at 2 a second: one more"
    for user in (3, 4, 6, 7):  # the address refilled to its 4 by now
        assert budgets.message_allowed(CROWD, user, 0.5)
    assert not budgets.message_allowed(CROWD, 5, 0.5), "the address is spent"
    assert budgets.user_messages.tokens(5, 0.5) == 3.0, "refused by the address alone"


def test_a_crowd_of_keys_cannot_grow_the_buckets_without_bound(settings):
    settings.DOBON_WS_MESSAGES_PER_ADDRESS_PER_SECOND = 2
    budget = Budget("DOBON_WS_MESSAGES_PER_ADDRESS_PER_SECOND",
                    "DOBON_WS_MESSAGES_PER_ADDRESS_PER_SECOND")
    for key in range(MAX_KEYS + 1):
        budget.take(key, 0.0)
    budget.take("late", 5.0)  # by now every earlier bucket is full again: forgotten
    assert set(budget.buckets) == {"late"}


# -- sockets -----------------------------------------------------------------------------------

sockets_db = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""


def crowd_room(carol: Any, bob: Any) -> Any:
    return make_room(carol, bob)


def running_room(alice: Any, dave: Any, mallory: Any) -> tuple[Any, Game]:
    """A running game where dave (seat 1) is on turn."""
    room = make_room(alice, dave, mallory)
    game = started(room, alice, position(HANDS, first_player=1, timeout=60, now=time.time()))
    return room, game


async def states_within(socket: Any, seconds: float = 0.3) -> list[dict[str, Any]]:
    """The state frames that arrive until `seconds` pass quietly."""
    got = []
    while not await socket.receive_nothing(seconds):
        frame = await socket.receive_json_from(1)
        if frame["type"] == "state":
            got.append(frame)
    return got


@sockets_db
async def test_syncs_over_the_users_budget_wait_and_coalesce_into_one_answer(
    bob, carol, clock, gate, settings
):
    settings.DOBON_WS_SYNCS_PER_SECOND, settings.DOBON_WS_SYNC_BURST = 1, 1
    room = await sync_to_async(crowd_room)(carol, bob)
    socket = await open_socket(bob, room.pk)
    await next_state(socket)  # the table on connect spent the one token
    for _ in range(3):
        await socket.send_json_to({"type": "sync"})
    assert await states_within(socket) == [], "no table over budget"
    assert gate.waits == [pytest.approx(1.0)], "one sync waits, the others joined it"
    clock.advance(1.0)
    gate.opened.set()
    states = await states_within(socket)
    assert len(states) == 1 and states[0]["room"]["id"] == room.pk
    assert gate.waits == [pytest.approx(1.0)]
    await socket.disconnect()


@sockets_db
async def test_the_receive_path_answers_while_a_sync_waits(
    bob, carol, clock, gate, settings
):
    """A socket over the user's budget still gets an error frame at once (the receive
    path never waits) and its table once the budget allows."""
    settings.DOBON_WS_SYNCS_PER_SECOND, settings.DOBON_WS_SYNC_BURST = 1, 1
    room = await sync_to_async(crowd_room)(carol, bob)
    socket = await open_socket(bob, room.pk)
    await next_state(socket)
    await socket.send_json_to({"type": "sync"})
    await socket.send_json_to({"type": "stamp", "stamp": "no-such-stamp"})
    assert (await next_frame(socket))["code"] == "unknown_stamp"
    assert await states_within(socket) == []
    clock.advance(1.0)
    gate.opened.set()
    _, state = await next_state(socket)
    assert state["room"]["id"] == room.pk
    await socket.disconnect()


@sockets_db
async def test_a_legit_clients_connects_and_resumes_are_never_held(
    alice, dave, mallory, clock, gate, settings
):
    """Every socket a user may hold, opened, resumed, dropped (a server restart), opened
    and resumed again within the same instant, from one address: 32 tables, none held."""
    room, _ = await sync_to_async(running_room)(alice, dave, mallory)
    for _ in range(2):
        sockets = [await open_socket(dave, room.pk, address=HOME)
                   for _ in range(settings.DOBON_WS_MAX_SOCKETS_PER_USER)]
        for socket in sockets:
            _, state = await next_state(socket)
            await socket.send_json_to(
                {"type": "sync", "game": state["game"], "version": state["version"]}
            )
            _, resumed = await next_state(socket)
            assert resumed["version"] == state["version"]
        for socket in sockets:
            await socket.disconnect()
    assert gate.waits == []


@sockets_db
async def test_a_crowds_syncs_wait_while_another_addresss_socket_is_served(
    alice, bob, carol, dave, mallory, clock, gate, settings
):
    """Four sockets of two users from one address, in one room, over the address's sync
    budget: their syncs wait; a player from another address, in another room, gets
    their table and their move at once. When the budget allows, each crowd socket gets
    one table."""
    settings.DOBON_WS_SYNC_BURST_PER_ADDRESS = 4
    settings.DOBON_WS_SYNCS_PER_ADDRESS_PER_SECOND = 10
    crowd_at = await sync_to_async(crowd_room)(carol, bob)
    room, game = await sync_to_async(running_room)(alice, dave, mallory)
    crowd = [await open_socket(user, crowd_at.pk, address=CROWD)
             for user in (bob, bob, carol, carol)]
    for socket in crowd:
        await next_state(socket)  # the four tables of the burst
    for socket in crowd:
        for _ in range(5):
            await socket.send_json_to({"type": "sync"})
    player = await open_socket(dave, room.pk, address=HOME)
    _, state = await next_state(player)
    await player.send_json_to({"type": "sync", "game": state["game"],
                               "version": state["version"]})
    _, resumed = await next_state(player)
    await player.send_json_to({"type": "action", "action": {"type": "draw"}})
    _, moved = await next_state(player)
    assert moved["version"] == resumed["version"] + 1
    assert (await Game.objects.aget(pk=game.pk)).version == moved["version"]
    for socket in crowd:
        assert await states_within(socket, 0.1) == []
    assert len(gate.waits) == len(crowd), "one waiting sync per crowd socket"
    clock.advance(1.0)
    gate.opened.set()
    for socket in crowd:
        assert len(await states_within(socket)) == 1
    for socket in (*crowd, player):
        await socket.disconnect()


@sockets_db
async def test_a_crowds_messages_are_refused_while_another_address_is_served(
    alice, bob, carol, dave, mallory, clock, settings
):
    """Each crowd socket within its own limit, the address over its budget: exactly the
    budget is answered, the rest is `rate_limited`; another address's player moves."""
    settings.DOBON_WS_MESSAGES_PER_ADDRESS_PER_SECOND = 12
    crowd_at = await sync_to_async(crowd_room)(carol, bob)
    room, game = await sync_to_async(running_room)(alice, dave, mallory)
    crowd = [await open_socket(user, crowd_at.pk, address=CROWD)
             for user in (bob, bob, carol, carol)]
    player = await open_socket(dave, room.pk, address=HOME)
    for socket in (*crowd, player):
        await next_state(socket)
    codes = []
    for socket in crowd:
        for _ in range(5):
            await socket.send_to(text_data=json.dumps({"type": "hello"}))
        codes += [(await next_frame(socket))["code"] for _ in range(5)]
    assert codes.count("unknown_type") == 12 and codes.count("rate_limited") == 8
    await player.send_json_to({"type": "action", "action": {"type": "draw"}})
    _, moved = await next_state(player)
    assert moved["version"] == 1
    assert (await Game.objects.aget(pk=game.pk)).version == 1
    for socket in (*crowd, player):
        await socket.disconnect()


@sockets_db
async def test_a_socket_kept_over_its_addresss_budget_is_closed_4429(
    bob, carol, clock, settings
):
    """Two sockets of one address, each at half the per-socket limit: the first takes
    the address's budget every half second, the second is refused every time and is
    closed DOBON_WS_FLOOD_SECONDS after its first refusal; the first stays."""
    settings.DOBON_WS_FLOOD_SECONDS = 5
    settings.DOBON_WS_MESSAGES_PER_ADDRESS_PER_SECOND = 10
    room = await sync_to_async(crowd_room)(carol, bob)
    first, second = [await open_socket(bob, room.pk, address=CROWD) for _ in range(2)]
    for socket in (first, second):
        await next_state(socket)
    hello = json.dumps({"type": "hello"})

    async def round_of(socket: Any) -> list[str]:
        for _ in range(5):
            await socket.send_to(text_data=hello)
        return [(await next_frame(socket))["code"] for _ in range(5)]

    assert await round_of(first) == ["unknown_type"] * 5
    assert await round_of(second) == ["unknown_type"] * 5
    for _ in range(10):  # 0.5 s to 5.0 s
        clock.advance(0.5)
        assert await round_of(first) == ["unknown_type"] * 5
        assert await round_of(second) == ["rate_limited"] * 5
    clock.advance(0.5)
    assert await round_of(first) == ["unknown_type"] * 5
    await second.send_to(text_data=hello)
    assert await closed_with(second) == 4429
    await quiet(first)
    for socket in (first, second):
        await socket.disconnect()


async def test_a_sync_whose_client_left_while_waiting_spends_and_reads_nothing(
    clock, gate, settings
):
    settings.DOBON_WS_SYNCS_PER_SECOND, settings.DOBON_WS_SYNC_BURST = 1, 1
    consumer = RoomConsumer()
    consumer.user, consumer.address = SimpleNamespace(pk=7), CROWD
    consumer.gone, consumer.closing = Closing(), False
    assert await consumer.within_sync_budget()  # the burst
    waiting = asyncio.ensure_future(consumer.within_sync_budget())
    await asyncio.sleep(0)
    assert gate.waits == [pytest.approx(1.0)]
    consumer.gone.gone = True  # as Closing.fire() marks it when the client closes
    clock.advance(1.0)
    gate.opened.set()
    assert await waiting is False
    assert RoomConsumer.budgets.user_syncs.tokens(7, clock()) == 1.0, "nothing spent"


# -- floods over many sockets: the user's budget, syncs while one is pending -------------------


@sockets_db
async def test_a_users_sockets_share_one_message_budget(bob, carol, clock, settings):
    """Two sockets of one user, no address: the user's third message in the same instant
    is refused on whichever socket it comes (on the old code only each socket's own
    limit and the address's applied)."""
    settings.DOBON_WS_MESSAGES_PER_USER_PER_SECOND = 2
    settings.DOBON_WS_MESSAGE_BURST_PER_USER = 2
    room = await sync_to_async(crowd_room)(carol, bob)
    first, second = [await open_socket(bob, room.pk) for _ in range(2)]
    for socket in (first, second):
        await next_state(socket)
    codes = []
    for socket in (first, second, second):
        await socket.send_json_to({"type": "nope"})
        codes.append((await next_frame(socket))["code"])
    assert codes == ["unknown_type", "unknown_type", "rate_limited"]
    clock.advance(0.5)
    await first.send_json_to({"type": "nope"})
    assert (await next_frame(first))["code"] == "unknown_type", "refilled at the rate"
    for socket in (first, second):
        await socket.disconnect()


@sockets_db
async def test_syncing_again_and_again_while_a_sync_is_pending_is_a_flood(
    bob, carol, clock, gate, settings
):
    """The crowd of issue #22 syncs within every message limit. A socket whose sync
    waits for its budget and that keeps sending syncs meanwhile (covered by the one
    answer, never needed) is closed as a flood after DOBON_WS_SYNC_FLOOD_SECONDS; its
    address is then told to come back later (4411) before any work, another address is
    not."""
    settings.DOBON_WS_SYNC_FLOOD_SECONDS = 5
    settings.DOBON_WS_SYNCS_PER_SECOND, settings.DOBON_WS_SYNC_BURST = 1, 1
    room = await sync_to_async(crowd_room)(carol, bob)
    socket = await open_socket(bob, room.pk, address=CROWD)
    await next_state(socket)  # the connect's table spent the one token: the next waits
    await socket.send_json_to({"type": "sync"})

    async def sync_again() -> None:
        """A sync, then a message with an answer: the sync was read at this clock."""
        await socket.send_json_to({"type": "sync"})
        await socket.send_json_to({"type": "nope"})
        assert (await next_frame(socket))["code"] == "unknown_type"

    for _ in range(10):  # 0.5 s to 5.0 s, a sync each half second, none answered
        clock.advance(0.5)
        await sync_again()
    clock.advance(0.5)
    await socket.send_json_to({"type": "sync"})
    assert await closed_with(socket) == 4429
    again = await open_socket(carol, room.pk, address=CROWD)
    assert await closed_with(again) == 4411
    other = await open_socket(carol, room.pk, address=HOME)
    await next_state(other)
    await other.disconnect()


@sockets_db
async def test_syncs_while_one_is_pending_are_a_flood_sooner_than_other_messages(
    bob, carol, clock, gate, settings
):
    """Issue #22: a crowd kept its syncs coming for the rate limit's 5 s, both processes
    reading tables all the while. Syncs no client needs are a flood after 2 s (the
    default); messages over the rate limit still get DOBON_WS_FLOOD_SECONDS."""
    assert settings.DOBON_WS_SYNC_FLOOD_SECONDS == 2 < settings.DOBON_WS_FLOOD_SECONDS
    settings.DOBON_WS_SYNCS_PER_SECOND, settings.DOBON_WS_SYNC_BURST = 1, 1
    room = await sync_to_async(crowd_room)(carol, bob)
    socket = await open_socket(bob, room.pk, address=CROWD)
    await next_state(socket)  # the connect's table spent the one token: the next waits
    await socket.send_json_to({"type": "sync"})
    for _ in range(4):  # 0.5 s to 2.0 s
        clock.advance(0.5)
        await socket.send_json_to({"type": "sync"})
        await socket.send_json_to({"type": "nope"})
        assert (await next_frame(socket))["code"] == "unknown_type", "still open"
    clock.advance(0.5)
    await socket.send_json_to({"type": "sync"})
    assert await closed_with(socket) == 4429


@sockets_db
async def test_a_sync_or_two_while_one_is_pending_is_forgiven(bob, carol, clock, gate, settings):
    """A client that asks again now and then (a second gap before the first answer)
    keeps its socket, and gets one answer."""
    settings.DOBON_WS_FLOOD_SECONDS = 5
    settings.DOBON_WS_SYNCS_PER_SECOND, settings.DOBON_WS_SYNC_BURST = 1, 1
    room = await sync_to_async(crowd_room)(carol, bob)
    socket = await open_socket(bob, room.pk, address=CROWD)
    await next_state(socket)
    await socket.send_json_to({"type": "sync"})
    for _ in range(3):
        clock.advance(2.0)
        await socket.send_json_to({"type": "sync"})
    clock.advance(1.0)
    gate.opened.set()
    assert len(await states_within(socket)) == 1
    await socket.send_json_to({"type": "nope"})
    assert (await next_frame(socket))["code"] == "unknown_type", "still open"
    await socket.disconnect()



@sockets_db
async def test_a_socket_waiting_for_its_sync_budget_does_not_hold_up_other_connects(
    alice, bob, carol, dave, mallory, clock, gate, settings
):
    """Sockets connect a few at a time (game/live/admission.py); a socket's turn ends
    before its first table waits for the budgets, so a client over them cannot keep
    everyone else's sockets from connecting."""
    settings.DOBON_WS_CONNECTS_AT_ONCE = 1
    settings.DOBON_WS_SYNCS_PER_ADDRESS_PER_SECOND = 1
    settings.DOBON_WS_SYNC_BURST_PER_ADDRESS = 1
    crowd_at = await sync_to_async(crowd_room)(carol, bob)
    room, _ = await sync_to_async(running_room)(alice, dave, mallory)
    first = await open_socket(bob, crowd_at.pk, address=CROWD)
    await next_state(first)  # the address's one sync is spent
    waiting = await open_socket(carol, crowd_at.pk, address=CROWD)
    await asyncio.sleep(0.1)
    assert gate.waits, "carol's table waits for the address's budget"
    player = await open_socket(dave, room.pk, address=HOME)
    _, state = await next_state(player)
    assert state["seat"] == 1, "dave connected and got his table meanwhile"
    clock.advance(1.0)
    gate.opened.set()
    await next_state(waiting)
    for socket in (first, waiting, player):
        await socket.disconnect()


def test_the_live_layer_counts_with_one_token_bucket(settings):
    """Issue #35: a socket's own message limit, the handshake limits and the process
    budgets are all `Budget`s (consumers.TokenBucket and admission's bucket table were two
    more copies of the same arithmetic)."""
    from game.live import admission, consumers

    assert not hasattr(consumers, "TokenBucket")
    gate = admission.Admission(app=None)  # type: ignore[arg-type]
    assert isinstance(gate.address_handshakes, Budget)
    assert isinstance(gate.process_handshakes, Budget)
    settings.DOBON_WS_MAX_MESSAGES_PER_SECOND = 3
    socket_limit = Budget(consumers.MESSAGES_PER_SOCKET, consumers.MESSAGES_PER_SOCKET)
    assert [socket_limit.try_take(None, 0.0) for _ in range(4)] == [True, True, True, False]
    assert socket_limit.try_take(None, 1 / 3)  # one more a third of a second later
