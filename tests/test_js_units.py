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


def test_every_browser_module_parses_as_an_es_module(tmp_path):
    """A syntax error in any module stops the whole page (the browser tests only see it as
    a console error): check each file under static/js as the module it is."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    modules = sorted((ROOT / "static" / "js").rglob("*.js"))
    assert modules
    broken = []
    for module in modules:
        copy = tmp_path / "module.mjs"  # .mjs: parsed as an ES module, as the page loads it
        copy.write_text(module.read_text(encoding="utf-8"), encoding="utf-8")
        result = subprocess.run([node, "--check", str(copy)], capture_output=True, text=True,
                                timeout=60)
        if result.returncode != 0:
            broken.append(f"{module.relative_to(ROOT)}: {result.stderr.strip()[:300]}")
    assert broken == []
