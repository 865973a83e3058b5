"""Run daphne with the site's limits set explicitly: `python -m dobon_site.server [daphne
arguments] dobon_site.asgi:application`.

daphne's defaults are silent and partly unsafe for a public site; this runner passes
every limit below unless the command line gives its own, and sets two options that
daphne's command line does not offer (README.md, "Production stack"):

- an incoming websocket message over the size limit gets a close frame with code 1009
  ("message too big") instead of a connection dropped without a word;
- an HTTP connection that sends nothing for `HTTP_IDLE_SECONDS` (a request sent part
  way and then abandoned) is closed (`DOBON_HTTP_IDLE_SECONDS`, default 30);
- a request whose headers and body have not all arrived `HTTP_REQUEST_SECONDS` after its
  first byte is closed (`DOBON_HTTP_REQUEST_SECONDS`, default 10): the idle timeout
  restarts with every byte, so one header line every 10 s kept a connection open for
  ever (issue 20: 300 of 300 such connections were still open at 80 s).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from daphne.cli import CommandLineInterface
from daphne.server import Server
from twisted.internet import reactor

# Flag → value. Message and frame sizes in bytes, times in seconds.
LIMITS: dict[str, str] = {
    # The largest incoming websocket message and frame; above it the socket closes
    # with 1009. The site's own limit (DOBON_WS_MAX_MESSAGE_BYTES, 4 KiB) answers
    # `too_large` below this one.
    "--websocket-max-message-size": "65536",
    "--websocket-max-frame-size": "65536",
    # A websocket handshake must complete within this time.
    "--websocket_connect_timeout": "10",
    # A quiet websocket is pinged after this long, and closed when the pong is late.
    "--ping-interval": "20",
    "--ping-timeout": "30",
    # An HTTP request may wait this long for the application's answer.
    "--http-timeout": "60",
    # A closed socket's application instance is cancelled after this long.
    "--application-close-timeout": "10",
}
HTTP_IDLE_SECONDS = float(os.environ.get("DOBON_HTTP_IDLE_SECONDS", "30"))
HTTP_REQUEST_SECONDS = float(os.environ.get("DOBON_HTTP_REQUEST_SECONDS", "10"))
ALIASES = {"--http-timeout": ("-t",)}


class LimitedServer(Server):
    """daphne's server with the two options above set on its factories as `run`
    creates them."""

    @property
    def ws_factory(self) -> Any:
        return self.__dict__["ws_factory"]

    @ws_factory.setter
    def ws_factory(self, factory: Any) -> None:
        factory.setProtocolOptions(failByDrop=False)
        self.__dict__["ws_factory"] = factory

    @property
    def http_factory(self) -> Any:
        return self.__dict__["http_factory"]

    @http_factory.setter
    def http_factory(self, factory: Any) -> None:
        factory.timeOut = HTTP_IDLE_SECONDS
        limit_request_time(factory, HTTP_REQUEST_SECONDS)
        self.__dict__["http_factory"] = factory


def limit_request_time(factory: Any, seconds: float, clock: Any = reactor) -> None:
    """Give every request read by `factory`'s connections `seconds` from its first byte to
    its last (headers and body); a request still arriving then is aborted. The clock runs
    only while a request is being read: a kept-alive connection waiting for its next
    request, a request being answered and an upgraded websocket are not timed by it."""
    build = factory.buildProtocol

    def build_protocol(addr: Any) -> Any:
        channel = build(addr)
        if channel is not None:
            _time_requests(channel, seconds, clock)
        return channel

    factory.buildProtocol = build_protocol


def _time_requests(channel: Any, seconds: float, clock: Any) -> None:
    # Twisted's factory builds a wrapper that hands the bytes to an HTTP/1.1 channel
    # (or, after ALPN, to an HTTP/2 one, which this deadline leaves alone).
    http1 = getattr(channel, "_channel", channel)
    received, complete, lost = (
        channel.dataReceived, http1.allContentReceived, channel.connectionLost)
    timer: Any = None

    def stop() -> None:
        nonlocal timer
        if timer is not None and timer.active():
            timer.cancel()
        timer = None

    def too_slow() -> None:
        nonlocal timer
        timer = None
        if getattr(channel, "_channel", channel) is http1:
            http1.transport.abortConnection()

    def data_received(data: bytes) -> None:
        nonlocal timer
        if timer is None:
            timer = clock.callLater(seconds, too_slow)
        received(data)

    def all_content_received() -> None:
        stop()
        complete()

    def connection_lost(reason: Any) -> None:
        stop()
        lost(reason)

    channel.dataReceived = data_received
    http1.allContentReceived = all_content_received
    channel.connectionLost = connection_lost


def with_limits(argv: list[str]) -> list[str]:
    """`argv` with every limit it does not set itself put in front."""
    given = {a.split("=", 1)[0] for a in argv}
    extra: list[str] = []
    for flag, value in LIMITS.items():
        if flag not in given and not given & set(ALIASES.get(flag, ())):
            extra += [flag, value]
    return extra + argv


class LimitedCommandLine(CommandLineInterface):
    server_class = LimitedServer


def main(argv: list[str] | None = None) -> None:
    LimitedCommandLine().run(with_limits(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    main()
