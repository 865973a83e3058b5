"""The production stack for the load benchmark: database, users and rooms, processes."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent

# The production stack as README.md runs it, on plain HTTP over loopback: DEBUG off (its
# query log alone costs every move), Celery instead of the in-process scheduler. The
# secret key is inherited, so the session cookies this process creates stay valid.
PRODUCTION_ENV = {
    "DEBUG": "false",
    "SECURE_SSL_REDIRECT": "false",
    "SESSION_COOKIE_SECURE": "false",
    "CSRF_COOKIE_SECURE": "false",
    "DOBON_INPROCESS_SCHEDULER": "false",
    "LOG_LEVEL": "WARNING",
    # As behind one reverse proxy: the bench names each client's address in
    # X-Forwarded-For, so per-address admission limits (game/live/admission.py) see the
    # victim and the attacker (--attack) as the different clients they are.
    "DOBON_PROXY_COUNT": "1",
}


def ensure_database(url: str) -> None:
    import psycopg

    parts = urllib.parse.urlparse(url)
    name = parts.path.lstrip("/")
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def retire_old_games() -> int:
    """Stop the games earlier runs left running in the bench database: their overdue
    clocks would otherwise keep the timeout workers busy through this run."""
    from django.utils import timezone

    from game.models import Game, Match

    # Matches too: running ones count against the site's limit (game/services/limits.py)
    # and would refuse the next run's --attack cpu-matches.
    Match.objects.filter(status=Match.Status.RUNNING).update(
        status=Match.Status.ABORTED, finished_at=timezone.now())
    return Game.objects.filter(status=Game.Status.RUNNING).update(
        status=Game.Status.ABORTED, next_deadline=None, finished_at=timezone.now()
    )


Table = tuple[Any, list[tuple[Any, str]]]  # room, [(user, session cookie)]


def make_tables(rooms: int, timeout: int) -> list[Table]:
    """Fresh users (unusable passwords: hashing thousands would take minutes) and rooms,
    each user with a logged-in session cookie."""
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.auth.hashers import make_password
    from django.contrib.sessions.backends.db import SessionStore

    from accounts.usernames import username_key
    from game.models import Membership, Room

    run = f"b{secrets.token_hex(4)}"
    User = get_user_model()
    unusable = make_password(None)
    names = [f"{run}_{i}" for i in range(rooms * 4)]
    # bulk_create skips User.save(), which fills the look-alike key
    User.objects.bulk_create(
        User(username=name, username_key=username_key(name), password=unusable)
        for name in names
    )
    users = list(User.objects.filter(username__startswith=f"{run}_").order_by("pk"))
    tables = []
    for r in range(rooms):
        people = users[r * 4:(r + 1) * 4]
        room = Room.objects.create(name=f"{run}-{r}", owner=people[0], timeout_seconds=timeout)
        Membership.objects.bulk_create(
            Membership(room=room, user=u, seat_index=i) for i, u in enumerate(people)
        )
        seated = []
        for user in people:
            session = SessionStore()
            session[SESSION_KEY] = str(user.pk)
            session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
            session[HASH_SESSION_KEY] = user.get_session_auth_hash()
            session.create()
            seated.append((user, f"{settings.SESSION_COOKIE_NAME}={session.session_key}"))
        tables.append((room, seated))
    return tables


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = 30) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise SystemExit(f"daphne on {port} did not start")


def wait_http(port: int, timeout: float = 60) -> None:
    """Until the daphne on `port` answers an HTTP request (any status)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2)
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"daphne on {port} does not answer HTTP")


