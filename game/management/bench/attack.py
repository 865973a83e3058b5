"""`bench_load --attack`: a victim room's moves with and without an attack (issue #22).

The victim: one room of 4 players acting at human pace (`--think`, 1–3 s by default);
`--victim-idle-rooms` rooms whose 4 players never act (5 s timeouts: the clock's
lateness, as `--idle` measures it); a room of one person at the same pace and 3 CPUs
(how long the CPUs take to answer), all from addresses of their own; and a probe that
opens a new socket into the victim room every `PROBE_SECONDS` (how long a newcomer
waits). For each attack in turn: a window of `--seconds` without it, then a window of
`--seconds` with it running; then the attack stops and its games end.

The attacker's sockets and requests come from `--attack-addresses` client addresses
(X-Forwarded-For; the servers run with DOBON_PROXY_COUNT=1): 1 is one machine, more a
botnet. The attacks, after the issue's findings:

- `crowd`: `--attack-accounts` accounts × `--attack-sockets` sockets each in their own
  rooms (not the victim's), each socket sending `sync` just within the per-socket rate
  limit (95 % of DOBON_WS_MAX_MESSAGES_PER_SECOND, evenly spaced);
- `watchers`: `--watchers` sockets of non-members in the victim's own (public) room,
  spread over the accounts (at most DOBON_WS_MAX_SOCKETS_PER_USER each);
- `churn`: each account opens a socket into its own room, waits for its first frame,
  closes it, and again, without a pause (0.1 s after a refusal);
- `cpu-matches`: 5 CPU-only 1,000-game matches from one account, then one from each of
  DOBON_MATCHES_PER_SITE further accounts (the per-account and the site limits refuse
  some), and at the same time `--attack-clicks` (100) "play now against CPU" clicks in
  7 s, spread over the accounts in turn.

A refused or dropped attacker socket tries again after `RETRY_SECONDS`, as a persistent
attacker would; every refusal is counted by its close code.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from game.management.bench import stack
from game.management.bench.players import Player, headers, summary_ms
from game.management.bench.run import Run, load_average, room_address

ATTACKS = ("crowd", "watchers", "churn", "cpu-matches")
RETRY_SECONDS = 1.0  # a refused crowd or watcher socket tries again after this
CHURN_PAUSE_SECONDS = 0.1  # a churning account's pause after a refusal only
PROBE_SECONDS = 2.0  # a new victim socket this often: how long a newcomer waits
RATE_SHARE = 0.95  # of the per-socket message limit: just within it
MATCHES_FROM_ONE_ACCOUNT = 5  # the case
MATCH_GAMES = 1000
CLICK_SECONDS = 7.0  # --attack-clicks "play now against CPU" clicks in this time
SETTLE_SECONDS = 15.0  # after an attack stops (hundreds of sockets closing), before the next


def attack_names(text: str) -> list[str]:
    """`--attack crowd,churn` (or the option repeated): the attacks, in order, once each."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in ATTACKS]
    if not names or unknown:
        raise argparse.ArgumentTypeError(
            f"--attack takes {', '.join(ATTACKS)} (comma-separated or repeated); "
            f"not {', '.join(unknown) or 'nothing'}")
    return names


def attacker_addresses(count: int) -> list[str]:
    """`count` distinct client addresses, none of them the victim's (10.1.…)."""
    if count < 1:
        raise ValueError("at least one attacker address")
    return [f"10.66.{i // 250}.{i % 250 + 1}" for i in range(count)]


def socket_spread(accounts: int, per_account: int, total: int) -> list[int]:
    """Which account (index) opens each of `total` sockets: in turn, at most
    `per_account` each (the per-user cap); fewer sockets if the accounts run out."""
    return [i % accounts for i in range(min(total, accounts * per_account))]


@dataclass
class Account:
    user: Any
    cookie: str
    room_id: int  # a room it is a member of (not the victim's)


