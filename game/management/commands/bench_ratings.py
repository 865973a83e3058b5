"""Measure what ratings cost: `manage.py bench_ratings` (figures in docs/ratings.md).

1. The model alone (game/ratings/model.py, no database): CPU time of one game's update
   for 2, 4 and 8 seats, over --updates games each.
2. The hook in the finishing transaction (`services.ratings.record_rated`): CPU and wall
   time and queries per game, over --games games of four people drawn from the players.
3. The rating leaderboard page with --players rated players (all established) and the
   viewer outside the top 100: wall and CPU time (median and worst of --repeat requests,
   through Django's test client) and its queries; plus `/leaderboard.json` of them all.

Everything is created inside one transaction that is rolled back at the end: the
database is left as it was. Run it against PostgreSQL (DATABASE_URL) for real figures.
"""

from __future__ import annotations

import functools
import os
import random
import statistics
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.management.base import BaseCommand, CommandParser
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.usernames import username_key
from game.models import Game, GamePlayer, Rating, Room
from game.ratings.model import Skill, rate_seats
from game.services import ratings as rating_service

BATCH = 2000


class _Rollback(Exception):
    pass


class Command(BaseCommand):
    help = "Measure the rating update per game and the rating leaderboard page."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--updates", type=int, default=3000)
        parser.add_argument("--games", type=int, default=300)
        parser.add_argument("--players", type=int, default=10_000)
        parser.add_argument("--repeat", type=int, default=30)

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(f"load average: {os.getloadavg()}; database {connection.vendor}")
        for seats in (2, 4, 8):
            self._model(seats, options["updates"])
        try:
            with transaction.atomic():
                users = self._players(options["players"])
                self._hook(users, options["games"])
                self._board(users, options["repeat"])
                raise _Rollback
        except _Rollback:
            self.stdout.write("rolled back: the database is as it was")

    def _model(self, seats: int, count: int) -> None:
        rng = random.Random(seats)
        before = [Skill(rng.uniform(15, 35), rng.uniform(1, 8)) for _ in range(seats)]
        started = time.process_time()
        for _ in range(count):
            rate_seats(before, [rng.randint(-50, 50) for _ in range(seats)], [False] * seats)
        ms = 1000 * (time.process_time() - started) / count
        self.stdout.write(f"model alone, {seats} seats: {ms:.3f} CPU-ms per game ({count} games)")

    def _players(self, count: int) -> list[Any]:
        user_model = get_user_model()
        password = make_password(None)
        users = []
        for start in range(0, count, BATCH):
            batch = [user_model(username=f"rated{i:05d}", password=password)
                     for i in range(start, min(count, start + BATCH))]
            for user in batch:
                user.username_key = username_key(user.username)  # what save() derives
            users += user_model.objects.bulk_create(batch)
        now = timezone.now()
        rng = random.Random(1)
        rows = []
        for user in users:
            mu, sigma = rng.uniform(15, 40), rng.uniform(1.5, 4)
            rows.append(Rating(user=user, game="dobon_uno", track="people", mu=mu, sigma=sigma,
                               ordinal=mu - 3 * sigma, games=rng.randint(10, 500),
                               last_played_at=now - timedelta(days=rng.randint(0, 80))))
        Rating.objects.bulk_create(rows, batch_size=BATCH)
        self.stdout.write(f"{count} rated players created")
        return users

    def _hook(self, users: list[Any], count: int) -> None:
        room = Room.objects.create(name="bench", owner=users[0])
        rng = random.Random(2)
        cpu, wall, queries = [], [], []
        now = timezone.now()
        for number in range(1, count + 1):
            people = rng.sample(users[:200], 4)
            deltas = [rng.randint(-60, 60) for _ in range(3)]
            deltas.append(-sum(deltas))
            game = Game.objects.create(room=room, number=number, state={}, status="finished",
                                       finished_at=now + timedelta(seconds=number))
            GamePlayer.objects.bulk_create(GamePlayer(game=game, seat=s, room_seat_index=s,
                                                      user=u, username=u.username)
                                           for s, u in enumerate(people))
            seats = [_Seat(s, u.pk) for s, u in enumerate(people)]
            summary = {"deltas": deltas, "players": [{"kind": "human"}] * 4}
            c, w, q = _timed(functools.partial(rating_service.record_rated, game, None, seats,
                                               summary))
            cpu.append(c)
            wall.append(w)
            queries.append(q)
        self.stdout.write(
            f"hook per game (4 people, {count} games): CPU median {statistics.median(cpu):.2f} ms"
            f" (worst {max(cpu):.2f}), wall median {statistics.median(wall):.2f} ms"
            f" (worst {max(wall):.2f}), queries {min(queries)}-{max(queries)}")

    def _board(self, users: list[Any], repeat: int) -> None:
        viewer = min(Rating.objects.filter(user__in=users[:500]), key=lambda r: r.ordinal).user
        client = Client()
        client.force_login(viewer)
        for name, url in (("rating board (/ratings/)", "/ratings/"),
                          ("leaderboard.json, every player", "/leaderboard.json")):
            client.get(url)
            cpu, wall, queries = [], [], []
            for _ in range(repeat):
                c, w, q = _timed(lambda url=url: _ok(client.get(url)))
                cpu.append(c)
                wall.append(w)
                queries.append(q)
            self.stdout.write(
                f"{name}, {len(users)} players: wall median {statistics.median(wall):.1f} ms"
                f" (worst {max(wall):.1f}), CPU median {statistics.median(cpu):.1f} ms,"
                f" queries {max(queries)}")


class _Seat:
    def __init__(self, seat: int, user_id: int) -> None:
        self.seat, self.user_id, self.cpu_level = seat, user_id, None


def _ok(response: Any) -> None:
    assert response.status_code == 200, response.status_code


def _timed(work: Callable[[], Any]) -> tuple[float, float, int]:
    with CaptureQueriesContext(connection) as queries:
        cpu, wall = time.process_time(), time.perf_counter()
        work()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return 1000 * cpu, 1000 * wall, len(queries.captured_queries)
