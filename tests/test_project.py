"""Promises about the project as a whole: layout, production settings, a pure engine."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXPECTED_TOP_LEVEL = {
    "manage.py", "pyproject.toml", "README.md", "dobon_site", "game", "accounts",
    "templates", "static", "tests", ".ci", "Makefile", "docs", "deploy", "requirements.lock",
}


def _tracked_top_level() -> set[str]:
    out = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return {line.split("/", 1)[0] for line in out.splitlines() if line}


def test_top_level_holds_only_the_agreed_entries() -> None:
    unexpected = _tracked_top_level() - EXPECTED_TOP_LEVEL - {".gitignore"}
    assert unexpected == set()


def _production_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env.update(
        DEBUG="false",
        SECRET_KEY="x7!" + "k3Vq9pL2mN8rT5wY1zB4cD6fH0jS" * 2,
        ALLOWED_HOSTS="dobon.example",
        CSRF_TRUSTED_ORIGINS="https://dobon.example",
        DJANGO_SETTINGS_MODULE="dobon_site.settings",
    )
    return env


def test_check_deploy_reports_nothing_with_production_variables() -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=_production_env(), capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_check_deploy_does_complain_about_the_development_key() -> None:
    env = _production_env()
    env.pop("SECRET_KEY")
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    assert done.returncode != 0
    assert "SECRET_KEY" in done.stdout + done.stderr


def test_rules_engine_imports_no_framework() -> None:
    framework = re.compile(r"^\s*(from|import)\s+(django|channels|celery|daphne)\b", re.M)
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "game" / "rules").rglob("*.py")
        if framework.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_readme_and_ci_use_the_same_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make run" in readme and "make test" in readme
    assert re.search(r"^make test$", ci, re.M)


def _requirement_name(spec: str) -> str:
    return re.split(r"[\[<>=!~; ]", spec, maxsplit=1)[0].lower().replace("_", "-")


def test_the_lock_file_pins_every_dependency_with_hashes() -> None:
    """`make` installs from requirements.lock (issue 11: reproducible installs); a
    dependency added to pyproject.toml without `make lock` would be missing there."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = {_requirement_name(s) for s in
              [*project["dependencies"], *project["optional-dependencies"]["dev"]]}
    lock = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    pinned = re.findall(r"^([A-Za-z0-9_.-]+)==", lock, re.M)
    assert wanted - {name.lower() for name in pinned} == set()
    blocks = re.split(r"^(?=[A-Za-z0-9_.-]+==)", lock, flags=re.M)[1:]
    assert len(blocks) == len(pinned)
    assert all("--hash=sha256:" in block for block in blocks)
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "-r $(LOCK)" in makefile and "--no-deps -e ." in makefile


def test_the_benchmark_scripts_import() -> None:
    """Scripts outside the test suite's reach still import (a moved module once left
    `python -m game.management.bench.match` broken)."""
    import importlib

    for name in ("game.management.bench.match", "game.management.commands.bench_load",
                 "game.management.bench.stack", "game.bots.tournament"):
        assert importlib.import_module(name) is not None


def test_the_readme_is_for_users_and_keeps_one_table_of_current_figures() -> None:
    """Issue #35: what Dobon is, the two commands, the configuration table, production in
    short with the way to docs/deploy.md, one table of current figures with the machine
    and the date; the history of every benchmark lives in docs/performance.md."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    sections = dict(re.findall(r"^## (.+?)\n(.*?)(?=^## |\Z)", readme, re.M | re.S))
    assert {"Two commands on a fresh machine", "Configuration (environment variables)",
            "Production stack", "Performance"} <= set(sections)
    assert "docs/deploy.md" in sections["Production stack"]
    performance = sections["Performance"]
    table_heads = re.findall(r"^\| .+ \|\n\| --- ", performance, re.M)
    assert len(table_heads) == 1
    assert re.search(r"20\d\d-\d\d-\d\d", performance) and "2-core" in performance
    assert "###" not in performance and "| before" not in performance  # no history table
    history = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    assert "### Cost per move, before and after (issue 10)" in history
    assert "### Live play: issue #22's goals" in history
