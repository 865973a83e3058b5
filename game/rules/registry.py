"""Which engine plays which game kind: the one place a kind names an engine class.

Plain Python with no Django, like the engines, so that replays (game/history/replay.py)
and the bots can load any stored round by its kind. The site's per-kind behaviour around
an engine (how a round starts, how it settles, which CPU policy plays it) lives in
game/services/engines.py, which reads this table.

>>> engine_class("trump_dobon").__module__
'game.rules.trump.game'
>>> load("dobon_uno", engine_class("dobon_uno").new(players=2, first_player=0).to_dict()).players
2
"""

from __future__ import annotations

from typing import Any

from game.rules.contract import Engine, EngineClass
from game.rules.dobon_uno.game import Game as DobonUnoGame
from game.rules.trump import Game as TrumpGame

DOBON_UNO = "dobon_uno"
TRUMP_DOBON = "trump_dobon"

# mypy checks here that both engine classes keep the contract (game/rules/contract.py).
ENGINES: dict[str, EngineClass] = {DOBON_UNO: DobonUnoGame, TRUMP_DOBON: TrumpGame}
KINDS = tuple(ENGINES)


def engine_class(kind: str) -> EngineClass:
    """The engine class of `kind`; a stored game without a kind is Dobon UNO."""
    try:
        return ENGINES[kind or DOBON_UNO]
    except KeyError:
        raise ValueError(f"unknown game kind {kind!r}; one of {KINDS}") from None


def load(kind: str, state: dict[str, Any]) -> Engine:
    """The engine of `kind` rebuilt from its `to_dict()`."""
    return engine_class(kind).from_dict(state)
