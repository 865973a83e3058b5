"""make deploy-check's driver (deploy/check/run starts it inside the client namespace
after topology.sh made the hosts). It builds the topology of docs/deploy.md, plays
through the edge while the processes are restarted and killed, and says what held.

Every check is a `Check`: passed, failed, or "waiting for <feature>" when the feature it
needs is not in this tree yet (features.py) — and a waiting check that passes anyway is
a failure, because a check that cannot fail against the missing feature checks nothing.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import features  # noqa: E402
from hosts import ADDRESS, DAPHNE_PORTS, NAME, ROOT, WORK, Process, Site, wait_port  # noqa: E402
from players import Player  # noqa: E402
from units import read_unit  # noqa: E402
from web import Browser, tls_context  # noqa: E402

OUT = Path(os.environ.get("DEPLOY_CHECK_OUT", "/tmp/dobon-deploy-check-last"))
ACTIVE_ROOMS = 4  # rooms of four players acting at once
USERS = 8  # each sits in two of the active rooms
IDLE_TIMEOUT = 5  # the idle room's seats are played by the clock only
CLOCK_TAKEOVER = 30.0  # issue #30: the standby beat takes over within 30 s
RESTART_SPACING = 6.0  # nginx's fail_timeout (5 s, deploy/nginx/dobon.conf) and a second


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    waiting_for: str | None = None  # a feature not in this tree yet
    # Without its feature this check must fail (it tells the feature's absence apart);
    # False for one that today's code passes by luck in some runs (a quick exit).
    strict: bool = True

    def line(self) -> str:
        if self.waiting_for and not self.ok:
            return f"  WAITING {self.name}: waiting for {self.waiting_for} ({self.detail})"
        if self.waiting_for and self.ok and not self.strict:
            return f"  ok      {self.name}: {self.detail} (before {self.waiting_for})"
        if self.waiting_for and self.ok:
            return (f"  FAIL    {self.name}: passes though {self.waiting_for} is not here: "
                    f"this check cannot tell ({self.detail})")
        return f"  {'ok  ' if self.ok else 'FAIL'}    {self.name}: {self.detail}"

    @property
    def failed(self) -> bool:
        return (not self.ok and not self.waiting_for) or (
            self.ok and bool(self.waiting_for) and self.strict)


@dataclass
class Run:
    site: Site = field(default_factory=Site)
    checks: list[Check] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
    started_wall: float = field(default_factory=time.time)
    steps: list[str] = field(default_factory=list)

    def say(self, text: str) -> None:
        stamp = f"{time.monotonic() - self.started:6.1f}s"
        self.steps.append(f"{stamp} {text}")
        print(f"[deploy-check {stamp}] {text}", flush=True)

    def check(self, name: str, ok: bool, detail: str, feature: str | None = None,
              strict: bool = True) -> bool:
        """Record a check; `feature`: the features.py name it needs."""
        waiting = features.missing(feature) if feature else None
        item = Check(name, ok, detail, waiting, strict)
        self.checks.append(item)
        print(item.line(), flush=True)
        return ok


# --- static checks of the files -------------------------------------------------------
def verify_units(run: Run) -> None:
    """systemd-analyze verify on copies of the units with this machine's paths (verify
    wants ExecStart's program to exist)."""
    if shutil.which("systemd-analyze") is None:
        run.check("systemd-analyze verify", False, "systemd-analyze is not installed")
        return
    with tempfile.TemporaryDirectory() as tmp:
        names = []
        for path in sorted((ROOT / "deploy" / "systemd").glob("dobon*.[st]*[et]")):
            text = path.read_text().replace("/srv/dobon", str(ROOT))
            target = path.name.replace("@.service", "@8001.service")
            (Path(tmp) / path.name).write_text(text)
            (Path(tmp) / target).write_text(text)
            names.append(str(Path(tmp) / target))
        done = subprocess.run(["systemd-analyze", "verify", *names], text=True,
                              capture_output=True)
        said = (done.stdout + done.stderr).strip()
        run.check("systemd-analyze verify deploy/systemd/*", done.returncode == 0 and not said,
                  said[:400] or f"{len(names)} units, no complaint")
    env = (ROOT / "deploy" / "dobon.env.example").read_text()
    shutdown = features.env_default("DOBON_SHUTDOWN_SECONDS", env, 10.0)
    for name in ("dobon-daphne@.service", "dobon-worker.service", "dobon-beat.service"):
        unit = read_unit(name)
        run.check(f"{name} TimeoutStopSec above the drain",
                  unit.timeout_stop_seconds > shutdown and unit.kill_signal == "SIGTERM",
                  f"KillSignal={unit.kill_signal} TimeoutStopSec={unit.timeout_stop_seconds:g}"
                  f" > DOBON_SHUTDOWN_SECONDS={shutdown:g}")


