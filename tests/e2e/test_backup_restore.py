"""Backups (issue #30, part 8): a played site dumped with the real `pg_dump -Fc` and
restored with `pg_restore` into a fresh database, exactly as docs/deploy.md ("Backups and
a restore drill") tells
the operator; then, connected to the restored database, `manage.py verify_history` finds
every game (finished, aborted and the running one) replaying exactly, every table holds
the same rows as the original (games, events, players, points, standings, statistics),
the sequences go on from where they were, and the running game plays on."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from django.db import connection

from tests.conftest import skip_unless_services
from tests.game.site_helpers import play_a_site

pytestmark = [pytest.mark.stack, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""  # the site is played by the in-process clock
    settings.DOBON_CPU_DELAY_PERCENT = 0


def libpq_env() -> dict[str, str]:
    """The test database's connection settings, as PostgreSQL's tools read them."""
    s = connection.settings_dict
    env = {**os.environ, "PGHOST": s.get("HOST") or "127.0.0.1",
           "PGPORT": str(s.get("PORT") or 5432), "PGUSER": s.get("USER") or "postgres"}
    if s.get("PASSWORD"):
        env["PGPASSWORD"] = s["PASSWORD"]
    return env


def url_of(name: str) -> str:
    s = connection.settings_dict
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    return (f"postgres://{s.get('USER') or 'postgres'}{password}@{s.get('HOST') or '127.0.0.1'}"
            f":{s.get('PORT') or 5432}/{name}")


def run(args: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(args, env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{args[0]} failed ({done.returncode}):\n{done.stderr}"
    return done.stdout


@pytest.fixture
def restored_name() -> Iterator[str]:
    if connection.vendor != "postgresql":
        skip_unless_services("needs PostgreSQL (set DATABASE_URL=postgres://…)")
    name = f"{connection.settings_dict['NAME']}_restored"
    run(["dropdb", "--if-exists", name], libpq_env())
    yield name
    run(["dropdb", "--if-exists", "--force", name], libpq_env())


def manage(database: str, *args: str) -> str:
    """manage.py connected to `database` only (no Redis: a restore drill needs none)."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CELERY_BROKER_URL")}
    env |= {"DATABASE_URL": url_of(database), "DJANGO_SETTINGS_MODULE": "dobon_site.settings"}
    return run([sys.executable, "manage.py", *args], env)


def fingerprint(database: str) -> dict[str, tuple[int, str]]:
    """Every table of the public schema: its row count and a digest of its rows in a
    fixed order; every sequence: its last value."""
    with psycopg.connect(url_of(database), autocommit=True) as db:
        tables = [row[0] for row in db.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")]
        prints = {}
        for table in tables:
            rows = "string_agg(t::text, '|' ORDER BY t::text)"
            count, digest = db.execute(
                f"SELECT count(*), md5(coalesce({rows}, '')) FROM \"{table}\" t").fetchone()
            prints[table] = (count, digest)
        for name, last in db.execute("SELECT sequencename, last_value FROM pg_sequences "
                                     "WHERE schemaname = 'public'"):
            prints[f"sequence {name}"] = (last or 0, "")
    return prints


def test_a_dump_of_a_played_site_restores_into_a_fresh_database_and_replays_exactly(
    tmp_path, alice, bob, restored_name
):
    site = play_a_site(alice, bob)
    original = connection.settings_dict["NAME"]
    env = libpq_env()
    dump = tmp_path / "dobon.dump"
    # docs/deploy.md, "Backups and a restore drill": the dump, the fresh database, the restore.
    run(["pg_dump", "--format=custom", "--lock-wait-timeout=60s", f"--file={dump}",
         f"--dbname={url_of(original)}"], env)
    run(["createdb", "--template=template0", restored_name], env)
    run(["pg_restore", "--exit-on-error", "--single-transaction", "--no-owner",
         "--no-privileges", f"--dbname={url_of(restored_name)}", str(dump)], env)

    before = fingerprint(original)
    assert fingerprint(restored_name) == before
    for table in ("game_game", "game_gameevent", "game_gameplayer", "game_membership",
                  "game_roomstanding", "game_playerstats", "accounts_user"):
        assert table in before, sorted(before)
    assert before["game_game"][0] == len(site.finished) + len(site.aborted) + len(site.running)

    manage(restored_name, "migrate", "--check")  # every migration is in the restored copy
    verified = manage(restored_name, "verify_history")
    assert verified.strip().startswith("replayed 7 games (1 aborted, 5 finished, 1 running)")
    assert verified.strip().endswith("every one ends as stored")

    # The restored site plays on: the running game's clock moves it (here, after the
    # downtime, with a resume), and new rows take new ids.
    game = site.running[0]
    moved = manage(restored_name, "shell", "--no-imports", "-c",
                   "from game.services import clock; "
                   f"print(clock.expire_due_games(now={game.next_deadline.timestamp() + 3600}))")
    assert moved.strip() == "1"
    assert manage(restored_name, "verify_history", "--game", str(game.pk)).strip().endswith(
        "every one ends as stored")
    after = fingerprint(restored_name)
    assert after["game_gameevent"][0] > before["game_gameevent"][0]
    assert fingerprint(original) == before  # the original was only read
