"""One registry of game kinds for the site: what each kind does around its engine.

A room's `game_kind` picks an adapter here (`of(room_or_game)`); the services, the sweep,
CPU scheduling, matches, replay and history ask the adapter instead of importing an
engine, so what only one game has stays in its own class:

- Dobon UNO: the rate and the room's deck-out streak (§R12.3), colour choices, cut-ins,
  room points on `Membership.points` (§R11);
- trump Dobon (TRUMP-RULES.md): the preset, the seat ranges of §T1.2, the match record of
  §T17 (`Room.trump_match`, carried round to round in the database), no rate (§T1.7), and
  points kept apart from Dobon UNO's (the match totals, never `Membership.points`).

The engine classes themselves come from the Django-free game/rules/registry.py.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from django.db.models import F
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from game.models import TRUMP_SEATS, GameKind, Membership, Room, TrumpPreset
from game.rules import registry
from game.rules.contract import Engine, EngineClass, HasPreset, SwapsHands
from game.rules.trump import match_new, match_update

if TYPE_CHECKING:
    from game.models import Game

Action = dict[str, Any]
Event = dict[str, Any]


class Policy(Protocol):
    def act(self, view: dict[str, Any], events: list[dict[str, Any]]) -> Action | None: ...


PolicyFactory = Callable[[str, int], Policy]


class StartRefused(Exception):
    """A round this room cannot start (seat ranges); `code` is a refusal code of
    game/messages.py, `message` says what to change."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


class Kind:
    """What the site does around one game kind's engine. Subclasses fill the blanks."""

    kind: ClassVar[str]
    action_types: ClassVar[frozenset[str]]
    # The fields each action type's engine reads (beside `type`); any other key is
    # ignored by the engine (§T20.3, engine-conventions.md) and never stored.
    action_fields: ClassVar[dict[str, tuple[str, ...]]]

    def normal_action(self, action: dict[str, Any]) -> dict[str, Any]:
        """`action` as this kind's engine reads it: `type` and the fields of that type
        that are present, nothing else. What is applied, stored, logged and published
        (issue #31: 3 KB of text beside a draw was kept and served to every reader)."""
        fields = self.action_fields.get(action["type"], ())
        return {"type": action["type"], **{f: action[f] for f in fields if f in action}}

    @property
    def engine_class(self) -> EngineClass:
        return registry.engine_class(self.kind)

    def load(self, state: dict[str, Any]) -> Engine:
        return self.engine_class.from_dict(state)

    # -- starting a round
    def check_seats(self, room: Room, count: int) -> None:
        """Raise StartRefused when `count` seated players cannot play this room's game."""

    def new_game(self, room: Room, seated: list[Membership], first_player: int, now: float,
                 seed: int) -> Engine:
        raise NotImplementedError

    def from_setup(self, room: Room, seated: list[Membership], **setup: Any) -> Engine:
        """A fixed deal (tests only: game/services/fixed_setups.py)."""
        return self.engine_class.from_setup(rate=room.next_rate, **setup)

    def start_events(self, engine: Engine) -> list[Event]:
        """The event that opens the round (Game.new returns none of its own)."""
        return [{"type": "start", "to": None, "seat": engine.turn, "top": engine.top,
                 "players": engine.players, "rate": engine.rate}]

    def preset(self, room: Room) -> str:
        return ""

    # -- settling a round
    def settle(self, game: Game, seats: list[Any], summary: dict[str, Any]) -> None:
        """The room's side of a finished round (under the game's row lock)."""

    # -- CPU players and automatic actions
    def policy(self, level: str, seed: int) -> Policy:
        raise NotImplementedError

    def offers(self, legal: list[Action], action: Action) -> bool:
        """Whether `action` is one of the seat's legal actions."""
        return action in legal

    def is_chance(self, engine: Engine, seat: int, legal: list[Action]) -> bool:
        """A window that closes (so a CPU answers quickly), not its own turn."""
        if seat not in (engine.turn, engine.chooser):
            return True
        return any(a["type"] in ("dobon", "return") for a in legal)

    def auto_action(self, legal: list[Action], rng: random.Random,
                    engine: Engine | None = None, seat: int | None = None) -> Action | None:
        """The automatic action of a program's clock, from `seat`'s legal actions (the engine
        and seat for what the list alone cannot tell, e.g. the direction of play)."""
        raise NotImplementedError

    # -- what frames and pages add beside the view
    def match_info(self, room: Room) -> dict[str, Any] | None:
        return None


