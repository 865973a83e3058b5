"""The engine contract as types (game/rules/contract.py; ENGINE_API.md, TRUMP-RULES.md
§T20): mypy checks conformance where game/rules/registry.py lists the engine classes; these
tests hold the same at run time, so a member renamed in one engine fails here too."""

from __future__ import annotations

import doctest
import json
import random
from typing import Any

import pytest

from game.rules import PRESETS, contract, registry
from game.rules.contract import Engine, EngineClass, HasPreset, SwapsHands

MEMBERS = [name for name in dir(Engine) if not name.startswith("_")]


def test_the_contract_names_the_engine_api() -> None:
    """ENGINE_API.md's reading and acting names are members of the protocol."""
    for name in ("players", "hand", "top", "color", "chooser", "turn", "direction",
                 "pending_draw", "deck_count", "rate", "phase", "legal_actions", "view",
                 "result", "to_dict", "apply", "advance", "next_deadline", "play", "draw",
                 "pass_turn", "choose_color", "dobon", "dobon_return", "decline"):
        assert name in MEMBERS, name


@pytest.mark.parametrize("kind", registry.KINDS)
def test_every_engine_keeps_the_contract(kind: str) -> None:
    cls: EngineClass = registry.engine_class(kind)
    for name in ("new", "from_setup", "from_dict"):
        assert callable(getattr(cls, name)), name
    engine = registry.load(kind, cls.new(players=2, first_player=0).to_dict())
    missing = [name for name in MEMBERS if not hasattr(engine, name)]
    assert missing == []


def test_kind_protocols_tell_the_engines_apart() -> None:
    """§H6's swap target is the Dobon UNO house engine's; the preset (§T20.5) the trump
    engine's."""
    uno = registry.engine_class(registry.DOBON_UNO)
    trump = registry.engine_class(registry.TRUMP_DOBON)
    assert isinstance(trump.new(players=2, first_player=0), HasPreset)
    assert not isinstance(uno.new(players=2, first_player=0), HasPreset)
    assert isinstance(uno.new(players=3, first_player=0, house_rules={"seven_zero": True}),
                      SwapsHands)
    assert not isinstance(trump.new(players=2, first_player=0), SwapsHands)


def test_the_contract_doctests_hold() -> None:
    failed, _ = doctest.testmod(contract)
    assert failed == 0


def _concrete(action: dict[str, object], rng: random.Random) -> dict[str, object]:
    """A listed action as `apply` takes it: the auction's descriptor becomes a bid (§T20.3)."""
    if action["type"] == "bid" and "min" in action:
        return {"type": "bid", "amount": rng.randint(1, 30)}
    return action


def _play_through_the_contract(kind: str, engine: Engine, rng: random.Random) -> Engine:
    """Random legal actions through the protocol alone (OpenSpiel's one simulation test over
    every game); every 7 steps the game goes through its JSON state and play continues on
    the reloaded engine, which must save the same state."""
    now = 0.0
    for step in range(20_000):
        if engine.phase == "finished":
            return engine
        waiting = engine.to_act()
        if not waiting:
            now = max(now, engine.next_deadline or now)
            engine.advance(now)
            continue
        seat = rng.choice(waiting)
        engine.apply(seat, _concrete(rng.choice(engine.legal_actions(seat)), rng), now)
        if step % 7 == 0:
            state = engine.to_dict()
            engine = registry.load(kind, json.loads(json.dumps(state)))
            assert engine.to_dict() == state
    raise AssertionError(f"a {kind} game did not end")


CASES = [
    ("dobon_uno", {}),
    ("dobon_uno", {"house_rules": dict(PRESETS["party"])}),
    ("dobon_uno", {"house_rules": dict(PRESETS["competitive"])}),
    ("trump_dobon", {"preset": "au"}),
    ("trump_dobon", {"preset": "standard", "first_player": None}),
]


@pytest.mark.parametrize(("kind", "options"), CASES)
def test_random_games_of_every_kind_end_through_the_contract(kind: str,
                                                            options: dict[str, Any]) -> None:
    rng = random.Random(f"{kind} {sorted(options)}")
    cls = registry.engine_class(kind)
    for seed in range(12):
        created = cls.new(**{"players": 4, "first_player": seed % 4, "seed": seed, **options})
        engine = _play_through_the_contract(kind, created, rng)
        result = engine.result
        assert result is not None and result.kind in ("agari", "dobon", "return", "deck_out")
        assert len(result.deltas) == 4 and engine.to_act() == []
