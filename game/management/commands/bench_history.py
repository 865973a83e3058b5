"""Time the match-history pages on a big history: `manage.py bench_history`.

Creates its own database (the configured one's name + "_bench", dropped afterwards
unless --keep), fills it in bulk with a room of --games finished games played by four
people (so one of them has that many games too), plus --leaders ranked players, one
real game played through the service layer for the game page, and a finished match of
--match-games games (each a copy of that real game, events included); then requests each
page --repeat times through Django's test client and prints the server time (wall and
CPU, median and worst) and the number of queries per page, and for the match's pages the
peak memory a request allocates (tracemalloc, one extra request each).
"""

from __future__ import annotations

import os
import random
import statistics
import time
import tracemalloc
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

BATCH = 2000


class Command(BaseCommand):
    help = "Measure the history pages on a room and a player with many games."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--games", type=int, default=10_000)
        parser.add_argument("--leaders", type=int, default=1_000)
        parser.add_argument("--match-games", type=int, default=1_000)
        parser.add_argument("--repeat", type=int, default=30)
        parser.add_argument("--keep", action="store_true", help="keep the bench database")

    def handle(self, *args: Any, **options: Any) -> None:
        db = settings.DATABASES["default"]
        bench_name = f"{db['NAME']}_bench" if connection.vendor != "sqlite" else None
        db.setdefault("TEST", {})["NAME"] = bench_name
        old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
        settings.DEBUG = False
        try:
            self.stdout.write(f"database: {connection.vendor} {connection.settings_dict['NAME']}")
            started = time.perf_counter()
            fixtures = build(options["games"], options["leaders"], options["match_games"])
            analyze()
            self.stdout.write(f"built in {time.perf_counter() - started:.1f} s: "
                              f"{options['games']} games, {options['leaders']} ranked players")
            self.report(fixtures, options["repeat"])
        finally:
            if not options["keep"]:
                connection.creation.destroy_test_db(old_name, verbosity=0)

    def report(self, fixtures: dict[str, Any], repeat: int) -> None:
        client = Client()
        client.force_login(fixtures["viewer"])
        room, game = fixtures["room"], fixtures["game"]
        pages = [
            ("room history, page 1", reverse("game:room_history", args=[room.pk])),
            ("room history, page 200", reverse("game:room_history", args=[room.pk]) + "?page=200"),
            ("room page (standings)", room.get_absolute_url()),
            ("profile of the 10k-game player", reverse("accounts:profile", args=["alice"])),
            ("leaderboard", reverse("game:leaderboard")),
            (f"game page ({game.event_count} events)", game.get_absolute_url()),
            ("game JSON log", reverse("game:game_json", args=[game.pk])),
        ]
        match = fixtures["match"]
        match_pages = [
            (f"match page ({match.games_total} games)", match.get_absolute_url()),
            ("match page, live part", match_live_url(match)),
            ("match log (JSON, streamed)", reverse("game:match_log", args=[match.pk])),
        ]
        pages += match_pages
        self.stdout.write(f"load average before: {os.getloadavg()[0]:.1f}")
        self.stdout.write(f"{'page':34} {'wall p50':>9} {'wall max':>9} {'CPU p50':>8} "
                          f"{'SQL p50':>8} {'queries':>8}")
        for name, url in pages:
            wall, cpu, sql, queries = measure(client, url, repeat)
            self.stdout.write(
                f"{name:34} {statistics.median(wall):8.1f}ms {max(wall):8.1f}ms "
                f"{statistics.median(cpu):7.1f}ms {statistics.median(sql):7.1f}ms {queries:8d}"
            )
        self.stdout.write(f"load average after: {os.getloadavg()[0]:.1f} "
                          "(wall time includes waiting for a core; CPU is this process's)")
        self.stdout.write("peak memory allocated by one request (tracemalloc):")
        for name, url in match_pages:
            self.stdout.write(f"{name:34} {peak_mib(client, url):7.1f} MiB")
        if connection.vendor == "postgresql":
            self.stdout.write("PostgreSQL's own time per page (EXPLAIN ANALYZE of each query):")
            for name, url in pages[:-len(match_pages)]:
                self.stdout.write(f"{name:34} {explain_ms(client, url):7.2f}ms")


class SqlTimer:
    """Wall time spent inside the database driver (PostgreSQL's work plus the round trip)."""

    def __init__(self) -> None:
        self.spent = 0.0

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.spent += time.perf_counter() - started


def fetch(client: Client, url: str) -> Any:
    """A whole response, a streamed one read to its end as a browser would."""
    response = client.get(url)
    if getattr(response, "streaming", False):
        response.content_length = sum(len(chunk) for chunk in response.streaming_content)
    return response


