"""Websocket sign-in for programs: `Authorization: Bearer <token>` (docs/bots-api.md).

`BearerRouter` sends a websocket connection that carries a Bearer header to the token
stack and every other one to the browser stack (origin check, session cookie). Token
clients skip the origin check on purpose: the check exists because a browser sends the
victim's cookies with a cross-site websocket; a browser cannot add an Authorization
header to a websocket, so a Bearer connection never rides on someone's cookies. Nor do
they get a session: a token client is its token's user and nothing else.

`TokenAuthMiddleware` puts the token's user in `scope["user"]` and the token's id in
`scope["api_token"]`; an unknown or revoked token leaves the user anonymous and sets
`scope["api_token_refused"]`, and the consumer closes with 4401 (reason
`invalid_token`) after accepting, like any unauthenticated socket.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from channels.db import database_sync_to_async
from django.contrib.auth.models import AnonymousUser

from accounts.tokens import user_for_key

ASGIApp = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


def bearer_key(scope: dict[str, Any]) -> str | None:
    """The key of an `Authorization: Bearer <key>` header, or None without one."""
    for name, value in scope.get("headers", []):
        if name.lower() == b"authorization":
            text: str = bytes(value).decode("latin-1")
            scheme, _sep, key = text.strip().partition(" ")
            if scheme.lower() == "bearer":
                return key.strip()
    return None


class BearerRouter:
    """Token clients to `token_app`, everyone else to `browser_app`."""

    def __init__(self, token_app: ASGIApp, browser_app: ASGIApp) -> None:
        self.token_app = token_app
        self.browser_app = browser_app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        app = self.token_app if bearer_key(scope) is not None else self.browser_app
        await app(scope, receive, send)


class TokenAuthMiddleware:
    """The Bearer token's user, or an anonymous one (the consumer then closes 4401)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        key = bearer_key(scope) or ""
        found = await database_sync_to_async(user_for_key)(key)
        scope = dict(scope)
        if found is None:
            scope["user"] = AnonymousUser()
            scope["api_token_refused"] = True
        else:
            scope["user"], scope["api_token"] = found
        await self.app(scope, receive, send)