# --- the topology ---------------------------------------------------------------------
def build(run: Run) -> tuple[dict[str, dict[str, str]], Path]:
    site = run.site
    site.choose_user()
    for note in site.notes:
        run.say(note)
    ca = site.make_certificates()
    run.say("test CA and a certificate for dobon.test made (openssl, ECDSA P-256, 90 days)")
    site.start_postgres()
    site.start_redis()
    run.say(f"data host {ADDRESS['data']}: PostgreSQL (own cluster, scram-sha-256) and Redis "
            "(password) up")
    extra = check_only_settings()
    envs = {host: site.host_env(host, extra) for host in ("app1", "app2", "beat")}
    site.manage(envs["app1"], "migrate", "--noinput")
    site.manage(envs["app1"], "collectstatic", "--noinput")
    run.say("manage.py migrate and collectstatic from app1 (as docs/deploy.md's upgrade step)")
    for host in ("app1", "app2"):
        for port in DAPHNE_PORTS:
            site.from_unit(host, "dobon-daphne@.service", port, envs[host],
                           f"daphne-{port}").start()
        site.from_unit(host, "dobon-worker.service", "", envs[host], "worker").start()
    site.from_unit("beat", "dobon-beat.service", "", envs["beat"], "beat").start()
    for host in ("app1", "app2"):
        for port in DAPHNE_PORTS:
            wait_port(ADDRESS[host], int(port), 60)
    # The standby beat starts after the first one holds the clock.
    time.sleep(3)
    site.from_unit("app2", "dobon-beat.service", "", envs["app2"], "beat-standby").start()
    upstreams = [f"{ADDRESS[h]}:{p}" for h in ("app1", "app2") for p in DAPHNE_PORTS]
    site.start_edge(upstreams)
    run.say(f"edge {ADDRESS['edge']}: nginx with deploy/nginx/dobon.conf, "
            f"upstream {', '.join(upstreams)}")
    run.say("app1/app2: 2 daphnes + 1 worker each; beat host: beat; app2: a second beat "
            "(standby); all started from the units' ExecStart lines")
    return envs, ca


def check_only_settings() -> dict[str, str]:
    """The check's additions to the example environment file, each for a reason: the
    players all come from the client host's one address (ten sign-ups an hour per
    address would stop them), CPU players think at a quarter of their pace (the
    Chromium game stays short), and the metrics may be read from the client host."""
    return {"DOBON_SIGNUP_LIMIT": "100", "DOBON_CPU_DELAY_PERCENT": "25",
            "DOBON_METRICS_ALLOWED": f"127.0.0.0/8,::1,{ADDRESS['client']}"}


# --- people ---------------------------------------------------------------------------
def sign_up(run: Run, ca: Path, count: int) -> list[Browser]:
    browsers = []
    for n in range(count):
        browser = Browser(NAME, ADDRESS["edge"], tls_context(str(ca)))
        password = f"deploy-check-{os.urandom(6).hex()}"
        answer = browser.post_form("/signup/", {
            "username": f"player{n + 1}", "email": "", "password1": password,
            "password2": password})
        if answer.status != 302 or "sessionid" not in browser.cookies:
            raise AssertionError(f"sign-up of player{n + 1}: {answer.status} {answer.body[:300]}")
        browsers.append(browser)
    return browsers


