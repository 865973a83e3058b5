"""Load benchmark of live play: N rooms × 4 websocket players on the production stack.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/dobon_bench \\
    REDIS_URL=redis://127.0.0.1:6379/14 \\
    .venv/bin/python -m game.bench_load --rooms 100 --seconds 30

The database is created and migrated if needed; the Redis database is flushed (give
it one of its own). The script starts daphne (`--daphnes`, players of one room are
spread over them) and a Celery worker and beat, connects 4 players per room with
session cookies, starts every room's game, and lets the players act as fast as the
rules allow: each acts the moment its view offers it something (a play if it has one,
else draw / pass / take; a colour; dobon and return whenever possible; a cut-in now
and then). A finished game is followed by the next one at once.

Figures: accepted actions per second; the delay from sending an action to the moment
the last of the room's 4 players has a newer state (p50, p99); refusals (races between
players, expected); lost updates (a gap in the versions one socket received, or a
socket whose final version differs from the database's).

`--idle` measures timeouts instead: nobody acts, every seat is played by Celery's
timeouts (room timeout 5 s), and the figure is the delay from each deadline to the
arrival of the automatic action at each watching socket.
Everything runs on loopback and stops after `--seconds`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


# -- set-up -----------------------------------------------------------------------------------


def ensure_database(url: str) -> None:
    import psycopg

    parts = urllib.parse.urlparse(url)
    name = parts.path.lstrip("/")
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def django_setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dobon_site.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def retire_old_games() -> int:
    """Stop the games earlier runs left running in the bench database: their overdue
    clocks would otherwise keep the timeout workers busy through this run."""
    from django.utils import timezone

    from game.models import Game

    return Game.objects.filter(status=Game.Status.RUNNING).update(
        status=Game.Status.ABORTED, next_deadline=None, finished_at=timezone.now()
    )


def make_tables(rooms: int, timeout: int) -> list[tuple[Any, list[tuple[Any, str]]]]:
    """Fresh users (unusable passwords: hashing 400 passwords would take minutes) and
    rooms, each user with a logged-in session cookie."""
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.auth.hashers import make_password
    from django.contrib.sessions.backends.db import SessionStore

    from game.models import Membership, Room

    run = f"b{int(time.time()) % 100000}"
    User = get_user_model()
    users = User.objects.bulk_create(
        User(username=f"{run}_{i}", password=make_password(None)) for i in range(rooms * 4)
    )
    users = list(User.objects.filter(username__startswith=f"{run}_").order_by("pk"))
    tables = []
    for r in range(rooms):
        people = users[r * 4:(r + 1) * 4]
        room = Room.objects.create(name=f"{run}-{r}", owner=people[0], timeout_seconds=timeout)
        Membership.objects.bulk_create(
            Membership(room=room, user=u, seat_index=i) for i, u in enumerate(people)
        )
        seated = []
        for user in people:
            session = SessionStore()
            session[SESSION_KEY] = str(user.pk)
            session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
            session[HASH_SESSION_KEY] = user.get_session_auth_hash()
            session.create()
            seated.append((user, f"{settings.SESSION_COOKIE_NAME}={session.session_key}"))
        tables.append((room, seated))
    return tables


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# The production stack as README.md runs it, on plain HTTP over loopback: DEBUG off (its
# query log alone costs every move), Celery instead of the in-process scheduler. The
# secret key is inherited, so the session cookies this process creates stay valid.
PRODUCTION_ENV = {
    "DEBUG": "false",
    "SECURE_SSL_REDIRECT": "false",
    "SESSION_COOKIE_SECURE": "false",
    "CSRF_COOKIE_SECURE": "false",
    "DOBON_INPROCESS_SCHEDULER": "false",
    "LOG_LEVEL": "WARNING",
}


class Processes:
    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.started: list[subprocess.Popen[bytes]] = []

    def start(self, name: str, args: list[str]) -> None:
        env = {**os.environ, **PRODUCTION_ENV}
        log = open(self.logs / f"{name}.log", "wb")  # noqa: SIM115 (lives as long as the process)
        self.started.append(subprocess.Popen(
            args, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        ))

    def daphne(self) -> int:
        port = free_port()
        self.start(f"daphne-{port}", [str(BIN / "python"), "-m", "dobon_site.server",
                                      "-b", "127.0.0.1", "-p", str(port),
                                      "dobon_site.asgi:application"])
        wait_port(port)
        return port

    def celery(self) -> None:
        self.start("worker", [str(BIN / "celery"), "-A", "dobon_site", "worker", "-l", "warning",
                              "--concurrency=2", "--without-gossip", "--without-mingle"])
        self.start("beat", [str(BIN / "celery"), "-A", "dobon_site", "beat", "-l", "warning",
                            "--schedule", str(self.logs / "beat-schedule")])

    def stop_celery(self) -> None:
        """Stop the clocks: no timeout changes a game after this."""
        for p in [p for p in self.started if "celery" in " ".join(map(str, p.args))]:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
                p.wait(15)

    def stop(self) -> None:
        for p in self.started:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in self.started:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)


def wait_port(port: int, timeout: float = 20) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise SystemExit(f"daphne on {port} did not start")


# -- players ----------------------------------------------------------------------------------


@dataclass
class Sent:
    game: int
    version: int
    at: float
    refused: bool = False


@dataclass
class Player:
    name: str
    room: int
    port: int
    cookie: str
    act: bool
    arrivals: list[tuple[int, int, float]] = field(default_factory=list)  # game, version, time
    sent: list[Sent] = field(default_factory=list)
    timeouts: list[float] = field(default_factory=list)  # arrival − deadline, idle mode
    gaps: int = 0
    retries: int = 0
    state: dict[str, Any] | None = None
    acted: tuple[int, int] | None = None
    ws: Any = None
    deadline: float | None = None

    async def run(self, stop: asyncio.Event, rng: random.Random) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import InvalidHandshake

        for attempt in range(6):  # a busy server may drop a handshake: retry like a browser
            try:
                self.ws = await connect(
                    f"ws://127.0.0.1:{self.port}/ws/rooms/{self.room}/",
                    origin=f"http://127.0.0.1:{self.port}",
                    additional_headers={"Cookie": self.cookie}, max_size=2**22,
                )
                break
            except (OSError, InvalidHandshake, TimeoutError):
                self.retries += 1
                await asyncio.sleep(0.5 * 2**attempt)
        else:
            return
        async for raw in self.ws:
            now = time.time()
            message = json.loads(raw)
            kind = message["type"]
            if kind == "error" and self.sent:
                self.sent[-1].refused = True
            elif kind == "state":
                timed_out = any(e["type"] == "timeout" for e in message["events"])
                if timed_out and self.deadline:
                    self.timeouts.append(now - self.deadline)
                    self.deadline = None
                self.on_state(message, now)
                if self.act and not stop.is_set():
                    await self.maybe_act(rng)

    def on_state(self, message: dict[str, Any], now: float) -> None:
        game, version = message["game"], message["version"]
        if game is not None:
            last = self.arrivals[-1] if self.arrivals else None
            if last and last[0] == game and version > last[1] + 1:
                self.gaps += version - last[1] - 1
            self.arrivals.append((game, version, now))
        self.state = message
        view = message["view"]
        self.deadline = view["turn_deadline"] if view else None

    async def maybe_act(self, rng: random.Random) -> None:
        state = self.state
        view = state and state["view"]
        if not view or not view.get("legal_actions"):
            return
        key = (state["game"], state["version"])
        if self.acted == key:
            return
        action = choose(view, rng)
        if action is None:
            return
        self.acted = key
        self.sent.append(Sent(state["game"], state["version"], time.time()))
        await self.ws.send(json.dumps({"type": "action", "action": action}))


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    legal = view["legal_actions"]
    by_type: dict[str, list[dict[str, Any]]] = {}
    for action in legal:
        by_type.setdefault(action["type"], []).append(action)
    for kind in ("dobon", "return"):
        if kind in by_type:
            return by_type[kind][0]
    mine = view["seat"] in (view["turn"], view["chooser"])
    if not mine:
        if view["phase"] in ("agari_wait", "dobon_wait", "return_wait") and "decline" in by_type:
            return by_type["decline"][0]
        if "play" in by_type and rng.random() < 0.3:  # a cut-in now and then
            return rng.choice(by_type["play"])
        return None
    for kind in ("color", "play", "pass", "draw", "take"):
        if kind in by_type:
            return rng.choice(by_type[kind])
    return legal[0]


# -- the run -----------------------------------------------------------------------------------


async def restart_finished_games(tables: list[Any], stop: asyncio.Event) -> int:
    """The owners press "start" again whenever a game has ended."""
    from asgiref.sync import sync_to_async

    from game.models import Game
    from game.services import play

    started = 0
    while not stop.is_set():
        await asyncio.sleep(0.2)
        idle = await sync_to_async(list)(
            Game.objects.filter(room_id__in=[r.pk for r, _ in tables]).values_list("room_id")
            .exclude(status=Game.Status.RUNNING).distinct()
        )
        running = set(await sync_to_async(list)(
            Game.objects.filter(status=Game.Status.RUNNING).values_list("room_id", flat=True)
        ))
        for (room_id,) in idle:
            if room_id in running:
                continue
            room, seated = next(t for t in tables if t[0].pk == room_id)
            try:
                await sync_to_async(play.start_game)(room, seated[0][0])
                started += 1
            except play.PlayError:
                pass
    return started


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def delays(players: list[Player]) -> list[float]:
    """Per accepted action: until every player of its room had a newer state."""
    by_room: dict[int, list[Player]] = {}
    for p in players:
        by_room.setdefault(p.room, []).append(p)
    out = []
    for room_players in by_room.values():
        for p in room_players:
            for sent in p.sent:
                if sent.refused:
                    continue
                last = 0.0
                for q in room_players:
                    t = next((t for g, v, t in q.arrivals
                              if (g == sent.game and v > sent.version) or g > sent.game), None)
                    if t is None:
                        last = float("nan")
                        break
                    last = max(last, t)
                if last == last:  # not NaN: every player saw it
                    out.append(last - sent.at)
    return out


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from asgiref.sync import sync_to_async

    from game.models import Game
    from game.services import play

    await sync_to_async(retire_old_games)()
    tables = await sync_to_async(make_tables)(args.rooms, 5 if args.idle else 10)
    ports = args.ports
    players: list[Player] = []
    for room, seated in tables:
        for _, cookie in seated:
            port = ports[len(players) % len(ports)]
            players.append(Player(f"p{len(players)}", room.pk, port, cookie, act=not args.idle))
    stop = asyncio.Event()
    rng = random.Random(args.seed)
    tasks = []
    for i, p in enumerate(players):  # a ramp, not one burst of hundreds of handshakes
        tasks.append(asyncio.create_task(p.run(stop, rng)))
        if i % 20 == 19:
            await asyncio.sleep(0.25)
    end = time.monotonic() + 60  # let every socket connect and get its first state
    while time.monotonic() < end and any(p.state is None for p in players):
        await asyncio.sleep(0.1)
    connected = sum(1 for p in players if p.state is not None)
    connect_seconds = round(60 - (end - time.monotonic()), 1)
    for room, seated in tables:
        await sync_to_async(play.start_game)(room, seated[0][0])
        if args.idle:  # rooms start at different moments, as they would in real life
            await asyncio.sleep(5.0 / len(tables))
    began = time.time()
    restarter = asyncio.create_task(restart_finished_games(tables, stop))
    await asyncio.sleep(args.seconds)
    stop.set()
    elapsed = time.time() - began
    restarts = await restarter
    await asyncio.to_thread(args.stop_clocks)  # the final versions must stay final
    await asyncio.sleep(3)  # let the last pushes arrive
    final = dict(await sync_to_async(list)(
        Game.objects.filter(room_id__in=[r.pk for r, _ in tables], status=Game.Status.RUNNING)
        .values_list("pk", "version")
    ))
    stale = sum(1 for p in players if p.arrivals and p.arrivals[-1][0] in final
                and p.arrivals[-1][1] != final[p.arrivals[-1][0]])
    await sync_to_async(retire_old_games)()
    for t in tasks:
        t.cancel()
    closing = [p.ws.close() for p in players if p.ws is not None]
    await asyncio.wait_for(asyncio.gather(*closing, return_exceptions=True), 15)
    accepted = sum(1 for p in players for s in p.sent if not s.refused)
    refused = sum(1 for p in players for s in p.sent if s.refused)
    d = delays(players)
    timeouts = [x for p in players for x in p.timeouts]
    return {
        "rooms": args.rooms, "sockets": len(players), "connected": connected,
        "connect_seconds": connect_seconds,
        "connect_retries": sum(p.retries for p in players),
        "daphnes": len(ports), "seconds": round(elapsed, 1), "idle": args.idle,
        "actions_accepted": accepted, "actions_refused": refused,
        "actions_per_second": round(accepted / elapsed, 1),
        "games_restarted": restarts,
        "delay_ms": {"n": len(d), "p50": round(percentile(d, .5) * 1000, 1),
                     "p99": round(percentile(d, .99) * 1000, 1),
                     "max": round(max(d) * 1000, 1) if d else None},
        "timeout_delay_ms": {"n": len(timeouts), "p50": round(percentile(timeouts, .5) * 1000, 1),
                             "p99": round(percentile(timeouts, .99) * 1000, 1),
                             "max": round(max(timeouts) * 1000, 1) if timeouts else None},
        "lost_updates": {"version_gaps": sum(p.gaps for p in players), "stale_sockets": stale},
        "mean_states_per_socket": round(statistics.mean(len(p.arrivals) for p in players), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--daphnes", type=int, default=1)
    parser.add_argument("--ports", default="", help="use running daphne processes instead")
    parser.add_argument("--no-celery", action="store_true", help="do not start worker and beat")
    parser.add_argument("--idle", action="store_true", help="nobody acts: measure timeouts")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="bench-load.json")
    args = parser.parse_args()
    db, redis_url = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    if not db.startswith("postgres") or not redis_url:
        raise SystemExit("set DATABASE_URL=postgres://… and REDIS_URL=redis://… (see docstring)")
    ensure_database(db)
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    django_setup()
    logs = Path(os.environ.get("TMPDIR", "/tmp")) / f"dobon-bench-{os.getpid()}"
    logs.mkdir(parents=True, exist_ok=True)
    procs = Processes(logs)
    try:
        args.stop_clocks = procs.stop_celery
        if args.ports:
            args.ports = [int(p) for p in args.ports.split(",")]
        else:
            args.ports = [procs.daphne() for _ in range(args.daphnes)]
        if not args.no_celery:
            procs.celery()
            time.sleep(3)
        result = asyncio.run(run(args))
    finally:
        procs.stop()
    print(json.dumps(result, indent=2))
    Path(args.out).write_text(json.dumps(result, indent=2))
    print(f"(process logs in {logs})", file=sys.stderr)


if __name__ == "__main__":
    main()
