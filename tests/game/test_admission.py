"""Admission of new sockets per client address and per process (game/live/admission.py),
before the application behind it (the session, the user, the room) does any work."""

from __future__ import annotations

import asyncio

import pytest

from game.live import admission as admission_module
from game.live import transport
from game.live.admission import Admission, SitOut


class App:
    """The application behind: counts who got through and holds them open."""

    def __init__(self) -> None:
        self.entered = 0
        self.release = asyncio.Event()

    async def __call__(self, scope, receive, send) -> None:
        self.entered += 1
        await self.release.wait()


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def scope(
    peer: str | None = "203.0.113.5", forwarded: str | None = None, closing=None,
    path: str = "/ws/rooms/7/",
):
    headers = [(b"x-forwarded-for", forwarded.encode())] if forwarded else []
    found = {"type": "websocket", "client": [peer, 5000] if peer else None, "headers": headers,
             "path": path}
    if closing is not None:
        found[transport.CLOSING_KEY] = closing
    return found


async def handshake(admission: Admission, found: dict) -> tuple[asyncio.Task, list]:
    """Start one socket; returns its task and what it was sent (a refusal's close)."""
    sent: list[dict] = []
    inbox: asyncio.Queue = asyncio.Queue()
    await inbox.put({"type": "websocket.connect"})

    async def send(message):
        sent.append(message)

    task = asyncio.ensure_future(admission(found, inbox.get, send))
    await asyncio.sleep(0.01)
    return task, sent


def closed_with(sent: list) -> int | None:
    return next((m["code"] for m in sent if m["type"] == "websocket.close"), None)


@pytest.fixture
def limits(settings):
    settings.DOBON_WS_MAX_SOCKETS_PER_ADDRESS = 3
    settings.DOBON_WS_HANDSHAKES_PER_SECOND = 5
    settings.DOBON_WS_MAX_SOCKETS_PER_PROCESS = 6
    settings.DOBON_PROXY_COUNT = 0
    settings.DOBON_WS_REFUSAL_SECONDS = 0  # answered at once (its own test below)
    return settings


async def test_an_address_gets_its_share_of_sockets_and_no_more(limits):
    app, clock = App(), Clock()
    admission = Admission(app, clock)
    open_ = [await handshake(admission, scope()) for _ in range(3)]
    assert app.entered == 3 and all(closed_with(sent) is None for _, sent in open_)
    _, refused = await handshake(admission, scope())
    assert closed_with(refused) == 4410 and app.entered == 3, "refused before any work"
    _, other = await handshake(admission, scope(peer="198.51.100.7"))
    assert closed_with(other) is None
    app.release.set()
    await asyncio.gather(*(task for task, _ in open_))
    assert admission.by_address["203.0.113.5"] == 0


async def test_handshakes_per_second_per_address(limits):
    limits.DOBON_WS_MAX_SOCKETS_PER_ADDRESS = 100
    limits.DOBON_WS_MAX_SOCKETS_PER_PROCESS = 100
    app, clock = App(), Clock()
    admission = Admission(app, clock)
    codes = [closed_with((await handshake(admission, scope()))[1]) for _ in range(6)]
    assert codes == [None] * 5 + [4411]
    clock.now += 1.0
    assert closed_with((await handshake(admission, scope()))[1]) is None
    app.release.set()


@pytest.fixture
def process_budget(limits):
    """Many addresses, each well within its own budgets; the process's budget is small."""
    limits.DOBON_WS_MAX_SOCKETS_PER_ADDRESS = 100
    limits.DOBON_WS_MAX_SOCKETS_PER_PROCESS = 100
    limits.DOBON_WS_HANDSHAKES_PER_PROCESS_PER_SECOND = 2
    limits.DOBON_WS_HANDSHAKE_BURST_PER_PROCESS = 3
    return limits


async def test_handshakes_per_second_per_process_over_every_address(process_budget):
    """Sockets opening again and again from several addresses, each within its own
    budget, are told to come back later (4411) once the process's handshakes are spent,
    before the application (the session, the user, the room) does any work."""
    app, clock = App(), Clock()
    admission = Admission(app, clock)
    busy = ["192.0.2.1", "192.0.2.2"] * 3
    codes = [closed_with((await handshake(admission, scope(peer=a)))[1]) for a in busy]
    assert codes == [None, None, None, 4411, 4411, 4411]
    assert app.entered == 3, "refused before any work"
    clock.now += 0.5  # 2 a second: one more
    codes = [closed_with((await handshake(admission, scope(peer=a)))[1]) for a in busy[:2]]
    assert codes == [None, 4411] and app.entered == 4
    app.release.set()


