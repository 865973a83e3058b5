"""One benchmark run: connect the rooms, play, measure windows, check nothing was lost."""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import time
from pathlib import Path
from typing import Any

from game.management.bench import stack
from game.management.bench.cost import CostMeter
from game.management.bench.players import Player, delays, missed_versions, slowest, summary_ms

DRAIN_SECONDS = 30  # after the clocks stop: a socket still behind then is a lost update
HANDSHAKES_IN_FLIGHT = 16  # a ramp, not one burst: daphne drops handshakes slower than 5 s


def versions(database_url: str, room_ids: list[int]) -> dict[int, int]:
    """Game id → public version (the clients' version: docs/protocol.md, "Versions and
    private answers") for the bench rooms' games (psycopg: the bench's own Django
    connection stays out of the measured window)."""
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT id, public_version FROM game_game WHERE room_id = ANY(%s)", (room_ids,)
        ).fetchall()
    return {int(g): int(v) for g, v in rows}


def load_average() -> list[float]:
    """The machine's 1, 5 and 15 minute load averages: every timing figure says it."""
    return [round(x, 2) for x in os.getloadavg()]


def room_address(number: int) -> str:
    """The client address of the bench's `number`-th room (1, 2, …): every room its own,
    so that the servers' per-address limits never refuse the measured players."""
    return f"10.1.{number // 250}.{number % 250 + 1}"


def committed_moves(before: dict[int, int], after: dict[int, int]) -> int:
    """Commits between two snapshots: version steps, and each new game's start."""
    return sum(v - before[g] if g in before else v + 1 for g, v in after.items())


def state_size(database_url: str, room_ids: list[int]) -> dict[str, float]:
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        text, stored = conn.execute(
            "SELECT avg(octet_length(state::text)), avg(pg_column_size(state)) "
            "FROM game_game WHERE room_id = ANY(%s)", (room_ids,)
        ).fetchone()
    return {"json_bytes": round(float(text or 0)), "stored_bytes": round(float(stored or 0))}