@dataclass
class AttackStats:
    """What the attacker achieved."""

    opened: int = 0  # sockets that got their first frame
    refused: Counter[str] = field(default_factory=Counter)  # close code (or why) → count
    dropped: Counter[str] = field(default_factory=Counter)  # closed after opening, by code
    frames: int = 0
    rate_limited: int = 0  # `rate_limited` errors: the crowd should get none
    sent: int = 0
    cycles: int = 0  # churn: opened and closed
    requests: Counter[str] = field(default_factory=Counter)  # cpu-matches: outcome → count
    peak_open: int = 0
    open_now: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"sockets_opened": self.opened, "sockets_refused": dict(self.refused),
                "sockets_closed_by_server": dict(self.dropped),
                "peak_open_sockets": self.peak_open, "frames_received": self.frames,
                "messages_sent": self.sent, "rate_limited_answers": self.rate_limited,
                "churn_cycles": self.cycles,
                "requests": dict(self.requests)}


class Attacker:
    """Opens the attack's sockets and requests; stops when `stop` is set."""

    def __init__(self, ports: list[int], addresses: list[str], stop: asyncio.Event) -> None:
        self.ports, self.addresses, self.stop = ports, addresses, stop
        self.stats = AttackStats()
        self.tasks: list[asyncio.Task[None]] = []

    def spawn(self, work: Awaitable[None]) -> None:
        self.tasks.append(asyncio.ensure_future(work))

    async def finish(self) -> None:
        self.stop.set()
        await asyncio.sleep(0.5)
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    async def open(self, n: int, room_id: int, cookie: str) -> Any:
        """The `n`-th attacker socket's connection (port and address in turn), after its
        first frame; None if refused (counted by close code)."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

        port = self.ports[n % len(self.ports)]
        address = self.addresses[n % len(self.addresses)]
        try:
            ws = await connect(f"ws://127.0.0.1:{port}/ws/rooms/{room_id}/",
                               origin=f"http://127.0.0.1:{port}",  # type: ignore[arg-type]
                               additional_headers=headers(cookie, address),
                               # no keepalive pings: a refused socket's ping only logs
                               max_size=2**22, open_timeout=30, ping_interval=None)
        except InvalidStatus as exc:
            self.stats.refused[f"http_{exc.response.status_code}"] += 1
            return None
        except (OSError, InvalidHandshake, TimeoutError):
            self.stats.refused["no_handshake"] += 1
            return None
        try:
            await ws.recv()
        except ConnectionClosed as exc:
            self.stats.refused[close_code(exc)] += 1
            return None
        self.stats.opened += 1
        self.stats.frames += 1
        self.stats.open_now += 1
        self.stats.peak_open = max(self.stats.peak_open, self.stats.open_now)
        return ws

    async def close(self, ws: Any) -> None:
        self.stats.open_now -= 1
        try:
            await asyncio.wait_for(ws.close(), 10)
        except (TimeoutError, OSError):
            pass

    async def drain(self, ws: Any) -> None:
        """Count frames until the socket closes; a close by the server counts by code."""
        from websockets.exceptions import ConnectionClosed

        try:
            async for frame in ws:
                self.stats.frames += 1
                if isinstance(frame, str) and '"rate_limited"' in frame:
                    self.stats.rate_limited += 1
        except ConnectionClosed as exc:
            self.stats.dropped[close_code(exc)] += 1
            return
        if not self.stop.is_set():
            self.stats.dropped[close_code(None, ws)] += 1

    async def hold(self, n: int, room_id: int, cookie: str, interval: float | None) -> None:
        """One persistent socket: open (again after a refusal or a drop), read everything,
        and send `sync` every `interval` seconds if given."""
        from websockets.exceptions import ConnectionClosed

        while not self.stop.is_set():
            ws = await self.open(n, room_id, cookie)
            if ws is None:
                await asyncio.sleep(RETRY_SECONDS)
                continue
            reader = asyncio.ensure_future(self.drain(ws))
            try:
                while interval is not None and not self.stop.is_set() and not reader.done():
                    await ws.send('{"type": "sync"}')
                    self.stats.sent += 1
                    await asyncio.sleep(interval)
                stopped = asyncio.ensure_future(self.stop.wait())
                await asyncio.wait([reader, stopped], return_when=asyncio.FIRST_COMPLETED)
                stopped.cancel()
            except ConnectionClosed:
                pass
            finally:
                if not reader.done():
                    reader.cancel()
                await self.close(ws)
            if not self.stop.is_set():
                await asyncio.sleep(RETRY_SECONDS)

    async def churn(self, n: int, room_id: int, cookie: str) -> None:
        while not self.stop.is_set():
            ws = await self.open(n, room_id, cookie)
            if ws is None:
                await asyncio.sleep(CHURN_PAUSE_SECONDS)
                continue
            await self.close(ws)
            self.stats.cycles += 1


def close_code(exc: Exception | None, ws: Any = None) -> str:
    frame = getattr(exc, "rcvd", None) if exc is not None else getattr(ws, "close_rcvd", None)
    return str(frame.code) if frame is not None else "1006"


def sync_interval() -> float:
    """Seconds between a crowd socket's syncs: evenly spaced, just within the limit."""
    from django.conf import settings

    return 1.0 / (settings.DOBON_WS_MAX_MESSAGES_PER_SECOND * RATE_SHARE)