async def test_quiet_addresses_come_first_when_the_process_is_busy(process_budget):
    """An address that tried nothing for a second (a newcomer, a reload, a reconnect
    after its backoff) may overdraw the process's spent budget by its burst: sockets
    churning from other addresses cannot keep newcomers out; the busy ones wait until
    the budget is back above one handshake."""
    app, clock = App(), Clock()
    admission = Admission(app, clock)
    for _ in range(4):  # one busy address spends the process's 3
        await handshake(admission, scope(peer="203.0.113.66"))
    newcomers = [f"198.51.100.{n}" for n in range(4)]
    codes = [closed_with((await handshake(admission, scope(peer=a)))[1]) for a in newcomers]
    assert codes == [None, None, None, 4411], "as many again as the burst, no more"
    clock.now += 0.5  # one handshake back: the process is at -2
    _, busy = await handshake(admission, scope(peer="203.0.113.66"))
    assert closed_with(busy) == 4411
    _, newcomer = await handshake(admission, scope(peer="198.51.100.9"))
    assert closed_with(newcomer) is None
    clock.now += 0.4  # the newcomers who just tried are not quiet yet
    _, again = await handshake(admission, scope(peer="198.51.100.9"))
    assert closed_with(again) == 4411
    app.release.set()


async def test_the_process_budget_counts_connections_without_an_address(process_budget):
    """Connections without an address cannot be told apart: never quiet."""
    app, clock = App(), Clock()
    admission = Admission(app, clock)
    codes = [closed_with((await handshake(admission, scope(peer=None)))[1]) for _ in range(4)]
    assert codes == [None, None, None, 4411]
    app.release.set()


async def test_a_refusal_by_one_budget_spends_nothing_of_the_other(process_budget):
    """The address's handshake and the process's are spent together or not at all: a
    flooding address refused by its own budget does not use up the process's, and a
    client refused because the process is busy keeps its own budget."""
    process_budget.DOBON_WS_HANDSHAKES_PER_SECOND = 2
    app, clock = App(), Clock()
    admission = Admission(app, clock)
    flooder = [closed_with((await handshake(admission, scope(peer="203.0.113.66")))[1])
               for _ in range(4)]
    assert flooder == [None, None, 4411, 4411]  # its own budget: 2
    assert admission.process_handshakes.tokens(None, clock.now) == 1.0  # 3 - 2
    codes = [closed_with((await handshake(admission, scope(peer="192.0.2.1")))[1])
             for _ in range(2)]
    assert codes == [None, 4411]  # the process's last, then none (no longer quiet)
    assert admission.address_tokens("192.0.2.1", clock.now) == 1.0  # 2 - 1
    app.release.set()


async def test_come_back_later_is_answered_after_a_pause(process_budget):
    """A 4411 waits DOBON_WS_REFUSAL_SECONDS (without CPU) before it is sent, so a
    client retrying as soon as it is refused tries once per that time at most."""
    process_budget.DOBON_WS_REFUSAL_SECONDS = 1.5
    paused: list[float] = []
    resume = asyncio.Event()

    async def pause(seconds: float) -> None:
        paused.append(seconds)
        await resume.wait()

    app, clock = App(), Clock()
    admission = Admission(app, clock, pause=pause)
    for _ in range(3):
        await handshake(admission, scope(peer=None))
    task, sent = await handshake(admission, scope(peer=None))
    assert paused == [1.5] and sent == [], "nothing answered during the pause"
    resume.set()
    await task
    assert sent == [{"type": "websocket.accept"}, {"type": "websocket.close", "code": 4411}]
    app.release.set()


async def test_the_process_cap_counts_every_address(limits):
    app, clock = App(), Clock()
    admission = Admission(app, clock)
    for n in range(6):
        _, sent = await handshake(admission, scope(peer=f"192.0.2.{n}"))
        assert closed_with(sent) is None
    _, sent = await handshake(admission, scope(peer="192.0.2.99"))
    assert closed_with(sent) == 4503
    app.release.set()


