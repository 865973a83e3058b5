"""`manage.py bench_load`'s options and the goals it judges (issue #22): pure functions,
no servers. The attacks themselves run only by hand (docs/performance.md, "Attacks")."""

from __future__ import annotations

import argparse
import json
import math
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from game.management.bench import goals
from game.management.bench.attack import (
    CpuTablePlayer,
    Probe,
    attack_names,
    attacker_addresses,
    refusal_text,
    socket_spread,
)
from game.management.bench.run import room_address
from game.management.commands.bench_load import (
    Command,
    attacks_of,
    check_modes,
    count,
    positive_int,
)


def parse(*argv: str) -> argparse.Namespace:
    return Command().create_parser("manage.py", "bench_load").parse_args(list(argv))


# -- options ---------------------------------------------------------------------------------


def test_attack_takes_a_list_or_repeats_and_keeps_each_once_in_order():
    options = parse("--attack", "churn,crowd", "--attack", "crowd", "--attack", "cpu-matches")
    assert attacks_of(options.attack) == ["churn", "crowd", "cpu-matches"]
    assert attacks_of(parse().attack) == []


@pytest.mark.parametrize("text", ["", "flood", "crowd,flood", ","])
def test_an_unknown_or_empty_attack_is_refused_by_name(text):
    with pytest.raises(argparse.ArgumentTypeError, match="crowd, watchers, churn, cpu-matches"):
        attack_names(text)


def test_the_attack_options_default_to_the_issues_scale():
    options = parse("--attack", "crowd")
    assert (options.attack_addresses, options.attack_accounts, options.attack_sockets,
            options.watchers, options.attack_clicks, options.victim_idle_rooms) == (
        1, 50, 8, 400, 100, 1)


@pytest.mark.parametrize("argv", [["--attack-addresses", "0"], ["--attack-accounts", "-1"],
                                  ["--watchers", "many"], ["--victim-idle-rooms", "-1"]])
def test_counts_out_of_range_are_refused(argv):
    with pytest.raises(CommandError):
        parse(*argv)


def test_whole_number_checks():
    assert positive_int("3") == 3
    assert count("0") == 0
    for bad in ("0", "x", "1.5"):
        with pytest.raises(argparse.ArgumentTypeError):
            positive_int(bad)
    with pytest.raises(argparse.ArgumentTypeError):
        count("-2")


@pytest.mark.parametrize("extra,message", [
    (["--idle"], "not with --idle"),
    (["--think", "1-3", "--steps", "10,20"], "--steps"),
    (["--ports", "8001"], "--ports"),
])
def test_attack_refuses_modes_it_cannot_measure(extra, message):
    options = parse("--attack", "churn", *extra)
    options.attack = attacks_of(options.attack)
    with pytest.raises(CommandError, match=message):
        check_modes(options)


def test_the_modes_without_attack_pass_the_check():
    options = parse("--idle", "--ports", "8001")
    options.attack = attacks_of(options.attack)
    check_modes(options)  # no error


def test_attacker_and_victim_addresses_are_distinct_and_valid():
    import ipaddress

    attackers = attacker_addresses(600)
    victims = [room_address(n) for n in range(1, 1001)]
    for address in attackers + victims:
        ipaddress.ip_address(address)
    assert len(set(attackers)) == 600 and len(set(victims)) == 1000
    assert not set(attackers) & set(victims)
    assert attacker_addresses(1) == ["10.66.0.1"]
    with pytest.raises(ValueError):
        attacker_addresses(0)


def test_sockets_are_spread_over_accounts_within_the_per_user_cap():
    spread = socket_spread(accounts=50, per_account=8, total=400)
    assert len(spread) == 400
    assert max(spread.count(i) for i in range(50)) == 8
    # more sockets than the accounts may hold: only as many as they may
    assert len(socket_spread(accounts=3, per_account=8, total=400)) == 24


def test_a_refusal_is_read_from_the_messages_cookie():
    from django.contrib.messages import constants
    from django.contrib.messages.storage.base import Message
    from django.contrib.messages.storage.cookie import CookieStorage

    value = CookieStorage(None)._encode([Message(constants.ERROR, "Too many games.")])
    assert refusal_text([f"messages={value}; Path=/", "other=1"], "sessionid=x") == (
        "Too many games.")


def test_a_newcomer_probe_counts_in_the_window_it_started_in_even_if_still_waiting():
    import time

    probe = Probe(8000, 1, "sessionid=x", "10.1.0.2")
    probe.done = [(100.0, 0.05), (102.0, 0.07), (131.0, 6.0)]  # the last began after 130
    probe.failed = [(104.0, "4409"), (140.0, "4503")]
    first = probe.figures(100.0, 130.0)
    assert first["connect_ms"]["n"] == 2 and first["connect_ms"]["max"] == 70.0
    assert first["failed"] == {"4409": 1} and first["still_waiting"] == 0
    probe.waiting_since = time.time() - 9.0  # started in this window, no frame yet
    now = probe.figures(time.time() - 10.0, time.time() + 1.0)
    assert now["still_waiting"] == 1 and now["connect_ms"]["max"] >= 9000.0


def state(version: int, turn: int) -> dict[str, Any]:
    players = [{"seat": 0, "kind": "human"}] + [{"seat": i, "kind": "cpu"} for i in (1, 2, 3)]
    return {"type": "state", "game": 7, "version": version, "from_version": version - 1,
            "status": "running", "players": players,
            "view": {"turn": turn, "turn_deadline": None, "legal_actions": []}}


