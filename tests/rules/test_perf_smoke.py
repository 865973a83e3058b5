"""The benchmark runs, and the engine is not pathologically slow (a lenient floor: the
real figures come from ``python -m game.management.bench.engines``)."""

from __future__ import annotations

import random
import time

from game.management.bench.engines import main, play_one, play_trump_one


def test_bench_plays_whole_games_quickly() -> None:
    rng = random.Random(3)
    start = time.perf_counter()
    actions = sum(play_one(rng, 4, seed) for seed in range(40))
    per_second = actions / (time.perf_counter() - start)
    assert actions > 40 * 20
    assert per_second > 10_000, f"only {per_second:.0f} actions/s"


def test_bench_command_prints_its_figures(capsys) -> None:  # type: ignore[no-untyped-def]
    main(["--games", "4", "--rounds", "2", "--no-rlcard"])
    out = capsys.readouterr().out
    assert "dobon engine" in out and "actions/s" in out


def test_bench_plays_whole_trump_rounds_quickly() -> None:
    for preset in ("au", "standard"):
        rng = random.Random(3)
        start = time.perf_counter()
        actions = sum(play_trump_one(rng, preset, 4, seed) for seed in range(40))
        per_second = actions / (time.perf_counter() - start)
        assert actions > 40 * 10
        assert per_second > 10_000, f"{preset}: only {per_second:.0f} actions/s"


def test_bench_command_prints_the_trump_figures(capsys) -> None:  # type: ignore[no-untyped-def]
    main(["--games", "4", "--rounds", "2", "--no-rlcard"])
    out = capsys.readouterr().out
    assert "trump au" in out and "trump standard" in out
    assert "ratio (trump au / dobon engine" in out
