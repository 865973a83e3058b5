"""Which of issue #30's features this tree has, so that a check needing one that has not
landed yet says "waiting for …" instead of failing the run (and a check that passes
without its feature fails: it could not tell). Each marker is the setting or the words
the feature's own helper named in the issue; docs/deploy.md lists them."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# feature → (what the report says it waits for, files, a pattern one of them must contain)
MARKERS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "health": ("/healthz and /readyz (issue #30 part 2)",
               ("game/views/ops.py", "dobon_site/urls.py", "game/urls.py"), r"/readyz"),
    "metrics": ("/metrics and DOBON_METRICS_ALLOWED (issue #30 part 3)",
                ("dobon_site/settings.py",), r"DOBON_METRICS_ALLOWED"),
    "drain": ("the SIGTERM drain with 1012 closes (issue #30 part 4)",
              ("dobon_site/settings.py", "dobon_site/server.py"), r"DOBON_SHUTDOWN_SECONDS"),
    "clock_lock": ("one clock with a standby beat (issue #30 part 5)",
                   ("game/clock/lease.py", "game/clock/beat.py"), r"holds the clock"),
}


def missing(feature: str) -> str | None:
    """None when the feature is here, else what the check waits for."""
    label, files, pattern = MARKERS[feature]
    for name in files:
        path = ROOT / name
        if path.exists() and re.search(pattern, path.read_text(errors="replace")):
            return None
    return label


# What a beat's log says of the clock (game/clock/lease.py), and whether it then holds it.
CLOCK_WORDS = re.compile(r"holds the clock|stands by|standing by|lost the clock|"
                         r"released the clock|not sweeping")


def clock_said(log: str) -> str | None:
    """The last thing a beat's log said about the clock (issue #30 part 5: each beat
    says in its log whether it holds the clock)."""
    said = CLOCK_WORDS.findall(log)
    return said[-1] if said else None


def holds_clock(log: str) -> bool:
    return clock_said(log) == "holds the clock"


def stands_by(log: str) -> bool:
    return clock_said(log) in {"stands by", "standing by"}


def env_default(name: str, env_text: str, fallback: float) -> float:
    found = re.search(rf"^{name}=(\S+)$", env_text, re.M)
    return float(found.group(1)) if found else fallback
