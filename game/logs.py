"""Logs an operator can read: context ids on every line, JSON on request, no hidden card.

- **Context** (`bind`, `context`): the request id, room, game and user a line is about,
  in context variables. The HTTP middleware (`RequestContextMiddleware`) sets the request
  id — the proxy's `X-Request-ID` when it is a sane token, else a new one, echoed in the
  response's `X-Request-ID` — the room of a room page and the user once the request has
  read it; the websocket consumer sets the room and the user for its socket (its tasks
  and database threads inherit them: asyncio tasks and asgiref's threads copy the
  context); the clock's tasks set the game. `ContextFilter`, on the console handler, puts
  them on every record.
- **JSON** (`DOBON_LOG_FORMAT=json`, `JsonFormatter`): one object a line with `time`
  (UTC, ISO 8601), `level`, `logger`, `message`, `exception` (the traceback) when there is
  one, and `request_id`, `room`, `game`, `user` where known. Nothing else of a record is
  written (its `extra`, e.g. django.request's `request`, may hold anything).
- **No card of a hidden hand** in any line at any level: the site never logs an action's
  cards, a view, a state or a push (the log calls under game/ log ids, types and codes
  of refusals only); Django's SQL lines at DEBUG (`django.db.backends`, with DEBUG on)
  carry every statement with its values, among them each game's state and so every hand:
  `QueryValuesFilter` blanks their string literals and parameters; redis-py's
  `push_response` logger writes every pub/sub message (the channel layer's pushes) at
  DEBUG: `DropFilter` drops them. channels, channels-redis, daphne and celery log no
  payloads (tests/game/test_logs.py plays whole games with every logger at DEBUG and
  looks for the hands in every line; that is how `push_response` was found).

Imports nothing of ours; `django` only inside the middleware.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import re
import traceback
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

FIELDS = ("request_id", "room", "game", "user")
_vars: dict[str, contextvars.ContextVar[Any]] = {
    name: contextvars.ContextVar(f"dobon_log_{name}", default=None) for name in FIELDS
}
# A proxy's request id is taken as it is when it looks like one (uuid, hex, base64url…).
REQUEST_ID = re.compile(r"^[A-Za-z0-9._:@/+=-]{8,128}$")
REQUEST_ID_HEADER = "X-Request-ID"


def bind(**values: Any) -> None:
    """Set context ids for what follows in this context (None clears one)."""
    for name, value in values.items():
        _vars[name].set(value)


@contextlib.contextmanager
def bound(**values: Any) -> Iterator[None]:
    """Context ids for the block only."""
    tokens = [(name, _vars[name].set(value)) for name, value in values.items()]
    try:
        yield
    finally:
        for name, token in reversed(tokens):
            _vars[name].reset(token)


def context() -> dict[str, Any]:
    """The context ids known here (a value may be a callable: resolved now)."""
    found = {}
    for name in FIELDS:
        value = _vars[name].get()
        if callable(value):
            value = value()
        if value is not None:
            found[name] = value
    return found


class ContextFilter(logging.Filter):
    """Puts the context ids on each record (as attributes), for any formatter."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, value in context().items():
            if not hasattr(record, name):
                setattr(record, name, value)
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line (see the module's doc)."""

    def format(self, record: logging.LogRecord) -> str:
        document: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(
                timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                document[name] = value
        if record.exc_info:
            document["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            document["exception"] = record.exc_text
        if record.stack_info:
            document["stack"] = self.formatStack(record.stack_info)
        return json.dumps(document, ensure_ascii=False, default=str)

    def formatException(self, ei: Any) -> str:  # noqa: N802 (logging's name)
        return "".join(traceback.format_exception(*ei)).rstrip()


# A string literal in SQL as Django's backends render it ('…', quotes doubled inside).
SQL_STRING = re.compile(r"'(?:[^']|'')*'")


class QueryValuesFilter(logging.Filter):
    """For `django.db.backends`: a statement's line keeps its shape (tables, columns,
    numbers) but none of its string values or parameters, where games' states and
    events (every hand) travel."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "values_blanked", False):
            return True
        if isinstance(record.args, tuple) and len(record.args) == 4 and hasattr(record, "sql"):
            duration, sql, params, alias = record.args
            blank = SQL_STRING.sub("'…'", str(sql))
            count = len(params) if isinstance(params, list | tuple) else "?"
            record.args = (duration, blank, f"<{count} values>", alias)
            record.sql = blank
            record.params = None
            record.values_blanked = True
        return True


def action_type(action: Any) -> str:
    """What an action is, for a log line: its type only, never its cards."""
    kind = action.get("type") if isinstance(action, dict) else None
    return kind if isinstance(kind, str) and kind.isidentifier() and len(kind) <= 32 else "?"


class Withheld(Exception):
    """Stands for an exception whose message is left out of the log (see `withheld`)."""


def withheld(exc: BaseException) -> tuple[type[BaseException], BaseException, Any]:
    """`exc_info` for a failure in code that handles hands (an engine, a view, a policy,
    a push): its traceback (where it happened) with its message left out, because a
    message such as `KeyError('R5')` may name a hidden card."""
    stand_in = Withheld(f"{type(exc).__module__}.{type(exc).__qualname__} (message withheld)")
    return Withheld, stand_in, exc.__traceback__


class DropFilter(logging.Filter):
    """Drops every record of its logger: redis-py's `push_response` writes each pub/sub
    message it reads at DEBUG, and the channel layer's messages are the moves' pushes,
    every seat's hand in its own."""

    def filter(self, record: logging.LogRecord) -> bool:
        return False


def request_id_from(header: str | None) -> str:
    """The proxy's request id when it is a sane token, else a new one."""
    if header and REQUEST_ID.match(header):
        return header
    return uuid.uuid4().hex


class RequestContextMiddleware:
    """Binds the request id (echoed in the response), the room of a room page and the
    user (once the request has read it: logging never queries) for the request's lines."""

    def __init__(self, get_response: Callable[[Any], Any]) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        request_id = request_id_from(request.headers.get(REQUEST_ID_HEADER))
        bind(request_id=request_id, room=None, game=None, user=lambda: _user_id(request))
        response = self.get_response(request)
        response[REQUEST_ID_HEADER] = request_id
        return response

    def process_view(self, request: Any, view: Any, args: Any, kwargs: dict[str, Any]) -> None:
        room = kwargs.get("room_id")
        if room is not None:
            bind(room=room)


def _user_id(request: Any) -> int | None:
    """The signed-in user's id if the request has read its user already, else None."""
    user = getattr(request, "_cached_user", None)  # set by django.contrib.auth's get_user
    return getattr(user, "pk", None) if getattr(user, "is_authenticated", False) else None
