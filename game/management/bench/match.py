"""Match speed on the production stack: four CPU players per room play matches.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/dobon_bench \\
    REDIS_URL=redis://127.0.0.1:6379/14 \\
    .venv/bin/python -m game.management.bench.match --games 1000 --matches 1 --seconds 3600

Starts daphne (`--daphnes` processes) and a Celery worker and beat (production settings,
as manage.py bench_load does) and creates `--matches` rooms of four seats. Then, by
`--players`:

- `programs` (the default, the contest's set-up): four members per room, each a
  websocket client signed in by API token that plays its seat with a CPU policy
  (`game.bots.client`, `--level`), in a match with a `--program-timeout` (1 s) for
  program seats. Every move goes through the socket, the consumer and the database.
- `mixed`: two program clients and two demo CPUs per room (the CPUs move as soon as
  their turn comes, through the worker).
- `cpu`: four CPU seats of the room (demo players) and one watching client per room;
  the CPUs act through the service layer, in the clock's worker tasks.

Each room starts a match of `--games` games; each finished game starts the next.

Figures: games per minute (wall time) per match and in total, versions (moves and
timeouts) per second, automatic actions (§R14, a seat that did not answer in time), and
CPU seconds per game of the daphne, worker and beat process groups and of the clients
(this process; from /proc). PostgreSQL and Redis are not included: on a shared machine
their processes serve others too. Stops when every match is over or after `--seconds`;
the unfinished matches are stopped then.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from game.bots import policy
from game.bots.client import SeatPlayer, _quiet, play_seat
from game.management.bench.stack import (
    Processes,
    ensure_database,
    make_tables,
    retire_old_games,
)

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def django_setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dobon_site.settings")
    # The servers run with DEBUG off, which refuses the development key; the client
    # signs in by API token, so any key shared with the servers will do.
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def group_cpu_seconds(leader: int) -> float:
    """User + system CPU of every live process in `leader`'s process group, plus the
    children they already reaped."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == leader:  # field 5 of stat: the process group
            total += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
    return total / CLOCK_TICKS


@dataclass
class Table:
    """A bench room: its owner, and the API token of each client that plays there."""

    room: Any
    owner: Any
    keys: list[str]