class Processes:
    """The server processes, each in its own process group (for CPU accounting and so
    that a worker's pool children stop with it)."""

    def __init__(self, logs: Path, counters: Path) -> None:
        self.logs = logs
        self.counters = counters
        self.started: list[tuple[str, subprocess.Popen[bytes]]] = []
        self.daphnes: dict[int, subprocess.Popen[bytes]] = {}  # port → its process now
        # Behind the bench's nginx (game/management/bench/proxy.py): the proxy's origin
        # too, and the client address one hop further left (DOBON_PROXY_COUNT).
        self.daphne_env: dict[str, str] = {}

    def start(
        self, kind: str, name: str, args: list[str], extra_env: dict[str, str] | None = None
    ) -> None:
        env = {**os.environ, **PRODUCTION_ENV, "DOBON_PROCESS_KIND": kind,
               "DOBON_BENCH_COUNTERS_DIR": str(self.counters), **(extra_env or {})}
        log = open(self.logs / f"{name}.log", "wb")  # noqa: SIM115 (lives as long as the process)
        self.started.append((kind, subprocess.Popen(
            args, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )))

    def daphne(self, port: int | None = None) -> int:
        port = port or free_port()
        origins = ",".join([f"http://127.0.0.1:{port}",  # its own origin, and the proxy's
                            *self.daphne_env.get("DOBON_WS_ALLOWED_ORIGINS", "").split(",")])
        # As README runs it: daphne with the site's limits (dobon_site/server.py).
        self.start("daphne", f"daphne-{port}", [
            str(BIN / "python"), "-m", "dobon_site.server", "-b", "127.0.0.1", "-p", str(port),
            "dobon_site.asgi:application",
        ], {**self.daphne_env, "DOBON_WS_ALLOWED_ORIGINS": origins.rstrip(",")})
        self.daphnes[port] = self.started[-1][1]
        wait_port(port)
        return port

    def restart_daphne(self, port: int, exit_timeout: float = 30) -> dict[str, Any]:
        """SIGTERM the daphne on `port`, wait for it to exit, start it again there and
        wait until it answers HTTP: what each step took."""
        process = self.daphnes[port]
        signalled = time.monotonic()
        process.send_signal(signal.SIGTERM)
        try:
            status: int | None = process.wait(exit_timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            status = None
        exited = time.monotonic()
        self.daphne(port)
        wait_http(port)
        return {"port": port, "exit_status": status,
                "drain_seconds": round(exited - signalled, 2),
                "down_seconds": round(time.monotonic() - signalled, 2)}

    def celery(self, concurrency: int = 2) -> None:
        self.start("worker", "worker", [
            str(BIN / "celery"), "-A", "dobon_site", "worker", "-l", "warning",
            f"--concurrency={concurrency}", "--without-gossip", "--without-mingle",
            "--without-heartbeat",
        ])
        self.start("beat", "beat", [str(BIN / "celery"), "-A", "dobon_site", "beat", "-l",
                                    "warning", "--schedule", str(self.logs / "beat-schedule")])

    def groups(self) -> dict[str, list[int]]:
        kinds: dict[str, list[int]] = {}
        for kind, p in self.started:
            kinds.setdefault(kind, []).append(p.pid)
        return kinds

    def stop_celery(self) -> None:
        """Stop the clocks: no timeout changes a game after this."""
        for kind, p in self.started:
            if kind in ("worker", "beat") and p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
                p.wait(15)

    def stop(self) -> None:
        for _, p in self.started:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for _, p in self.started:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)


def post_start(port: int, room_id: int, cookie: str, address: str | None = None) -> int:
    """The owner presses "start": a real POST with a CSRF cookie and header."""
    return post_form(port, f"/rooms/{room_id}/start/", cookie, address)[0]


def post_form(port: int, path: str, cookie: str, address: str | None = None,
              fields: dict[str, str] | None = None) -> tuple[int, str, list[str]]:
    """A form POST as a browser sends it (CSRF cookie and header, Origin, the client
    address as a proxy would name it): (status, redirect location, Set-Cookie values);
    status 0 when the server could not be reached."""
    from django.conf import settings

    token = secrets.token_hex(16)
    # English chosen (the site's language cookie; Japanese otherwise), so that the
    # refusals read in the report as the code words them.
    headers = {"Cookie": f"{cookie}; {settings.CSRF_COOKIE_NAME}={token}; "
                         f"{settings.LANGUAGE_COOKIE_NAME}=en",
               "X-CSRFToken": token, "Origin": f"http://127.0.0.1:{port}",
               "Content-Type": "application/x-www-form-urlencoded"}
    if address is not None:
        headers["X-Forwarded-For"] = address
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", method="POST", headers=headers,
        data=urllib.parse.urlencode(fields or {}).encode(),
    )

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    try:
        response = urllib.request.build_opener(NoRedirect).open(request, timeout=30)
        answer = response.headers
        status = int(response.status)
    except urllib.error.HTTPError as exc:  # a redirect not followed lands here too
        answer, status = exc.headers, exc.code
    except OSError:
        return 0, "", []
    return status, answer.get("Location", ""), answer.get_all("Set-Cookie") or []