class DobonUno(Kind):
    kind = GameKind.DOBON_UNO.value
    action_types = frozenset(
        {"play", "draw", "pass", "color", "dobon", "return", "decline", "swap"}  # swap: §H6.4
    )
    action_fields = {"play": ("cards",), "color": ("color",), "swap": ("target",)}

    def new_game(self, room: Room, seated: list[Membership], first_player: int, now: float,
                 seed: int) -> Engine:
        return self.engine_class.new(
            players=len(seated), first_player=first_player, seed=seed,
            rate=room.next_rate,  # §H13: capped by the room's rate_cap
            timeout=float(room.timeout_seconds), now=now,
            house_rules=room.house_rules or None,  # §G1: the game keeps these
        )

    def from_setup(self, room: Room, seated: list[Membership], **setup: Any) -> Engine:
        """A fixed deal under the room's house rules (tests only)."""
        return self.engine_class.from_setup(
            rate=room.next_rate, house_rules=room.house_rules or None, **setup
        )

    def settle(self, game: Game, seats: list[Any], summary: dict[str, Any]) -> None:
        """§R11 points on the seated members (CPU players alike); §R12.3's streak."""
        deltas = summary["deltas"]
        for s in seats:
            if deltas[s.seat] and (s.user_id is not None or s.cpu_level is not None):
                seat_membership(game, s).update(points=F("points") + deltas[s.seat])
        streak = F("deck_out_streak") + 1 if summary["kind"] == "deck_out" else 0
        Room.objects.filter(pk=game.room_id).update(deck_out_streak=streak)

    def policy(self, level: str, seed: int) -> Policy:
        from game.bots import policy  # Django-free; imported when a CPU first acts

        result: Policy = policy(level, seed)
        return result

    def auto_action(self, legal: list[Action], rng: random.Random,
                    engine: Engine | None = None, seat: int | None = None) -> Action | None:
        """§R14: chances lapse first (decline), a colour choice gets a random colour, a
        drawn turn passes, an undrawn turn or an open draw stack draws (takes). House rules
        (HOUSE-RULES.md §6), as the engine's own clock does: §H6's swap goes to the next seat
        in the direction of play; §H7's turn after drawing (no pass) plays the drawn card
        alone."""
        by_type: dict[str, list[Action]] = {}
        for action in legal:
            by_type.setdefault(action["type"], []).append(action)
        if "decline" in by_type:
            return {"type": "decline"}
        if "color" in by_type:
            return dict(rng.choice(by_type["color"]))
        for kind in ("pass", "draw"):
            if kind in by_type:
                return {"type": kind}
        if "swap" in by_type and isinstance(engine, SwapsHands) and seat is not None:
            return {"type": "swap", "target": engine.automatic_swap_target(seat)}
        alone = [a for a in by_type.get("play", []) if len(a["cards"]) == 1]
        if alone:  # §H7: every play left is of the card just drawn (no other was playable)
            return dict(alone[0])
        return None


