"""The site's Prometheus metrics, and their text for `GET /metrics` (game/views/ops.py).

Several processes serve one site on a host (daphnes, Celery workers and their pool
children, beat), and a scrape reaches one of them. With `PROMETHEUS_MULTIPROC_DIR` set
(one directory per host, shared by that host's processes), prometheus-client's
multiprocess mode keeps each process's values in memory-mapped files there and any
process's scrape adds them all up: one endpoint per host, whichever daphne answers.
Without it (the laptop: one process) the values live in the process.

The directory's files outlive their processes, as the library's docs describe: the
counters and histograms of a process that ended still count (totals never go down), but
the live gauge (`dobon_sockets_open`, mode `livesum`) of a dead process must not:
`forget_dead_processes` removes the live-gauge files of every pid no longer running,
when a process starts (before it makes a metric: a pid reused after a restart starts
from nothing) and at every scrape (a daphne killed with -9 left its sockets counted).
Empty the directory only when no process of the host runs (a tmpfs emptied at boot:
docs/operations.md, "Metrics").

Django-free: the callers pass what they know (game kinds, close codes, seconds).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4

log = logging.getLogger(__name__)

DIRECTORY_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
# The files of live gauges, by the pid that wrote them (prometheus-client's names).
LIVE_GAUGE_FILE = re.compile(r"^gauge_live\w*?_(\d+)\.db$")


def directory() -> str | None:
    """The multiprocess directory, or None in single-process mode."""
    return os.environ.get(DIRECTORY_VARIABLE) or None


def running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def forget_dead_processes(path: str, keep_own: bool = True) -> list[int]:
    """Remove the live-gauge files of pids that no longer run (and, with `keep_own`
    false, this pid's, left by an earlier process that had it); the pids forgotten."""
    own = os.getpid()
    dead: set[int] = set()
    for name in os.listdir(path):
        found = LIVE_GAUGE_FILE.match(name)
        if found is None:
            continue
        pid = int(found.group(1))
        if (pid == own and not keep_own) or (pid != own and not running(pid)):
            dead.add(pid)
    for pid in sorted(dead):
        multiprocess.mark_process_dead(pid, path)  # type: ignore[no-untyped-call]
    return sorted(dead)


def _start_process() -> None:
    path = directory()
    if path is not None:
        Path(path).mkdir(parents=True, exist_ok=True)
        forget_dead_processes(path, keep_own=False)


_start_process()  # before the first metric below opens its file

MOVES = Counter(
    "dobon_moves",
    "Moves committed: by='socket' a person's or a program's move received on a socket, "
    "by='clock' a CPU move or an automatic action applied by the clock",
    ["game_kind", "by"],
)
MOVE_SECONDS = Histogram(
    "dobon_move_seconds",
    "A move from its arrival on the socket to its pushes sent (lean and ORM paths)",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
SOCKETS_OPEN = Gauge(
    "dobon_sockets_open",
    "Websockets let in and not yet closed, over the host's server processes",
    multiprocess_mode="livesum",
)
SOCKET_REFUSALS = Counter(
    "dobon_socket_refusals",
    "Sockets the site refused or closed, by close code (docs/protocol.md)",
    ["code"],
)
TIMEOUT_LATENESS = Histogram(
    "dobon_timeout_lateness_seconds",
    "From a deadline to the clock applying what was due: kind='timeout' an engine "
    "timeout (R14, T18), kind='cpu' a CPU player's move",
    ["kind"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
)


def moves_pushed(kinds: Iterable[str], seconds: float) -> None:
    """A move received on a socket was committed and pushed after `seconds`; `kinds`:
    the game kind of each version it committed."""
    for kind in kinds:
        MOVES.labels(game_kind=kind, by="socket").inc()
    MOVE_SECONDS.observe(max(0.0, seconds))


def clock_applied(kind: str, due: str, lateness: float) -> None:
    """The clock applied what was due (`due`: "timeout" or "cpu") `lateness` seconds
    after its deadline, in a game of `kind`."""
    MOVES.labels(game_kind=kind, by="clock").inc()
    TIMEOUT_LATENESS.labels(kind=due).observe(max(0.0, lateness))


def socket_refused(code: int) -> None:
    SOCKET_REFUSALS.labels(code=str(code)).inc()


class GamesRunning:
    """`dobon_games_running{game_kind}`, counted when scraped (`count`: kind → games)."""

    def __init__(self, count: Callable[[], dict[str, int]]) -> None:
        self.count = count

    def collect(self) -> Iterator[Metric]:
        try:
            counts = self.count()
        except Exception as exc:  # the database is down: the rest of the scrape still counts
            log.warning("dobon_games_running left out: %s", type(exc).__name__)
            return
        family = GaugeMetricFamily(
            "dobon_games_running", "Games running now, by game kind", labels=["game_kind"]
        )
        for kind, games in sorted(counts.items()):
            family.add_metric([kind], games)
        yield family


class _Everything:
    """This process's own registry, as one collector of the scrape's registry."""

    def collect(self) -> Iterator[Metric]:
        yield from REGISTRY.collect()


def render(extra: Iterable[object] = (), path: str | None = None) -> tuple[bytes, str]:
    """The text of a scrape and its content type: the host's processes (multiprocess
    mode, `path` or the environment's directory) or this process, with `extra`
    collectors counted now."""
    registry = CollectorRegistry(auto_describe=False)
    path = path or directory()
    if path is not None:
        forget_dead_processes(path)
        multiprocess.MultiProcessCollector(registry, path=path)  # type: ignore[no-untyped-call]
    else:
        registry.register(_Everything())
    for collector in extra:
        registry.register(collector)  # type: ignore[arg-type]
    # The classic text format (0.0.4), which every Prometheus reads; the library answers
    # it too when a scraper does not ask for another.
    return generate_latest(registry), CONTENT_TYPE_PLAIN_0_0_4
