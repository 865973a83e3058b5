"""`bench_load --rolling-restart`: every daphne restarted in turn while the rooms play
(issue #30, restarts that lose nothing).

The rooms connect and play (at `--think` pace, or saturated without it); then each
daphne in turn gets SIGTERM, is waited for until it exits, is started again on its port
and waited for until it answers HTTP, and the next one follows. With `--proxy nginx` the
players connect through nginx (game/management/bench/proxy.py), so a socket closed with
1012 comes back through the proxy to whichever daphne is up; without it each player
comes back to its own daphne once it is up again. After the last restart the rooms play
on for `--seconds` (and up to a minute more until every socket is back), then the run
checks every socket against the database as every run does (`lost_updates`).

Reported: each restart's drain and down time; from each socket's 1012 to its next state
(p50 / p99 / max); sockets closed with 1012 and sockets not back; closes other than 1012
(a browser would show "reconnecting" for those); the error frames players got during the
roll, by code (a browser shows each as a message: refusals of racing cut-ins are normal
play; `server_errors` counts the server's own); moves committed during the roll and the
action → last socket delay of the actions sent then. game/management/bench/goals.py
judges the issue's goals from it.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections import Counter
from pathlib import Path
from typing import Any

from game.management.bench import stack
from game.management.bench.players import Player, delays, summary_ms
from game.management.bench.proxy import Nginx
from game.management.bench.run import Run, committed_moves, load_average, versions

# Error codes of the server's own trouble, which a restart could cause; every other code
# is the game refusing a player who raced another (a cut-in and the turn's move at once,
# a think time that ran past a change): normal play, with or without a restart.
SERVER_TROUBLE = frozenset({"server_error", "rate_limited", "site_busy"})


def restart_report(players: list[Player], began: float, ended: float) -> dict[str, Any]:
    """The reconnect figures of the sockets in `players` for a roll in [began, ended)."""
    restarts = [r for p in players for r in p.restarts]
    back = [r.seconds for r in restarts if r.seconds is not None]
    errors = Counter(code for p in players for at, code in p.errors if began <= at < ended)
    return {
        "sockets": len(players),
        "sockets_closed_with_1012": sum(1 for p in players if p.restarts),
        "closes_1012": len(restarts),
        "reconnect_ms": summary_ms(back),  # from the 1012 to the next state
        "sockets_not_back": sum(1 for p in players
                                if p.restarts and p.restarts[-1].back_at is None),
        "other_closes": dict(Counter(str(c) for p in players for c in p.other_closes)),
        "errors_during_roll": dict(errors),
        "server_errors": sum(n for code, n in errors.items() if code in SERVER_TROUBLE),
    }


# After playing on: how long sockets still on their way back are waited for (without a
# proxy a socket's connect backs off while its daphne starts, up to 16 s between tries).
BACK_WAIT_SECONDS = 60.0


async def back_or_given_up(players: list[Player], seconds: float = BACK_WAIT_SECONDS) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end and any(
            p.restarts and p.restarts[-1].back_at is None for p in players):
        await asyncio.sleep(0.2)


async def rolling_restart(args: argparse.Namespace, procs: stack.Processes,
                          ports: list[int]) -> dict[str, Any]:
    nginx = None
    player_ports = ports
    if args.proxy == "nginx":
        nginx = Nginx(Path(procs.logs) / "nginx", args.proxy_port, ports)
        nginx.start()
        player_ports = [args.proxy_port]
    try:
        return await roll(args, procs, ports, player_ports)
    finally:
        if nginx is not None:
            nginx.stop()
            nginx.remove()


async def roll(args: argparse.Namespace, procs: stack.Processes, ports: list[int],
               player_ports: list[int]) -> dict[str, Any]:
    run = Run(args, procs, player_ports)
    await run.add_rooms(args.rooms)
    await asyncio.sleep(args.think[1] if args.think else 2.0)  # every room into its rhythm
    before = await asyncio.to_thread(versions, args.database_url, run.room_ids)
    load_start = load_average()
    began = time.time()
    steps = []
    for port in ports:
        step = await asyncio.to_thread(procs.restart_daphne, port, args.shutdown_timeout)
        print(f"daphne {port}: exited {step['exit_status']} after {step['drain_seconds']} s, "
              f"answering again after {step['down_seconds']} s", flush=True)
        steps.append(step)
    rolled = time.time()
    await asyncio.sleep(args.seconds)  # play on; late sockets come back meanwhile
    await back_or_given_up(run.players)
    ended = time.time()
    after = await asyncio.to_thread(versions, args.database_url, run.room_ids)
    return {
        "rolling_restart": {
            "proxy": args.proxy, "rooms": args.rooms, "think": args.think,
            "restarts": steps, "roll_seconds": round(rolled - began, 1),
            "played_on_seconds": args.seconds,
            **restart_report(run.players, began, ended),
            "moves_committed": committed_moves(before, after),
            "delay_ms": summary_ms(delays(run.players, began, ended)),
            "load_average": {"start": load_start, "end": load_average()},
        },
        **await run.finish(),
    }


def summary_line(result: dict[str, Any]) -> str:
    """One line for the terminal."""
    roll = result["rolling_restart"]
    lost = result["lost_updates"]
    return (f"rolling restart ({roll['proxy']}, {roll['rooms']} rooms): "
            f"{roll['sockets_closed_with_1012']}/{roll['sockets']} sockets got 1012, "
            f"reconnect p50 {roll['reconnect_ms']['p50']} ms, p99 {roll['reconnect_ms']['p99']} "
            f"ms, max {roll['reconnect_ms']['max']} ms; not back {roll['sockets_not_back']}; "
            f"other closes {roll['other_closes'] or 0}; server errors "
            f"{roll['server_errors']}; stale sockets {lost['stale_sockets']}, "
            f"versions missed {lost.get('versions_missed', 0)}, "
            f"version gaps {lost['version_gaps']}")