def match_live_url(match: Any) -> str:
    """What static/js/match_live.js asks for every 3 s (its last game, when it says)."""
    url = match.get_absolute_url() + "?part=live"
    last = match.games.order_by("-number").values_list("number", flat=True).first()
    return f"{url}&after={last}" if last is not None else url


def peak_mib(client: Client, url: str) -> float:
    tracemalloc.start()
    try:
        fetch(client, url)
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def measure(
    client: Client, url: str, repeat: int
) -> tuple[list[float], list[float], list[float], int]:
    response = fetch(client, url)  # warm caches (templates, translations)
    assert response.status_code == 200, (url, response.status_code)
    wall, cpu, sql = [], [], []
    for _ in range(repeat):
        timer = SqlTimer()
        w, c = time.perf_counter(), time.process_time()
        with connection.execute_wrapper(timer):
            response = fetch(client, url)
        wall.append((time.perf_counter() - w) * 1000)
        cpu.append((time.process_time() - c) * 1000)
        sql.append(timer.spent * 1000)
    with CaptureQueriesContext(connection) as captured:
        fetch(client, url)
    return wall, cpu, sql, len(captured.captured_queries)


def explain_ms(client: Client, url: str) -> float:
    """Planning plus execution time that PostgreSQL reports for the page's queries."""
    with CaptureQueriesContext(connection) as captured:
        fetch(client, url)
    total = 0.0
    with connection.cursor() as cursor:
        for query in captured.captured_queries:
            sql = query["sql"]
            if not sql.lstrip().upper().startswith("SELECT"):
                continue
            cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}")
            plan = cursor.fetchone()[0][0]
            total += plan["Planning Time"] + plan["Execution Time"]
    return total


# -- data ----------------------------------------------------------------------------------


def build(games: int, leaders: int, match_games: int) -> dict[str, Any]:
    from game.models import Membership, Room

    users = make_users(["alice", "bob", "carol", "dave", "viewer"])
    room = Room.objects.create(name="Bench room", owner=users[0], seat_count=4)
    for i, user in enumerate(users[:4]):
        Membership.objects.create(room=room, user=user, seat_index=i)
    bulk_games(room, users[:4], games)
    make_leaders(leaders)
    game = real_game(users[:4])
    match = bulk_match(game, users[:4], match_games)
    return {"room": room, "viewer": users[4], "game": game, "match": match}


