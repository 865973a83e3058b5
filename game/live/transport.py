"""What the ASGI interface hides and a bounded send buffer needs: the client's socket.

daphne hands each application `partial(server.handle_reply, protocol)` as `send`; the
protocol's Twisted transport holds what the client has not read yet. channels' session
middleware wraps `send`, so `TransportProbe` (outermost in dobon_site/asgi.py) looks
it up before anything wraps it and puts it in the scope. Outside daphne (the test
communicator) there is none and these helpers do nothing.
"""

from __future__ import annotations

import functools
import socket
from collections.abc import Awaitable, Callable
from typing import Any

SCOPE_KEY = "dobon.transport"

ASGIApp = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


class TransportProbe:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        await self.app({**scope, SCOPE_KEY: transport_of(send)}, receive, send)


def transport_of(send: Any) -> Any:
    """The TCP transport under daphne's websocket protocol. After the HTTP upgrade the
    protocol's transport is Twisted's HTTP channel wrapper; the socket's own transport
    (the one that buffers) is under it."""
    if not (isinstance(send, functools.partial) and send.args):
        return None
    from twisted.internet.abstract import FileDescriptor

    found = getattr(send.args[0], "transport", None)
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
    bounded too. Plenty for this site's few KiB per move.

    A client that left during the handshake has no socket any more (Twisted drops it:
    `getHandle` raises AttributeError, a closed one OSError): nothing to bound then, and
    no traceback (issue 20: 2 per aborted handshake)."""
    try:
        handle = transport.getHandle() if hasattr(transport, "getHandle") else None
        if isinstance(handle, socket.socket):
            handle.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, nbytes)
    except (AttributeError, OSError):
        return
