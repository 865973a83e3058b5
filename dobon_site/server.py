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

Stopping (issue #30, restarts that lose nothing). daphne lets Twisted install its signal
handlers, and SIGTERM stopped the reactor at once: every application was cancelled, every
socket dropped without a close frame (1006), and a move in a database thread either
rolled back or committed unannounced. Here SIGTERM (or a first SIGINT) drains instead:

1. the server stops listening on all its ports and unix sockets, so the proxy's next
   connect goes to another daphne (refused here at once);
2. a websocket asked for meanwhile on an HTTP connection opened before is accepted and
   closed with 1012, and open sockets read no more messages (game/live/drain.py);
3. the moves this process has begun finish, their pushes sent to every socket that
   should get them (until half of `DOBON_SHUTDOWN_SECONDS` has passed);
4. every socket is counted out of the shared registry (presence, per-user caps) and
   closed with 1012 (service restart); the clients reconnect with a random delay and
   resume by version (docs/protocol.md);
5. the server waits for the sockets' close handshakes and for requests being answered
   (until 80 % of the time), then stops the reactor.

Whatever hangs, the process exits `DOBON_SHUTDOWN_SECONDS` (default 10) after the signal
(status 1 when it had to be forced). A second SIGTERM during the drain changes nothing (a
supervisor repeating itself; the drain is bounded anyway); a second SIGINT (Ctrl+C
twice) exits at once with status 1, dropping what is open as a crash would (counted
sockets then expire after `DOBON_WS_SOCKET_TTL`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from daphne import cli as daphne_cli
from daphne.access import AccessLogGenerator
from daphne.cli import CommandLineInterface
from daphne.server import Server
from daphne.ws_protocol import WebSocketProtocol
from twisted.internet import defer, reactor

log = logging.getLogger(__name__)

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


class RestartingWebSocketProtocol(WebSocketProtocol):
    """daphne's websocket protocol, able to close with 1012. autobahn's `sendClose` takes
    only 1000 and 3000-4999 and raised for any other code the application gave; codes
    RFC 6455 registers for servers (1012 service restart) go out as the frame they are."""

    def serverClose(self, code: int | None = None) -> None:
        if code is not None and code != 1000 and not 3000 <= code <= 4999:
            self.sendCloseFrame(code=code)
        else:
            super().serverClose(code=code)


class LimitedServer(Server):
    """daphne's server with the two options above set on its factories as `run`
    creates them, and the drain on SIGTERM (`Shutdown`) instead of Twisted's handlers."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **{**kwargs, "signal_handlers": False})
        self.ports: list[Any] = []

    def run(self) -> None:
        from django.conf import settings

        shutdown = Shutdown(self, float(settings.DOBON_SHUTDOWN_SECONDS))
        loop = reactor._asyncioEventloop  # the loop daphne's reactor runs on
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, shutdown.signalled, signum)
        super().run()

    def listen_success(self, port: Any) -> None:
        self.ports.append(port)
        super().listen_success(port)

    @property
    def ws_factory(self) -> Any:
        return self.__dict__["ws_factory"]

    @ws_factory.setter
    def ws_factory(self, factory: Any) -> None:
        factory.setProtocolOptions(failByDrop=False)
        factory.protocol = RestartingWebSocketProtocol
        self.__dict__["ws_factory"] = factory

    @property
    def http_factory(self) -> Any:
        return self.__dict__["http_factory"]

    @http_factory.setter
    def http_factory(self, factory: Any) -> None:
        factory.timeOut = HTTP_IDLE_SECONDS
        limit_request_time(factory, HTTP_REQUEST_SECONDS)
        self.__dict__["http_factory"] = factory


class Shutdown:
    """The drain described above, from the first SIGTERM or SIGINT to the reactor's stop.
    `exit_now` ends the process without any clean-up (tests replace it)."""

    def __init__(self, server: LimitedServer, seconds: float,
                 exit_now: Callable[[int], Any] = os._exit) -> None:
        self.server, self.seconds, self.exit_now = server, seconds, exit_now
        self.started: float | None = None
        self.task: asyncio.Future[None] | None = None

    def signalled(self, signum: int) -> None:
        name = signal.Signals(signum).name
        if self.started is None:
            self.started = time.monotonic()
            log.info("%s: draining, at most %s s", name, self.seconds)
            self.watchdog()
            self.task = asyncio.ensure_future(self.drain())
        elif signum == signal.SIGINT:
            log.warning("%s again while draining: exiting now", name)
            self.exit_now(1)
        else:
            log.info("%s again: already draining", name)

    def watchdog(self) -> None:
        """Exit `seconds` after the signal whatever the drain or the interpreter's own
        exit (threads joined) is still waiting for. A thread: the event loop may be stuck."""
        def expire() -> None:
            log.error("still running %s s after the signal: exiting", self.seconds)
            self.exit_now(1)

        timer = threading.Timer(self.seconds, expire)
        timer.daemon = True
        timer.start()

    async def drain(self) -> None:
        from game.live import drain

        assert self.started is not None
        try:
            await self.stop_listening()
            report = await drain.current().run(self.started + 0.5 * self.seconds)
            await self.closed(self.started + 0.8 * self.seconds)
            left = self.close_leftovers()
            log.info("drained in %.2f s: %d sockets closed with 1012, moves %s, %d left",
                     time.monotonic() - self.started, report.closed,
                     "all done" if report.settled else "NOT all done", left)
        except Exception:
            log.exception("the drain failed: stopping anyway")
        finally:
            if reactor.running:
                reactor.stop()

    async def stop_listening(self) -> None:
        stopping = [defer.maybeDeferred(port.stopListening) for port in self.server.ports]
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(d.asFuture(loop) for d in stopping), return_exceptions=True)

    def busy_connections(self) -> int:
        """Websockets not closed yet, and applications (sockets, requests) still running."""
        busy = 0
        for protocol, details in list(self.server.connections.items()):
            app = details.get("application_instance")
            open_socket = (isinstance(protocol, WebSocketProtocol)
                           and protocol.state != protocol.STATE_CLOSED)
            busy += open_socket or (app is not None and not app.done())
        return busy

    async def closed(self, deadline: float) -> None:
        while self.busy_connections() and time.monotonic() < deadline:
            await asyncio.sleep(0.02)

    def close_leftovers(self) -> int:
        """Close frames (1012) for websockets the application did not close: one still in
        its handshake when the drain began, or whose consumer hung."""
        from game.live.drain import CLOSE_SERVICE_RESTART

        left = 0
        for protocol in list(self.server.connections):
            if isinstance(protocol, WebSocketProtocol) and protocol.state == protocol.STATE_OPEN:
                protocol.sendCloseFrame(code=CLOSE_SERVICE_RESTART)
                left += 1
        return left


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


access_log = logging.getLogger("dobon_site.access")


class LoggedAccess(AccessLogGenerator):  # type: ignore[misc]
    """daphne's access log through `logging` (`dobon_site.access`, INFO), so that with
    DOBON_LOG_FORMAT=json its lines are JSON like every other (game/logs.py); daphne
    writes them to standard output in its own format otherwise."""

    def write_entry(self, host: str, date: Any, request: str, status: Any = None,
                    length: Any = None, ident: Any = None, user: Any = None) -> None:
        access_log.info("%s \"%s\" %s %s", host, request, status or "-", length or "-")


def main(argv: list[str] | None = None) -> None:
    if os.environ.get("DOBON_LOG_FORMAT", "").strip().lower() == "json":
        daphne_cli.AccessLogGenerator = LoggedAccess  # the one the command line builds
    LimitedCommandLine().run(with_limits(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    main()