def cpu_tables(count: int) -> list[Table]:
    """Rooms whose seats the match fills with CPUs; the owner watches by token."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    from accounts import tokens
    from game.models import Room

    run = f"m{secrets.token_hex(3)}"
    tables = []
    for i in range(count):  # an owner each: one account may run only so many matches
        owner = get_user_model().objects.create(username=f"{run}_owner{i}",
                                                password=make_password(None))
        key = tokens.create_token(owner, "bench watcher").key
        tables.append(Table(Room.objects.create(name=f"{run}-{i}", owner=owner), owner, [key]))
    return tables


def program_tables(count: int, programs: int = 4) -> list[Table]:
    """Rooms of four members, each with an API token its client plays by; with fewer
    `programs`, the other members leave and the match seats demo CPUs there."""
    from accounts import tokens
    from game.models import Membership

    tables = []
    for room, seated in make_tables(count, timeout=10):
        playing = seated[:programs]
        Membership.objects.filter(room=room, seat_index__gte=programs).delete()
        keys = [tokens.create_token(user, "bench program").key for user, _cookie in playing]
        tables.append(Table(room, seated[0][0], keys))
    return tables


def mixed_tables(count: int) -> list[Table]:
    """Two program clients and two demo CPUs per room (issue #22's slow case)."""
    return program_tables(count, programs=2)


async def watch(url: str, key: str, stop: asyncio.Event, counts: dict[str, int]) -> None:
    """The owner watching the table by token: every state frame is read and counted."""
    from websockets.asyncio.client import connect

    async with connect(url, additional_headers={"Authorization": f"Bearer {key}"},
                       max_size=2**22) as ws:
        while not stop.is_set():
            try:
                raw = await asyncio.wait_for(ws.recv(), 1.0)
            except TimeoutError:
                continue
            if json.loads(raw)["type"] == "state":
                counts[url] = counts.get(url, 0) + 1


def clients(args: argparse.Namespace, ports: list[int], tables: list[Table],
            stop: asyncio.Event, frames: dict[str, int]) -> list[asyncio.Task[None]]:
    """Each room's clients on one daphne, the rooms spread over the daphnes."""
    tasks = []
    for number, table in enumerate(tables):
        port = ports[number % len(ports)]
        url = f"ws://127.0.0.1:{port}/ws/rooms/{table.room.pk}/"
        for index, key in enumerate(table.keys):
            if args.players == "cpu":
                coroutine = watch(url, key, stop, frames)
            else:
                player = SeatPlayer(policy(args.level, table.room.pk * 10 + index))
                say = _teller(f"room {table.room.pk} seat {index + 1}") if args.say else _quiet
                coroutine = play_seat(url, key, player, stop=stop, say=say)
            tasks.append(asyncio.create_task(coroutine))
    return tasks


def _teller(who: str) -> Callable[[str], None]:
    def say(what: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} {who}: {what}", flush=True)

    return say


def progress(match_ids: list[int]) -> tuple[int, int, int, int]:
    """(games finished, matches over, versions saved, automatic actions) over the
    matches."""
    from django.db.models import Sum

    from game.models import Game, GameEvent
    from game.models.matches import Match

    rows = Match.objects.filter(pk__in=match_ids)
    finished = sum(m.games_finished for m in rows)
    over = sum(1 for m in rows if m.status != Match.Status.RUNNING)
    versions = Game.objects.filter(match_id__in=match_ids).aggregate(v=Sum("version"))["v"]
    automatic = GameEvent.objects.filter(
        game__match_id__in=match_ids, step__auto=True
    ).count()
    return finished, over, int(versions or 0), automatic


def start_matches(args: argparse.Namespace, tables: list[Table]) -> list[int]:
    from game.services import matches

    timeout = args.program_timeout if args.players in ("programs", "mixed") else None
    level = args.level if args.players in ("cpu", "mixed") else None
    return [matches.start_match(t.room, t.owner, args.games, timeout, level).pk
            for t in tables]


def stop_matches(match_ids: list[int]) -> None:
    from game.models.matches import Match
    from game.services import matches

    for match in Match.objects.filter(pk__in=match_ids).select_related("room__owner"):
        if match.is_running:
            matches.stop_match(match, match.room.owner)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from asgiref.sync import sync_to_async

    make = {"programs": program_tables, "mixed": mixed_tables, "cpu": cpu_tables}[args.players]
    tables = await sync_to_async(make)(args.matches)
    logs = Path(tempfile.mkdtemp(prefix="bench-match-"))
    (logs / "counters").mkdir()
    processes = Processes(logs, logs / "counters")
    ports = [processes.daphne() for _ in range(args.daphnes)]
    processes.celery()
    await asyncio.sleep(4)  # the worker and beat come up
    stop = asyncio.Event()
    frames: dict[str, int] = {}
    tasks = clients(args, ports, tables, stop, frames)
    await asyncio.sleep(2)  # every client connected: its seat counts as a program's
    leaders = {f"{kind}-{i}": p.pid for i, (kind, p) in enumerate(processes.started)}
    cpu_before = {name: group_cpu_seconds(pid) for name, pid in leaders.items()}
    clients_before = time.process_time()
    started = time.monotonic()
    match_ids = await sync_to_async(start_matches)(args, tables)
    finished = over = versions = automatic = 0
    try:
        while time.monotonic() - started < args.seconds:
            await asyncio.sleep(5)
            finished, over, versions, automatic = await sync_to_async(progress)(match_ids)
            elapsed = time.monotonic() - started
            print(f"{elapsed:7.0f} s  games {finished:5d}  "
                  f"{60 * finished / elapsed:6.1f} games/min  {versions / elapsed:6.1f} v/s  "
                  f"automatic {automatic}", flush=True)
            if over == len(match_ids):
                break
    finally:
        elapsed = time.monotonic() - started
        cpu = {name: group_cpu_seconds(pid) - cpu_before[name] for name, pid in leaders.items()}
        cpu["clients"] = time.process_time() - clients_before
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        await sync_to_async(stop_matches)(match_ids)
        processes.stop()
    return {
        "players": args.players, "matches": args.matches, "daphnes": args.daphnes,
        "games_per_match": args.games,
        "level": args.level, "seconds": round(elapsed, 1), "games_finished": finished,
        "matches_over": over, "games_per_minute": round(60 * finished / elapsed, 2),
        "versions": versions, "versions_per_second": round(versions / elapsed, 1),
        "automatic_actions": automatic, "state_frames_watched": sum(frames.values()),
        "cpu_seconds": {k: round(v, 1) for k, v in cpu.items()},
        "cpu_seconds_per_game": round(sum(cpu.values()) / max(finished, 1), 3),
        "logs": str(logs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--matches", type=int, default=1)
    parser.add_argument("--players", default="programs", choices=["programs", "mixed", "cpu"])
    parser.add_argument("--level", default="normal", choices=["easy", "normal", "strong"])
    parser.add_argument("--program-timeout", type=int, default=1)
    parser.add_argument("--daphnes", type=int, default=1, help="daphne processes")
    parser.add_argument("--say", action="store_true",
                        help="print what each client hears (refusals, drops, games)")
    parser.add_argument("--seconds", type=float, default=3600)
    args = parser.parse_args()
    ensure_database(os.environ["DATABASE_URL"])
    django_setup()
    retire_old_games()
    from game.models.matches import Match

    Match.objects.filter(status=Match.Status.RUNNING).update(status=Match.Status.ABORTED)
    print(json.dumps(asyncio.run(run(args)), indent=2))


if __name__ == "__main__":
    main()
