"""/metrics (issue #30, part 3): Prometheus' text, read only from DOBON_METRICS_ALLOWED
(the forwarded address behind DOBON_PROXY_COUNT proxies); counters that move when moves
are played through real sockets (lean and ORM paths) and by the clock; refusals by close
code; the open sockets; and several processes of a host adding up in one scrape."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from play_helpers import LIVE_HANDS, make_room, position, set_position, started_live_table
from prometheus_client.parser import text_string_to_metric_families
from socket_helpers import closed_with, next_state, open_socket

from game import metrics
from game.live import admission
from game.models import Game
from game.services import clock, play

ROOT = Path(__file__).resolve().parents[2]


def scrape(**extra) -> dict[tuple[str, tuple], float]:
    """Every sample of a scrape through the endpoint, by (name, sorted labels)."""
    response = Client().get("/metrics", **extra)
    assert response.status_code == 200, response.status_code
    return parse(response.content.decode())


def parse(text: str) -> dict[tuple[str, tuple], float]:
    samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


async def scrape_when(ready, timeout: float = 3.0) -> dict[tuple[str, tuple], float]:
    """A scrape once `ready(samples)` holds: the pushes reach the socket before the
    task that sent them notes the metric."""
    give_up = time.monotonic() + timeout
    while True:
        samples = await sync_to_async(scrape)()
        if ready(samples) or time.monotonic() > give_up:
            return samples
        await asyncio.sleep(0.02)


# -- who may read it ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_loopback_reads_the_metrics_in_prometheus_text():
    response = Client().get("/metrics")  # the test client's address is 127.0.0.1
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    text = response.content.decode()
    for name in ("dobon_moves_total", "dobon_move_seconds", "dobon_sockets_open",
                 "dobon_socket_refusals_total", "dobon_timeout_lateness_seconds",
                 'dobon_games_running{game_kind="dobon_uno"}',
                 'dobon_games_running{game_kind="trump_dobon"}'):
        assert name in text


def test_an_address_outside_the_list_gets_404():
    # No django_db mark: refused before anything is counted.
    assert Client().get("/metrics", REMOTE_ADDR="203.0.113.5").status_code == 404
    assert Client().get("/metrics", REMOTE_ADDR="::2").status_code == 404


@pytest.mark.django_db
def test_ipv6_loopback_and_configured_networks(settings):
    assert Client().get("/metrics", REMOTE_ADDR="::1").status_code == 200
    settings.DOBON_METRICS_ALLOWED = ["10.0.0.0/8", "192.0.2.7"]
    assert Client().get("/metrics", REMOTE_ADDR="10.20.30.40").status_code == 200
    assert Client().get("/metrics", REMOTE_ADDR="192.0.2.7").status_code == 200
    assert Client().get("/metrics", REMOTE_ADDR="192.0.2.8").status_code == 404
    assert Client().get("/metrics").status_code == 404  # loopback is no longer listed


@pytest.mark.django_db
def test_behind_a_proxy_the_forwarded_address_decides(settings):
    settings.DOBON_PROXY_COUNT = 1
    via_proxy = {"REMOTE_ADDR": "127.0.0.1"}  # nginx on the same host
    assert Client().get("/metrics", HTTP_X_FORWARDED_FOR="203.0.113.5",
                        **via_proxy).status_code == 404
    # What the client wrote further left proves nothing.
    assert Client().get("/metrics", HTTP_X_FORWARDED_FOR="127.0.0.1, 203.0.113.5",
                        **via_proxy).status_code == 404
    settings.DOBON_METRICS_ALLOWED = ["10.0.0.0/8"]
    assert Client().get("/metrics", HTTP_X_FORWARDED_FOR="10.9.9.9",
                        **via_proxy).status_code == 200


def test_without_a_proxy_a_forwarded_header_is_ignored(settings):
    settings.DOBON_PROXY_COUNT = 0
    response = Client().get("/metrics", REMOTE_ADDR="203.0.113.5",
                            HTTP_X_FORWARDED_FOR="127.0.0.1")
    assert response.status_code == 404


@pytest.mark.django_db
def test_scraped_by_address_over_http_with_production_security(settings):
    settings.ALLOWED_HOSTS = ["dobon.example"]
    settings.SECURE_SSL_REDIRECT = True
    assert Client().get("/metrics", HTTP_HOST="127.0.0.1:8001").status_code == 200


def test_only_get_and_head():
    assert Client().post("/metrics").status_code == 405


def test_a_bad_network_stops_the_process():
    from django.core.exceptions import ImproperlyConfigured

    from dobon_site.security import check_networks

    assert check_networks("X", ["127.0.0.0/8", "::1", "10.1.2.3"]) == [
        "127.0.0.0/8", "::1", "10.1.2.3"]
    with pytest.raises(ImproperlyConfigured, match="DOBON_METRICS_ALLOWED"):
        check_networks("DOBON_METRICS_ALLOWED", ["localhost"])


# -- what it counts ----------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_games_running_are_counted_per_kind_when_scraped(alice, bob, carol):
    before = scrape()
    make_room(alice, bob)
    room, _ = started_live_table(alice, bob)
    trump = make_room(alice, bob, carol, game_kind="trump_dobon", trump_preset="au",
                      seat_count=3)
    play.start_game(trump, alice)
    after = scrape()
    assert value(after, "dobon_games_running", game_kind="dobon_uno") == 1
    assert value(after, "dobon_games_running", game_kind="trump_dobon") == 1
    assert value(before, "dobon_games_running", game_kind="dobon_uno") == 0


def test_a_scrape_without_the_database_still_answers(monkeypatch):
    from game.services import health

    def database_down() -> dict[str, int]:
        raise OSError("connection refused")

    monkeypatch.setattr(health, "running_games", database_down)
    response = Client().get("/metrics")
    assert response.status_code == 200
    text = response.content.decode()
    assert "dobon_sockets_open" in text and "dobon_games_running" not in text


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("lean", [True, False], ids=["lean-path", "orm-path"])
async def test_a_move_through_a_socket_moves_the_counters(lean, settings, alice, bob):
    settings.DOBON_LEAN_MOVES = lean
    settings.CELERY_BROKER_URL = ""
    room, game = await sync_to_async(started_live_table)(alice, bob)
    before = await sync_to_async(scrape)()
    socket = await open_socket(bob, room.pk)
    _, state = await next_state(socket)
    during = await sync_to_async(scrape)()
    assert value(during, "dobon_sockets_open") == value(before, "dobon_sockets_open") + 1

    action = next(a for a in state["view"]["legal_actions"] if a["type"] == "play")
    await socket.send_json_to({"type": "action", "action": action})
    _, moved = await next_state(socket)
    assert moved["version"] == state["version"] + 1
    after = await scrape_when(lambda s: value(s, "dobon_move_seconds_count") > value(
        before, "dobon_move_seconds_count"))
    assert value(after, "dobon_moves_total", game_kind="dobon_uno", by="socket") == value(
        before, "dobon_moves_total", game_kind="dobon_uno", by="socket") + 1
    assert value(after, "dobon_move_seconds_count") == value(
        before, "dobon_move_seconds_count") + 1
    took = value(after, "dobon_move_seconds_sum") - value(before, "dobon_move_seconds_sum")
    assert 0 < took < 5

    await socket.disconnect()
    closed = await scrape_when(lambda s: value(s, "dobon_sockets_open") == value(
        before, "dobon_sockets_open"))
    assert value(closed, "dobon_sockets_open") == value(before, "dobon_sockets_open")


@pytest.mark.django_db(transaction=True)
async def test_a_trump_move_counts_under_its_kind(settings, alice, bob, carol):
    settings.CELERY_BROKER_URL = ""
    settings.DOBON_TEST_SETUPS_ALLOWED = True
    from test_trump_consumers import au_chain_table

    room_id = await sync_to_async(au_chain_table)(alice, bob, carol)
    before = await sync_to_async(scrape)()
    socket = await open_socket(alice, room_id)
    await next_state(socket)
    await socket.send_json_to({"type": "action", "action": {"type": "play", "cards": ["D10"]}})
    await next_state(socket)
    after = await scrape_when(lambda s: value(s, "dobon_move_seconds_count") > value(
        before, "dobon_move_seconds_count"))
    assert value(after, "dobon_moves_total", game_kind="trump_dobon", by="socket") == value(
        before, "dobon_moves_total", game_kind="trump_dobon", by="socket") + 1
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_refusals_are_counted_by_close_code(settings, alice, bob):
    room, _ = await sync_to_async(started_live_table)(alice, bob)
    before = await sync_to_async(scrape)()
    # The consumer's refusal: nobody signed in (4401).
    from channels.testing import WebsocketCommunicator

    from dobon_site.asgi import application

    anonymous = WebsocketCommunicator(application, f"/ws/rooms/{room.pk}/",
                                      headers=[(b"origin", b"http://testserver")])
    await anonymous.connect()
    assert await closed_with(anonymous) == 4401
    # The admission's refusal, before any database work: the process is full (4503).
    settings.DOBON_WS_MAX_SOCKETS_PER_PROCESS = 0
    full = WebsocketCommunicator(application, f"/ws/rooms/{room.pk}/",
                                 headers=[(b"origin", b"http://testserver")])
    await full.connect()
    assert await closed_with(full) == admission.CLOSE_PROCESS_FULL
    after = await sync_to_async(scrape)()
    for code in ("4401", "4503"):
        assert value(after, "dobon_socket_refusals_total", code=code) == value(
            before, "dobon_socket_refusals_total", code=code) + 1


@pytest.mark.django_db(transaction=True)
def test_the_clock_counts_its_automatic_actions_and_their_lateness(alice, bob, settings):
    """§R14: a timeout applied 1.5 s after its deadline is 1.5 s late."""
    settings.CELERY_BROKER_URL = ""
    room = make_room(alice, bob)
    game = play.start_game(room, alice, now=1_700_000_000.0)
    engine = position(LIVE_HANDS, deck=["R9"] * 20, first_player=1, timeout=10,
                      now=1_700_000_000.0)
    set_position(game, engine)
    deadline = engine.next_deadline
    before = scrape()
    assert clock.expire_due_games(now=deadline + 1.5) == 1
    after = scrape()
    assert Game.objects.get(pk=game.pk).version > game.version
    name = "dobon_timeout_lateness_seconds"
    assert value(after, f"{name}_count", kind="timeout") == value(
        before, f"{name}_count", kind="timeout") + 1
    assert value(after, f"{name}_sum", kind="timeout") - value(
        before, f"{name}_sum", kind="timeout") == pytest.approx(1.5)
    assert value(after, f"{name}_bucket", kind="timeout", le="1.0") == value(
        before, f"{name}_bucket", kind="timeout", le="1.0")
    assert value(after, "dobon_moves_total", game_kind="dobon_uno", by="clock") == value(
        before, "dobon_moves_total", game_kind="dobon_uno", by="clock") + 1


# -- several processes --------------------------------------------------------------------------

WRITER = textwrap.dedent("""
    import sys
    from game import metrics
    metrics.moves_pushed(["dobon_uno"] * int(sys.argv[1]), 0.02)
    for _ in range(int(sys.argv[2])):
        metrics.SOCKETS_OPEN.inc()
    print("ready", flush=True)
    sys.stdin.readline()  # stay alive until told