def test_the_cpu_table_times_a_cpus_answer_from_its_turn_to_the_next_version():
    person = CpuTablePlayer("p", 1, 8000, "sessionid=x", act=False)
    person.on_state(state(3, turn=0), now=10.0)  # the person's turn: nothing to time
    person.on_state(state(4, turn=1), now=11.0)  # a CPU's turn
    person.on_state(state(5, turn=2), now=12.5)  # it answered; the next CPU's turn
    person.on_state(state(6, turn=0), now=13.0)
    assert person.cpu_answers == [(11.0, 1.5), (12.5, 0.5)]
    assert person.answers(11.0, 12.0) == {"n": 1, "p50": 1500.0, "p99": 1500.0, "max": 1500.0}


# -- goals -----------------------------------------------------------------------------------


def saturated(cpu_ms: float, rooms: int = 100, daphnes: int = 2) -> dict[str, Any]:
    return {"rooms": rooms, "daphnes": daphnes, "idle": False, "cpu_ms_per_move": cpu_ms}


def step(rooms: int, p99: float) -> dict[str, Any]:
    return {"rooms": rooms, "delay_ms": {"n": 10, "p50": p99 / 2, "p99": p99, "max": p99}}


def human(steps: list[dict[str, Any]], largest: int, think=(1.0, 3.0),
          target: float = 100.0) -> dict[str, Any]:
    return {"daphnes": 2, "idle": False, "think": list(think), "p99_target_ms": target,
            "largest_rooms_within_target": largest, "steps": steps}


def attacked(**p99s: float) -> dict[str, Any]:
    return {"attacks": [{"attack": name.replace("_", "-"), "addresses": 1,
                         "without": {"delay_ms": {"p99": 40.0}},
                         "with": {"delay_ms": {"p99": p99}}} for name, p99 in p99s.items()]}


@pytest.mark.parametrize("cpu_ms,met", [(4.9, True), (5.0, True), (5.01, False), (28.0, False)])
def test_cpu_per_move_goal_at_100_rooms_on_2_processes(cpu_ms, met):
    [line] = goals.judge(saturated(cpu_ms))
    assert line["figure"] == cpu_ms and line["met"] is met and line["target"] == "≤ 5"


def test_cpu_per_move_at_another_set_up_is_reported_but_not_judged():
    [line] = goals.judge(saturated(3.0, rooms=20))
    assert line["met"] is None and "20 rooms" in line["note"]
    [line] = goals.judge(saturated(3.0, daphnes=1))
    assert line["met"] is None


def test_human_pace_goals_p99_at_100_rooms_and_the_largest_count():
    p99, largest = goals.judge(human([step(50, 30.0), step(100, 45.0), step(200, 120.0)], 100))
    assert (p99["figure"], p99["met"]) == (45.0, True)
    assert (largest["figure"], largest["met"]) == (100, False)  # aim: 500
    p99, largest = goals.judge(human([step(100, 60.0), step(500, 90.0)], 500))
    assert (p99["met"], largest["met"]) == (False, True)


def test_human_pace_without_a_step_at_100_rooms_is_not_judged():
    p99, _ = goals.judge(human([step(50, 130.0)], 0))
    assert p99["met"] is None and p99["figure"] is None


def test_human_pace_at_another_pace_or_target_is_not_judged():
    p99, largest = goals.judge(human([step(100, 20.0)], 100, think=(0.5, 1.0)))
    assert p99["met"] is None and largest["met"] is None
    _, largest = goals.judge(human([step(100, 20.0)], 600, target=200.0))
    assert largest["met"] is None and "--p99-ms 200" in largest["note"]


def test_each_attack_is_judged_on_the_victims_p99_with_it():
    lines = goals.judge(attacked(crowd=250.0, watchers=251.0, cpu_matches=math.nan))
    assert [(x["figure"], x["met"]) for x in lines][:2] == [(250.0, True), (251.0, False)]
    assert "--attack cpu-matches" in lines[2]["goal"] and lines[2]["met"] is None


def test_idle_runs_set_no_goal():
    assert goals.judge({"idle": True, "rooms": 100, "daphnes": 2, "cpu_ms_per_move": 1}) == []


def test_the_printed_table_says_met_not_met_and_not_judged():
    text = goals.table(goals.judge(saturated(4.0)) + goals.judge(saturated(9.0))
                       + goals.judge(saturated(1.0, rooms=5)))
    lines = text.splitlines()
    assert lines[0].startswith("met: ") and lines[1].startswith("NOT met: ")
    assert lines[2].startswith("not judged: ")


def test_goals_of_saved_results_are_printed_without_a_stack(tmp_path: Path):
    fast, attack = tmp_path / "fast.json", tmp_path / "attack.json"
    fast.write_text(json.dumps(saturated(12.0)))
    attack.write_text(json.dumps(attacked(churn=90.0)))
    out = StringIO()
    call_command("bench_load", "--goals", str(fast), str(attack), stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("NOT met: CPU-ms per committed move") and "fast.json" in lines[0]
    assert lines[1].startswith("met: victim's action") and "attack.json" in lines[1]


def test_goals_of_a_file_that_is_no_result_is_a_clear_error(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    with pytest.raises(CommandError, match="not a bench_load result"):
        call_command("bench_load", "--goals", str(bad))
