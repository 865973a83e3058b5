"""The policy interface: levels, errors, purity, and the Django-free package."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from game.bots import LEVELS, play_game, policy
from game.rules import Game

ROOT = Path(__file__).resolve().parents[2]


def test_every_level_builds_and_unknown_levels_are_refused() -> None:
    assert LEVELS == ("easy", "normal", "strong")
    for level in LEVELS:
        assert policy(level, 3).level == level
    for bad in ("hard", "", "EASY", None):
        with pytest.raises(ValueError, match="unknown CPU level"):
            policy(bad, 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        policy("easy", "1")  # type: ignore[arg-type]


def test_no_legal_action_means_wait() -> None:
    game = Game.new(players=3, first_player=0, seed=2)
    idle = next(s for s in range(3) if not game.legal_actions(s))
    for level in LEVELS:
        assert policy(level, 1).act(game.view(idle), []) is None


def test_bots_package_imports_no_framework() -> None:
    """Like the engine (tests/test_project.py): plain Python, importable without Django."""
    framework = re.compile(r"^\s*(from|import)\s+(django|channels|celery|daphne)\b", re.M)
    files = list((ROOT / "game" / "bots").rglob("*.py"))
    assert files
    assert [str(p) for p in files if framework.search(p.read_text(encoding="utf-8"))] == []
    probe = ("import sys, game.bots, game.bots.tournament; "
             "bad = [m for m in sys.modules if m.split('.')[0] in "
             "('django', 'channels', 'celery', 'daphne')]; print(bad)")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_game_of_each_level_finishes() -> None:
    for level in LEVELS:
        record = play_game([policy(level, s) for s in range(4)], seed=11)
        assert record.result["kind"] in ("agari", "dobon", "return", "deck_out")
        assert sum(record.result["deltas"]) == 0
        assert record.actions > 0
