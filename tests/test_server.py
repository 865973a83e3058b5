"""Issue 20: daphne's idle timeout restarts with every byte, so a client trickling one
header line every 10 s kept its connection open for ever (300 of 300 at 80 s).
`dobon_site.server` gives each request a deadline from its first byte to its last."""

from __future__ import annotations

import asyncio
import signal
import time

from twisted.internet.address import IPv4Address
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport
from twisted.web import http

from dobon_site.server import RestartingWebSocketProtocol, Shutdown, limit_request_time


class Answered(http.Request):
    def process(self) -> None:
        self.setResponseCode(200)
        self.finish()


def _connection(seconds: float = 10) -> tuple[http.HTTPChannel, StringTransport, Clock]:
    factory = http.HTTPFactory()
    factory.timeOut = None  # the idle timeout is daphne's; only the deadline is tested
    clock = Clock()
    limit_request_time(factory, seconds, clock)
    channel = factory.buildProtocol(IPv4Address("TCP", "127.0.0.1", 5000))
    channel.requestFactory = Answered
    transport = StringTransport()
    channel.makeConnection(transport)
    return channel, transport, clock


def test_a_trickled_request_is_closed_at_its_deadline():
    channel, transport, clock = _connection()
    channel.dataReceived(b"GET / HTTP/1.1\r\n")
    for n in range(8):  # one header line every 1.2 s: never idle, never done
        clock.advance(1.2)
        channel.dataReceived(b"X-Slow-%d: 1\r\n" % n)
    assert not transport.disconnecting
    clock.advance(0.5)
    assert transport.disconnecting  # aborted 10 s after the first byte


def test_complete_requests_on_a_kept_alive_connection_are_not_timed():
    channel, transport, clock = _connection()
    for _ in range(3):
        channel.dataReceived(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        clock.advance(30)  # a quiet kept-alive connection is the idle timeout's business
    assert not transport.disconnecting
    assert transport.value().count(b"200 OK") == 3
    assert not clock.getDelayedCalls()


# -- issue #30: the drain on SIGTERM, and a second signal -------------------------------------


class Stopped:
    """Stands for `os._exit` (records the status) and for the drain (waits for ever)."""

    def __init__(self) -> None:
        self.statuses: list[int] = []
        self.drains = 0

    def exit_now(self, status: int) -> None:
        self.statuses.append(status)

    async def drain(self) -> None:
        self.drains += 1
        await asyncio.sleep(3600)


def _shutdown(seconds: float = 60) -> tuple[Shutdown, Stopped]:
    stopped = Stopped()
    shutdown = Shutdown(server=None, seconds=seconds, exit_now=stopped.exit_now)  # type: ignore[arg-type]
    shutdown.drain = stopped.drain  # type: ignore[method-assign]
    return shutdown, stopped


def test_a_second_sigterm_changes_nothing_a_second_sigint_exits_at_once():
    async def scenario() -> Stopped:
        shutdown, stopped = _shutdown()
        shutdown.signalled(signal.SIGTERM)
        await asyncio.sleep(0)
        shutdown.signalled(signal.SIGTERM)  # a supervisor repeating itself
        await asyncio.sleep(0)
        assert stopped.drains == 1 and stopped.statuses == []
        shutdown.signalled(signal.SIGINT)  # Ctrl+C twice
        assert stopped.statuses == [1]
        assert shutdown.task is not None
        shutdown.task.cancel()
        return stopped

    asyncio.run(scenario())


def test_a_first_sigint_drains_like_sigterm():
    async def scenario() -> None:
        shutdown, stopped = _shutdown()
        shutdown.signalled(signal.SIGINT)
        await asyncio.sleep(0)
        assert stopped.drains == 1 and stopped.statuses == []
        assert shutdown.task is not None
        shutdown.task.cancel()

    asyncio.run(scenario())


def test_the_process_exits_when_the_time_is_up_whatever_hangs():
    """The watchdog is a thread: it fires even when the event loop is stuck."""
    shutdown, stopped = _shutdown(seconds=0.2)
    shutdown.watchdog()
    time.sleep(0.6)  # the loop (none here) never gets a turn
    assert stopped.statuses == [1]


def test_1012_goes_out_as_a_close_frame():
    """autobahn's sendClose refuses 1012 (only 1000 and 3000-4999); the site's protocol
    sends it as the close frame RFC 6455 registers."""
    sent: list[int | None] = []
    protocol = RestartingWebSocketProtocol.__new__(RestartingWebSocketProtocol)
    protocol.sendCloseFrame = lambda code=None, **kw: sent.append(code)  # type: ignore[method-assign]
    protocol.serverClose(1012)
    assert sent == [1012]
