"""Small typed readers for settings taken from the environment."""

from __future__ import annotations

import os


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return list(default or [])
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    return default if raw is None or raw.strip() == "" else int(raw)


def channel_prefix(redis_url: str) -> str:
    """The default channel-name prefix of a site: `dobon.<db>.` for Redis database
    number <db> (0 when the URL names none), so that sites on different database
    numbers of one Redis server never share a pub/sub channel."""
    from urllib.parse import parse_qs, urlparse

    parsed = urlparse(redis_url or "")
    path = parsed.path.strip("/")
    db = path if path.isdigit() else (parse_qs(parsed.query).get("db") or ["0"])[0]
    return f"dobon.{db}."
