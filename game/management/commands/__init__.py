"""manage.py commands: `bench_load` (live play under load), `bench_history` (history page
speed) and `rebuild_history` (recompute the history aggregates from the stored games)."""