# -- cpu-matches: accounts, rooms and requests -----------------------------------------------


@dataclass
class MatchPlan:
    heavy: Account  # starts MATCHES_FROM_ONE_ACCOUNT matches
    heavy_rooms: list[int]
    spread: list[tuple[Account, int]]  # (account, its empty room): one match each
    clickers: list[Account]


def empty_room(owner: Any, name: str) -> int:
    """A room owned by `owner` with no members: a match fills every seat with CPUs."""
    from game.models import Room

    return int(Room.objects.create(name=name[:40], owner=owner, is_public=False).pk)


def plan_matches(accounts: list[Account], extra: list[Account]) -> MatchPlan:
    from django.conf import settings

    heavy = extra[0]
    rooms = [empty_room(heavy.user, f"attack-heavy-{i}") for i in range(MATCHES_FROM_ONE_ACCOUNT)]
    spread = [(a, empty_room(a.user, f"attack-spread-{i}"))
              for i, a in enumerate(extra[1:settings.DOBON_MATCHES_PER_SITE + 1])]
    return MatchPlan(heavy, rooms, spread, accounts)


def refusal_text(cookies: list[str], session_cookie: str) -> str:
    """Why a start was refused, as the person would read it: the message the redirect
    carries (the messages cookie) or the match form's error (kept in the session)."""
    from django.conf import settings
    from django.contrib.messages.storage.cookie import CookieStorage
    from django.contrib.sessions.backends.db import SessionStore

    cookie_name = getattr(settings, "MESSAGE_COOKIE_NAME", "messages")
    for raw in cookies:
        name, _, rest = raw.partition("=")
        if name.strip() == cookie_name:
            value = rest.split(";")[0].strip().strip('"')
            storage = CookieStorage(None)  # type: ignore[arg-type]  # decoding needs no request
            decoded = storage._decode(value)  # type: ignore[attr-defined]
            if decoded:
                return "; ".join(str(m) for m in decoded)
    key = session_cookie.partition("=")[2]
    form = SessionStore(session_key=key).get("match_form")  # game.views.rooms.MATCH_FORM
    return str(form.get("error", "")) if form else "(no message)"


async def start_matches(attacker: Attacker, plan: MatchPlan) -> None:
    """The matches one after another, as fast as the answers come."""
    from asgiref.sync import sync_to_async

    tries = [(plan.heavy, r) for r in plan.heavy_rooms] + plan.spread
    for n, (account, room_id) in enumerate(tries):
        if attacker.stop.is_set():
            return
        port = attacker.ports[n % len(attacker.ports)]
        address = attacker.addresses[n % len(attacker.addresses)]
        status, location, cookies = await asyncio.to_thread(
            stack.post_form, port, f"/rooms/{room_id}/match/", account.cookie, address,
            {"games": str(MATCH_GAMES), "cpu_level": "normal"})
        who = "one_account" if account is plan.heavy else "spread"
        if location.startswith("/matches/"):
            attacker.stats.requests[f"match_started_{who}"] += 1
        else:
            why = await sync_to_async(refusal_text)(cookies, account.cookie)
            attacker.stats.requests[f"match_refused_{who}: {why or status}"] += 1


