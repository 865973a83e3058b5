"""The benchmarks and load tools: engines (`make bench`, random playouts), match (matches
on the production stack), and for `manage.py bench_load`: stack (processes), players
(websocket clients), run (one run), cost (CPU per process), goals (issue #22's goals),
attack (a victim room under attack). Nothing in product code imports them."""
