"""What a measuring window cost: CPU seconds per server process kind, and work counts.

- daphne, Celery worker, beat: the bench started each in its own process group; the CPU
  of every live member of the group (utime + stime from /proc) plus what the leader
  reaped from exited children.
- PostgreSQL: the backends serving the bench database, found by their process title
  (`postgres: … <database> …`) by a sampler thread. A backend that lives and dies
  between two samples is not seen; the number of such sessions is known from
  `pg_stat_database.sessions`, and their CPU is estimated from the short-lived backends
  that were seen (reported separately as `postgres_unseen_estimate_ms_per_move`).
- CPU time: /proc/<pid>/stat (all threads, 10 ms ticks) for the long-lived servers; the
  scheduler's nanosecond count (/proc/<pid>/schedstat) for the single-threaded backends.
- Redis: `INFO cpu` and `INFO commandstats` deltas. Redis is shared with other work on
  the machine; those deltas include whatever else ran meanwhile.
- SQL statements and channel-layer calls: the servers' own counters (game/instrument.py).
"""

from __future__ import annotations

import json
import os
import statistics
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TICK = os.sysconf("SC_CLK_TCK")
PG_SAMPLE_SECONDS = 0.02


def _stat_fields(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return raw[raw.rindex(")") + 2:].split()  # fields from the 3rd ("state") on


def process_cpu(pid: int, with_children: bool = False) -> float:
    """utime + stime of every thread of `pid`, dead ones included, in seconds (and of its
    reaped children if asked). Counted in 10 ms ticks: fine over a window of seconds."""
    f = _stat_fields(pid)
    if f is None:
        return 0.0
    ticks = int(f[11]) + int(f[12])
    if with_children:
        ticks += int(f[13]) + int(f[14])
    return ticks / TICK


def backend_cpu(pid: int) -> float:
    """CPU seconds of a single-threaded process to the nanosecond (/proc/<pid>/schedstat,
    the main thread's): ticks are too coarse for a backend that lives a few ms."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


def group_cpu(pgid: int) -> float:
    """CPU of a process group: its live members, plus children the leader reaped."""
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        f = _stat_fields(int(entry))
        if f is not None and int(f[2]) == pgid:
            total += process_cpu(int(entry), with_children=int(entry) == pgid)
    return total


def boot_ticks_now() -> float:
    """Clock ticks since boot, the unit of a process's start time in /proc/<pid>/stat."""
    return time.clock_gettime(time.CLOCK_BOOTTIME) * TICK


class PostgresSampler:
    """Follows the backends of one database by process title, from a thread."""

    def __init__(self, database: str) -> None:
        self.marker = f" {database} "
        self.known: dict[int, bool] = {}  # pid -> serves our database
        self.base: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.started_at: dict[int, float] = {}
        self.gone: set[int] = set()
        self.window_start = 0.0
        self.stop_event = threading.Event()
        self.thread: threading.Thread | None = None

    def _scan(self) -> None:
        seen = set()
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            pid = int(entry)
            if pid not in self.known:
                try:
                    title = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
                except OSError:
                    continue
                self.known[pid] = title.startswith("postgres: ") and self.marker in title
            if not self.known[pid]:
                continue
            f = _stat_fields(pid)
            if f is None:
                continue
            seen.add(pid)
            cpu = backend_cpu(pid)
            if pid not in self.last:
                started = int(f[19])
                self.started_at[pid] = started
                # A backend born inside the window counts from zero.
                self.base[pid] = 0.0 if started >= self.window_start else cpu
            self.last[pid] = cpu
        for pid in set(self.last) - seen:
            self.gone.add(pid)
            self.known.pop(pid, None)

    def _run(self) -> None:
        while not self.stop_event.is_set():
            self._scan()
            time.sleep(PG_SAMPLE_SECONDS)

    def start(self) -> None:
        self.window_start = boot_ticks_now()
        self._scan()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def stop(self) -> dict[str, Any]:
        self.stop_event.set()
        if self.thread is not None:
            self.thread.join()
        self._scan()
        seen_cpu = sum(self.last[p] - self.base[p] for p in self.last)
        born = [p for p in self.last if self.started_at[p] >= self.window_start]
        short = [self.last[p] for p in born if p in self.gone]
        return {"cpu": seen_cpu, "born": len(born), "short_lived_cpu": short}


@dataclass
class Snapshot:
    at: float
    groups: dict[str, float]
    redis_cpu: float
    redis_commands: dict[str, int]
    counters: dict[str, int]
    pg_sessions: int
    pg_xacts: int


@dataclass
class CostMeter:
    """Measures one window: `begin()`, the load runs, `end()` → figures."""

    groups: dict[str, list[int]]  # kind -> process group ids
    redis_url: str
    database_url: str
    counters_dir: Path
    first: Snapshot | None = None
    sampler: PostgresSampler | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def _snapshot(self) -> Snapshot:
        import redis

        client = redis.Redis.from_url(self.redis_url)
        info = client.info("cpu")
        stats = client.info("commandstats")
        sessions, xacts = self._pg_counts()
        return Snapshot(
            at=time.monotonic(),
            groups={k: sum(group_cpu(g) for g in pgids) for k, pgids in self.groups.items()},
            redis_cpu=float(info["used_cpu_sys"]) + float(info["used_cpu_user"]),
            redis_commands={k.removeprefix("cmdstat_"): int(v["calls"]) for k, v in stats.items()},
            counters=read_counters(self.counters_dir),
            pg_sessions=sessions,
            pg_xacts=xacts,
        )

    def _pg_counts(self) -> tuple[int, int]:
        import psycopg

        name = database_name(self.database_url)
        with psycopg.connect(admin_url(self.database_url), autocommit=True) as conn:
            row = conn.execute(
                "SELECT sessions, xact_commit + xact_rollback FROM pg_stat_database "
                "WHERE datname = %s", (name,)
            ).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def begin(self) -> None:
        self.sampler = PostgresSampler(database_name(self.database_url))
        self.sampler.start()
        self.first = self._snapshot()

    def end(self, moves: int, frames: int) -> dict[str, Any]:
        assert self.first is not None and self.sampler is not None
        last = self._snapshot()
        pg = self.sampler.stop()
        first = self.first
        per = max(moves, 1)
        cpu = {k: last.groups[k] - first.groups[k] for k in self.groups}
        sessions = last.pg_sessions - first.pg_sessions
        unseen = max(0, sessions - pg["born"])
        short = pg["short_lived_cpu"]
        unseen_cpu = unseen * statistics.median(short) if short and unseen else 0.0
        cpu["postgres"] = pg["cpu"] + unseen_cpu
        cpu["redis"] = last.redis_cpu - first.redis_cpu
        commands = {k: v - first.redis_commands.get(k, 0) for k, v in last.redis_commands.items()}
        commands = {k: v for k, v in commands.items() if v}
        counters = {k: v - first.counters.get(k, 0) for k, v in last.counters.items()}
        ms = {k: round(v * 1000 / per, 2) for k, v in cpu.items()}
        return {
            "window_seconds": round(last.at - first.at, 1),
            "moves": moves,
            "cpu_ms_per_move": round(sum(cpu.values()) * 1000 / per, 2),
            "cpu_ms_per_move_by_process": ms,
            "postgres_new_sessions_per_move": round(sessions / per, 3),
            "postgres_unseen_sessions": unseen,
            "postgres_unseen_estimate_ms_per_move": round(unseen_cpu * 1000 / per, 2),
            "postgres_transactions_per_move": round((last.pg_xacts - first.pg_xacts) / per, 2),
            "sql_statements_per_move": round(counters.get("sql", 0) / per, 2),
            "channel_layer_per_move": {
                "send": round(counters.get("layer_send", 0) / per, 2),
                "group_send": round(counters.get("layer_group_send", 0) / per, 2),
                "receive": round(counters.get("layer_receive", 0) / per, 2),
            },
            "redis_commands_per_move": round(sum(commands.values()) / per, 1),
            "redis_top_commands_per_move": {
                k: round(v / per, 2)
                for k, v in sorted(commands.items(), key=lambda kv: -kv[1])[:8]
            },
            "websocket_frames_per_move": round(frames / per, 2),
            "cpu_seconds": {k: round(v, 2) for k, v in cpu.items()},
        }


def read_counters(directory: Path) -> dict[str, int]:
    total: dict[str, int] = {}
    for path in directory.glob("*.json"):
        try:
            counts = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        for k, v in counts.items():
            total[k] = total.get(k, 0) + int(v)
    return total


def database_name(url: str) -> str:
    import urllib.parse

    return urllib.parse.urlparse(url).path.lstrip("/")


def admin_url(url: str) -> str:
    import urllib.parse

    return urllib.parse.urlparse(url)._replace(path="/postgres").geturl()
