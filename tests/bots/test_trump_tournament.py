"""The tournament command for trump Dobon: both presets, seat limits, the sign of the
paired differences (standard scores: lower is better), determinism on a fixed seed."""

from __future__ import annotations

import contextlib
import io
import json
import math
from typing import Any

import pytest

from game.bots.tournament import main, run

LEVELS = ["easy", "normal", "strong"]
ROUNDS = 30


def _printed(preset: str) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--game", "trump", "--preset", preset, "--games", str(ROUNDS),
                     "--levels", ",".join(LEVELS), "--seed", "3"]) == 0
    return out.getvalue().splitlines()


@pytest.fixture(scope="module", params=["au", "standard"])
def printed(request: pytest.FixtureRequest) -> tuple[str, list[str]]:
    return request.param, _printed(request.param)


def test_a_small_tournament_prints_a_table_and_json(printed: tuple[str, list[str]]) -> None:
    preset, lines = printed
    assert lines[0].startswith(f"Trump Dobon ({preset}) tournament: {ROUNDS} rounds")
    assert any(line.startswith("took") for line in lines)
    figures: dict[str, Any] = json.loads(lines[-1])
    assert figures["game"] == "trump" and figures["preset"] == preset
    assert figures["score_order"] == ("low" if preset == "standard" else "high")
    assert figures["games"] == ROUNDS and sum(figures["kind_counts"].values()) == ROUNDS
    assert set(figures["pairs"]) == {"strong-normal", "strong-easy", "normal-easy"}
    for r in figures["results"].values():
        assert r["positions"] == [ROUNDS // 3] * 3
        low, high = r["ci95"]
        assert low <= r["points_per_game"] <= high


def test_au_points_sum_to_zero(printed: tuple[str, list[str]]) -> None:
    preset, lines = printed
    if preset == "au":  # §T15.4; standard scores are not zero-sum (§T16.3)
        results = json.loads(lines[-1])["results"]
        assert abs(sum(r["points_per_game"] for r in results.values())) < 0.01


def test_pairs_favour_the_lower_standard_score() -> None:
    """A positive difference means the first level did better: in standard, a lower
    score (§T16.3)."""
    figures = run(30, LEVELS, 4, "standard", "trump")["report"]
    per = {lv: figures["results"][lv]["points_per_game"] for lv in LEVELS}
    diff = figures["pairs"]["strong-easy"]["diff"]
    assert math.isclose(diff, per["easy"] - per["strong"], abs_tol=0.01)


def test_same_seed_same_figures() -> None:
    first = run(9, LEVELS, 5, "au", "trump")["report"]
    assert run(9, LEVELS, 5, "au", "trump")["report"] == first
    assert run(9, LEVELS, 6, "au", "trump")["report"] != first


def test_strong_beats_easy_in_both_presets() -> None:
    """A small, deterministic version of the figures in docs/cpu-players.md."""
    for preset in ("au", "standard"):
        pairs = run(150, LEVELS, 8, preset, "trump")["report"]["pairs"]
        assert pairs["strong-easy"]["ci95"][0] > 0, (preset, pairs)


@pytest.mark.parametrize("args", [
    ["--game", "trump", "--levels", ",".join(["easy"] * 5)],            # au: 2-4 (§T1.2)
    ["--game", "trump", "--preset", "standard", "--levels", "easy,strong"],  # 3-6
    ["--preset", "au"],                                                 # trump only
    ["--game", "chess"],
])
def test_bad_arguments_are_refused(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 2
    assert "error" in capsys.readouterr().err
