"""Processes for the stack tests: daphne, a Celery worker and beat, against the test
database and a Redis database of their own. Everything started here is killed here.

Needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL); skips without them unless
DOBON_REQUIRE_SERVICES=1, when it fails instead.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings
from django.db import connection
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def require_stack() -> None:
    missing = []
    if connection.vendor != "postgresql":
        missing.append("DATABASE_URL=postgres://…")
    if not settings.REDIS_URL:
        missing.append("REDIS_URL=redis://…")
    if not missing:
        return
    message = "needs " + " and ".join(missing)
    if os.environ.get("DOBON_REQUIRE_SERVICES") == "1":
        pytest.fail(message)
    pytest.skip(message)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fresh_redis_url() -> str:
    """An empty Redis database number on the configured server, claimed for this run."""
    base = urllib.parse.urlparse(settings.REDIS_URL)
    for number in range(15, 0, -1):
        url = base._replace(path=f"/{number}").geturl()
        client = redis.Redis.from_url(url)
        # SET NX on a claim key makes two concurrent runs pick different databases.
        if client.dbsize() == 0 and client.set("dobon-test-claim", os.getpid(), nx=True, ex=900):
            return url
    pytest.fail("no empty Redis database (1-15) for the stack test")


def flush_redis(url: str) -> None:
    redis.Redis.from_url(url).flushdb()


def current_database_url() -> str:
    """The database the test process uses right now (the test database)."""
    s = connection.settings_dict
    user = s.get("USER") or "postgres"
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    host, port = s.get("HOST") or "127.0.0.1", s.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{s['NAME']}"


@dataclass
class Stack:
    """Started processes and where to reach them."""

    env: dict[str, str]
    logs: Path
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    ports: list[int] = field(default_factory=list)

    def start(
        self, name: str, args: list[str], extra_env: dict[str, str] | None = None
    ) -> subprocess.Popen[bytes]:
        log = open(self.logs / f"{name}.log", "ab")  # noqa: SIM115 (closed with the process)
        process = subprocess.Popen(
            args, cwd=ROOT, env={**self.env, **(extra_env or {})},
            stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group, so a worker's pool children die with it
        )
        self.processes.append(process)
        return process

    def daphne(self, port: int | None = None, origins: tuple[str, ...] = ()) -> int:
        """A daphne on `port` (default: a free one). `origins`: more origins its sockets
        may come from (a proxy's in front of it)."""
        port = port or free_port()
        # As README runs it: daphne with the site's limits (dobon_site/server.py); pages
        # and sockets of this daphne come from its own origin (scheme, host and port).
        allowed = ",".join((f"http://127.0.0.1:{port}", *origins))
        self.start(f"daphne-{port}", [str(BIN / "python"), "-m", "dobon_site.server",
                                      "-b", "127.0.0.1", "-p", str(port),
                                      "dobon_site.asgi:application"],
                   {"DOBON_WS_ALLOWED_ORIGINS": allowed})
        wait_for_http(port)
        self.ports.append(port)
        return port

    def daphne_process(self, port: int) -> subprocess.Popen[bytes]:
        """The process serving `port` now (the latest started there)."""
        return next(p for p in reversed(self.processes)
                    if str(port) in " ".join(map(str, p.args)))

    def celery(self) -> None:
        self.start_worker()
        self.start_beat()
        wait_for_log(self.logs / "worker.log", "ready.")
        wait_for_log(self.logs / "beat.log", "beat: Starting")

    def start_worker(self, name: str = "worker") -> subprocess.Popen[bytes]:
        return self.start(name, [str(BIN / "celery"), "-A", "dobon_site", "worker",
                                 "--loglevel=info", "--concurrency=2", "--without-gossip",
                                 "--without-mingle", "--without-heartbeat"])

    def start_beat(self, name: str = "beat") -> subprocess.Popen[bytes]:
        # Each beat its own schedule file: two beats running at once (one holds the
        # clock, one stands by) must not share celery's shelve.
        schedule = str(self.logs / f"{name}-schedule")
        return self.start(name, [str(BIN / "celery"), "-A", "dobon_site", "beat",
                                 "--loglevel=info", "--schedule", schedule])

    def kill(self, process: subprocess.Popen[bytes]) -> None:
        """SIGKILL, as a crash would: nothing gets to clean up."""
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(5)

    def log_text(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-4000:]}"
                         for p in sorted(self.logs.glob("*.log")))


