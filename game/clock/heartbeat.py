"""The clock's heartbeat: when the timeout sweep last ran, for `/readyz`.

Whoever sweeps (beat's `sweep`, or the laptop's in-process scheduler) calls
`record_sweep(now)` after each sweep that went through; `last_sweep()` answers the
readiness check (game/services/health.py). With `REDIS_URL` the moment is kept in Redis
as well, so every host's `/readyz` sees the one beat that holds the clock (a beat
standing by does not sweep, so it writes nothing); without Redis it lives in this
process, which is the one sweeping (the laptop's scheduler).

Writing must never slow the clock down: Redis is written at most once per
`WRITE_EVERY` seconds, with short socket timeouts, and a failed write is skipped (the
probe then sees a stale heartbeat, which is the truth: the clock's store is unreachable).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from django.conf import settings

log = logging.getLogger(__name__)

# Redis is written at most this often: the staleness threshold is seconds, the sweep
# runs four times a second.
WRITE_EVERY = 1.0
# A dead Redis must not hold up a sweep or a probe.
SOCKET_SECONDS = 0.5

_lock = threading.Lock()
_last_here: float | None = None
_last_written: float | None = None
_clients: dict[str, Any] = {}


def key() -> str:
    """The Redis key of the heartbeat: per site (the channel prefix tells sites apart)."""
    return f"{settings.DOBON_CHANNEL_PREFIX}clock.last_sweep"


def redis_client() -> Any:
    """A Redis client with short timeouts (one per URL and process), or None without
    REDIS_URL."""
    url = settings.REDIS_URL
    if not url:
        return None
    client = _clients.get(url)
    if client is None:
        import redis

        client = _clients[url] = redis.Redis.from_url(
            url, socket_timeout=SOCKET_SECONDS, socket_connect_timeout=SOCKET_SECONDS
        )
    return client


def record_sweep(now: float) -> None:
    """A sweep went through at unix time `now`."""
    global _last_here, _last_written
    with _lock:
        _last_here = now if _last_here is None else max(_last_here, now)
        due = _last_written is None or now - _last_written >= WRITE_EVERY or now < _last_written
        if due:
            _last_written = now
    client = redis_client()
    if client is None or not due:
        return
    try:
        # Kept a day: a clock stopped for longer still shows when it last ran.
        client.set(key(), repr(now), ex=86400)
    except Exception as exc:  # the sweep goes on; the probe will see the heartbeat age
        log.warning("could not record the clock's heartbeat in Redis: %s", exc)


def last_sweep() -> float | None:
    """Unix time of the last sweep recorded (Redis when configured, else this process),
    None when none was. Raises when Redis cannot be read."""
    client = redis_client()
    if client is None:
        return _last_here
    raw = client.get(key())
    return None if raw is None else float(raw)


def forget() -> None:
    """Tests: no sweep recorded in this process, and the next one writes at once."""
    global _last_here, _last_written
    with _lock:
        _last_here = _last_written = None
