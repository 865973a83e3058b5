"""The tournament command: seat rotation, statistics and determinism on a fixed seed."""

from __future__ import annotations

import contextlib
import io
import json
import math
from typing import Any

import pytest

from game.bots.tournament import lineup, main, mean_ci, run

LEVELS = ["easy", "normal", "strong", "easy"]
GAMES = 24


@pytest.fixture(scope="module")
def printed() -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--games", str(GAMES), "--levels", ",".join(LEVELS), "--seed", "3"]) == 0
    return out.getvalue().splitlines()


@pytest.fixture(scope="module")
def figures(printed: list[str]) -> dict[str, Any]:
    return json.loads(printed[-1])


def test_rotation_puts_every_level_in_every_seat_equally() -> None:
    for n in range(2, 9):
        levels = [f"L{i}" for i in range(n)]
        seats = [lineup(levels, g) for g in range(n)]
        for entry in levels:
            assert sorted(s.index(entry) for s in seats) == list(range(n))


def test_last_line_is_json_with_the_figures(figures: dict[str, Any]) -> None:
    assert set(figures) >= {"games", "levels", "seed", "rate", "kinds", "kind_counts",
                            "results", "pairs"}
    assert figures["games"] == GAMES and figures["levels"] == LEVELS and figures["seed"] == 3
    assert figures["rate"] == 1
    assert set(figures["results"]) == {"easy", "normal", "strong"}
    assert set(figures["pairs"]) == {"strong-normal", "strong-easy", "normal-easy"}


def test_each_level_sits_in_each_position_equally(figures: dict[str, Any]) -> None:
    results = figures["results"]
    assert results["easy"]["positions"] == [GAMES // 2] * 4  # two easy entries
    assert results["normal"]["positions"] == [GAMES // 4] * 4
    assert results["strong"]["positions"] == [GAMES // 4] * 4
    for r in results.values():
        assert r["seat_games"] == GAMES * r["seats_per_game"]


def test_points_sum_to_zero_and_intervals_hold_their_means(figures: dict[str, Any]) -> None:
    """§R11.4: every game is zero-sum, so the levels' points per game, weighted by their
    seats, cancel; each interval is centred on its mean with a positive width."""
    results = figures["results"]
    total = sum(r["points_per_game"] * r["seats_per_game"] for r in results.values())
    assert abs(total) < 0.01
    for r in results.values():
        low, high = r["ci95"]
        assert low < r["points_per_game"] < high
        assert math.isclose(high - r["points_per_game"], r["points_per_game"] - low, abs_tol=0.01)
        assert math.isclose(high - low, 2 * 1.959964 * r["sd"] / math.sqrt(GAMES), abs_tol=0.01)


def test_win_rates_match_the_kinds_of_result(figures: dict[str, Any]) -> None:
    """§R11/§R12: one winner per agari or return, one or more per dobon, none at deck-out."""
    counts, results = figures["kind_counts"], figures["results"]
    assert sum(counts.values()) == GAMES
    for kind, share in figures["kinds"].items():
        assert math.isclose(share, counts[kind] / GAMES, abs_tol=1e-4)

    def wins(kind: str) -> float:
        return sum(r["win_rates"][kind] * r["seat_games"] for r in results.values())

    assert round(wins("agari")) == counts["agari"]
    assert round(wins("return")) == counts["return"]
    assert round(wins("dobon")) >= counts["dobon"]
    dobonned = sum(r["dobonned_rate"] * r["seat_games"] for r in results.values())
    assert round(dobonned) == counts["dobon"]  # one payer per dobon (§R11.2)


def test_table_shows_each_level_and_the_json_is_last(printed: list[str]) -> None:
    body = "\n".join(printed[:-1])
    for level in ("easy", "normal", "strong"):
        assert any(line.startswith(level) for line in printed[:-1])
    assert "95% CI" in body and "took" in body
    assert printed[-1].startswith("{")


def test_same_seed_same_figures_other_seed_other_figures() -> None:
    first = run(12, LEVELS, 5)["report"]
    assert run(12, LEVELS, 5)["report"] == first
    assert run(12, LEVELS, 6)["report"] != first


def test_strong_beats_easy_over_a_fixed_seed() -> None:
    """A small, deterministic version of the 2,000-game goal (docs/bots.md)."""
    results = run(120, ["easy", "strong"], 8)["report"]["results"]
    assert results["strong"]["points_per_game"] > 0 > results["easy"]["points_per_game"]


def test_mean_ci_of_known_values() -> None:
    mean, sd, low, high = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5 and math.isclose(sd, math.sqrt(5 / 3))
    assert math.isclose(high - mean, 1.959964 * sd / 2)
    assert mean_ci([7.0]) == (7.0, 0.0, 7.0, 7.0)


@pytest.mark.parametrize("args", [["--levels", "easy"], ["--levels", "easy,hard"],
                                  ["--games", "0"], ["--levels", ",".join(["easy"] * 9)]])
def test_bad_arguments_are_refused(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 2
    assert "error" in capsys.readouterr().err
