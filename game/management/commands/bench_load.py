"""Load benchmark of live play: rooms × 4 websocket players on the production stack.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/dobon_bench \\
    REDIS_URL=redis://127.0.0.1:6379/14 \\
    .venv/bin/python manage.py bench_load --rooms 100 --seconds 30 --daphnes 2

The database is created and migrated if needed; the Redis database is flushed (give it
one of its own). The command starts daphne (`--daphnes`, the players of a room spread
over them), a Celery worker and beat, connects 4 players per room with session cookies
and starts every room's game. Players act the moment their view offers them something
(a play if they have one, else draw / pass / take; a colour; dobon and return whenever
possible; a cut-in now and then); the owner presses "start" again when a game ends.

Figures (also written to `--out`, JSON): accepted actions per second; the delay from
sending an action until the last of the room's 4 sockets has a newer state (p50, p99);
refusals (races between players, expected); lost updates (a version gap on a socket, or
a socket whose last version differs from the database's); and the cost of a committed
move: CPU milliseconds per server process kind and their sum (`cpu_ms_per_move`), SQL
statements, channel-layer calls, Redis commands and websocket frames per move, and the
stored state's size (game/management/bench/cost.py says how each is measured).

`--think 1-3` plays at a human pace: each player acts after a uniform think time, and
the rooms grow in steps (`--steps`) until the action → last socket p99 passes
`--p99-ms`; the result names the largest room count within it.

`--idle` measures timeouts instead: nobody acts, every seat is played by the timeouts
(room timeout 5 s), and the figure is the delay from each deadline to the arrival of the
automatic action at each socket.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser


def think_range(text: str) -> tuple[float, float]:
    low, _, high = text.partition("-")
    try:
        pair = (float(low), float(high or low))
    except ValueError as exc:
        raise argparse.ArgumentTypeError("--think takes seconds as LOW-HIGH, e.g. 1-3") from exc
    if not 0 <= pair[0] <= pair[1]:
        raise argparse.ArgumentTypeError("--think needs 0 <= LOW <= HIGH")
    return pair


def room_steps(text: str) -> list[int]:
    try:
        steps = [int(s) for s in text.split(",") if s.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError("--steps takes room counts, e.g. 100,200,300") from exc
    if not steps or steps != sorted(set(steps)) or steps[0] < 1:
        raise argparse.ArgumentTypeError("--steps must grow: e.g. 100,200,300")
    return steps


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0] if __doc__ else ""

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--rooms", type=int, default=100)
        parser.add_argument("--seconds", type=float, default=30)
        parser.add_argument("--daphnes", type=int, default=1)
        parser.add_argument("--ports", default="", help="use running daphne processes instead")
        parser.add_argument("--no-celery", action="store_true", help="no worker and beat")
        parser.add_argument("--idle", action="store_true", help="nobody acts: measure timeouts")
        parser.add_argument("--think", type=think_range, default=None,
                            help="human pace: seconds before each action, LOW-HIGH (e.g. 1-3)")
        parser.add_argument("--steps", type=room_steps, default=None,
                            help="with --think: room counts to try in order "
                                 "(default 50,100,200,…,--rooms)")
        parser.add_argument("--p99-ms", type=float, default=100.0,
                            help="with --think: the action → last socket p99 to stay within")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--out", default="bench-load.json")

    def handle(self, *args: Any, **options: Any) -> None:
        from django.conf import settings

        from dobon_site import settings as settings_module
        from game.management.bench import run, stack

        a = argparse.Namespace(**options)
        a.database_url = os.environ.get("DATABASE_URL", "")
        a.redis_url = os.environ.get("REDIS_URL", "")
        if not a.database_url.startswith("postgres") or not a.redis_url:
            raise CommandError("set DATABASE_URL=postgres://… and REDIS_URL=redis://… "
                               "(databases of the benchmark's own: Redis is flushed)")
        if a.think and a.steps is None:
            a.steps = [n for n in (50, 100, 200, 300, 400, 500, 750, 1000) if n < a.rooms]
            a.steps.append(a.rooms)
        if settings.SECRET_KEY == settings_module._DEV_SECRET:
            # The servers run with DEBUG off, which refuses the development key; they
            # inherit this process's key so that the sessions it creates stay valid.
            raise CommandError("set SECRET_KEY (any random string): the benchmark's "
                               "production-mode servers refuse the development key")
        stack.ensure_database(a.database_url)
        import redis

        redis.Redis.from_url(a.redis_url).flushdb()
        call_command("migrate", verbosity=0)
        stack.retire_old_games()
        logs = Path(tempfile.mkdtemp(prefix=f"dobon-bench-{os.getpid()}-"))
        counters = logs / "counters"
        counters.mkdir()
        procs = stack.Processes(logs, counters)
        try:
            ports = ([int(p) for p in a.ports.split(",")] if a.ports
                     else [procs.daphne() for _ in range(a.daphnes)])
            if not a.no_celery:
                procs.celery()
                time.sleep(3)
            body = run.search if a.think else run.fixed
            result = asyncio.run(body(a, procs, ports))
        finally:
            procs.stop()
            stack.retire_old_games()
        result = {"daphnes": a.daphnes, "layer": _layer_name(), "idle": a.idle, **result}
        self.stdout.write(json.dumps(result, indent=2))
        run.write(result, a.out)
        print(f"(process logs in {logs})", file=sys.stderr)


def _layer_name() -> str:
    from django.conf import settings

    return str(settings.CHANNEL_LAYERS["default"]["BACKEND"])
