"""`manage.py bench_load --rolling-restart` (issue #30): its options, its report and the
goals judged from it, and the nginx configuration it writes. Pure functions, no servers;
the mode itself runs by hand (docs/performance.md, "Rolling restarts")."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from random import Random

import pytest
from django.core.management.base import CommandError

from game.management.bench import goals
from game.management.bench.players import Player, Restart, missed_versions
from game.management.bench.proxy import config
from game.management.bench.restart import restart_report
from game.management.commands.bench_load import Command, check_modes


def parse(*argv: str) -> argparse.Namespace:
    return Command().create_parser("manage.py", "bench_load").parse_args(list(argv))


def test_rolling_restart_defaults_to_no_proxy_and_the_rooms_to_be_decided():
    options = parse("--rolling-restart")
    assert (options.rolling_restart, options.proxy, options.rooms) == (True, "none", None)
    check_modes(options)  # alone it is fine
    assert parse("--rolling-restart", "--proxy", "nginx", "--daphnes", "2").proxy == "nginx"


@pytest.mark.parametrize("argv, refused", [
    (["--rolling-restart", "--idle"], "--rolling-restart"),
    (["--rolling-restart", "--attack", "crowd"], "--rolling-restart"),
    (["--rolling-restart", "--ports", "8001,8002"], "--rolling-restart"),
    (["--proxy", "nginx"], "--proxy is for --rolling-restart"),
    (["--rolling-restart", "--proxy", "nginx"], "--daphnes 2"),
])
def test_modes_that_cannot_go_together_are_refused_before_anything_starts(argv, refused):
    with pytest.raises(CommandError, match=refused):
        check_modes(parse(*argv))


def test_an_unknown_proxy_is_refused_by_the_parser():
    with pytest.raises(CommandError, match="invalid choice: 'haproxy'"):
        parse("--rolling-restart", "--proxy", "haproxy")


def player(name: str, restarts: list[Restart], errors=(), closes=()) -> Player:
    p = Player(name, room=1, port=1, cookie="", act=True)
    p.restarts, p.errors, p.other_closes = restarts, list(errors), list(closes)
    return p


def test_the_report_counts_each_way_back_and_the_sockets_that_never_came_back():
    players = [
        player("a", [Restart(100.0, 100.5)]),
        player("b", [Restart(100.0, 101.0), Restart(110.0, 110.25)]),
        player("c", [Restart(110.0, None)], errors=[(110.1, "server_error"), (90.0, "stale")]),
        player("d", [], errors=[(105.0, "stale")], closes=[1006]),
    ]
    report = restart_report(players, began=100.0, ended=120.0)
    assert report["sockets"] == 4
    assert report["sockets_closed_with_1012"] == 3 and report["closes_1012"] == 4
    assert report["reconnect_ms"] == {"n": 3, "p50": 500.0, "p99": 1000.0, "max": 1000.0}
    assert report["sockets_not_back"] == 1
    assert report["other_closes"] == {"1006": 1}
    # Only the roll's errors: the stale refusal at 90 s came before it.
    assert report["errors_during_roll"] == {"server_error": 1, "stale": 1}
    assert report["server_errors"] == 1


def test_the_goals_judge_the_roll_behind_nginx_with_50_rooms_only():
    roll = {"proxy": "nginx", "rooms": 50, "server_errors": 0, "other_closes": {},
            "sockets_not_back": 0}
    lines = goals.judge({"rolling_restart": roll, "lost_updates": {"stale_sockets": 0}})
    assert [line["met"] for line in lines] == [True, True, True]
    lost = goals.judge({"rolling_restart": {**roll, "other_closes": {"1006": 2}},
                        "lost_updates": {"stale_sockets": 1}})
    assert [(line["figure"], line["met"]) for line in lost] == [(1, False), (2, False), (0, True)]
    smoke = goals.judge({"rolling_restart": {**roll, "rooms": 10},
                         "lost_updates": {"stale_sockets": 0}})
    assert {line["met"] for line in smoke} == {None}
    assert "10 rooms" in smoke[0]["note"]


def test_the_nginx_site_proxies_websockets_to_every_daphne_and_appends_the_address():
    text = config(8080, [9001, 9002], Path("/tmp/p"), as_root=True)
    assert "listen 127.0.0.1:8080;" in text
    assert "server 127.0.0.1:9001 max_fails=0;" in text
    assert "server 127.0.0.1:9002 max_fails=0;" in text
    assert "proxy_set_header Upgrade $http_upgrade;" in text
    assert "proxy_set_header Connection $connection_upgrade;" in text
    assert "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;" in text
    assert text.startswith("user root;")
    assert not config(8080, [9001], Path("/tmp/p"), as_root=False).startswith("user")


class Recorded:
    """A socket that keeps what the player sends."""

    def __init__(self) -> None:
        self.sent: list[dict] = []

    async def send(self, text: str) -> None:
        self.sent.append(json.loads(text))


def frame(game: int | None, version: int | None, since: int | None = None,
          status: str = "running") -> str:
    return json.dumps({"type": "state", "game": game, "version": version, "status": status,
                       "from_version": version if since is None else since, "view": None,
                       "events": []})


async def test_a_player_back_at_the_next_games_table_resumes_the_game_that_ended_meanwhile():
    """Issue #30: the 1012 came at game 5 version 1; game 5 ended (version 3) and game 6
    began before the player was back. Its resuming sync names game 5, the catch-up frame
    fills versions 2–3 in without taking the table back, and no version is missed."""
    p, stop, rng = Player("a", room=1, port=1, cookie="", act=False), asyncio.Event(), Random(1)
    p.ws = Recorded()
    p.receive(frame(5, 0), stop, rng)
    p.receive(frame(5, 1, since=0), stop, rng)
    p.restarts.append(Restart(100.0))
    p.receive(frame(6, 0), stop, rng)  # the connect's table after the restart
    await asyncio.sleep(0)  # the sync goes out in a task of its own
    assert p.ws.sent == [{"type": "sync", "game": 5, "version": 1}]
    assert missed_versions([p], {5: 3, 6: 0}) == 2, "before the catch-up: versions 2 and 3"
    p.receive(frame(5, 3, since=1, status="finished"), stop, rng)
    assert p.state["game"] == 6, "the catch-up does not take the table back"
    p.receive(frame(6, 0), stop, rng)
    assert missed_versions([p], {5: 3, 6: 0}) == 0
    assert p.restarts[-1].back_at is not None


def test_the_goals_judge_missed_versions_only_when_the_run_counted_them():
    roll = {"proxy": "nginx", "rooms": 50, "server_errors": 0, "other_closes": {},
            "sockets_not_back": 0}
    lines = goals.judge({"rolling_restart": roll,
                         "lost_updates": {"stale_sockets": 0, "versions_missed": 3}})
    assert [(line["figure"], line["met"]) for line in lines][-1] == (3, False)
    assert "ended games" in lines[-1]["goal"]
