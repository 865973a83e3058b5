"""Match speed on the production stack: CPU players play matches back to back.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/dobon_bench \\
    REDIS_URL=redis://127.0.0.1:6379/14 \\
    .venv/bin/python -m game.bench_match --games 1000 --matches 1 --seconds 3600

Starts daphne and a Celery worker and beat (production settings, as manage.py bench_load
does), creates `--matches` rooms of four seats, connects one websocket client per room
(the room owner, by API token, watching every `state` frame), and starts in each room a
match of `--games` games with four CPU players (`--level`) in the empty seats. Nothing
else happens: the CPU seats act through the service layer (woken by the beat sweep,
which plays a match's back-to-back CPU moves in a row), each finished game starts the next.

Figures: games per minute (wall time) per match and in total, versions (moves and
timeouts) per second, and CPU seconds per game of the daphne, worker and beat process
groups (from /proc; PostgreSQL and Redis are not included: on a shared machine their
processes serve others too). Stops when every match is over or after `--seconds`; the
unfinished matches are stopped then.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import tempfile
import time
from pathlib import Path
from typing import Any

from game.management.bench.stack import Processes, ensure_database, retire_old_games

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


def make_rooms(count: int) -> tuple[Any, list[Any], str]:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    from accounts import tokens
    from game.models import Room

    run = f"m{int(time.time()) % 100000}"
    owner = get_user_model().objects.create(username=f"{run}_owner",
                                            password=make_password(None))
    rooms = [Room.objects.create(name=f"{run}-{i}", owner=owner) for i in range(count)]
    return owner, rooms, tokens.create_token(owner, "bench watcher").key


async def watch(port: int, room_id: int, key: str, stop: asyncio.Event,
                counts: dict[int, int]) -> None:
    """The owner watching the table by token: every state frame is read and counted."""
    from websockets.asyncio.client import connect

    async with connect(f"ws://127.0.0.1:{port}/ws/rooms/{room_id}/",
                       additional_headers={"Authorization": f"Bearer {key}"},
                       max_size=2**22) as ws:
        while not stop.is_set():
            try:
                raw = await asyncio.wait_for(ws.recv(), 1.0)
            except TimeoutError:
                continue
            if json.loads(raw)["type"] == "state":
                counts[room_id] = counts.get(room_id, 0) + 1


def progress(match_ids: list[int]) -> tuple[int, int, int]:
    """(games finished, matches over, versions saved) over the matches."""
    from django.db.models import Sum

    from game.match_models import Match
    from game.models import Game

    rows = Match.objects.filter(pk__in=match_ids)
    finished = sum(m.games_finished for m in rows)
    over = sum(1 for m in rows if m.status != Match.Status.RUNNING)
    versions = Game.objects.filter(match_id__in=match_ids).aggregate(v=Sum("version"))["v"]
    return finished, over, int(versions or 0)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from asgiref.sync import sync_to_async

    from game.services import matches

    owner, rooms, key = await sync_to_async(make_rooms)(args.matches)
    logs = Path(tempfile.mkdtemp(prefix="bench-match-"))
    (logs / "counters").mkdir()
    processes = Processes(logs, logs / "counters")
    port = processes.daphne()
    processes.celery()
    await asyncio.sleep(4)  # the worker and beat come up
    stop = asyncio.Event()
    frames: dict[int, int] = {}
    watchers = [asyncio.create_task(watch(port, r.pk, key, stop, frames)) for r in rooms]
    await asyncio.sleep(1)
    leaders = {f"{kind}-{i}": p.pid for i, (kind, p) in enumerate(processes.started)}
    cpu_before = {name: group_cpu_seconds(pid) for name, pid in leaders.items()}
    started = time.monotonic()
    match_ids = []
    for room in rooms:
        match = await sync_to_async(matches.start_match)(room, owner, args.games,
                                                         None, args.level)
        match_ids.append(match.pk)
    finished = over = versions = 0
    try:
        while time.monotonic() - started < args.seconds:
            await asyncio.sleep(5)
            finished, over, versions = await sync_to_async(progress)(match_ids)
            elapsed = time.monotonic() - started
            print(f"{elapsed:7.0f} s  games {finished:5d}  "
                  f"{60 * finished / elapsed:6.1f} games/min  {versions / elapsed:6.1f} v/s",
                  flush=True)
            if over == len(match_ids):
                break
    finally:
        elapsed = time.monotonic() - started
        cpu = {name: group_cpu_seconds(pid) - cpu_before[name] for name, pid in leaders.items()}
        stop.set()
        await asyncio.gather(*watchers, return_exceptions=True)
        from game.match_models import Match

        for match_id in match_ids:
            match = await sync_to_async(Match.objects.get)(pk=match_id)
            if match.is_running:
                await sync_to_async(matches.stop_match)(match, owner)
        processes.stop()
    return {
        "matches": args.matches, "games_per_match": args.games, "level": args.level,
        "seconds": round(elapsed, 1), "games_finished": finished, "matches_over": over,
        "games_per_minute": round(60 * finished / elapsed, 2),
        "versions": versions, "versions_per_second": round(versions / elapsed, 1),
        "state_frames_watched": sum(frames.values()),
        "cpu_seconds": {k: round(v, 1) for k, v in cpu.items()},
        "cpu_seconds_per_game": round(sum(cpu.values()) / max(finished, 1), 3),
        "logs": str(logs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--matches", type=int, default=1)
    parser.add_argument("--level", default="normal", choices=["easy", "normal", "strong"])
    parser.add_argument("--seconds", type=float, default=3600)
    args = parser.parse_args()
    ensure_database(os.environ["DATABASE_URL"])
    django_setup()
    retire_old_games()
    from game.match_models import Match

    Match.objects.filter(status=Match.Status.RUNNING).update(status=Match.Status.ABORTED)
    print(json.dumps(asyncio.run(run(args)), indent=2))


if __name__ == "__main__":
    main()