def create_room(browser: Browser, name: str, timeout: int) -> int:
    answer = browser.post_form("/rooms/new/", {
        "name": name, "game_kind": "dobon_uno", "seat_count": "4",
        "timeout_seconds": str(timeout), "is_public": "on"})
    location = answer.header("Location")
    if answer.status != 302 or "/rooms/" not in location:
        raise AssertionError(f"room creation: {answer.status} {answer.body[:300]}")
    return int(location.rstrip("/").rsplit("/", 1)[1])


def take_seat(browser: Browser, room: int) -> None:
    answer = browser.post_form(f"/rooms/{room}/seat/", {}, form_page=f"/rooms/{room}/")
    if answer.status != 302:
        raise AssertionError(f"seat in room {room}: {answer.status}")


def start_game(browser: Browser, room: int) -> int:
    answer = browser.post_form(f"/rooms/{room}/start/", {}, form_page=f"/rooms/{room}/")
    return answer.status


def edge_basics(run: Run, browser: Browser) -> None:
    """What the edge itself must do (deploy/nginx/dobon.conf)."""
    import http.client
    plain = http.client.HTTPConnection(ADDRESS["edge"], 80, timeout=10)
    plain.request("GET", "/rooms/?x=1", headers={"Host": NAME})
    answer = plain.getresponse()
    plain.close()
    run.check("HTTP -> HTTPS", answer.status == 301
              and answer.getheader("Location") == f"https://{NAME}/rooms/?x=1",
              f"{answer.status} {answer.getheader('Location')}")
    plain = http.client.HTTPConnection(ADDRESS["edge"], 80, timeout=10)
    plain.request("GET", "/", headers={"Host": "evil.example"})
    try:
        other = str(plain.getresponse().status)
    except (http.client.RemoteDisconnected, ConnectionError):
        other = "closed"
    run.check("other Host names unanswered", other == "closed", f"Host: evil.example -> {other}")
    page = browser.get("/")
    hsts = page.header("Strict-Transport-Security")
    run.check("HSTS once, two years", hsts == "max-age=63072000"
              and len(page.headers.get_all("Strict-Transport-Security") or []) == 1, hsts)
    run.check("no server tokens", page.header("Server") == "nginx", page.header("Server"))
    metrics = browser.get("/metrics")
    run.check("/metrics closed at the edge", metrics.status == 404, f"{metrics.status}")


def static_file(run: Run, browser: Browser) -> None:
    import re
    page = Browser(NAME, ADDRESS["edge"], browser.context).get("/")  # signed out: the landing page
    found = re.search(r'(/static/[^"\']+\.(?:css|js))', page.body)
    if not found:
        run.check("static files through the edge", False, f"no /static/ link on / ({page.status})")
        return
    answer = browser.get(found.group(1))
    run.check("static files through the edge (WhiteNoise)", answer.status == 200
              and "max-age" in answer.header("Cache-Control"),
              f"{found.group(1)} {answer.status} Cache-Control: {answer.header('Cache-Control')}")


# --- the game phase -------------------------------------------------------------------
@dataclass
class Tables:
    rooms: list[int]
    idle_room: int
    owners: dict[int, Browser]
    players: list[Player]
    keep_playing: bool = True
    starts: dict[int, int] = field(default_factory=dict)


async def play_and_disrupt(run: Run, tables: Tables, envs: dict[str, dict[str, str]]) -> None:
    stop = asyncio.Event()
    tasks = [asyncio.create_task(p.run(stop)) for p in tables.players]
    await asyncio.sleep(3)  # every socket has its table
    for room in [*tables.rooms, tables.idle_room]:
        status = await asyncio.to_thread(start_game, tables.owners[room], room)
        if status != 302:
            raise AssertionError(f"start in room {room}: {status}")
    run.say(f"games started in {len(tables.rooms)} rooms of four websocket players and one "
            "idle room (its seats played by the clock)")
    await asyncio.sleep(8)
    await rolling_restart(run)
    await asyncio.sleep(5)
    await kill_app_host(run, "app1", envs)
    await asyncio.sleep(5)
    await kill_beat(run, tables)
    await redis_outage(run)
    await asyncio.sleep(5)
    tables.keep_playing = False
    run.say("no new games from now on; waiting for the running ones to end")
    await wait_games_over(run, tables, 180)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)


