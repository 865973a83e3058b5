"""The socket registry (game/live/presence.py): its refresh cannot fail because sockets
come and go while it awaits, and presence is O(1) per change: a frame only when a name
enters or leaves, at most one per room per `presence_seconds`."""

from __future__ import annotations

import asyncio

import pytest

from game.live.presence import Entry, Join, MemoryStore, RedisStore, Registry


class Owner:
    """Stands for a consumer: the registry holds it weakly."""


class GatedStore(MemoryStore):
    """A store whose `forget` and `refresh` wait until the test lets them go on, so
    the test can act while a refresh round is awaiting."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.waiting = asyncio.Event()

    async def forget(self, entry: Entry) -> bool:
        self.waiting.set()
        await self.gate.wait()
        return await super().forget(entry)

    async def refresh(self, entries: list[Entry], now: float, ttl: float) -> None:
        self.waiting.set()
        await self.gate.wait()
        await super().refresh(entries, now, ttl)


def entry(n: int, room: int = 1, user: int | None = None) -> Entry:
    return Entry(f"chan.{n}", user if user is not None else n, f"user{n}", room)


async def sent_nothing(room_id: int, names: list[str]) -> None:
    return None


async def test_forgetting_a_socket_while_a_refresh_drops_it_does_not_fail():
    """A refresh round dropping two dead sockets awaits the store for the first; the
    second is forgotten meanwhile (its consumer disconnected): the round goes on."""
    store = GatedStore()
    registry = Registry(store, ttl=30)
    store.gate.set()
    owners = [Owner(), Owner()]
    for n in range(2):
        assert await registry.admit(entry(n), owners[n], cap=8)
    store.gate.clear()
    owners.clear()  # both consumers vanished without a disconnect
    refresh = asyncio.ensure_future(registry.refresh_once(sent_nothing))
    await store.waiting.wait()
    forget = asyncio.ensure_future(registry.forget(entry(1)))
    await asyncio.sleep(0)
    store.gate.set()
    await asyncio.gather(forget, refresh)  # raises if the round failed
    assert registry.local == {}
    assert await store.online(1, 0.0) == []
    registry.refresher and registry.refresher.cancel()


async def test_sockets_registered_and_forgotten_during_a_refresh_are_counted_right():
    """Registrations and removals racing a refresh round: none is lost, none counted
    twice, and the round completes."""
    store = GatedStore()
    registry = Registry(store, ttl=30)
    store.gate.set()
    owners = {n: Owner() for n in range(20)}
    for n in range(10):
        assert await registry.admit(entry(n, user=100), owners[n], cap=20)
    store.gate.clear()
    store.waiting.clear()
    refresh = asyncio.ensure_future(registry.refresh_once(sent_nothing))
    await store.waiting.wait()
    store.gate.set()
    churn = [registry.admit(entry(n, user=100), owners[n], cap=20) for n in range(10, 20)]
    churn += [registry.forget(entry(n, user=100)) for n in range(0, 10, 2)]
    await asyncio.gather(refresh, *churn)
    left = sorted(int(c.split(".")[1]) for c in registry.local)
    assert left == [n for n in range(20) if n >= 10 or n % 2]
    assert len(store.users["100"]) == 15
    await registry.refresh_once(sent_nothing)
    assert len(store.users["100"]) == 15
    registry.refresher and registry.refresher.cancel()


class Frames:
    def __init__(self) -> None:
        self.sent: list[tuple[int, list[str]]] = []

    async def __call__(self, room_id: int, names: list[str]) -> None:
        self.sent.append((room_id, names))


class FakeTime:
    """Monotonic time and a sleep that waits for it, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        until = self.now + seconds
        while self.now < until:
            await asyncio.sleep(0.005)


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0.005)


