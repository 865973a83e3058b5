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

`--attack crowd|watchers|churn|cpu-matches` (comma-separated or repeated) measures a
victim instead: one room of 4 players at human pace (`--think`, default 1-3) and
`--victim-idle-rooms` rooms played by their 5 s timeouts, for a window of `--seconds`
without each attack and then one with it, from `--attack-addresses` client addresses
(1: one machine; more: a botnet). game/management/bench/attack.py defines the attacks
(after issue #22's findings); docs/performance.md, "Attacks", has the commands:

    .venv/bin/python manage.py bench_load --daphnes 2 --seconds 30 \
        --attack crowd,watchers,churn,cpu-matches --out attacks.json

`--rolling-restart` (issue #30) restarts every daphne in turn (SIGTERM, wait for the
exit, start again, wait until it answers) while `--rooms` rooms (default 50) play, at
`--think` pace or saturated, and reports from each socket's 1012 to its next state
(p50 / p99 / max), sockets not back, closes other than 1012, error frames and lost
updates (game/management/bench/restart.py). `--proxy nginx` puts Debian's nginx in front
of the daphnes and the players connect through it, as in production:

    .venv/bin/python manage.py bench_load --rolling-restart --proxy nginx --daphnes 2 \
        --rooms 50 --think 1-3 --seconds 20 --out restart.json

Every result ends with `goals`: each goal of issue #22 the run measured (CPU-ms per
move at 100 saturated rooms on 2 processes ≤ 5; human-pace p99 at 100 rooms ≤ 50 ms and
the largest room count within 100 ms; the victim's p99 under each attack ≤ 250 ms), the
figure and met / not met (game/management/bench/goals.py). `--goals a.json b.json …`
prints that summary for saved results, without starting anything.
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

from game.management.bench.attack import attack_names


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


def whole_number(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"a whole number, not {text!r}") from exc
    if value < least:
        raise argparse.ArgumentTypeError(f"{least} or more, not {value}")
    return value


def positive_int(text: str) -> int:
    return whole_number(text, 1)


def count(text: str) -> int:
    """A number of things that may be none."""
    return whole_number(text, 0)


def attacks_of(chosen: list[list[str]] | None) -> list[str]:
    """`--attack` given several times, each a comma-separated list: the attacks in order,
    each once."""
    out: list[str] = []
    for names in chosen or []:
        out += [n for n in names if n not in out]
    return out


def check_modes(options: argparse.Namespace) -> None:
    """Options that cannot go together: a clear error before anything starts."""
    if options.attack and options.idle:
        raise CommandError("--attack measures a victim at human pace: not with --idle")
    if options.attack and options.steps is not None:
        raise CommandError("--attack measures one victim room: --steps is for --think alone")
    if options.attack and options.ports:
        raise CommandError("--attack starts its own servers (with DOBON_PROXY_COUNT=1): "
                           "not with --ports")
    if options.rolling_restart and (options.attack or options.idle or options.ports
                                    or options.steps is not None):
        raise CommandError("--rolling-restart restarts the daphnes it starts while rooms "
                           "play: not with --attack, --idle, --ports or --steps")
    if options.proxy != "none" and not options.rolling_restart:
        raise CommandError("--proxy is for --rolling-restart")
    if options.rolling_restart and options.daphnes < 2 and options.proxy == "nginx":
        raise CommandError("--rolling-restart behind a proxy needs --daphnes 2 or more "
                           "(one of them is always up)")


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0] if __doc__ else ""

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--rooms", type=positive_int, default=None,
                            help="rooms of 4 players (default 100; 50 with --rolling-restart)")
        parser.add_argument("--seconds", type=float, default=30)
        parser.add_argument("--daphnes", type=int, default=1)
        parser.add_argument("--ports", default="",
                            help="use running daphne processes instead (run them with "
                                 "DOBON_PROXY_COUNT=1: each room's players name their own "
                                 "address, or the per-address limits refuse them)")
        parser.add_argument("--no-celery", action="store_true", help="no worker and beat")
        parser.add_argument("--worker-concurrency", type=int, default=2,
                            help="the Celery worker's pool processes (its tasks mostly wait "
                                 "on PostgreSQL and Redis, so more than the cores can pay)")
        parser.add_argument("--idle", action="store_true", help="nobody acts: measure timeouts")
        parser.add_argument("--think", type=think_range, default=None,
                            help="human pace: seconds before each action, LOW-HIGH (e.g. 1-3)")
        parser.add_argument("--steps", type=room_steps, default=None,
                            help="with --think: room counts to try in order "
                                 "(default 50,100,200,…,--rooms)")
        parser.add_argument("--p99-ms", type=float, default=100.0,
                            help="with --think: the action → last socket p99 to stay within")
        parser.add_argument("--attack", type=attack_names, action="append", default=None,
                            help="measure a victim room without and with an attack: "
                                 "crowd, watchers, churn, cpu-matches (comma-separated or "
                                 "repeated)")
        parser.add_argument("--attack-addresses", type=positive_int, default=1,
                            help="with --attack: client addresses the attacker uses "
                                 "(1 = one machine)")
        parser.add_argument("--attack-accounts", type=positive_int, default=50,
                            help="with --attack: the attacker's accounts")
        parser.add_argument("--attack-sockets", type=positive_int, default=8,
                            help="with --attack crowd: sockets per account")
        parser.add_argument("--watchers", type=positive_int, default=400,
                            help="with --attack watchers: watcher sockets in the victim room")
        parser.add_argument("--attack-clicks", type=count, default=100,
                            help="with --attack cpu-matches: \"play now against CPU\" "
                                 "clicks in 7 s")
        parser.add_argument("--victim-idle-rooms", type=count, default=1,
                            help="with --attack: rooms played by their timeouts (lateness)")
        parser.add_argument("--rolling-restart", action="store_true",
                            help="restart every daphne in turn while the rooms play and "
                                 "measure the reconnects (issue #30)")
        parser.add_argument("--proxy", choices=("none", "nginx"), default="none",
                            help="with --rolling-restart: players connect through nginx "
                                 "(/usr/sbin/nginx) in front of the daphnes")
        parser.add_argument("--shutdown-timeout", type=float, default=30,
                            help="with --rolling-restart: the longest wait for a daphne to "
                                 "exit after SIGTERM before it is killed")
        parser.add_argument("--goals", nargs="+", metavar="JSON", default=None,
                            help="print the goals summary of saved results and exit")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--out", default="bench-load.json")

    def handle(self, *args: Any, **options: Any) -> None:
        from django.conf import settings

        from dobon_site import settings as settings_module
        from game.management.bench import attack, goals, restart, run, stack

        a = argparse.Namespace(**options)
        if a.goals:
            self.stdout.write(goals.table(saved_goals(a.goals)))
            return
        a.attack = attacks_of(a.attack)
        check_modes(a)
        if a.rooms is None:
            a.rooms = 50 if a.rolling_restart else 100
        if a.attack and a.think is None:
            a.think = (1.0, 3.0)  # the victim plays at human pace
        a.database_url = os.environ.get("DATABASE_URL", "")
        a.redis_url = os.environ.get("REDIS_URL", "")
        if not a.database_url.startswith("postgres") or not a.redis_url:
            raise CommandError("set DATABASE_URL=postgres://… and REDIS_URL=redis://… "
                               "(databases of the benchmark's own: Redis is flushed)")
        if a.think and a.steps is None and not a.attack:
            a.steps = [n for n in (50, 100, 200, 300, 400, 500, 750, 1000) if n < a.rooms]
            a.steps.append(a.rooms)
        if settings.SECRET_KEY == settings_module._DEV_SECRET:
            # The servers run with DEBUG off, which refuses the development key; they
            # inherit this process's key so that the sessions it creates stay valid.
            raise CommandError("set SECRET_KEY (50 random characters or more, e.g. "
                               "python -c 'import secrets; print(secrets.token_urlsafe(50))'"
                               "): the benchmark's production-mode servers refuse the "
                               "development key and weak ones")
        stack.ensure_database(a.database_url)
        import redis

        redis.Redis.from_url(a.redis_url).flushdb()
        call_command("migrate", verbosity=0)
        stack.retire_old_games()
        logs = Path(tempfile.mkdtemp(prefix=f"dobon-bench-{os.getpid()}-"))
        counters = logs / "counters"
        counters.mkdir()
        procs = stack.Processes(logs, counters)
        if a.proxy == "nginx":
            # The players name their room's address, nginx appends its peer's: the
            # daphnes read the entry two from the right, and accept the proxy's origin.
            a.proxy_port = stack.free_port()
            procs.daphne_env = {"DOBON_PROXY_COUNT": "2",
                                "DOBON_WS_ALLOWED_ORIGINS": f"http://127.0.0.1:{a.proxy_port}"}
        try:
            ports = ([int(p) for p in a.ports.split(",")] if a.ports
                     else [procs.daphne() for _ in range(a.daphnes)])
            if not a.no_celery:
                procs.celery(a.worker_concurrency)
                time.sleep(3)
            body = (restart.rolling_restart if a.rolling_restart else attack.attacks if a.attack
                    else run.search if a.think else run.fixed)
            result = asyncio.run(body(a, procs, ports))
        finally:
            procs.stop()
            stack.retire_old_games()
        result = {"daphnes": a.daphnes, "layer": _layer_name(), "idle": a.idle, **result}
        result["goals"] = goals.judge(result)
        self.stdout.write(json.dumps(result, indent=2))
        for entry in result.get("attacks", []):
            self.stdout.write(attack.summary_line(entry))
        if "rolling_restart" in result:
            self.stdout.write(restart.summary_line(result))
        self.stdout.write(goals.table(result["goals"]))
        run.write(result, a.out)
        print(f"(process logs in {logs})", file=sys.stderr)


def saved_goals(paths: list[str]) -> list[dict[str, Any]]:
    """The goals judged from saved `--out` files, in the order given."""
    from game.management.bench import goals

    lines = []
    for path in paths:
        try:
            result = json.loads(Path(path).read_text())
        except (OSError, ValueError) as exc:
            raise CommandError(f"{path}: not a bench_load result ({exc})") from exc
        lines += [{**line, "goal": f"{line['goal']} [{path}]"} for line in goals.judge(result)]
    return lines


def _layer_name() -> str:
    from django.conf import settings

    return str(settings.CHANNEL_LAYERS["default"]["BACKEND"])
