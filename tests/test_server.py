"""Issue 20: daphne's idle timeout restarts with every byte, so a client trickling one
header line every 10 s kept its connection open for ever (300 of 300 at 80 s).
`dobon_site.server` gives each request a deadline from its first byte to its last."""

from __future__ import annotations

from twisted.internet.address import IPv4Address
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport
from twisted.web import http

from dobon_site.server import limit_request_time


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
