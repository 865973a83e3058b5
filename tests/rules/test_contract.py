"""The engine contract as types (game/rules/contract.py; ENGINE_API.md, TRUMP-RULES.md
§T20): mypy checks conformance where game/rules/registry.py lists the engine classes; these
tests hold the same at run time, so a member renamed in one engine fails here too."""

from __future__ import annotations

import doctest

import pytest

from game.rules import contract, registry
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
