"""Browser tests: Debian's Chromium driven by pytest-playwright (FIELD-NOTES.md).

Run them in their own pytest process (`pytest -m browser`): sync Playwright and
pytest-asyncio cannot share one event loop.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
# Without the background-networking family Chromium keeps calling home and fails noisily.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # Pages fulfilled through page.route (the table tests add a strict CSP header that
    # way) count as "public" to Chromium, which then blocks their sockets to 127.0.0.1.
    "--disable-features=LocalNetworkAccessChecks",
]

# The sync Playwright API runs an event loop in this thread; the ORM calls of the
# tests (and of live_server's set-up) would otherwise be refused as "async unsafe".
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS}


def pytest_collection_modifyitems(config, items):
    if CHROMIUM.exists():
        return
    skip = pytest.mark.skip(reason=f"{CHROMIUM} is missing: apt-get install -y chromium")
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)
