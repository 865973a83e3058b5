"""Run daphne with the site's limits set explicitly: `python -m dobon_site.server [daphne
arguments] dobon_site.asgi:application`.

daphne's defaults are silent and partly unsafe for a public site; this runner passes
every limit below unless the command line gives its own, and sets two options that
daphne's command line does not offer (README.md, "Production stack"):

- an incoming websocket message over the size limit gets a close frame with code 1009
  ("message too big") instead of a connection dropped without a word;
- an HTTP connection that sends nothing for `HTTP_IDLE_SECONDS` (a request sent part
  way and then abandoned) is closed (`DOBON_HTTP_IDLE_SECONDS`, default 30).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from daphne.cli import CommandLineInterface
from daphne.server import Server

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
        self.__dict__["http_factory"] = factory


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
