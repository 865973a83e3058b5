"""`manage.py verify_history` (issue #30, part 8: the restore drill's check): every stored
game replays through its engine to exactly its stored state and settlement; a damaged
log, state or delta is named and the command fails (exit 1)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from history_helpers import play_dobon
from play_helpers import NOW, make_room

from game.models import Game, GameEvent, GamePlayer
from game.services import clock, play
from tests.game.site_helpers import play_a_site

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""
    settings.DOBON_CPU_DELAY_PERCENT = 0


@pytest.fixture
def site(alice, bob):
    return play_a_site(alice, bob)


def verify(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("verify_history", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_every_game_of_a_played_site_ends_as_stored(site):
    out, err = verify()
    versions = sum(g.version for g in (*site.finished, *site.aborted, *site.running))
    assert out.strip() == (f"replayed 7 games (1 aborted, 5 finished, 1 running), "
                           f"{versions} versions: every one ends as stored")
    assert err == ""
    assert verify("--over-only")[0].startswith("replayed 6 games (1 aborted, 5 finished)")
    one = site.finished[3]
    assert verify("--game", str(one.pk))[0].startswith("replayed 1 games (1 finished)")


@pytest.fixture
def dobon(alice, bob, carol, dave) -> Game:
    """A short finished game (bob dobons alice), for the damaged copies below."""
    return play_dobon(make_room(alice, bob, carol, dave), [alice, bob, carol, dave])


def test_a_log_the_engine_does_not_reproduce_is_named_and_fails(dobon):
    row = GameEvent.objects.filter(game=dobon, version=2).order_by("seq").first()
    assert row.data["type"] == "dobon"
    row.data = {**row.data, "seat": 3}
    row.save(update_fields=["data"])
    err = StringIO()
    with pytest.raises(CommandError, match="replayed 1 games .*: 1 do not end as stored"):
        call_command("verify_history", stdout=StringIO(), stderr=err)
    assert err.getvalue().strip() == (
        f"game {dobon.pk} (room {dobon.room_id}, game {dobon.number}, finished): "
        "version 2: the engine does not reproduce the log")


def test_a_stored_state_that_is_not_where_the_log_ends_fails(alice, bob):
    game = play.start_game(make_room(alice, bob), alice, now=NOW)
    assert verify()[0].startswith("replayed 1 games (1 running)")
    clock.expire_due_games(now=NOW + 10)  # a timeout: version 1
    Game.objects.filter(pk=game.pk).update(state=game.initial_state)  # as if lost
    with pytest.raises(CommandError, match="1 do not end as stored"):
        verify()


def test_a_players_delta_that_differs_from_the_settlement_fails(dobon):
    player = GamePlayer.objects.get(game=dobon, seat=1)
    assert player.delta > 0
    GamePlayer.objects.filter(pk=player.pk).update(delta=player.delta + 1)
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("verify_history", stdout=StringIO(), stderr=err)
    assert f"game {dobon.pk} " in err.getvalue() and "players' deltas" in err.getvalue()
