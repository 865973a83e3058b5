"""Finished trump rounds from fixed set-ups, played through the live service, for the
settlement's page and browser tests (issue 33 item 1)."""

from __future__ import annotations

import time
from typing import Any

from game.models import Game
from game.rules.trump import Game as TrumpGame
from game.services import play
from tests.game.play_helpers import NOW, make_room

# au · 0 [D8 S10 H10], 1 [C3 H5], field D6: 0 plays D8 naming ♦, 1 dobons (3 + 5 = 8);
# 0's 20 cannot return it. X = 8 + 20 + 8 = 36, × 2^1 (TRUMP-RULES.md §T15.3) = 72.
AU_DOBON = {"hands": [["D8", "S10", "H10"], ["C3", "H5"]], "first_card": "D6",
            "deck": ["S11", "H11", "D11", "C11", "S12"], "first_player": 0}
AU_DOBON_MOVES = [(0, {"type": "play", "cards": ["D8"], "suit": "D"}), (1, {"type": "dobon"})]

# standard, §T16.9 (j): 2's quick storm dobon on 0's H13; w = 40; bids [2, 1, 1, 1].
STANDARD_QUICK = {"hands": [["H13", "S9", "D8", "C12", "H6"], ["S13", "D4", "C7", "H9", "D10"],
                            ["C3", "D3", "H3", "S2", "H2"], ["C11", "S5", "D6", "H1", "C4"]],
                  "first_card": "H4", "deck": ["S11", "H11", "D11", "C11", "S12"],
                  "first_player": 0, "bids": [2, 1, 1, 1]}
STANDARD_QUICK_MOVES = [(0, {"type": "play", "cards": ["H13"]}),
                        (2, {"type": "dobon", "count": 1})]


def play_trump_round(people: list[Any], preset: str, setup: dict[str, Any],
                     moves: list[tuple[int, dict[str, Any]]]) -> Game:
    """A trump round of `people` (seats 0, 1, …) dealt as `setup`, played to its end."""
    room = make_room(*people, game_kind="trump_dobon", trump_preset=preset,
                     seat_count=len(people))
    game = play.start_game(room, people[0], now=NOW)
    engine = TrumpGame.from_setup(preset=preset, timeout=60, now=time.time(), **setup)
    game.state = engine.to_dict()
    game.initial_state = game.state
    game.next_deadline = play.to_datetime(engine.next_deadline)
    game.save(update_fields=["state", "initial_state", "next_deadline"])
    for seat, action in moves:
        play.perform_action(game, people[seat], action, now=time.time())
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED, game.status
    return game

# au, §T15.7 (h) chain [1, 0]: 0 [D10 S3 H7], 1 [C4 H6], 2 [S5 C5], field D6: 0 plays D10,
# 1 dobons, 0 returns (3 + 7 = 10), 2 lets its dobon go: X = 30, × 2^2 = 120, 1 pays 0.
AU_RETURN = {"hands": [["D10", "S3", "H7"], ["C4", "H6"], ["S5", "C5"]], "first_card": "D6",
             "deck": ["S11", "H11", "D11", "C11", "S12"], "first_player": 0}
AU_RETURN_MOVES = [(0, {"type": "play", "cards": ["D10"]}), (1, {"type": "dobon"}),
                   (0, {"type": "return"}), (2, {"type": "decline"})]