async def test_behind_a_proxy_the_forwarded_address_counts(limits):
    limits.DOBON_PROXY_COUNT = 1
    app, clock = App(), Clock()
    admission = Admission(app, clock)
    for _ in range(3):  # one client behind the proxy, whatever it claims further left
        await handshake(admission, scope(peer="10.0.0.1", forwarded="1.2.3.4, 203.0.113.9"))
    _, sent = await handshake(admission, scope(peer="10.0.0.1", forwarded="203.0.113.9"))
    assert closed_with(sent) == 4410
    _, sent = await handshake(admission, scope(peer="10.0.0.1", forwarded="203.0.113.10"))
    assert closed_with(sent) is None
    app.release.set()


async def test_a_socket_stops_counting_the_moment_its_client_closes(limits):
    """Counted out when the client's close arrives (the close hook), not when the
    application ends some time later."""
    app, clock = App(), Clock()
    admission = Admission(app, clock)
    closings = [transport.Closing() for _ in range(3)]
    for closing in closings:
        await handshake(admission, scope(closing=closing))
    _, refused = await handshake(admission, scope())
    assert closed_with(refused) == 4410
    await closings[0].fire()  # the application is still running
    _, sent = await handshake(admission, scope())
    assert closed_with(sent) is None
    app.release.set()


async def test_without_an_address_only_the_process_counts(limits):
    app, clock = App(), Clock()
    admission = Admission(app, clock)
    for _ in range(6):
        _, sent = await handshake(admission, scope(peer=None))
        assert closed_with(sent) is None
    app.release.set()


async def test_an_address_refused_by_a_full_room_comes_back_later_for_that_room(
    limits, monkeypatch
):
    """Once a socket from an address was refused by room 7's watcher cap (the consumer
    notes it), that address's next sockets into room 7 are told to retry (4411) before
    the application does anything, until DOBON_WS_WATCHERS_FULL_SECONDS pass. Other
    rooms and other addresses are not concerned, and no handshake token is spent."""
    limits.DOBON_WS_WATCHERS_FULL_SECONDS = 5
    limits.DOBON_WS_HANDSHAKES_PER_SECOND = 2
    app, clock = App(), Clock()
    full = SitOut("DOBON_WS_WATCHERS_FULL_SECONDS", clock)
    monkeypatch.setattr(admission_module, "full_rooms", full)
    admission = Admission(app, clock)
    full.note("203.0.113.5", 7)
    refused = [closed_with((await handshake(admission, scope()))[1]) for _ in range(3)]
    assert refused == [4411] * 3 and app.entered == 0, "refused before any work"
    assert closed_with((await handshake(admission, scope(path="/ws/rooms/8/")))[1]) is None
    assert closed_with((await handshake(admission, scope(peer="198.51.100.7")))[1]) is None
    clock.now += 4.9
    assert closed_with((await handshake(admission, scope()))[1]) == 4411
    clock.now += 0.1
    assert closed_with((await handshake(admission, scope()))[1]) is None, "time to try again"
    assert app.entered == 3
    app.release.set()


def test_the_sit_outs_memory_is_bounded(settings, monkeypatch):
    settings.DOBON_WS_WATCHERS_FULL_SECONDS = 1
    monkeypatch.setattr(admission_module, "MAX_SIT_OUTS", 10)
    clock = Clock()
    full = SitOut("DOBON_WS_WATCHERS_FULL_SECONDS", clock)
    for n in range(10):
        full.note(f"192.0.2.{n}", 7)
    full.note(None, 7)  # no address: nothing to remember
    clock.now += 5.0
    full.note("192.0.2.99", 7)  # the others have expired: forgotten
    assert set(full.until) == {("192.0.2.99", 7)}