async def rolling_restart(run: Run) -> None:
    """Every daphne in turn: the unit's KillSignal, wait for the exit (TimeoutStopSec),
    start it again, wait until it listens, then the next."""
    took = []
    codes = []
    for process in [p for p in run.site.processes if p.name.startswith("daphne-")]:
        seconds_taken, code = await asyncio.to_thread(process.stop)
        took.append(seconds_taken)
        codes.append(code)
        process.start()
        await asyncio.to_thread(wait_port, ADDRESS[process.host], int(process.name[7:]), 60)
        # docs/deploy.md: wait nginx's fail_timeout (5 s) before the next daphne, so that
        # at most one server is marked down at a time.
        await asyncio.sleep(RESTART_SPACING)
    run.figures["daphne_stop_seconds"] = [round(t, 2) for t in took]
    run.say(f"rolling restart of {len(took)} daphnes done "
            f"(stop took {run.figures['daphne_stop_seconds']} s)")
    shutdown = features.env_default(
        "DOBON_SHUTDOWN_SECONDS", (ROOT / "deploy/dobon.env.example").read_text(), 10.0)
    run.check("every daphne exits on SIGTERM within DOBON_SHUTDOWN_SECONDS",
              all(t <= shutdown + 1 for t in took),
              f"stop times {run.figures['daphne_stop_seconds']} s, exit codes {codes}",
              feature="drain", strict=False)


async def kill_app_host(run: Run, host: str, envs: dict[str, dict[str, str]]) -> None:
    killed = run.site.kill_host(host)
    run.say(f"kill -9 of every process on {host} ({len(killed)} processes)")
    await asyncio.sleep(3)
    for process in [p for p in run.site.processes if p.host == host]:
        process.start()  # systemd's Restart=always (or the host back from a reboot)
    for port in DAPHNE_PORTS:
        await asyncio.to_thread(wait_port, ADDRESS[host], int(port), 60)
    run.say(f"{host}'s daphnes and worker started again")


def clock_holder(run: Run) -> Process | None:
    """The beat whose log last said it holds the clock (features.py knows the words)."""
    beats = [p for p in run.site.processes if p.name.startswith("beat") and p.alive()]
    holders = [p for p in beats if features.holds_clock(p.log_text(20000))]
    return holders[0] if len(holders) == 1 else None


