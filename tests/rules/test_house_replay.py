"""§G2: replays of house-rule games rebuild exactly (game/history/replay.py): the rule set travels
in the engine state of version 0, and every later version reproduces its stored events."""

from __future__ import annotations

import json
import random

import pytest

from game.history.replay import ReplayError, Version, rebuild, rules_of
from game.rules import PRESETS, Game, IllegalAction

from .test_house_playouts import step


@pytest.mark.parametrize("preset", ["party", "classic", "competitive"])
def test_g2_a_house_rule_game_replays_from_its_log(preset: str) -> None:
    for seed in range(6):
        rng = random.Random(seed)
        g = Game.new(players=2 + seed, first_player=0, seed=seed, now=0.0,
                     house_rules=dict(PRESETS[preset]))
        initial = json.loads(json.dumps(g.to_dict()))
        versions, now = [], 0.0
        while g.phase != "finished":
            now, events = step(g, rng, now)
            versions.append((now, events))
        # Store each step as the service layer would: a timeout jump or an action.
        frames_input = _as_versions(initial, versions)
        frames = rebuild(initial, frames_input)
        assert frames[-1].state == g.to_dict()
        assert frames[-1].table["result"] == g.result.to_dict()  # type: ignore[union-attr]


def _as_versions(initial: dict, steps: list) -> list[Version]:  # type: ignore[type-arg]
    """Re-drive the game to learn each step's input (advance or seat action)."""
    g = Game.from_dict(initial)
    out: list[Version] = []
    for number, (now, events) in enumerate(steps, start=1):
        if events and events[0]["type"] in ("timeout", "decline") and _is_advance(g, now, events):
            assert g.advance(now) == events
            out.append(Version(number, {"now": now}, events))
            continue
        seat, action = _action_of(g, now, events)
        assert g.apply(seat, action, now) == events
        out.append(Version(number, {"now": now, "seat": seat, "action": action}, events))
    return out


def _is_advance(g: Game, now: float, events: list) -> bool:  # type: ignore[type-arg]
    h = g.copy()
    return h.advance(now) == events


def _action_of(g: Game, now: float, events: list) -> tuple[int, dict]:  # type: ignore[type-arg]
    for seat in range(g.players):
        for action in g.legal_actions(seat):
            h = g.copy()
            if h.apply(seat, action, now) == events:
                return seat, dict(action)
    raise AssertionError("no action reproduces the step")


def test_g2_a_replay_under_other_rules_is_refused() -> None:
    g = Game.new(players=4, first_player=0, seed=3, house_rules=dict(PRESETS["party"]))
    initial = g.to_dict()
    rng = random.Random(1)
    steps = []
    for _ in range(30):
        if g.phase == "finished":
            break
        steps.append(step(g, rng, steps[-1][0] if steps else 0.0))
    versions = _as_versions(initial, steps)
    tampered = dict(initial) | {"house_rules": dict(PRESETS["standard"])}
    rebuild(initial, versions)
    with pytest.raises((ReplayError, IllegalAction)):  # the log is not this game's
        rebuild(tampered, versions)


def test_g10_a_replay_names_its_rules() -> None:
    party = Game.new(players=3, seed=1, house_rules=dict(PRESETS["party"])).to_dict()
    assert rules_of(party)["preset"] == "party" and rules_of(party)["rules"]["seven_zero"]
    custom = Game.new(players=3, seed=1, house_rules={"hand_size": 5}).to_dict()
    assert rules_of(custom)["preset"] == "custom"
    assert rules_of(custom)["changed"] == {"hand_size": 5}
    old = Game.new(players=3, seed=1).to_dict()
    del old["house_rules"]
    assert rules_of(old) == {"preset": "standard", "changed": {},
                             "rules": dict(PRESETS["standard"])}