""")


def writer(directory: Path, moves: int, sockets: int) -> subprocess.Popen[str]:
    env = {**os.environ, metrics.DIRECTORY_VARIABLE: str(directory)}
    process = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(moves), str(sockets)], cwd=ROOT, env=env,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    return process


def test_several_processes_add_up_in_one_scrape_and_a_dead_ones_sockets_go(tmp_path):
    first = writer(tmp_path, moves=3, sockets=2)
    second = writer(tmp_path, moves=4, sockets=5)
    try:
        both = parse(metrics.render(path=str(tmp_path))[0].decode())
        assert value(both, "dobon_moves_total", game_kind="dobon_uno", by="socket") == 7
        assert value(both, "dobon_move_seconds_count") == 2
        assert value(both, "dobon_sockets_open") == 7
        first.kill()  # as kill -9: nothing of its own cleans up
        first.wait(5)
        one = parse(metrics.render(path=str(tmp_path))[0].decode())
        # Its moves happened and stay counted; its sockets died with it.
        assert value(one, "dobon_moves_total", game_kind="dobon_uno", by="socket") == 7
        assert value(one, "dobon_sockets_open") == 5
    finally:
        for process in (first, second):
            process.kill()
            process.wait(5)


def test_a_process_starting_forgets_the_live_gauge_of_an_earlier_life_of_its_pid(tmp_path):
    from prometheus_client import values

    stale = tmp_path / f"gauge_livesum_{os.getpid()}.db"
    values.MmapedDict(str(stale)).write_value(  # as left by a process that had this pid
        'dobon_sockets_open{"a":"b"}', 9, 0)
    assert metrics.forget_dead_processes(str(tmp_path), keep_own=False) == [os.getpid()]
    assert not stale.exists()