@contextmanager
def stack(tmp_path: Path, **extra_env: str) -> Iterator[Stack]:
    redis_url = fresh_redis_url()
    env = {
        **os.environ,
        "DATABASE_URL": current_database_url(),
        "REDIS_URL": redis_url,
        "DJANGO_SETTINGS_MODULE": "dobon_site.settings",
        "DOBON_INPROCESS_SCHEDULER": "false",
        # The test process pushes to the stack's sockets (services called in a test):
        # one site, so one channel prefix, though their Redis database numbers differ.
        "DOBON_CHANNEL_PREFIX": settings.DOBON_CHANNEL_PREFIX,
        "PYTHONUNBUFFERED": "1",
        **extra_env,
    }
    env.pop("CELERY_BROKER_URL", None)
    running = Stack(env, tmp_path)
    try:
        yield running
    except BaseException:
        print(running.log_text())
        raise
    finally:
        running.stop()
        flush_redis(redis_url)


def wait_for_http(port: int, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1)
            return
        except urllib.error.HTTPError:
            return  # any HTTP answer means the server is up
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"daphne on port {port} did not come up")


def wait_for_log(path: Path, text: str, timeout: float = 30) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if path.exists() and text in path.read_text(errors="replace"):
            return
        time.sleep(0.1)
    pytest.fail(f"{path.name} never said {text!r}:\n{path.read_text(errors='replace')[-3000:]}")


# -- people --------------------------------------------------------------------------------


def session_cookie(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


def post_start(port: int, room_id: int, cookie: str) -> int:
    """The owner presses "start": a real POST with a CSRF cookie and header."""
    token = secrets.token_hex(16)
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/rooms/{room_id}/start/",
        method="POST",
        headers={"Cookie": f"{cookie}; {settings.CSRF_COOKIE_NAME}={token}",
                 "X-CSRFToken": token},
    )

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        return opener.open(request, timeout=10).status
    except urllib.error.HTTPError as exc:
        return exc.code


class WsPlayer:
    """A websocket player: keeps every message with the time it arrived."""

    def __init__(self, name: str, port: int, room_id: int, cookie: str) -> None:
        self.name, self.port, self.room_id, self.cookie = name, port, room_id, cookie
        self.messages: list[tuple[float, dict[str, Any]]] = []
        self.states: list[dict[str, Any]] = []
        self.ws: Any = None
        self.reader: asyncio.Task[None] | None = None
        self.changed = asyncio.Event()

    async def connect(self) -> None:
        from websockets.asyncio.client import connect

        self.ws = await connect(
            f"ws://127.0.0.1:{self.port}/ws/rooms/{self.room_id}/",
            origin=f"http://127.0.0.1:{self.port}",  # type: ignore[arg-type]
            additional_headers={"Cookie": self.cookie},
        )
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for raw in self.ws:
            message = json.loads(raw)
            self.messages.append((time.time(), message))
            if message["type"] == "state":
                self.states.append(message)
            self.changed.set()

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def wait_for(self, predicate: Any, timeout: float = 10) -> dict[str, Any]:
        """The first state (already received or coming) that satisfies `predicate`."""
        end = time.monotonic() + timeout
        while True:
            for state in self.states:
                if predicate(state):
                    return state
            remaining = end - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"{self.name}: no matching state; last {self.states[-1:]}")
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), remaining)
            except TimeoutError:
                pass

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            self.reader.cancel()
