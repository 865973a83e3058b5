"""Play one trump round among policies with the engine alone (no Django, no clock).

As ``game.bots.driver`` does for Dobon UNO: each policy gets only ``view(seat)`` and the
events its seat may see (after a ``start`` event shaped like the service layer's). The
driver asks every seat that has a legal action — seats that are not on turn (chances,
bids, a last one after the play) first, in an order shuffled from the round's seed, then
the seat on turn — applies the first answer that is not ``None`` and asks again; when
every seat waits, the clock jumps to the engine's next deadline and ``advance`` applies
the timeouts (T18).

>>> from game.bots.trump import policy
>>> record = play_round([policy("easy", 1), policy("strong", 2), policy("normal", 3)],
...                     seed=5, preset="standard")
>>> record.result["kind"] in ("agari", "dobon", "return", "deck_out")
True
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence

from game.rules.trump import Game

from ..base import Action, Policy
from ..driver import GameRecord, Observer, PolicyError
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


class _Round:
    def __init__(self, game: Game, policies: Sequence[Policy], seed: int, now: float,
                 observe: Observer | None, roundtrip: bool) -> None:
        self.game, self.policies, self.now = game, policies, now
        self.observe, self.roundtrip = observe, roundtrip
        self.rng = random.Random(f"trump-driver:{seed}")
        self.logs: list[list[Event]] = [[] for _ in range(game.players)]
        self.record = GameRecord(result={}, seconds_by_seat=[0.0] * game.players,
                                 decisions_by_seat=[0] * game.players)
        self._deliver([start_event(game)])

    def run(self) -> GameRecord:
        for _ in range(_MAX_STEPS):
            result = self.game.result
            if result is not None:
                self.record.result = result.to_dict()
                return self.record
            if not self._one_action():
                self._advance()
        raise RuntimeError(f"round did not finish in {_MAX_STEPS} steps")

    def _order(self) -> list[int]:
        turn = self.game.turn
        others = [s for s in range(self.game.players) if s != turn]
        self.rng.shuffle(others)
        return others + ([turn] if turn is not None else [])

    def _one_action(self) -> bool:
        for seat in self._order():
            view = self.game.view(seat)
            if not view["legal_actions"]:
                continue
            action = self._ask(seat, view)
            if action is None:
                continue
            if not is_answer(view, action):
                raise PolicyError(f"seat {seat} answered {action!r}, not a legal action")
            self._deliver(self.game.apply(seat, action, self.now))
            self.record.actions += 1
            return True
        return False

    def _ask(self, seat: int, view: View) -> Action | None:
        events: Sequence[Event] = list(self.logs[seat])
        if self.roundtrip:
            view, events = json.loads(json.dumps(view)), json.loads(json.dumps(events))
        start = time.process_time()
        action = self.policies[seat].act(view, events)
        self.record.seconds_by_seat[seat] += time.process_time() - start
        self.record.decisions_by_seat[seat] += 1
        self.record.decisions += 1
        if self.observe is not None:
            self.observe(seat, view, events, action)
        return action

    def _advance(self) -> None:
        deadline = self.game.next_deadline
        if deadline is None:
            raise RuntimeError("nobody can act and no deadline is pending")
        self.now = max(self.now, deadline)
        self._deliver(self.game.advance(self.now))
        self.record.timeouts += 1

    def _deliver(self, events: Sequence[Event]) -> None:
        for event in events:
            to = event["to"]
            if to is None:
                for log in self.logs:
                    log.append(event)
            else:
                self.logs[to].append(event)