async def kill_beat(run: Run, tables: Tables) -> None:
    holder = clock_holder(run)
    beats = [p for p in run.site.processes if p.name.startswith("beat")]
    if holder is None:
        holder = beats[0]  # without the lock both sweep; kill the first as the holder
    run.check("exactly one beat says it holds the clock", clock_holder(run) is not None,
              "logs of " + ", ".join(f"{p.host}/{p.name}" for p in beats), feature="clock_lock")
    standby = next(p for p in beats if p is not holder)
    before = await asyncio.to_thread(room_version, run, tables.idle_room)
    if holder.host == "beat":
        run.site.kill_host("beat")  # the whole host: its one process
    else:
        assert holder.popen is not None
        os.killpg(holder.popen.pid, 9)
        holder.popen.wait(10)
    killed_at = time.monotonic()
    run.say(f"kill -9 of the clock's holder ({holder.host}/{holder.name}); "
            f"standby {standby.host}/{standby.name}")
    took_over = None
    advanced = None
    while time.monotonic() - killed_at < CLOCK_TAKEOVER + IDLE_TIMEOUT + 10:
        if took_over is None and features.holds_clock(standby.log_text(20000)):
            took_over = time.monotonic() - killed_at
        now_at = await asyncio.to_thread(room_version, run, tables.idle_room)
        if advanced is None and now_at > before:
            advanced = time.monotonic() - killed_at
        if advanced is not None and (took_over is not None or features.missing("clock_lock")):
            break
        await asyncio.sleep(0.5)
    run.figures["clock_takeover_seconds"] = took_over
    run.check("the standby beat takes the clock within 30 s",
              took_over is not None and took_over <= CLOCK_TAKEOVER,
              f"took over after {took_over if took_over is None else round(took_over, 1)} s",
              feature="clock_lock")
    # systemd brings the killed beat back (Restart=always): now it must stand by.
    holder.start()
    back = time.monotonic()
    while time.monotonic() - back < 15 and not features.stands_by(holder.log_text(4000)):
        await asyncio.sleep(0.5)
    restarted_said = features.clock_said(holder.log_text(4000))
    standby_said = features.clock_said(standby.log_text(20000))
    run.check("the killed beat, started again, stands by",
              restarted_said in {"stands by", "standing by"} and standby_said == "holds the clock",
              f"{holder.host}/{holder.name} last said {restarted_said!r}; "
              f"{standby.host}/{standby.name} {standby_said!r}", feature="clock_lock")
    run.check("timeouts keep being applied after the holder's kill -9",
              advanced is not None and advanced <= CLOCK_TAKEOVER + IDLE_TIMEOUT + 5,
              f"the idle room moved {advanced if advanced is None else round(advanced, 1)} s "
              "after the kill")


async def redis_outage(run: Run) -> None:
    browser = Browser(NAME, ADDRESS["edge"], tls_context(str(WORK / "tls" / "ca.pem")))
    redis = run.site.redis()
    before = await asyncio.to_thread(browser.get, "/readyz")
    await asyncio.to_thread(redis.stop)
    run.say("Redis on the data host stopped")
    await asyncio.sleep(3)
    during = await asyncio.to_thread(browser.get, "/readyz")
    body = during.body[:200].replace("\n", " ")
    await asyncio.sleep(2)
    await asyncio.to_thread(run.site.start_redis)
    run.say("Redis started again")
    after = None
    start = time.monotonic()
    while time.monotonic() - start < 30:
        after = await asyncio.to_thread(browser.get, "/readyz")
        if after.status not in (502, 503):  # 200, or no /readyz at all (404)
            break
        await asyncio.sleep(1)
    assert after is not None
    run.check("/readyz 503 while Redis is down, 200 after",
              before.status == 200 and during.status == 503 and "redis" in during.body
              and after.status == 200,
              f"before {before.status}, during {during.status} {body!r}, after {after.status} "
              f"({time.monotonic() - start:.1f} s)", feature="health")


async def wait_games_over(run: Run, tables: Tables, limit: float) -> None:
    start = time.monotonic()
    while time.monotonic() - start < limit:
        running = await asyncio.to_thread(running_games, run, tables)
        if not running:
            run.say(f"every game over ({time.monotonic() - start:.0f} s)")
            return
        await asyncio.sleep(1)
    run.check("every game ends", False, f"still running after {limit} s: {running}")