async def click_play_now(attacker: Attacker, clickers: list[Account], count: int) -> None:
    """`count` clicks on "play now against CPU" at an even pace over CLICK_SECONDS."""
    from asgiref.sync import sync_to_async

    began = time.monotonic()

    async def click(n: int) -> None:
        account = clickers[n % len(clickers)]
        port = attacker.ports[n % len(attacker.ports)]
        address = attacker.addresses[n % len(attacker.addresses)]
        status, location, cookies = await asyncio.to_thread(
            stack.post_form, port, "/play/cpu/", account.cookie, address, {"level": "normal"})
        if location.startswith("/rooms/"):
            attacker.stats.requests["cpu_game_started"] += 1
        else:
            why = await sync_to_async(refusal_text)(cookies, account.cookie)
            attacker.stats.requests[f"cpu_game_refused: {why or status}"] += 1

    clicks = []
    for n in range(count):
        await asyncio.sleep(max(0.0, began + n * CLICK_SECONDS / count - time.monotonic()))
        if attacker.stop.is_set():
            break
        clicks.append(asyncio.ensure_future(click(n)))
    await asyncio.gather(*clicks, return_exceptions=True)
    attacker.stats.requests["clicks_sent"] = len(clicks)
    attacker.stats.requests["click_seconds"] = round(time.monotonic() - began)


def end_attack_games(users: list[Any]) -> dict[str, int]:
    """Stop the attackers' matches and abort their other running games (through the
    services, as their owners would): how many were still running."""
    from game.models import Game, Match
    from game.services import matches, play

    running = list(Match.objects.filter(status=Match.Status.RUNNING, started_by__in=users)
                   .select_related("room__owner"))
    for match in running:
        if match.room.owner is not None:
            matches.stop_match(match, match.room.owner)
    games = list(Game.objects.filter(status=Game.Status.RUNNING, room__owner__in=users)
                 .select_related("room__owner"))
    for game in games:
        try:
            play.abort_game(game, by=game.room.owner)
        except play.PlayError:
            pass  # it ended meanwhile
    return {"matches_running_at_end": len(running), "cpu_games_running_at_end": len(games)}


def attack_games(database_url: str, user_ids: list[int]) -> dict[int, int]:
    """Game id → version for games in rooms the attackers own."""
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT g.id, g.version FROM game_game g JOIN game_room r ON r.id = g.room_id "
            "WHERE r.owner_id = ANY(%s)", (user_ids,)).fetchall()
    return {int(g): int(v) for g, v in rows}


# -- the victim's newcomer probe ---------------------------------------------------------------


class Probe:
    """Opens a new socket into the victim room every PROBE_SECONDS and times it until
    its first frame (the issue saw new sockets wait 10–12 s behind a crowd). A probe
    belongs to the window it started in; one still waiting counts with its wait so far."""

    def __init__(self, port: int, room_id: int, cookie: str, address: str) -> None:
        self.port, self.room_id, self.cookie, self.address = port, room_id, cookie, address
        self.done: list[tuple[float, float]] = []  # (started, seconds until the first frame)
        self.failed: list[tuple[float, str]] = []  # (started, why)
        self.waiting_since: float | None = None
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.ensure_future(self.loop())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)

    def figures(self, since: float, until: float) -> dict[str, Any]:
        """The probes started in [since, until) (time.time() seconds)."""
        times = [t for at, t in self.done if since <= at < until]
        waiting = self.waiting_since
        still = waiting is not None and since <= waiting < until
        if still:
            assert waiting is not None
            times.append(time.time() - waiting)
        return {"connect_ms": summary_ms(times), "still_waiting": int(still),
                "failed": dict(Counter(why for at, why in self.failed if since <= at < until))}

    async def loop(self) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed, InvalidHandshake

        while True:
            began = time.time()
            self.waiting_since = began
            try:
                ws = await connect(f"ws://127.0.0.1:{self.port}/ws/rooms/{self.room_id}/",
                                   origin=f"http://127.0.0.1:{self.port}",  # type: ignore[arg-type]
                                   additional_headers=headers(self.cookie, self.address),
                                   max_size=2**22, open_timeout=60)
                try:
                    await asyncio.wait_for(ws.recv(), 60)
                    self.done.append((began, time.time() - began))
                finally:
                    self.waiting_since = None
                    await ws.close()
            except ConnectionClosed as exc:
                self.failed.append((began, close_code(exc)))
            except (OSError, InvalidHandshake, TimeoutError):
                self.failed.append((began, "no_handshake"))
            self.waiting_since = None
            await asyncio.sleep(max(0.0, began + PROBE_SECONDS - time.time()))


# -- the victim's CPU opponents ---------------------------------------------------------------


