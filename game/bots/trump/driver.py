"""Play one trump round among policies with the engine alone (no Django, no clock).

As ``game.bots.driver`` does for Dobon UNO: each policy gets only ``view(seat)`` and the
events its seat may see (after a ``start`` event shaped like the service layer's). The
driver asks every seat that has a legal action — seats that are not on turn (chances,
bids, a last one after the play) first, in an order shuffled from the round's seed, then
the seat on turn — applies the first answer that is not ``None`` and asks again; when
every seat waits, the clock jumps to the engine's next deadline and ``advance`` applies
the timeouts (§T18).

>>> from game.bots.trump import policy
>>> record = play_round([policy("easy", 1), policy("strong", 2), policy("normal", 3)],
...                     seed=5, preset="standard")
>>> record.result["kind"] in ("agari", "dobon", "return", "deck_out")
True
"""

from __future__ import annotations

from collections.abc import Sequence

from game.rules.trump import Game

from ..base import Action, Policy
from ..driver import Driver, GameRecord, Observer
from .common import is_answer
from .knowledge import Event, View

# A round takes a few dozen actions; this only stops a loop that never ends.
_MAX_STEPS = 20_000


def start_event(game: Game) -> Event:
    """The event put first in every round, as the Dobon UNO service layer does."""
    return {"type": "start", "to": None, "seat": game.turn, "top": game.top,
            "players": game.players, "preset": game.preset, "rate": 1}


def play_round(policies: Sequence[Policy], *, seed: int, preset: str = "au",
               first_player: int | None = 0, timeout: float = 10.0, game: Game | None = None,
               now: float = 0.0, observe: Observer | None = None,
               roundtrip: bool = False) -> GameRecord:
    """Play a round to its end; ``game`` (else ``Game.new`` from the arguments; standard
    always starts with its auction) is changed."""
    if game is None:
        game = Game.new(players=len(policies), seed=seed, preset=preset, timeout=timeout,
                        now=now, first_player=first_player if preset == "au" else None)
    if len(policies) != game.players:
        raise ValueError(f"{len(policies)} policies for {game.players} seats")
    return _Round(game, policies, seed, now, observe, roundtrip).run()


class _Round(Driver[Game]):
    rng_name = "trump-driver"
    max_steps = _MAX_STEPS
    what = "round"

    def _start_event(self) -> Event:
        return start_event(self.game)

    def _order(self) -> list[int]:
        turn = self.game.turn
        others = [s for s in range(self.game.players) if s != turn]
        self.rng.shuffle(others)
        return others + ([turn] if turn is not None else [])

    def _is_answer(self, view: View, action: Action) -> bool:
        """A bid within the auction's descriptor is taken too (§T21.46)."""
        return is_answer(view, action)