def analyze() -> None:
    """Fresh planner statistics after the bulk load, as autovacuum would soon have."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")


def make_users(names: list[str]) -> list[Any]:
    user_model = get_user_model()
    return [user_model.objects.create_user(username=n, password="bench-password") for n in names]


KINDS = ["agari", "agari", "dobon", "return", "deck_out"]


def fake_result(rng: random.Random, players: int) -> dict[str, Any]:
    """A plausible settled result (§R11): zero-sum deltas, winners by kind."""
    kind = rng.choice(KINDS)
    hand_points = [rng.randint(0, 120) for _ in range(players)]
    winner, loser = rng.sample(range(players), 2)
    if kind == "agari":
        hand_points[winner] = 0
        payments = [[s, winner, p] for s, p in enumerate(hand_points) if s != winner and p]
        winners = [winner]
    elif kind in ("dobon", "return"):
        total = sum(hand_points)
        payer, payee = (loser, winner) if kind == "dobon" else (winner, loser)
        payments, winners = [[payer, payee, total]], [payee]
    else:
        payments, winners = [], []
    deltas = [0] * players
    for a, b, p in payments:
        deltas[a] -= p
        deltas[b] += p
    return {"kind": kind, "winners": winners, "payments": payments, "deltas": deltas,
            "hand_points": hand_points, "next_first_player": winner, "rate": 1}


def bulk_games(room: Any, users: list[Any], count: int) -> None:
    """`count` finished games with their seats and every aggregate, in bulk."""
    from game.models import Game, GamePlayer
    from game.models.history import PlayerStats, RoomStanding

    rng = random.Random(8)
    standings = {u.pk: RoomStanding(room=room, user=u, name=u.username) for u in users}
    stats = {u.pk: PlayerStats(user=u) for u in users}
    results = [fake_result(rng, len(users)) for _ in range(count)]
    for start in range(0, count, BATCH):
        chunk = results[start:start + BATCH]
        made = Game.objects.bulk_create(
            Game(room=room, number=start + i + 1, state={}, status=Game.Status.FINISHED,
                 result=r, rate=1, version=100, event_count=300)
            for i, r in enumerate(chunk)
        )
        seats = []
        for game, result in zip(made, chunk, strict=True):
            for seat, user in enumerate(users):
                delta = result["deltas"][seat]
                for row in (standings[user.pk], stats[user.pk]):
                    count_into(row, result, seat)
                s = stats[user.pk]
                if s.best_delta is None or delta > s.best_delta:
                    s.best_delta, s.best_game = delta, game
                seats.append(GamePlayer(game=game, seat=seat, room_seat_index=seat, user=user,
                                        username=user.username, delta=delta,
                                        user_game_number=s.games, user_net_after=s.points))
        GamePlayer.objects.bulk_create(seats, batch_size=BATCH)
    for s in stats.values():
        s.points_per_game = s.points / s.games if s.games else 0.0
    RoomStanding.objects.bulk_create(standings.values())
    PlayerStats.objects.bulk_create(stats.values())


def bulk_match(model: Any, users: list[Any], count: int) -> Any:
    """A finished match of `count` games in a room of its own, each a copy of the real
    game `model` (state, result, seats and every event), as a long bot match leaves it."""
    from game.models import Game, GameEvent, GamePlayer, Match, Membership, Room
    from game.services import matches

    room = Room.objects.create(name="Bench match", owner=users[0], seat_count=4)
    for i, user in enumerate(users):
        Membership.objects.create(room=room, user=user, seat_index=i)
    match = Match.objects.create(room=room, started_by=users[0], games_total=count,
                                 games_finished=count, status=Match.Status.FINISHED)
    seats = list(model.players.order_by("seat"))
    events = list(model.events.order_by("seq"))
    for start in range(0, count, 100):
        made = Game.objects.bulk_create(
            Game(room=room, match=match, number=start + i + 1, state=model.state,
                 initial_state=model.initial_state, status=Game.Status.FINISHED,
                 result=model.result, rate=1, version=model.version,
                 event_count=model.event_count, started_at=model.started_at,
                 finished_at=model.finished_at)
            for i in range(min(100, count - start))
        )
        GamePlayer.objects.bulk_create(
            GamePlayer(game=game, seat=p.seat, room_seat_index=p.room_seat_index,
                       user_id=p.user_id, username=p.username, delta=p.delta)
            for game in made for p in seats
        )
        GameEvent.objects.bulk_create(
            (GameEvent(game=game, seq=e.seq, version=e.version, to_seat=e.to_seat,
                       data=e.data, step=e.step)
             for game in made for e in events),
            batch_size=BATCH,
        )
    if hasattr(matches, "rebuild_standings"):  # stored totals, where the site keeps them
        matches.rebuild_standings(match)
    return match


def count_into(row: Any, result: dict[str, Any], seat: int) -> None:
    row.games += 1
    row.points += result["deltas"][seat]
    if seat in result["winners"]:
        field = {"agari": "wins_agari", "dobon": "wins_dobon", "return": "wins_return"}
        setattr(row, field[result["kind"]], getattr(row, field[result["kind"]]) + 1)
    row.deck_outs += result["kind"] == "deck_out"


def make_leaders(count: int) -> None:
    from accounts.usernames import username_key
    from game.models.history import PlayerStats

    user_model = get_user_model()
    rng = random.Random(9)
    users = user_model.objects.bulk_create(
        # bulk_create skips save(), which sets the unique look-alike key.
        user_model(username=f"player{i:05d}", username_key=username_key(f"player{i:05d}"),
                   password="!")
        for i in range(count)
    )
    rows = []
    for user in users:
        games = rng.randint(1, 400)
        points = rng.randint(-40, 40) * games
        rows.append(PlayerStats(user=user, games=games, points=points,
                                points_per_game=points / games, wins_agari=games // 4))
    PlayerStats.objects.bulk_create(rows, batch_size=BATCH)


def real_game(users: list[Any]) -> Any:
    """One game played through the service layer (random legal actions, timeouts), in
    a room of its own, for the game page and its replay."""
    from game.models import Game, Membership, Room
    from game.rules import Game as Engine
    from game.services import clock, play

    room = Room.objects.create(name="Bench table", owner=users[0], seat_count=4)
    for i, user in enumerate(users):
        Membership.objects.create(room=room, user=user, seat_index=i)
    rng, now = random.Random(3), 1_700_000_000.0
    game = play.start_game(room, users[0], now=now)
    by_seat = {p.seat: p.user for p in game.players.select_related("user") if p.user}
    while game.status == Game.Status.RUNNING:
        now += rng.choice([0.5, 1.5, 4.0, 11.0])
        engine = Engine.from_dict(game.state)
        engine.advance(now)
        choices = [(s, a) for s in range(engine.players) for a in engine.legal_actions(s)]
        if choices and rng.random() < 0.9:
            seat, action = rng.choice(choices)
            play.perform_action(game, by_seat[seat], action, now=now)
        else:
            clock.expire_due_games(now)
        game.refresh_from_db()
    return game
