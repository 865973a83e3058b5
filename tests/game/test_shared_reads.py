"""Identical table reads waiting at the same time share one database read
(game/live/shared_reads.py; issue #22, "A crowd stalls everyone": 50 accounts' sockets
asked for about 3,000 tables in their first seconds, four sockets of each account at a
time for the same table).

The rule under test: a request joins a read only while that read has not started, so
every answer was read after its request arrived. The database thread is stood in for by
a one-thread pool the test can hold; nothing is timed."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from play_helpers import make_room, position, started
from socket_helpers import next_state, open_socket, session_cookie

from game.live import consumers
from game.live.consumers import ClientGone, RoomConsumer
from game.live.shared_reads import SharedReads
from game.live.transport import Closing


class HeldPool:
    """One database thread whose reads record their label, the first of them held
    until the test lets it go."""

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(1)
        self.release = threading.Event()
        self.calls: list[str] = []

    async def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    def read(self, label: str) -> dict[str, Any]:
        self.calls.append(label)
        if len(self.calls) == 1:
            self.release.wait(10)
        if label.startswith("fail"):
            raise LookupError(label)
        return {"read number": len(self.calls), "label": label}


async def until(condition: Callable[[], bool]) -> None:
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition never held")


@pytest.fixture
def held() -> HeldPool:
    pool = HeldPool()
    yield pool
    pool.release.set()
    pool.pool.shutdown(wait=True)


async def test_requests_waiting_for_the_same_read_share_it_and_a_started_read_is_not_joined(
    held,
):
    reads = SharedReads()
    first = asyncio.ensure_future(reads.read("room 1", held.submit, held.read, "first"))
    await until(lambda: held.calls == ["first"])  # started: later requests must not join it
    later = [asyncio.ensure_future(reads.read("room 1", held.submit, held.read, f"later {n}"))
             for n in range(3)]
    other = asyncio.ensure_future(reads.read("room 2", held.submit, held.read, "other"))
    await asyncio.sleep(0.05)
    held.release.set()
    answers = await asyncio.gather(first, *later, other)

    assert held.calls == ["first", "later 0", "other"], "one read for the three waiting"
    assert answers[0]["label"] == "first"
    assert answers[1] is answers[2] is answers[3]
    assert answers[1]["label"] == "later 0", "read after all three arrived"
    assert answers[4]["label"] == "other", "another key has a read of its own"
    assert (reads.reads, reads.joins) == (3, 2)
    assert reads.queued == {}, "nothing is kept once answered"


async def test_a_request_that_leaves_does_not_cancel_the_read_for_the_others(held):
    reads = SharedReads()
    blocker = asyncio.ensure_future(reads.read("k", held.submit, held.read, "blocker"))
    await until(lambda: held.calls == ["blocker"])
    leaving = asyncio.ensure_future(reads.read("k", held.submit, held.read, "shared"))
    staying = asyncio.ensure_future(reads.read("k", held.submit, held.read, "joiner"))
    await asyncio.sleep(0.05)
    leaving.cancel()  # its socket closed
    held.release.set()
    await blocker
    assert (await staying)["label"] == "shared"
    assert held.calls == ["blocker", "shared"]


async def test_a_failed_read_fails_every_request_that_shared_it(held):
    reads = SharedReads()
    blocker = asyncio.ensure_future(reads.read("k", held.submit, held.read, "blocker"))
    await until(lambda: held.calls == ["blocker"])
    sharing = [asyncio.ensure_future(reads.read("k", held.submit, held.read, "fail"))
               for _ in range(2)]
    await asyncio.sleep(0.05)
    held.release.set()
    await blocker
    for request in sharing:
        with pytest.raises(LookupError):
            await request
    assert held.calls == ["blocker", "fail"]


# -- through the sockets ------------------------------------------------------------------------

HANDS = [["G1", "G2", "B4"], ["R5", "B7", "G4"], ["Y9", "Y8", "B9"]]


def running_room(alice: Any, dave: Any, mallory: Any) -> Any:
    room = make_room(alice, dave, mallory)
    started(room, alice, position(HANDS, first_player=1, timeout=60, now=time.time()))
    return room


@pytest.mark.django_db(transaction=True)
async def test_one_users_sockets_syncing_while_the_database_is_busy_get_one_read(
    alice, dave, mallory, monkeypatch, settings
):
    """Three tabs of one browser session ask for the table while an earlier read holds
    the database thread: the two that wait share one read, and all three get the table."""
    settings.CELERY_BROKER_URL = ""
    room = await sync_to_async(running_room)(alice, dave, mallory)
    session = await sync_to_async(session_cookie)(dave)
    tabs = [await open_socket(dave, room.pk, session=session) for _ in range(3)]
    for tab in tabs:
        await next_state(tab)

    release, tables = threading.Event(), []
    real_table = consumers._table

    def held_table(*args: Any) -> Any:
        tables.append(args[3])
        if len(tables) == 1:
            release.wait(10)
        return real_table(*args)

    monkeypatch.setattr(consumers, "_table", held_table)
    shared = RoomConsumer.shared_reads
    await tabs[0].send_json_to({"type": "sync"})
    await until(lambda: len(tables) == 1)  # the first read holds the database thread
    for tab in tabs[1:]:
        await tab.send_json_to({"type": "sync"})
    await until(lambda: shared.joins == 1)
    release.set()
    answers = [(await next_state(tab))[1] for tab in tabs]

    assert len(tables) == 2, "the two waiting syncs were answered by one read"
    assert {a["version"] for a in answers} == {answers[0]["version"]}
    assert all(a["seat"] == 1 for a in answers), "dave's own view in every tab"
    for tab in tabs:
        await tab.disconnect()


# -- one read, one sync of the budget ------------------------------------------------------------

CROWD = "198.51.100.7"


def tab(user_id: int) -> RoomConsumer:
    """A socket of `user_id`'s one browser session in room 3, as far as a sync goes."""
    consumer = RoomConsumer()
    consumer.room_id, consumer.session_key, consumer.scope = 3, "session", {}
    consumer.user, consumer.address = SimpleNamespace(pk=user_id), CROWD
    consumer.gone, consumer.closing = Closing(), False
    return consumer


