"""Play one game among policies with the engine alone (no Django, no clock).

Each policy is given only ``view(seat)`` and the events its seat may see (``to`` is that
seat or ``None``, after a ``start`` event shaped like the service layer's), never the
engine. The driver asks the seats that can act, applies the first answer that is not
``None`` and asks again; when every seat waits, the clock jumps to the engine's next
deadline and ``advance`` applies the timeouts (§R14).

Who is asked first matters in races (§R7.5: first come, first served). Seats holding a
chance (cut-in, dobon, return) are asked before the seat on turn, as in rooms where CPU
chances are answered after a shorter delay than turns; among them the order is shuffled
by a generator seeded from the game's seed, so no seat is favoured systematically.

>>> from game.bots import policy
>>> record = play_game([policy("easy", 1), policy("easy", 2)], seed=5)
>>> record.result["kind"] in ("agari", "dobon", "return", "deck_out")
True
"""

from __future__ import annotations

import json
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from game.rules import Game

from .base import Action, Policy
from .knowledge import Event, View

Observer = Callable[[int, View, Sequence[Event], "Action | None"], None]

# A game takes a few hundred actions; this only stops a loop that never ends.
_MAX_STEPS = 50_000


class _Outcome(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


class Engine(Protocol):
    """What a driver uses of a game: both engines' ``Game`` have it (ENGINE_API.md)."""

    @property
    def players(self) -> int: ...

    @property
    def result(self) -> _Outcome | None: ...

    @property
    def next_deadline(self) -> float | None: ...

    def view(self, seat: int) -> dict[str, Any]: ...

    def apply(self, seat: int, action: Action, now: float) -> list[dict[str, Any]]: ...

    def advance(self, now: float) -> list[dict[str, Any]]: ...


G = TypeVar("G", bound=Engine)


class PolicyError(RuntimeError):
    """A policy answered with something that is not one of its legal actions."""


@dataclass
class GameRecord:
    """How one game went: the result (``result_to_dict`` shape) and what was asked."""

    result: dict[str, Any]
    actions: int = 0
    decisions: int = 0
    timeouts: int = 0
    seconds_by_seat: list[float] = field(default_factory=list)
    decisions_by_seat: list[int] = field(default_factory=list)


def start_event(game: Game) -> Event:
    """The event the service layer puts first in every game (game/services/play.py)."""
    return {"type": "start", "to": None, "seat": game.turn, "top": game.top,
            "players": game.players, "rate": game.rate}


def play_game(policies: Sequence[Policy], *, seed: int, first_player: int = 0, rate: int = 1,
              timeout: float = 10.0, game: Game | None = None, now: float = 0.0,
              observe: Observer | None = None, roundtrip: bool = False,
              house_rules: Mapping[str, Any] | None = None) -> GameRecord:
    """Play a game to its end; ``game`` (else ``Game.new`` from the arguments, under
    ``house_rules``, HOUSE-RULES.md) is changed.

    ``observe(seat, view, events, answer)`` is told every decision; ``roundtrip`` passes
    each policy a JSON round trip of its view and events, as a socket would.
    """
    if game is None:
        game = Game.new(players=len(policies), first_player=first_player, seed=seed,
                        rate=rate, timeout=timeout, now=now, house_rules=house_rules)
    if len(policies) != game.players:
        raise ValueError(f"{len(policies)} policies for {game.players} seats")
    return _Match(game, policies, seed, now, observe, roundtrip).run()


class Driver(ABC, Generic[G]):
    """The loop both games' drivers share (``play_game`` here, ``play_round`` for trump):
    ask the seats that can act in ``_order``, apply the first answer that is not ``None``
    and ask again; when every seat waits, jump the clock to the engine's next deadline.

    A subclass says who is asked first, what its ``start`` event is, how its answers are
    checked, how its generator is named (``rng_name``: the order in which seats are asked
    follows from it, so renaming it changes how every seeded game goes) and when a loop
    is too long (``max_steps``; ``what`` names the game in that error).
    """

    rng_name: ClassVar[str]
    max_steps: ClassVar[int]
    what: ClassVar[str]

    def __init__(self, game: G, policies: Sequence[Policy], seed: int, now: float,
                 observe: Observer | None, roundtrip: bool) -> None:
        self.game, self.policies, self.now = game, policies, now
        self.observe, self.roundtrip = observe, roundtrip
        self.rng = random.Random(f"{self.rng_name}:{seed}")
        self.logs: list[list[Event]] = [[] for _ in range(game.players)]
        self.record = GameRecord(result={}, seconds_by_seat=[0.0] * game.players,
                                 decisions_by_seat=[0] * game.players)
        self._deliver([self._start_event()])

    @abstractmethod
    def _start_event(self) -> Event:
        """The event every seat is told first, as the service layer does."""

    @abstractmethod
    def _order(self) -> list[int]:
        """The seats to ask, first asked first."""

    def _is_answer(self, view: View, action: Action) -> bool:
        """Whether the engine takes ``action`` from this seat: one of its legal actions."""
        return action in view["legal_actions"]

    def run(self) -> GameRecord:
        for _ in range(self.max_steps):
            result = self.game.result
            if result is not None:
                self.record.result = result.to_dict()
                return self.record
            if not self._one_action():
                self._advance()
        raise RuntimeError(f"{self.what} did not finish in {self.max_steps} steps")

    def _one_action(self) -> bool:
        """Ask the seats that can act; apply the first answer. False when all wait."""
        for seat in self._order():
            view = self.game.view(seat)
            if not view["legal_actions"]:
                continue
            action = self._ask(seat, view)
            if action is None:
                continue
            if not self._is_answer(view, action):
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


class _Match(Driver[Game]):
    rng_name = "driver"
    max_steps = _MAX_STEPS
    what = "game"

    def _start_event(self) -> Event:
        return start_event(self.game)

    def _order(self) -> list[int]:
        game = self.game
        chances = [s for s in range(game.players) if game.chances(s)]
        self.rng.shuffle(chances)
        actor = game.turn if game.turn is not None else game.chooser
        if actor is not None and actor not in chances:
            chances.append(actor)
        return chances