class TrumpDobon(Kind):
    kind = GameKind.TRUMP_DOBON.value
    action_types = frozenset(
        {"play", "draw", "pass", "color", "dobon", "return", "decline", "bid", "last_one", "yaku"}
    )
    action_fields = {"play": ("cards", "suit", "last_one"), "dobon": ("count",),
                     "bid": ("amount",)}

    def preset(self, room: Room) -> str:
        return room.trump_preset

    def check_seats(self, room: Room, count: int) -> None:
        low, high = TRUMP_SEATS[TrumpPreset(room.trump_preset)]
        if not low <= count <= high:
            raise StartRefused("trump_seats", seat_range_message(room.trump_preset))

    def new_game(self, room: Room, seated: list[Membership], first_player: int, now: float,
                 seed: int) -> Engine:
        """A round of the room's running match (§T17), or of a new one when there is none,
        it is over, or the seated players changed (§T17.4: seats stay for a match)."""
        record = self.current_match(room, seated)
        return self.engine_class.new(
            players=len(seated), first_player=record["first_player"], seed=seed,
            timeout=float(room.timeout_seconds), now=now, preset=room.trump_preset,
            match={"streaks": list(record["streaks"])},
        )

    def from_setup(self, room: Room, seated: list[Membership], **setup: Any) -> Engine:
        record = self.current_match(room, seated)
        if room.trump_preset == "standard":
            setup.setdefault("match", {"streaks": list(record["streaks"])})
        return self.engine_class.from_setup(preset=room.trump_preset, **setup)

    def current_match(self, room: Room, seated: list[Membership]) -> dict[str, Any]:
        """The match record the next round plays in; a new one is stored on the (locked)
        room when needed."""
        members = [member_key(m) for m in seated]
        held = room.trump_match or {}
        record = held.get("record")
        if record is None or record["over"] or held.get("members") != members or (
            record["preset"] != room.trump_preset
        ):
            owner = next((i for i, m in enumerate(seated) if m.user_id == room.owner_id), -1)
            # §T3.2: the owner's left neighbour; engine seat 0 when the owner is not seated.
            owner = owner if owner >= 0 else len(seated) - 1
            record = match_new(room.trump_preset, len(seated), self.settings(room), owner=owner)
            room.trump_match = {"record": record, "members": members,
                                "number": int(held.get("number", 0)) + 1}
            Room.objects.filter(pk=room.pk).update(trump_match=room.trump_match)
        return record

    @staticmethod
    def settings(room: Room) -> dict[str, int]:
        if room.trump_preset == "au":
            return {"start": room.starting_points}
        return {"rounds": room.rounds_per_match}

    def start_events(self, engine: Engine) -> list[Event]:
        if not isinstance(engine, HasPreset):
            raise TypeError("a trump Dobon round's engine names its preset (T20.5)")
        return [{"type": "start", "to": None, "seat": engine.turn, "top": engine.top,
                 "players": engine.players, "preset": engine.preset}]

    def settle(self, game: Game, seats: list[Any], summary: dict[str, Any]) -> None:
        """§T17: the round's result moves the room's match record on. Trump points never
        reach `Membership.points` (Dobon UNO's); the totals live in the record, which the
        summary keeps as it stood after this round (`match`)."""
        room = Room.objects.only("trump_match").get(pk=game.room_id)
        held = dict(room.trump_match or {})
        record = held.get("record")
        if record is None or record.get("over"):
            return  # the settings changed mid-round is impossible (§T1.1); nothing to carry
        record = match_update(record, summary)
        held["record"] = record
        summary["match"] = {**record, "number": held.get("number", 1)}
        Room.objects.filter(pk=game.room_id).update(trump_match=held)

    def policy(self, level: str, seed: int) -> Policy:
        from game.bots.trump import policy  # Django-free; imported when a CPU first acts

        result: Policy = policy(level, seed)
        return result

    def offers(self, legal: list[Action], action: Action) -> bool:
        if action.get("type") == "bid":
            amount = action.get("amount")
            return any(
                a["type"] == "bid" and type(amount) is int and a["min"] <= amount <= a["max"]
                for a in legal
            )
        return action in legal

    def is_chance(self, engine: Engine, seat: int, legal: list[Action]) -> bool:
        if engine.phase == "auction":
            return False
        return seat != engine.turn or any(a["type"] in ("dobon", "return") for a in legal)

    def auto_action(self, legal: list[Action], rng: random.Random,
                    engine: Engine | None = None, seat: int | None = None) -> Action | None:
        """§T18: bid 1; chances lapse (decline); on turn draw (the obligation, the
        accumulation or one card: the engine's `draw` takes what is due)."""
        types = {a["type"] for a in legal}
        if "bid" in types:
            return {"type": "bid", "amount": 1}
        if "decline" in types:
            return {"type": "decline"}
        if "draw" in types:
            return {"type": "draw"}
        return None

    def match_info(self, room: Room) -> dict[str, Any] | None:
        """The running match beside the view (§T17): round, totals by room seat, over."""
        held = room.trump_match or {}
        record = held.get("record")
        if record is None:
            return None
        return {**record, "number": held.get("number", 1),
                "room_seats": [key[0] for key in held.get("members", [])]}


def member_key(m: Membership) -> list[Any]:
    """Who sits where, for telling whether a match's table is still the same."""
    return [m.seat_index, m.user_id, m.cpu_level]


def seat_range_message(preset: str) -> str:
    low, high = TRUMP_SEATS[TrumpPreset(preset)]
    # The trump preset's own name (スタンダード), not draw stacking's "standard" (標準).
    name = _("au") if preset == "au" else pgettext("trump preset", "standard")
    return _("Trump Dobon (%(preset)s) is played by %(low)d to %(high)d players.") % {
        "preset": name, "low": low, "high": high}


def seat_membership(game: Game, s: Any) -> Any:
    """The room membership that plays seat `s`: the user's, or the CPU on its room seat."""
    if s.user_id is not None:
        return Membership.objects.filter(room_id=game.room_id, user_id=s.user_id)
    return Membership.objects.filter(
        room_id=game.room_id, seat_index=s.room_seat_index, cpu_level__isnull=False
    )


KINDS: dict[str, Kind] = {k.kind: k for k in (DobonUno(), TrumpDobon())}


def of(room_or_game: Room | Game | str | None) -> Kind:
    """The adapter of a room's (or a stored game's) kind; None or "" is Dobon UNO."""
    kind = room_or_game if room_or_game is None or isinstance(room_or_game, str) else (
        room_or_game.game_kind)
    return KINDS[kind or GameKind.DOBON_UNO.value]


def load(game: Game) -> Engine:
    """A stored game's engine, by the kind it was started with."""
    return of(game).load(game.state)


ALL_ACTION_TYPES = frozenset().union(*(k.action_types for k in KINDS.values()))