class Run:
    def __init__(self, args: argparse.Namespace, procs: stack.Processes, ports: list[int]):
        self.args = args
        self.procs = procs
        self.ports = ports
        self.players: list[Player] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.room_ids: list[int] = []
        self.stop = asyncio.Event()
        self.rng = random.Random(args.seed)
        self.gate = asyncio.Semaphore(HANDSHAKES_IN_FLIGHT)

    def meter(self) -> CostMeter:
        return CostMeter(self.procs.groups(), self.args.redis_url, self.args.database_url,
                         self.procs.counters)

    async def add_rooms(self, count: int, idle: bool | None = None,
                        think: tuple[float, float] | None = None) -> list[int]:
        """`count` rooms of 4 players (`idle`: nobody acts, 5 s timeouts; default
        `--idle`), their games started; their room ids."""
        from asgiref.sync import sync_to_async

        from game.services import play

        a = self.args
        idle = a.idle if idle is None else idle
        think = a.think if think is None else think
        tables = await sync_to_async(stack.make_tables)(count, 5 if idle else 10)
        fresh = []
        for room, seated in tables:
            self.room_ids.append(room.pk)
            address = room_address(len(self.room_ids))
            for i, (_, cookie) in enumerate(seated):
                port = self.ports[len(self.players) % len(self.ports)]
                owner = (self.starter(port, room.pk, cookie, address) if i == 0 and not idle
                         else None)
                p = Player(f"p{len(self.players)}", room.pk, port, cookie, act=not idle,
                           think=think, owner_start=owner, gate=self.gate, address=address)
                self.players.append(p)
                fresh.append(p)
        for p in fresh:
            self.tasks.append(asyncio.create_task(p.run(self.stop, self.rng)))
        end = time.monotonic() + 300  # every socket connected and has its first state
        while time.monotonic() < end and any(p.state is None for p in fresh):
            await asyncio.sleep(0.1)
        for room, seated in tables:
            try:
                await sync_to_async(play.start_game)(room, seated[0][0])
            except play.PlayError:
                pass  # its owner pressed "start" first
            if idle:  # rooms start at different moments, as they would in real life
                await asyncio.sleep(5.0 / len(tables))
        return [room.pk for room, _ in tables]

    def starter(self, port: int, room_id: int, cookie: str, address: str) -> Any:
        async def press_start() -> None:
            await asyncio.to_thread(stack.post_start, port, room_id, cookie, address)
        return press_start

    async def window(self, rooms: int) -> dict[str, Any]:
        """Measure `--seconds` of play with the rooms connected now."""
        a = self.args
        meter = self.meter()
        before = await asyncio.to_thread(versions, a.database_url, self.room_ids)
        frames = sum(p.frames for p in self.players)
        await asyncio.to_thread(meter.begin)
        load_start = load_average()
        own = os.times()
        began = time.time()
        await asyncio.sleep(a.seconds)
        ended = time.time()
        own_after = os.times()
        load_end = load_average()
        frames = sum(p.frames for p in self.players) - frames
        after = await asyncio.to_thread(versions, a.database_url, self.room_ids)
        moves = committed_moves(before, after)
        cost = await asyncio.to_thread(meter.end, moves, frames)
        await asyncio.sleep(1.0)  # the last actions of the window reach their sockets
        sent = [s for p in self.players for s in p.sent if began <= s.at < ended]
        accepted = [s for s in sent if not s.refused]
        # deadlines in this window only: a run may measure several windows
        timeouts = [late for p in self.players for at, late in p.timeouts
                    if began <= at - late < ended]
        return {
            "rooms": rooms, "sockets": rooms * 4,
            "connected": sum(1 for p in self.players if p.state is not None),
            "seconds": round(ended - began, 1),
            "actions_accepted": len(accepted), "actions_refused": len(sent) - len(accepted),
            "actions_per_second": round(len(accepted) / (ended - began), 1),
            "moves_per_second": round(moves / (ended - began), 1),
            "delay_ms": summary_ms(delays(self.players, began, ended)),
            "slowest_moves_s_ms": slowest(self.players, began, ended),
            "timeout_delay_ms": summary_ms(timeouts),
            "load_average": {"start": load_start, "end": load_end},
            # the benchmark's own players share the two cores with the server: a tail
            # that comes with a busy client says more about the client than the server
            "bench_client_cpu_seconds": round(own_after.user + own_after.system
                                              - own.user - own.system, 2),
            **cost,
        }

    async def finish(self) -> dict[str, Any]:
        """Stop acting and the clocks, then compare every socket with the database."""
        self.stop.set()
        await asyncio.to_thread(self.procs.stop_celery)  # the final versions must stay final
        final = await asyncio.to_thread(versions, self.args.database_url, self.room_ids)
        running = await asyncio.to_thread(running_games, self.args.database_url, self.room_ids)
        drain = time.monotonic()
        while True:  # the last pushes may still be on their way on a loaded machine
            stale = sum(1 for p in self.players if p.arrivals and p.arrivals[-1][0] in running
                        and p.arrivals[-1][1] != final[p.arrivals[-1][0]])
            if stale == 0 or time.monotonic() - drain > DRAIN_SECONDS:
                break
            await asyncio.sleep(0.5)
        size = await asyncio.to_thread(state_size, self.args.database_url, self.room_ids)
        for t in self.tasks:
            t.cancel()
        closing = [p.ws.close() for p in self.players if p.ws is not None]
        await asyncio.wait_for(asyncio.gather(*closing, return_exceptions=True), 30)
        return {
            # A gap (a push overtaken by a later version for longer than the server
            # waits, or dropped) is resumed by the client; stale sockets are lost updates.
            "lost_updates": {"version_gaps": sum(p.gaps for p in self.players),
                             "resumes": sum(p.resumes for p in self.players),
                             "stale_sockets": stale,
                             # of running and ended games alike: a game that ended while
                             # a socket was away is caught up by its resuming sync
                             "versions_missed": missed_versions(self.players, final)},
            "drain_seconds": round(time.monotonic() - drain, 1),
            "connect_retries": sum(p.retries for p in self.players),
            "mean_states_per_socket": round(
                statistics.mean(len(p.arrivals) for p in self.players), 1),
            "stored_state": size,
        }


def running_games(database_url: str, room_ids: list[int]) -> set[int]:
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT id FROM game_game WHERE room_id = ANY(%s) AND status = 'running'",
            (room_ids,),
        ).fetchall()
    return {int(r[0]) for r in rows}


async def fixed(args: argparse.Namespace, procs: stack.Processes,
                ports: list[int]) -> dict[str, Any]:
    """Fast play (or --idle) with `--rooms` rooms: one window."""
    run = Run(args, procs, ports)
    await run.add_rooms(args.rooms)
    if args.think:
        await asyncio.sleep(args.think[1])  # every room into its human rhythm
    result = await run.window(args.rooms)
    return {**result, **await run.finish()}


async def search(args: argparse.Namespace, procs: stack.Processes,
                 ports: list[int]) -> dict[str, Any]:
    """Human pace: add rooms step by step; the largest count whose action → last socket
    p99 stays within `--p99-ms`."""
    run = Run(args, procs, ports)
    steps, best = [], 0
    for rooms in args.steps:
        await run.add_rooms(rooms - len(run.room_ids))
        await asyncio.sleep(args.think[1])
        result = await run.window(rooms)
        steps.append(result)
        print(f"{rooms} rooms: p99 {result['delay_ms']['p99']} ms, "
              f"{result['cpu_ms_per_move']} CPU-ms/move", flush=True)
        if result["delay_ms"]["p99"] <= args.p99_ms and result["connected"] == rooms * 4:
            best = rooms
        else:
            break
    return {"think": list(args.think), "p99_target_ms": args.p99_ms,
            "largest_rooms_within_target": best, "steps": steps, **await run.finish()}


def write(result: dict[str, Any], out: str) -> None:
    import json

    Path(out).write_text(json.dumps(result, indent=2))
