"""What the ASGI interface hides and the sockets need: the client's connection itself.

daphne hands each application `partial(server.handle_reply, protocol)` as `send`; the
protocol's Twisted transport holds what the client has not read yet. channels' session
middleware wraps `send`, so `TransportProbe` (outermost in dobon_site/asgi.py) looks
it up before anything wraps it and puts it in the scope, with a `Closing` for the
socket. Outside daphne (the test communicator) there is neither transport nor protocol
and these helpers do nothing.

Clients that go away are expected, not errors (issue #24). The probe's `send`:
- swallows autobahn's `Disconnected` ("Attempt to send on a closed protocol": a frame
  sent to a socket that has just closed) and counts it;
- `bound_kernel_buffer` does nothing when the client left before the consumer got to it.

`Closing` runs the socket's release hooks (its count in the registry) the moment its
client closes: the answer to a client's close frame waits for them (at most
`CLOSE_HOOK_SECONDS`), so once a client has the server's close frame its socket no
longer counts against any cap; a dropped connection runs them at once.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import socket
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from autobahn.exception import Disconnected

log = logging.getLogger(__name__)

SCOPE_KEY = "dobon.transport"
CLOSING_KEY = "dobon.closing"
# The longest a client's close frame waits for its socket to be released.
CLOSE_HOOK_SECONDS = 2.0

ASGIApp = Callable[[dict[str, Any], Any, Any], Awaitable[None]]
Hook = Callable[[], Awaitable[None]]

# Expected disconnects by kind, per process (a metric, never a traceback in the log).
disconnects: Counter[str] = Counter()


def count_disconnect(kind: str) -> None:
    disconnects[kind] += 1
    log.debug("client gone: %s", kind)


class TransportProbe:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        closing = Closing()
        closing.attach(protocol_of(send))
        scope = {**scope, SCOPE_KEY: transport_of(send), CLOSING_KEY: closing}
        await self.app(scope, receive, functools.partial(quiet_send, send))


async def quiet_send(send: Any, message: dict[str, Any]) -> None:
    """`send`, with a frame for a client that has just gone counted instead of raised."""
    try:
        await send(message)
    except Disconnected:
        count_disconnect("send_after_close")


class Closing:
    """A socket's release hooks, run once when its client closes or drops."""

    def __init__(self) -> None:
        self.hooks: list[Hook] = []
        self.gone = False
        self.done: asyncio.Future[None] | None = None

    def on_close(self, hook: Hook) -> None:
        self.hooks.append(hook)

    def fire(self) -> asyncio.Future[None]:
        """Run the hooks (once); the future completes when they have."""
        self.gone = True
        if self.done is None:
            self.done = asyncio.ensure_future(self._run())
        return self.done

    async def _run(self) -> None:
        while self.hooks:  # hooks hold their sockets: dropped once run (no cycles kept)
            hook = self.hooks.pop(0)
            try:
                await asyncio.wait_for(hook(), CLOSE_HOOK_SECONDS)
            except Exception:  # the registry's expiry cleans up what a hook could not
                log.warning("releasing a closed socket failed", exc_info=True)

    def attach(self, protocol: Any) -> None:
        """Hold the answer to the client's close frame until the hooks ran, and run
        them when the connection drops without one."""
        if protocol is None or not hasattr(protocol, "onCloseFrame"):
            return
        if getattr(protocol, "state", None) == getattr(protocol, "STATE_CLOSED", object()):
            self.gone = True  # gone before the application started
            return
        answer_close_frame, on_close = protocol.onCloseFrame, protocol.onClose

        def held_close_frame(code: int | None, reason: bytes | None) -> Any:
            if protocol.state != protocol.STATE_OPEN or not self.hooks:
                self.fire()
                return answer_close_frame(code, reason)

            def answer(_: Any) -> None:
                if protocol.state == protocol.STATE_OPEN:
                    answer_close_frame(code, reason)

            self.fire().add_done_callback(answer)
            return None

        def dropped(was_clean: bool, code: int | None, reason: str | None) -> Any:
            self.fire()
            # The protocol's own methods again: these closures refer to it (a cycle).
            for name in ("onCloseFrame", "onClose"):
                protocol.__dict__.pop(name, None)
            return on_close(was_clean, code, reason)

        protocol.onCloseFrame = held_close_frame
        protocol.onClose = dropped


def protocol_of(send: Any) -> Any:
    """daphne's websocket protocol behind `send`, or None."""
    if not (isinstance(send, functools.partial) and send.args):
        return None
    return send.args[0]


def transport_of(send: Any) -> Any:
    """The TCP transport under daphne's websocket protocol. After the HTTP upgrade the
    protocol's transport is Twisted's HTTP channel wrapper; the socket's own transport
    (the one that buffers) is under it."""
    protocol = protocol_of(send)
    if protocol is None:
        return None
    from twisted.internet.abstract import FileDescriptor

    found = getattr(protocol, "transport", None)
    for _ in range(4):
        if found is None or isinstance(found, FileDescriptor):
            return found
        found = getattr(found, "transport", None)
    return None


def unsent_bytes(transport: Any) -> int | None:
    """Bytes written for this client that the kernel has not taken (it stopped reading),
    or None without a Twisted transport."""
    if transport is None or not hasattr(transport, "dataBuffer"):
        return None
    buffered = len(transport.dataBuffer) - int(getattr(transport, "offset", 0))
    return buffered + int(getattr(transport, "_tempDataLen", 0))


def abort(transport: Any) -> None:
    """Drop the connection now, with everything it still buffers."""
    if transport is not None and hasattr(transport, "abortConnection"):
        transport.abortConnection()


def bound_kernel_buffer(transport: Any, nbytes: int) -> None:
    """Fix the socket's kernel send buffer at `nbytes` (Linux doubles it) instead of
    letting it grow to `net.ipv4.tcp_wmem`'s maximum (4 MiB here): what a client has not
    read then piles up where `unsent_bytes` sees it, and each socket's kernel memory is
    bounded too. Plenty for this site's few KiB per move. A client that has already gone
    has no socket left (Twisted deletes it): nothing to do then."""
    try:
        handle = transport.getHandle() if hasattr(transport, "getHandle") else None
        if isinstance(handle, socket.socket):
            handle.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, nbytes)
    except (AttributeError, OSError):
        count_disconnect("gone_before_connect")
