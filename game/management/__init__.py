"""Management commands of the game app (commands: bench_load, bench_history,
rebuild_history) and the benchmarks and load tools they run (bench)."""