async def test_an_address_closed_for_flooding_sits_out_every_room(limits, monkeypatch):
    limits.DOBON_WS_FLOOD_COOLDOWN_SECONDS = 20
    app, clock = App(), Clock()
    flooders = SitOut("DOBON_WS_FLOOD_COOLDOWN_SECONDS", clock)
    monkeypatch.setattr(admission_module, "flooders", flooders)
    admission = Admission(app, clock)
    flooders.note("203.0.113.5", None)
    for path in ("/ws/rooms/7/", "/ws/rooms/8/"):
        assert closed_with((await handshake(admission, scope(path=path)))[1]) == 4411
    assert app.entered == 0, "refused before any work"
    assert closed_with((await handshake(admission, scope(peer="198.51.100.7")))[1]) is None
    clock.now += 20.0
    assert closed_with((await handshake(admission, scope()))[1]) is None
    app.release.set()


# -- turns to connect ----------------------------------------------------------------------------


class ConnectingApp:
    """The application behind, connecting: each socket says when its connect is done
    (the consumer's first table queued) and then stays open until the test closes it."""

    def __init__(self) -> None:
        self.connecting: list[dict] = []
        self.closed = asyncio.Event()

    async def __call__(self, scope, receive, send) -> None:
        self.connecting.append(scope)
        await self.closed.wait()


async def test_sockets_let_in_connect_a_few_at_a_time(limits):
    """Issue #22: a burst of sockets let in at once connected all together on one event
    loop, and every move in that process waited behind all of them at each of its
    steps. They now take turns, DOBON_WS_CONNECTS_AT_ONCE at a time; a socket's turn
    ends when its connect is done, or when it ends."""
    limits.DOBON_WS_CONNECTS_AT_ONCE = 2
    app = ConnectingApp()
    admission = Admission(app, Clock())
    sockets = [await handshake(admission, scope(peer=f"198.51.100.{n}")) for n in range(4)]
    assert len(app.connecting) == 2, "two connect, two wait their turn"
    assert all(closed_with(sent) is None for _, sent in sockets), "none is refused"
    app.connecting[0][admission_module.CONNECTED_KEY]()
    app.connecting[0][admission_module.CONNECTED_KEY]()  # said twice: one turn back
    await asyncio.sleep(0.01)
    assert len(app.connecting) == 3
    sockets[1][0].cancel()  # the second leaves (its application ends) mid-connect
    await asyncio.sleep(0.01)
    assert len(app.connecting) == 4
    for connecting in app.connecting:
        connecting[admission_module.CONNECTED_KEY]()
    fifth, _ = await handshake(admission, scope(peer="198.51.100.9"))
    assert len(app.connecting) == 5, "every turn came back"
    app.closed.set()
    await asyncio.gather(fifth, *(task for task, _ in sockets), return_exceptions=True)


async def test_a_closing_sockets_cleanup_takes_a_turn_and_never_waits_long(limits, monkeypatch):
    """A crowd closed at once as a flood cleans up a few at a time, in the same turns as
    connects; a cleanup that cannot get a turn in LEAVE_WAIT_SECONDS goes ahead anyway
    (daphne cancels an application that takes longer than its close timeout)."""
    limits.DOBON_WS_CONNECTS_AT_ONCE = 1
    app = ConnectingApp()
    admission = Admission(app, Clock())
    task, _ = await handshake(admission, scope())  # connecting: holds the one turn
    leaving_scope = {admission_module.TURNS_KEY: app.connecting[0][admission_module.TURNS_KEY]}
    cleaned = asyncio.Event()

    async def leave() -> None:
        async with admission_module.turn_to_leave(leaving_scope):
            cleaned.set()

    leaving = asyncio.ensure_future(leave())
    await asyncio.sleep(0.05)
    assert not cleaned.is_set(), "waits for the turn"
    app.connecting[0][admission_module.CONNECTED_KEY]()
    await asyncio.wait_for(leaving, 1)
    assert cleaned.is_set()

    monkeypatch.setattr(admission_module, "LEAVE_WAIT_SECONDS", 0.05)
    second, _ = await handshake(admission, scope(peer="198.51.100.20"))  # holds it again
    assert len(app.connecting) == 2
    await asyncio.wait_for(leave(), 1)  # no turn came: it went ahead after the wait
    app.connecting[1][admission_module.CONNECTED_KEY]()
    third, _ = await handshake(admission, scope(peer="198.51.100.21"))
    fourth, _ = await handshake(admission, scope(peer="198.51.100.22"))
    assert len(app.connecting) == 3, "one turn still: the cleanup gave back none it took"
    app.closed.set()
    await asyncio.gather(task, second, third, fourth, return_exceptions=True)
