"""Readiness of this process's site: the database, Redis and the clock (`/readyz`); and
the games running, counted when `/metrics` is scraped.

Each check answers a `Check` (ok, fail or skipped, with a short detail that names what
failed and says nothing secret: no host names, URLs or error texts, only the kind of
error). The checks run at once, each in a thread of its own, and `readiness` waits for
them at most `DOBON_HEALTH_TIMEOUT_SECONDS`: a check still running then fails as
"timed out" (a dead PostgreSQL host can hold a connect for minutes; Redis clients here
have half-second socket timeouts anyway). The thread is left to finish on its own.

- **database**: a query goes through, and no migration of the code is unapplied (a host
  running newer code than the schema must not get traffic: docs/deploy.md, upgrades);
- **redis**: PING, when `REDIS_URL` is set ("not configured" otherwise, which passes);
- **clock**: the last sweep (game/clock/heartbeat.py) is at most
  `DOBON_CLOCK_STALE_SECONDS` old: the timeouts and CPU moves are being played.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connections
from django.db.migrations.executor import MigrationExecutor
from django.db.models import Count

from game.clock import heartbeat
from game.models import Game
from game.rules.registry import DOBON_UNO, KINDS

OK, FAIL, SKIPPED = "ok", "fail", "skipped"


@dataclass(frozen=True)
class Check:
    status: str
    detail: str = ""

    @property
    def passed(self) -> bool:
        return self.status != FAIL

    def to_dict(self) -> dict[str, str]:
        return {"status": self.status, "detail": self.detail}


def failure(exc: BaseException) -> Check:
    """A failed check naming the kind of error only (its text may carry hosts or URLs)."""
    return Check(FAIL, f"unreachable ({type(exc).__name__})")


def check_database() -> Check:
    """The default database answers and every migration is applied. Runs in its own
    thread: the connection it opened is closed (or handed back to the pool) after."""
    connection = connections["default"]
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        executor = MigrationExecutor(connection)
        pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except Exception as exc:
        return failure(exc)
    finally:
        connection.close()
    if pending:
        names = ", ".join(f"{m.app_label}.{m.name}" for m, _ in pending[:5])
        more = f" and {len(pending) - 5} more" if len(pending) > 5 else ""
        return Check(FAIL, f"{len(pending)} unapplied migrations: {names}{more}")
    return Check(OK, "reachable, migrations applied")


def check_redis() -> Check:
    client = heartbeat.redis_client()
    if client is None:
        return Check(SKIPPED, "not configured")
    try:
        client.ping()
    except Exception as exc:
        return failure(exc)
    return Check(OK, "reachable")


def check_clock(now: float) -> Check:
    """The sweep ran within DOBON_CLOCK_STALE_SECONDS of `now` (unix seconds)."""
    try:
        last = heartbeat.last_sweep()
    except Exception as exc:
        return Check(FAIL, f"heartbeat unreadable ({type(exc).__name__})")
    if last is None:
        return Check(FAIL, "no sweep recorded")
    age = max(0.0, now - last)
    if age > settings.DOBON_CLOCK_STALE_SECONDS:
        return Check(FAIL, f"last sweep {age:.0f} s ago")
    return Check(OK, f"last sweep {age:.1f} s ago")


def running_games() -> dict[str, int]:
    """Games running now, per game kind (every kind, 0 included): `dobon_games_running`."""
    counts = dict.fromkeys(KINDS, 0)
    rows = (Game.objects.filter(status=Game.Status.RUNNING)
            .values_list("game_kind").annotate(games=Count("pk")).order_by())
    for kind, games in rows:
        counts[kind or DOBON_UNO] = counts.get(kind or DOBON_UNO, 0) + games
    return counts


def readiness(now: float | None = None) -> tuple[bool, dict[str, Any]]:
    """Every check within the time bound: (all passed, the `/readyz` document)."""
    moment = time.time() if now is None else now
    checks: dict[str, Callable[[], Check]] = {
        "database": check_database,
        "redis": check_redis,
        "clock": lambda: check_clock(moment),
    }
    results = run_bounded(checks, settings.DOBON_HEALTH_TIMEOUT_SECONDS)
    ready = all(check.passed for check in results.values())
    return ready, {
        "status": OK if ready else FAIL,
        "checks": {name: check.to_dict() for name, check in results.items()},
    }


def run_bounded(checks: dict[str, Callable[[], Check]], seconds: float) -> dict[str, Check]:
    """Run `checks` at once; one not done within `seconds` fails as timed out."""
    pool = ThreadPoolExecutor(max_workers=len(checks), thread_name_prefix="dobon-health")
    futures: dict[str, Future[Check]] = {name: pool.submit(run) for name, run in checks.items()}
    try:
        wait(futures.values(), timeout=seconds)
    finally:
        pool.shutdown(wait=False)  # a hung check is not waited for
    return {name: outcome(future, seconds) for name, future in futures.items()}


def outcome(future: Future[Check], seconds: float) -> Check:
    if not future.done():
        return Check(FAIL, f"timed out after {seconds:g} s")
    exc = future.exception()
    return failure(exc) if exc is not None else future.result()