# --- the database, read from the client host like an operator's psql ------------------
def query(run: Run, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    import psycopg
    with psycopg.connect(run.site.database_url.replace("postgres://", "postgresql://"),
                         connect_timeout=10) as connection:
        return connection.execute(sql, args).fetchall()


def room_version(run: Run, room: int) -> int:
    rows = query(run, "SELECT coalesce(max(id), 0), coalesce(sum(version), 0) FROM game_game "
                      "WHERE room_id = %s", room)
    return int(rows[0][1])


def running_games(run: Run, tables: Tables) -> list[int]:
    rows = query(run, "SELECT id FROM game_game WHERE room_id = ANY(%s) AND status = 'running'",
                 tables.rooms)
    return [r[0] for r in rows]


def judge_games(run: Run, tables: Tables) -> None:
    # Public versions: what the clients count (a seat's private answer keeps the version:
    # docs/protocol.md, "Versions and private answers").
    games = query(run, "SELECT g.id, g.room_id, g.public_version, g.status, "
                       "(SELECT min(public_version) FROM game_gameevent e "
                       " WHERE e.game_id = g.id), "
                       "(SELECT data FROM game_gameevent e WHERE e.game_id = g.id AND "
                       " e.data->>'type' = 'finished' ORDER BY seq DESC LIMIT 1), "
                       "(SELECT extract(epoch FROM max(created_at)) FROM game_gameevent e "
                       " WHERE e.game_id = g.id) "
                       "FROM game_game g WHERE g.room_id = ANY(%s) ORDER BY g.id", tables.rooms)
    lost = 0
    lost_detail = []
    winners_bad = []
    finished = 0
    for game, room, version, status, first, result_event, last_at in games:
        seats = [p for p in tables.players if p.room == room]
        for player in seats:
            seen = player.covered.get(game, set())
            missing = set(range(first or 1, version + 1)) - seen
            if missing:
                lost += len(missing)
                # Versions that never reached the seat, not even through its resuming
                # sync (which brings a game that ended meanwhile too: play.tables_for).
                # When the game ended, on the run's clock, to set beside the steps.
                when = f"{float(last_at) - run.started_wall:.1f}s" if last_at else "?"
                never_saw_end = min(missing) > max(seen, default=0)
                tail = " (the seat never saw the end)" if never_saw_end else ""
                lost_detail.append(f"game {game} {player.label}: {sorted(missing)[:8]}, "
                                   f"the game {status} at {when}{tail}")
        if status != "finished":
            continue
        finished += 1
        result = (result_event or {}).get("result") or {}
        # Every seat's socket was given the settlement the database holds.
        stored = json.dumps(result, sort_keys=True)
        given = {json.dumps(p.finished.get(game), sort_keys=True) for p in seats}
        if given != {stored} or not winners_follow_rules(result):
            winners_bad.append(f"game {game}: {result.get('kind')} "
                               f"winners {result.get('winners')}, "
                               f"deltas {result.get('deltas')}; "
                               f"{sum(p.finished.get(game) != result for p in seats)} of "
                               f"{len(seats)} seats were not given it")
    run.figures["games_finished"] = finished
    run.figures["lost_moves"] = lost
    run.check("whole games played", finished >= len(tables.rooms) * 2,
              f"{finished} games finished in {len(tables.rooms)} rooms, "
              f"{sum(g[2] for g in games)} versions")
    run.check("no lost move: every committed version reached every seat's socket", lost == 0,
              f"{lost} missing" + (": " + "; ".join(lost_detail[:10]) if lost_detail else ""))
    run.check("one settlement per game, winners as R11 has them, the same at every seat",
              not winners_bad,
              "; ".join(winners_bad[:5]) or f"{finished} games")


def winners_follow_rules(result: dict[str, Any]) -> bool:
    """One settlement per game, its winners as RULES.md has them: agari (§R11.1) and a
    dobon return (§R11.3) one winner, a dobon (§R11.2) each declarer, a deck-out none;
    the deltas sum to zero."""
    count = len(result.get("winners") or [])
    wanted = {"agari": count == 1, "return": count == 1, "dobon": count >= 1,
              "deck_out": count == 0}
    return bool(wanted.get(result.get("kind", ""))) and sum(result.get("deltas") or [1]) == 0


def spread(seconds_list: list[float]) -> dict[str, int]:
    ordered = sorted(seconds_list)
    return {"p50": round(statistics.median(ordered) * 1000),
            "p99": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000),
            "max": round(ordered[-1] * 1000), "count": len(ordered)}


