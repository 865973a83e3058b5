"""A process killed (SIGKILL) while finishing a game loses neither or both: the result
and the rating changes commit together (issue #34 item 4, docs/ratings.md)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from game.models import Game, Rating, RatingChange
from game.services import play
from tests.game.history_helpers import AGARI
from tests.game.play_helpers import NOW, make_room, position, started

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]

# The child finishes the game (alice goes out, R8) and stalls after the rating rows were
# written, inside the finishing transaction, until it is killed.
CHILD = """
import os, sys, time, pathlib, django
django.setup()
from django.contrib.auth import get_user_model
from game.models import Game
from game.services import play, ratings
marker = pathlib.Path(sys.argv[2])
real = ratings.RatingChange.objects.bulk_create
def stall(rows, *args, **kwargs):
    out = real(rows, *args, **kwargs)
    marker.write_text("ratings written, not committed")
    time.sleep(120)
    return out
ratings.RatingChange.objects.bulk_create = stall
game = Game.objects.get(pk=int(sys.argv[1]))
alice = get_user_model().objects.get(username="alice")
play.perform_action(game, alice, {"type": "play", "cards": ["R5"]}, now=float(sys.argv[3]))
"""


def _database_url() -> str:
    s = connection.settings_dict
    return f"postgres://{s['USER']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL")
def test_kill_9_while_finishing_loses_neither_or_both(tmp_path, people):
    room = make_room(*people)
    game = started(room, people[0], position(AGARI, now=NOW), now=NOW)
    marker = tmp_path / "marker"
    env = {**os.environ, "DATABASE_URL": _database_url(), "DJANGO_SETTINGS_MODULE":
           "dobon_site.settings", "PYTHONPATH": str(ROOT), "CELERY_BROKER_URL": ""}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(game.pk), str(marker),
                              str(NOW + 1)], cwd=ROOT, env=env)
    try:
        give_up = time.monotonic() + 60
        while not marker.exists():
            assert child.poll() is None, "the child ended before writing the ratings"
            assert time.monotonic() < give_up, "the child never reached the rating write"
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING and game.result is None
    assert not Rating.objects.exists() and not RatingChange.objects.exists()
    assert not game.players.filter(delta__isnull=False).exists()
    # The same move again, in this process: the game finishes and is rated once.
    play.perform_action(game, people[0], {"type": "play", "cards": ["R5"]}, now=NOW + 1)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert RatingChange.objects.filter(game=game).count() == 4
    assert Rating.objects.get(user=people[0]).games == 1