@pytest.fixture
def reads(monkeypatch, settings, clock) -> list[tuple[Any, ...]]:
    """The database reads made (each answered with its number); a budget of one sync a
    second, spent already, waiting on a gate the test opens."""
    settings.DOBON_WS_SYNCS_PER_SECOND, settings.DOBON_WS_SYNC_BURST = 1, 1
    made: list[tuple[Any, ...]] = []

    async def read(fn: Callable[..., Any], *args: Any) -> dict[str, Any]:
        made.append(args)
        return {"read": len(made)}

    monkeypatch.setattr(consumers, "db_read", read)
    assert RoomConsumer.budgets.sync_wait(7, CROWD, clock()) == 0.0  # the burst is spent
    return made


async def test_tabs_asking_at_once_spend_one_sync_for_their_one_read(reads, clock, gate):
    first, second = tab(7), tab(7)
    asked = asyncio.ensure_future(first.shared_table(None))
    await until(lambda: gate.waits)  # the first waits for the budget, unread
    joined = asyncio.ensure_future(second.shared_table(None))
    await until(lambda: RoomConsumer.shared_reads.joins == 1)
    clock.advance(1.0)
    gate.opened.set()
    assert await asked is await joined
    assert len(reads) == 1
    assert RoomConsumer.budgets.user_syncs.tokens(7, clock()) == 0.0, "one sync spent"


async def test_when_the_tab_that_queued_a_shared_read_leaves_the_other_reads_alone(
    reads, clock, gate
):
    leaving, staying = tab(7), tab(7)
    left = asyncio.ensure_future(leaving.shared_table(None))
    await until(lambda: gate.waits)
    answered = asyncio.ensure_future(staying.shared_table(None))
    await until(lambda: RoomConsumer.shared_reads.joins == 1)
    leaving.gone.gone = True  # its client closed while the budget was spent
    clock.advance(1.0)
    gate.opened.set()
    with pytest.raises(ClientGone):
        await left
    assert await answered == {"read": 1}, "the staying tab read for itself"
    assert len(reads) == 1



async def test_tabs_resuming_from_different_places_do_not_share_a_read(monkeypatch):
    """Issue #30: a resuming sync's answer depends on its (game, version) — an ended
    game's catch-up frame comes only for the tab that names it — so only tabs asking
    from the same place share a read."""
    made: list[tuple[Any, ...]] = []
    budget = asyncio.Event()  # every tab waits for it, unread

    async def read(fn: Callable[..., Any], *args: Any) -> dict[str, Any]:
        made.append(args)
        return {"read": len(made)}

    async def within_budget(self: RoomConsumer) -> bool:
        await budget.wait()
        return True

    monkeypatch.setattr(consumers, "db_read", read)
    monkeypatch.setattr(RoomConsumer, "within_sync_budget", within_budget)
    monkeypatch.setattr(RoomConsumer, "shared_reads", SharedReads())
    first = asyncio.ensure_future(tab(7).shared_table(None))
    second = asyncio.ensure_future(tab(7).shared_table((5, 3)))
    third = asyncio.ensure_future(tab(7).shared_table((5, 3)))
    await until(lambda: RoomConsumer.shared_reads.joins == 1)  # the third joins the second
    budget.set()
    answers = [await first, await second, await third]
    assert [args[3] for args in made] == [None, (5, 3)], "one read per place asked from"
    assert answers[1] is answers[2] and answers[0] != answers[1]