def judge_sockets(run: Run, tables: Tables) -> None:
    closes = [c for p in tables.players for c in p.closes]
    back = [c.back_at - c.at for c in closes if c.back_at is not None]
    never = [p.label for p in tables.players for c in p.closes if c.back_at is None]
    run.figures["socket_closes"] = len(closes)
    run.figures["close_codes"] = sorted({str(c.code) for c in closes})
    if back:
        run.figures["reconnect_ms"] = spread(back)
    for code in sorted({c.code for c in closes}, key=str):
        of_code = [c.back_at - c.at for c in closes if c.code == code and c.back_at is not None]
        if of_code:
            label = code or "1006 (no close frame)"
            run.figures[f"reconnect_ms after close code {label}"] = spread(of_code)
    run.check("every socket back with its state after every close", not never and bool(closes),
              f"{len(closes)} closes, {len(back)} back"
              + (f"; never back: {never[:6]}" if never else ""))
    restart_codes = {c.code for c in closes}
    run.check("sockets closed by a restart get 1012", 1012 in restart_codes,
              f"close codes seen: {sorted(str(c) for c in restart_codes)}", feature="drain")


def socket_moves(text: str) -> float:
    """The sum of dobon_moves_total{by="socket"} in a /metrics answer."""
    import re
    return sum(float(v) for v in re.findall(
        r'^dobon_moves_total\{[^}]*by="socket"[^}]*\} ([0-9.e+]+)$', text, re.M))


def scrape_metrics(run: Run) -> None:
    """Prometheus' view: each app host scraped directly on the private network (the
    client's address is in DOBON_METRICS_ALLOWED), any daphne of a host giving the host's
    sum (multiprocess mode), and nothing through the edge (edge_basics)."""
    import urllib.request
    figures = {}
    for host in ("app1", "app2"):
        for port in DAPHNE_PORTS:
            try:
                with urllib.request.urlopen(f"http://{ADDRESS[host]}:{port}/metrics",
                                            timeout=10) as answer:
                    figures[f"{host}:{port}"] = socket_moves(answer.read().decode())
            except OSError as exc:
                figures[f"{host}:{port}"] = -1.0
                run.say(f"/metrics on {host}:{port}: {exc}")
    run.figures["socket_moves_per_host_metrics"] = figures
    per_host = [(figures[f"{h}:{DAPHNE_PORTS[0]}"], figures[f"{h}:{DAPHNE_PORTS[1]}"])
                for h in ("app1", "app2")]
    run.check("/metrics per host: the same sum from either daphne, moves counted",
              all(a == b and a > 0 for a, b in per_host), f"{figures}", feature="metrics")


# --- Chromium and sslyze ------------------------------------------------------------------
def chromium_game(run: Run, ca: Path, result: dict[str, Any]) -> None:
    try:
        import chromium_game as game
        result.update(game.play(run, NAME, ADDRESS["edge"]))
    except Exception as exc:  # reported as a failed check, never raised in the thread
        result["error"] = f"{type(exc).__name__}: {exc}"[:500]


def sslyze_edge(run: Run) -> None:
    import sslyze_check
    ca = WORK / "tls" / "ca.pem"
    ok, detail = sslyze_check.scan(NAME, ADDRESS["edge"], ca)
    run.check("sslyze --mozilla_config=intermediate against the edge", ok, detail)
    for label, ok, detail in sslyze_check.probes(NAME, ADDRESS["edge"], ca):
        run.check(f"TLS profile: {label}", ok, detail)


# --- the whole run ----------------------------------------------------------------------
def main() -> int:
    run = Run()
    tables: Tables | None = None
    (WORK / "logs").mkdir(parents=True, exist_ok=True)
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    run.say("hosts: " + ", ".join(f"{h} {a}" for h, a in ADDRESS.items()) + " on bridge dobon-br0")
    verify_units(run)
    try:
        envs, ca = build(run)
        browsers = sign_up(run, ca, USERS + 1)
        run.say(f"{len(browsers)} people signed up through the edge (https, CSRF)")
        edge_basics(run, browsers[0])
        static_file(run, browsers[0])
        tables = seat_people(run, browsers)
        browser_result: dict[str, Any] = {}
        thread = threading.Thread(target=chromium_game, args=(run, ca, browser_result))
        thread.start()
        asyncio.run(play_and_disrupt(run, tables, envs))
        thread.join(240)
        run.check("a whole game in Chromium through the edge", browser_result.get("ok") is True,
                  browser_result.get("detail") or browser_result.get("error") or "no result")
        judge_games(run, tables)
        judge_sockets(run, tables)
        scrape_metrics(run)
        sslyze_edge(run)
    except Exception as exc:  # noqa: BLE001 (reported, then the logs)
        run.check("the run itself", False, f"{type(exc).__name__}: {exc}"[:1500])
        for process in run.site.processes:
            print(f"--- {process.host}/{process.name} (last lines)\n{process.log_text(1500)}")
    keep_artifacts(run, tables)
    return report(run)


