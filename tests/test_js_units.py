"""Runs the browser table's pure-logic unit tests (tests/js/) under Node, when present."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_table_logic_under_node():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    tests = sorted(str(p) for p in (ROOT / "tests" / "js").glob("*.test.mjs"))
    result = subprocess.run([node, "--test", *tests], cwd=ROOT, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
