"""Work counters for the load benchmark (`manage.py bench_load`), off unless asked for.

With `DOBON_BENCH_COUNTERS_DIR` set, a server process counts its SQL statements and its
channel-layer calls, and a daemon thread writes the totals to `<dir>/<kind>-<pid>.json`
twice a second (`kind` from `DOBON_PROCESS_KIND`: daphne, worker, beat). The benchmark
sums the files before and after its measuring window. Nothing here runs in production:
without the variable `install()` returns at once and no code path is wrapped.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

FLUSH_SECONDS = 0.5

_counts: dict[str, int] = {}
_lock = threading.Lock()
_state = {"pid": 0}
_target: dict[str, Path] = {}


def count(name: str, n: int = 1) -> None:
    with _lock:
        if os.getpid() != _state["pid"]:  # a forked pool child: its own file and thread
            _state["pid"] = os.getpid()
            _counts.clear()
            threading.Thread(target=_flush_forever, daemon=True).start()
        _counts[name] = _counts.get(name, 0) + n


def _flush_forever() -> None:
    pid = os.getpid()
    while os.getpid() == pid:
        time.sleep(FLUSH_SECONDS)
        with _lock:
            snapshot = dict(_counts)
        _flush(snapshot)


def _flush(counts: dict[str, int]) -> None:
    directory = _target["dir"]
    kind = os.environ.get("DOBON_PROCESS_KIND", "process")
    path = directory / f"{kind}-{os.getpid()}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(counts))
    tmp.replace(path)


def _count_sql(execute: Callable[..., Any], sql: str, params: Any, many: bool,
               context: dict[str, Any]) -> Any:
    count("sql")
    return execute(sql, params, many, context)


def _on_connection(sender: Any, connection: Any, **kwargs: Any) -> None:
    if _count_sql not in connection.execute_wrappers:
        connection.execute_wrappers.append(_count_sql)


def _wrap(cls: type, method: str, name: str) -> None:
    original = getattr(cls, method)

    async def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        count(name)
        return await original(self, *args, **kwargs)

    setattr(cls, method, counted)


def installed() -> bool:
    """The counters are on in this process (`install()` found its directory)."""
    return "dir" in _target


def install() -> bool:
    """Wrap SQL execution and the channel layers' send paths with counters (bench only)."""
    directory = os.environ.get("DOBON_BENCH_COUNTERS_DIR")
    if not directory or "dir" in _target:
        return False
    _target["dir"] = Path(directory)
    from channels.layers import InMemoryChannelLayer
    from django.db.backends.signals import connection_created

    connection_created.connect(_on_connection, weak=False)
    layers: list[type] = [InMemoryChannelLayer]
    try:
        from channels_redis.core import RedisChannelLayer
        from channels_redis.pubsub import RedisPubSubLoopLayer

        layers += [RedisChannelLayer, RedisPubSubLoopLayer]
    except ImportError:
        pass
    for cls in layers:
        _wrap(cls, "send", "layer_send")
        _wrap(cls, "group_send", "layer_group_send")
        _wrap(cls, "receive", "layer_receive")
    return True