async def until(condition, seconds: float = 3.0) -> None:
    """Real time for what the shared store times (its presence slot): at most `seconds`."""
    for _ in range(int(seconds / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("never happened")


@pytest.fixture(params=["memory", "redis"])
def store(request):
    if request.param == "memory":
        return MemoryStore()
    url = request.getfixturevalue("redis_url")
    return RedisStore(url)


async def test_presence_frames_only_when_a_name_enters_or_leaves_and_at_most_one_a_second(
    store,
):
    time = FakeTime()
    frames = Frames()
    registry = Registry(store, ttl=30, presence_seconds=1.0, monotonic=time)
    registry.sleep = time.sleep
    registry.connect(frames)
    room = 700_000 + id(store) % 100_000
    owners = [Owner() for _ in range(60)]
    # The first name: a frame at once.
    first = Entry("c.first", 1, "alice", room)
    assert await registry.claim(first, owners[0], 8)
    assert await registry.join(first, owners[0], 100) == Join.ENTERED
    registry.changed(room)
    await until(lambda: len(frames.sent) == 1)
    assert frames.sent == [(room, ["alice"])]
    # 40 watchers of 20 names, and alice's other sockets, within the second: no frame yet.
    for n in range(40):
        e = Entry(f"c.{n}", 100 + n % 20, f"watcher{n % 20:02}", room, watcher=True)
        assert await registry.claim(e, owners[n + 1], 8)
        if await registry.join(e, owners[n + 1], 100) == Join.ENTERED:
            registry.changed(room)
    for n in range(3):
        e = Entry(f"c.alice{n}", 1, "alice", room)
        assert await registry.claim(e, owners[50 + n], 8)
        assert await registry.join(e, owners[50 + n], 100) == Join.JOINED
    await settle()
    assert len(frames.sent) == 1
    time.now += 1.0
    await until(lambda: len(frames.sent) == 2)
    assert frames.sent[1][1] == sorted(["alice", *(f"watcher{n:02}" for n in range(20))])
    # A second socket closing changes no name: no frame; the last one of a name does.
    await registry.forget(Entry("c.alice0", 1, "alice", room))
    await registry.forget(Entry("c.0", 100, "watcher00", room, watcher=True))
    time.now += 5
    await settle()
    assert len(frames.sent) == 2
    await registry.forget(Entry("c.20", 100, "watcher00", room, watcher=True))
    await until(lambda: len(frames.sent) == 3)
    await settle()
    assert len(frames.sent) == 3 and "watcher00" not in frames.sent[2][1]
    registry.refresher and registry.refresher.cancel()


async def test_the_watcher_cap_counts_sockets_of_non_members_only(store):
    room = 800_000 + id(store) % 100_000
    now = 1000.0
    watchers = [Entry(f"w.{n}", 200 + n, f"w{n}", room, watcher=True) for n in range(3)]
    assert (await store.join(watchers[0], 2, now, 30))[0]
    assert (await store.join(watchers[1], 2, now, 30))[0]
    assert (await store.join(watchers[2], 2, now, 30))[0] == Join.REFUSED
    assert (await store.join(Entry("m.1", 300, "member", room), 2, now, 30))[0]
    await store.forget(watchers[0])
    assert (await store.join(watchers[2], 2, now, 30))[0]
    assert await store.online(room, now) == ["member", "w1", "w2"]


async def test_a_refresh_of_many_sockets_goes_in_small_pipelines_and_reaches_every_key(
    redis_url, monkeypatch,
):
    """Issue #22: one pipeline for all of a process's sockets held its event loop while
    redis-py packed and parsed it (25-31 ms at 1,000 sockets, every 10 s); in pipelines
    of REFRESH_BATCH sockets the loop is free between them. Every key still gets its
    new expiry and every member its new score."""
    from game.live import presence

    store = RedisStore(redis_url)
    room_base = 800_000 + id(store) % 50_000
    entries = [Entry(f"c.batch.{n}", 5_000 + n, f"user{n}", room_base + n // 4,
                     watcher=n % 5 == 0) for n in range(250)]
    for e in entries:
        assert await store.admit(e, 8, 1_000.0, 30)
    pipelines = []
    real_pipeline = store.redis.pipeline

    def counted(*args, **kwargs):
        pipe = real_pipeline(*args, **kwargs)
        pipelines.append(pipe)
        return pipe

    monkeypatch.setattr(store.redis, "pipeline", counted)
    await store.refresh(entries, 2_000.0, 30)
    assert len(pipelines) == -(-len(entries) // presence.REFRESH_BATCH)
    for e in entries:
        room, _, watch = store.room_keys(e.room_id)
        assert await store.redis.zscore(store.user_key(e), e.channel) == 2_030.0
        assert await store.redis.zscore(room, store.member(e)) == 2_030.0
        if e.watcher:
            assert await store.redis.zscore(watch, e.channel) == 2_030.0
        for key in (store.user_key(e), room):
            assert 0 < await store.redis.ttl(key) <= 61
    for e in entries:
        await store.forget(e)