@dataclass
class CpuTablePlayer(Player):
    """A person playing against 3 CPUs (as "play now against CPU" seats them): besides
    playing, it times each CPU's answer, from a state whose turn is a CPU's to the next
    version. A CPU thinks 0.6–2 s on its turn (game/services/cpu.py, DELAY_TURN) before
    it is due; what an attack adds to that shows as the difference."""

    cpu_answers: list[tuple[float, float]] = field(default_factory=list)  # (asked, seconds)
    asked: tuple[int, int, float] | None = None  # game, version, arrival: a CPU on turn

    def on_state(self, message: dict[str, Any], now: float) -> None:
        super().on_state(message, now)
        game, version = message["game"], message["version"]
        if self.asked is not None and (game, version) > self.asked[:2]:
            self.cpu_answers.append((self.asked[2], now - self.asked[2]))
            self.asked = None
        view = message.get("view")
        if game is None or not view or message.get("status") != "running":
            return
        kinds = {p.get("seat"): p.get("kind") for p in message.get("players") or []}
        if kinds.get(view.get("turn")) == "cpu":
            self.asked = (game, version, now)

    def answers(self, since: float, until: float) -> dict[str, Any]:
        return summary_ms([t for at, t in self.cpu_answers if since <= at < until])


def cpu_table() -> tuple[Any, Any, str]:
    """A room of one signed-in person and 3 `normal` CPUs: (room, person, cookie)."""
    from game.models import Membership
    from game.services import rooms

    [(room, seated)] = stack.make_tables(1, timeout=10)
    Membership.objects.filter(room=room, seat_index__gt=0).delete()
    for index in range(1, 4):
        rooms.do_seat_cpu(room, index, "normal")
    user, cookie = seated[0]
    return room, user, cookie


async def seat_cpu_table(run: Run) -> CpuTablePlayer:
    """The CPU table's person connected and its first game started. Kept out of
    `run.players`: its actions would otherwise mix into the victim room's figures."""
    from asgiref.sync import sync_to_async

    from game.services import play

    room, user, cookie = await sync_to_async(cpu_table)()
    port = run.ports[0]
    address = room_address(len(run.room_ids) + 1000)  # apart from the counted rooms'
    player = CpuTablePlayer("cpu-table", room.pk, port, cookie, act=True,
                            think=run.args.think, gate=run.gate, address=address,
                            owner_start=run.starter(port, room.pk, cookie, address))
    run.tasks.append(asyncio.ensure_future(player.run(run.stop, run.rng)))
    end = time.monotonic() + 60
    while player.state is None and time.monotonic() < end:
        await asyncio.sleep(0.1)
    await sync_to_async(play.start_game)(room, user)
    return player


# -- the run ---------------------------------------------------------------------------------