def seat_people(run: Run, browsers: list[Browser]) -> Tables:
    owners: dict[int, Browser] = {}
    rooms = []
    people = browsers[:USERS]
    ca = str(WORK / "tls" / "ca.pem")
    players: list[Player] = []
    seatings: list[tuple[int, list[int]]] = []
    for r in range(ACTIVE_ROOMS):
        members = [(r * 2 + k) % USERS for k in range(4)]  # each user in two rooms
        room = create_room(people[members[0]], f"check {r + 1}", 15)
        for m in members[1:]:
            take_seat(people[m], room)
        owners[room] = people[members[0]]
        rooms.append(room)
        seatings.append((room, members))
    idle_owner = browsers[USERS]
    idle_room = create_room(idle_owner, "check idle", IDLE_TIMEOUT)
    for m in (1, 3, 5):
        take_seat(people[m], idle_room)
    owners[idle_room] = idle_owner
    tables = Tables(rooms, idle_room, owners, players)

    async def next_game(player: Player, game: int) -> None:
        if tables.keep_playing and player.seat == 0 and tables.starts.get(player.room) != game:
            tables.starts[player.room] = game
            await asyncio.to_thread(start_game, owners[player.room], player.room)

    for room, members in seatings:
        for seat, m in enumerate(members):
            players.append(Player(f"room{room}/player{m + 1}", room, seat,
                                  people[m].cookie_header(),
                                  ADDRESS["edge"], NAME, tls_context(ca), on_finished=next_game))
    run.say(f"{ACTIVE_ROOMS} rooms created and seated through the edge; idle room {idle_room}")
    return tables


def keep_artifacts(run: Run, tables: Tables | None) -> None:
    """The processes' logs and what every socket saw, kept after the teardown (which
    removes WORK) in OUT, for the one who reads a failed run."""
    if (WORK / "logs").exists():
        shutil.copytree(WORK / "logs", OUT / "logs")
    for name in ("access.log", "error.log"):
        if (WORK / "edge" / name).exists():
            shutil.copy(WORK / "edge" / name, OUT / "logs" / f"edge-nginx-{name}")
    if tables is not None:
        sockets = [{"label": p.label, "room": p.room, "closes": [vars(c) for c in p.closes],
                    "versions": {g: sorted(v) for g, v in p.covered.items()},
                    "finished": p.finished, "errors": p.errors[-20:]} for p in tables.players]
        (OUT / "sockets.json").write_text(json.dumps(sockets, indent=1))
    (OUT / "report.txt").write_text("\n".join(c.line() for c in run.checks) + "\n")


def report(run: Run) -> int:
    failed = [c for c in run.checks if c.failed]
    waiting = [c for c in run.checks if c.waiting_for and not c.ok]
    elapsed = time.monotonic() - run.started
    load = os.getloadavg()
    print("\n=== deploy check: what it did ===")
    for step in run.steps:
        print("  " + step)
    print("=== checks ===")
    for check in run.checks:
        print(check.line())
    print("=== figures ===")
    for key, value in run.figures.items():
        print(f"  {key}: {value}")
    print(f"  run time: {elapsed:.0f} s; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"=== {len(run.checks) - len(failed) - len(waiting)} passed, {len(failed)} failed, "
          f"{len(waiting)} waiting for features not in this tree ===")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
