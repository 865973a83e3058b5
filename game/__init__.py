"""The game app: Dobon UNO and trump Dobon on the site. The rules engines (rules, Django-free),
the models, the service layer (services), the live layer (live: websockets), the clock
(clock, tasks), pages (views, templatetags, forms), history, CPU players (bots), the
admin, and the benchmarks (management). docs/architecture.md maps it."""