def make_accounts(count: int) -> list[Account]:
    """`count` signed-in accounts, members (in fours) of rooms of their own."""
    tables = stack.make_tables((count + 3) // 4, timeout=10)
    return [Account(user, cookie, room.pk) for room, seated in tables
            for user, cookie in seated][:count]


Launcher = Callable[[Attacker], None]


def launcher(name: str, args: argparse.Namespace, accounts: list[Account],
             victim_room: int, plan: MatchPlan | None) -> Launcher:
    """What starting attack `name` does."""
    from django.conf import settings

    per_user = settings.DOBON_WS_MAX_SOCKETS_PER_USER

    def crowd(attacker: Attacker) -> None:
        interval = sync_interval()
        for n, i in enumerate(socket_spread(len(accounts), args.attack_sockets,
                                            len(accounts) * args.attack_sockets)):
            a = accounts[i]
            attacker.spawn(attacker.hold(n, a.room_id, a.cookie, interval))

    def watchers(attacker: Attacker) -> None:
        for n, i in enumerate(socket_spread(len(accounts), per_user, args.watchers)):
            attacker.spawn(attacker.hold(n, victim_room, accounts[i].cookie, None))

    def churn(attacker: Attacker) -> None:
        for n, a in enumerate(accounts):
            attacker.spawn(attacker.churn(n, a.room_id, a.cookie))

    def cpu_matches(attacker: Attacker) -> None:
        assert plan is not None
        attacker.spawn(start_matches(attacker, plan))  # both at once: one window
        attacker.spawn(click_play_now(attacker, plan.clickers, args.attack_clicks))

    return {"crowd": crowd, "watchers": watchers, "churn": churn,
            "cpu-matches": cpu_matches}[name]


async def measured(run: Run, probe: Probe, cpus: CpuTablePlayer,
                   rooms: int) -> dict[str, Any]:
    """One window of the victim: `Run.window`'s figures, the newcomer probe's, the CPU
    table's answers and this bench process's own CPU (the attacker's client competes
    for the same cores)."""
    own, began = os.times(), time.time()
    result = await run.window(rooms)
    after = os.times()
    result["victim_new_socket"] = probe.figures(began, time.time())
    result["victim_cpu_answer_ms"] = cpus.answers(began, time.time())
    result["bench_client_cpu_seconds"] = round(after.user + after.system
                                               - own.user - own.system, 2)
    result["cpu_percent_of_a_core_by_process"] = {
        k: round(v * 100 / max(result["seconds"], 0.1), 1)
        for k, v in result["cpu_seconds"].items()}
    return result


async def attacks(args: argparse.Namespace, procs: stack.Processes,
                  ports: list[int]) -> dict[str, Any]:
    """The victim, then for each attack a quiet window and a window under attack."""
    from asgiref.sync import sync_to_async
    from django.conf import settings

    began_load = load_average()
    run = Run(args, procs, ports)
    victim = (await run.add_rooms(1, idle=False, think=args.think))[0]
    if args.victim_idle_rooms:
        await run.add_rooms(args.victim_idle_rooms, idle=True)
    rooms = len(run.room_ids)
    cpus = await seat_cpu_table(run)
    accounts = await sync_to_async(make_accounts)(args.attack_accounts)
    plan = None
    if "cpu-matches" in args.attack:
        extra = await sync_to_async(make_accounts)(1 + settings.DOBON_MATCHES_PER_SITE)
        plan = await sync_to_async(plan_matches)(accounts, extra)
    attack_users = [a.user for a in accounts] + ([plan.heavy.user] + [a.user for a, _ in
                                                  plan.spread] if plan else [])
    owner = next(p for p in run.players if p.room == victim)
    probe = Probe(ports[0], victim, owner.cookie, owner.address or "")
    probe.start()
    await asyncio.sleep(args.think[1])  # the victim into its human rhythm
    out = []
    for name in args.attack:
        quiet = await measured(run, probe, cpus, rooms)
        print(f"{name}: without, victim p99 {quiet['delay_ms']['p99']} ms", flush=True)
        attacker = Attacker(ports, attacker_addresses(args.attack_addresses), asyncio.Event())
        games_before = await asyncio.to_thread(attack_games, args.database_url,
                                               [u.pk for u in attack_users])
        launcher(name, args, accounts, victim, plan)(attacker)
        loud = await measured(run, probe, cpus, rooms)
        games_after = await asyncio.to_thread(attack_games, args.database_url,
                                              [u.pk for u in attack_users])
        await attacker.finish()
        ended = await sync_to_async(end_attack_games)(attack_users)
        print(f"{name}: with, victim p99 {loud['delay_ms']['p99']} ms", flush=True)
        figures = attacker.stats.as_dict()
        figures.update(ended)
        figures["attack_versions_per_second"] = round(
            sum(v - games_before.get(g, -1) for g, v in games_after.items())
            / max(loud["seconds"], 0.1), 1)
        out.append({"attack": name, "addresses": args.attack_addresses,
                    "without": quiet, "with": loud, "attack_figures": figures})
        await asyncio.sleep(SETTLE_SECONDS)
    await probe.stop()
    if cpus.ws is not None:
        await cpus.ws.close()
    return {"victim": {"rooms_acting": 1, "rooms_idle": args.victim_idle_rooms,
                       "cpu_table": "1 person at the same pace, 3 normal CPUs",
                       "think": list(args.think)},
            "attack_accounts": args.attack_accounts, "attack_sockets": args.attack_sockets,
            "watchers": args.watchers, "attacks": out,
            "load_average": {"start": began_load, "end": load_average()},
            **await run.finish()}


def summary_line(entry: dict[str, Any]) -> str:
    """One printed line per attack: the victim's p99 without and with it."""
    w, x = entry["without"]["delay_ms"], entry["with"]["delay_ms"]
    return (f"{entry['attack']} ({entry['addresses']} address(es)): victim action → last socket "
            f"p50/p99/max {w['p50']}/{w['p99']}/{w['max']} ms (n {w['n']}) without, "
            f"{x['p50']}/{x['p99']}/{x['max']} ms (n {x['n']}) with; attacker "
            f"{json.dumps(entry['attack_figures'], ensure_ascii=False)}")
