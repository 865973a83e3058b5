"""The Dobon UNO state machine: one mutable :class:`Game` driven by seat actions.

Every action verifies first and changes nothing when it raises :class:`IllegalAction`;
then it mutates the state and returns the events it caused (docs/engine-conventions.md).
Time only enters as the ``now`` argument and randomness only through the game's own
``random.Random`` (part of its saved state).

>>> g = Game.from_setup(hands=[["R5", "B1"], ["R3", "G2"]], first_card="R7",
...                     deck=["G1"], first_player=1)
>>> [e["type"] for e in g.play(1, ["R3"], now=1.0)]
['play', 'turn']
>>> g.turn, g.top, g.color
(0, 'R3', 'R')
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any, NoReturn

from .actions import COLOR_CHOICES, SIMPLE, SINGLE_PLAYS, FrozenAction, plain, play_action
from .cards import (
    CLASS_IDS,
    CLASS_OF,
    CODE,
    COLOR_INDEX,
    COLOR_OF,
    COLORS,
    FORCE_CLASS,
    FORCE_IDS,
    ID_OF,
    IS_NUMBER,
    MATCH,
    N_CLASSES,
    POINTS,
    RANK,
    STACK_ON,
    Rank,
    full_deck,
    groups,
    mask_of,
    parse_cards,
)
from .errors import IllegalAction
from .house import DEFAULT_RULES, HouseRules
from .outage import restart_due_clocks
from .result import MAX_RATE, Result, settle_agari, settle_deck_out, settle_dobon
from .rng import SeededRandom
from .variant import Variant, expression, variant_of

Event = dict[str, Any]
Action = dict[str, Any]
# A play legal_actions found: its card ids, whether it is a cut-in, and its action.
Move = tuple[list[int], bool, FrozenAction]


class Phase(StrEnum):
    """Where the game stands (ENGINE_API.md ``g.phase``)."""

    TURN = "turn"
    COLOR = "color"
    AGARI_WAIT = "agari_wait"
    DOBON_WAIT = "dobon_wait"
    RETURN_WAIT = "return_wait"
    FINISHED = "finished"
    SWAP = "swap"  # §H6.4: the 7's player names a swap target (house rules only)


# A seat's open chances on the last play, as bits (§R7, §R9, §R10).
CUT_IN = 1
DOBON = 2
RETURN = 4
_CHANCE_KINDS = tuple(
    [name for bit, name in ((CUT_IN, "cut_in"), (DOBON, "dobon"), (RETURN, "return")) if bits & bit]
    for bits in range(8)
)
_KIND_BITS = {"cut_in": CUT_IN, "dobon": DOBON, "return": RETURN}

_SKIP, _REVERSE, _DRAW_TWO = int(Rank.SKIP), int(Rank.REVERSE), int(Rank.DRAW_TWO)
_WILD, _WILD4, _FORCE = int(Rank.WILD), int(Rank.WILD_DRAW_FOUR), int(Rank.FORCE)
# Module-level names for the phases: an Enum member lookup (Phase.TURN) costs a slow
# descriptor call on Python 3.11, and these are read on every step.
_TURN, _COLOR, _FINISHED = Phase.TURN, Phase.COLOR, Phase.FINISHED
_AGARI_WAIT, _DOBON_WAIT, _RETURN_WAIT = Phase.AGARI_WAIT, Phase.DOBON_WAIT, Phase.RETURN_WAIT
_STOPPED = (_DOBON_WAIT, _RETURN_WAIT)
_WAITS = (_AGARI_WAIT, _DOBON_WAIT, _RETURN_WAIT)
_FULL_DECK = tuple(full_deck())
_DEFAULT_SAVED = DEFAULT_RULES.to_dict()  # what to_dict saves for a default game
_FORMAT = 1
_FIRST_FORCE = FORCE_IDS[0]
_FORCE_MASK = sum(1 << f for f in FORCE_IDS)
_NUMBER_MASK = mask_of(i for i in range(len(CODE)) if IS_NUMBER[i])
_ONE = tuple([i] for i in range(len(CODE)))  # one-card plays as id lists (never mutated)
_BIT = tuple(1 << i for i in range(len(CODE)))  # card id -> its bit in a hand mask
_CLASS_MASK = tuple(mask_of(ids) for ids in CLASS_IDS)  # card id -> its identity class
# Shared and never mutated: what _find_moves keeps for the common cases.
_NO_PLAYS: dict[tuple[str, ...], Move] = {}
_DRAW, _PASS = (SIMPLE["draw"],), (SIMPLE["pass"],)


def _fail(code: str, message: str) -> NoReturn:
    raise IllegalAction(code, message)


def _parse_action_cards(cards: Any) -> list[int]:
    if not isinstance(cards, (list, tuple)) or not cards:
        _fail("malformed_action", "a play needs a non-empty list of card codes")
    try:
        return parse_cards(list(cards))
    except ValueError as err:
        raise IllegalAction("unknown_card", str(err)) from None


class Game:
    """One game of Dobon UNO (RULES.md §R1-§R15) behind the API of ENGINE_API.md.

    >>> g = Game.new(players=4, first_player=1, seed=42)
    >>> g.players, len(g.hand(0)), g.deck_count
    (4, 7, 83)
    """

    __slots__ = (
        "_n", "_hands", "_points", "_deck", "_discards", "_color", "_dir",
        "_phase", "_turn", "_chooser", "_next", "_clock", "_drawn", "_stack", "_rate",
        "_timeout", "_lp_seat", "_lp_count", "_lp_points", "_chances", "_chance_dl",
        "_target", "_declarers", "_result", "_rng", "_rng_shared",
        "_mv_seat", "_mv_singles", "_mv_plays", "_mv_other",
        "_class_total", "_masks", "_multi", "_rules", "_v",
    )

    _n: int
    _hands: list[list[int]]        # each seat's card ids, in the order received
    _masks: list[int]              # per seat, bit i set when it holds card id i
    _multi: list[int]              # per seat, bit i set when it holds card id i twice or more
    _class_total: list[int]        # per identity class, copies held by all seats together
    _points: list[int]             # per seat, the points of its hand (§R2.3)
    _deck: list[int]               # the draw pile, next card LAST (pop is cheap)
    _discards: list[int]           # the discard pile, top card last
    _color: int                    # current colour index, -1 while none is set
    _dir: int
    _phase: Phase
    _turn: int                     # seat on turn, -1 while nobody is
    _chooser: int                  # seat choosing a colour, -1 when none
    _next: int                     # who gets the turn once the colour is chosen
    _clock: float | None           # deadline of the seat on turn or the chooser
    _drawn: bool                   # the seat on turn made its optional draw
    _stack: int                    # the open draw stack
    _rate: int
    _timeout: float
    _lp_seat: int                  # who made the last play, -1 for the first card
    _lp_count: int                 # how many cards the last play put down
    _lp_points: int
    _chances: list[int]            # per seat, open chance bits on the last play
    _chance_dl: float | None       # when those chances (or the current wait) lapse
    _target: int                   # the dobon'd seat, -1 before any dobon
    _declarers: list[int]          # dobon declarers in declaration order
    _result: Result | None
    _rng: SeededRandom
    _rng_shared: bool              # copy-on-write: another Game may hold the same generator
    # What legal_actions last found for one seat, so that apply can take a listed action
    # without checking it again. _mv_seat is -1 whenever the state has changed since.
    _mv_seat: int
    _mv_singles: int               # mask of the cards playable alone on turn (held once)
    _mv_plays: dict[tuple[str, ...], Move]  # every other play, by its codes
    _mv_other: tuple[FrozenAction, ...]  # the actions without cards
    _rules: HouseRules             # HOUSE-RULES.md §G2: the rule set the game started with
    _v: Variant                    # what the rules change, read where they do (variant.py)

    # ------------------------------------------------------------------ creation

    @classmethod
    def new(cls, players: int = 4, first_player: int = 1, seed: int = 0, rate: int = 1,
            timeout: float = 10.0, now: float = 0.0,
            house_rules: Mapping[str, Any] | None = None) -> Game:
        """Shuffle a full deck with ``random.Random(seed)``, deal 7 each (§H1: ``hand_size``),
        turn a card (§R3).

        ``house_rules`` (HOUSE-RULES.md §G4, ``None`` for every default) is validated
        (``ValueError``) and kept for the whole game; §H1 sets how many cards are dealt.

        >>> g = Game.new(players=3, first_player=0, seed=7, now=100.0)
        >>> g.next_deadline
        110.0
        """
        _check_table(players, first_player, rate, timeout, now)
        rules = HouseRules.from_mapping(house_rules)
        size = rules.hand_size  # §H1.1
        rng = SeededRandom(seed)
        deck = list(_FULL_DECK)
        rng.shuffle(deck)
        hands = [deck[s * size:(s + 1) * size] for s in range(players)]
        first = deck[players * size]
        rest = deck[players * size + 1:]
        return _class_for(cls, rules)._start(hands, first, rest, first_player, rate,
                                             float(timeout), now, rng, rules)

    @classmethod
    def from_setup(cls, hands: list[list[str]], first_card: str, deck: list[str],
                   first_player: int = 1, rate: int = 1, timeout: float = 10.0,
                   now: float = 0.0, seed: int = 0,
                   house_rules: Mapping[str, Any] | None = None) -> Game:
        """A game from given hands, first card and draw pile (``deck[0]`` is drawn first).

        The first card takes effect as in §R3.3. The cards need not add up to a full deck,
        but malformed input raises ``ValueError``.

        >>> g = Game.from_setup(hands=[["R5"], ["B3", "G2"]], first_card="W", deck=[],
        ...                     first_player=1)
        >>> g.phase == "color", g.chooser
        (True, 1)
        """
        if not isinstance(hands, (list, tuple)):
            raise ValueError("hands must be a list of lists of card codes")
        _check_table(len(hands), first_player, rate, timeout, now)
        ids = [parse_cards(h) for h in hands]
        if any(not h for h in ids):
            raise ValueError("every seat needs at least one card")
        if not isinstance(first_card, str):
            raise ValueError("first_card must be a card code")
        first = parse_cards([first_card])[0]
        pile = parse_cards(deck)
        rules = HouseRules.from_mapping(house_rules)
        rng = SeededRandom(seed)
        return _class_for(cls, rules)._start(ids, first, pile, first_player, rate,
                                             float(timeout), now, rng, rules)

    @classmethod
    def _start(cls, hands: list[list[int]], first: int, deck: list[int], first_player: int,
               rate: int, timeout: float, now: float, rng: SeededRandom,
               rules: HouseRules = DEFAULT_RULES) -> Game:
        g = cls.__new__(cls)
        n = len(hands)
        g._n = n
        g._rules, g._v = rules, _variant(rules)
        g._hands = [list(h) for h in hands]
        g._index_hands()
        g._deck = list(reversed(deck))
        g._discards = [first]
        g._color, g._dir, g._stack = -1, 1, 0
        g._turn, g._chooser, g._next, g._clock, g._drawn = -1, -1, -1, None, False
        g._rate, g._timeout = rate, timeout
        g._lp_seat, g._lp_count, g._lp_points = -1, 1, POINTS[first]
        g._chances, g._chance_dl = [0] * n, None
        g._target, g._declarers, g._result = -1, [], None
        g._rng, g._rng_shared = rng, False
        g._mv_seat, g._mv_singles, g._mv_plays = -1, 0, _NO_PLAYS
        g._mv_other = ()
        g._init_house()
        g._turn_up_first_card(first, first_player, now)
        return g

    def _init_house(self) -> None:
        """The state only house rules use (none here: see HouseGame)."""

    def _turn_up_first_card(self, first: int, first_player: int, now: float) -> None:
        """§R3.3: the dealer (F's right neighbour) 'plays' it; F or the next plays."""
        n, rank = self._n, RANK[first]
        dealer = (first_player - 1) % n
        self._color = COLOR_OF[first]
        if rank == _SKIP or (rank == _REVERSE and n == 2):
            self._start_turn((dealer + 2) % n, now)
        elif rank == _REVERSE:
            self._dir = -1
            self._start_turn((dealer - 1) % n, now)
        elif rank == _WILD:
            self._color = -1
            self._ask_color(first_player, first_player, now)
        else:
            if rank == _DRAW_TWO:
                self._stack = 2
            elif rank == _WILD4:
                self._color, self._stack = -1, 4
            self._start_turn(first_player, now)

    # ------------------------------------------------------------------ reading

    @property
    def players(self) -> int:
        """The number of seats."""
        return self._n

    def hand(self, seat: int) -> list[str]:
        """That seat's cards as codes, in the order they were received."""
        self._check_seat(seat)
        return [CODE[i] for i in self._hands[seat]]

    def hand_points(self, seat: int) -> int:
        """The points of that seat's hand (§R2.3)."""
        self._check_seat(seat)
        return self._points[seat]

    @property
    def hand_counts(self) -> list[int]:
        """Every seat's number of cards."""
        return [len(h) for h in self._hands]

    @property
    def top(self) -> str:
        """The top card of the discard pile."""
        return CODE[self._discards[-1]]

    @property
    def color(self) -> str | None:
        """The current colour, or ``None`` while none is set."""
        return COLORS[self._color] if self._color >= 0 else None

    @property
    def chooser(self) -> int | None:
        """The seat that must choose a colour in phase ``"color"``."""
        return self._chooser if self._chooser >= 0 else None

    @property
    def turn(self) -> int | None:
        """The seat on turn, or ``None`` while nobody is."""
        return self._turn if self._turn >= 0 else None

    @property
    def direction(self) -> int:
        """``1`` clockwise, ``-1`` counter-clockwise."""
        return self._dir

    @property
    def pending_draw(self) -> int:
        """The open draw stack (0 when none)."""
        return self._stack

    @property
    def deck_count(self) -> int:
        """Cards left in the draw pile."""
        return len(self._deck)

    @property
    def discard_count(self) -> int:
        """Cards in the discard pile, the top card included."""
        return len(self._discards)

    @property
    def discards(self) -> list[str]:
        """The discard pile, bottom first (public: every card in it was played face up)."""
        return [CODE[i] for i in self._discards]

    @property
    def rate(self) -> int:
        """This game's rate (§R12.3)."""
        return self._rate

    @property
    def house_rules(self) -> dict[str, Any]:
        """The game's rule set, every key (HOUSE-RULES.md §G3); a fresh dict."""
        return self._rules.to_dict()

    @property
    def timeout(self) -> float:
        """Seconds a seat has to act (§R1.3)."""
        return self._timeout

    @property
    def phase(self) -> str:
        """One of ``"turn"``, ``"color"``, ``"agari_wait"``, ``"dobon_wait"``,
        ``"return_wait"``, ``"finished"``.

        A :class:`Phase`, which is a ``str`` and compares equal to those strings.
        """
        return self._phase

    @property
    def has_drawn(self) -> bool:
        """Whether the seat on turn already made its optional draw (§R4.2)."""
        return self._drawn

    @property
    def last_play(self) -> dict[str, Any]:
        """The play chances are judged on.

        ``seat`` (``None`` for the first card), ``cards`` and ``points``.
        """
        cards = self._discards[-self._lp_count:]
        seat = self._lp_seat if self._lp_seat >= 0 else None
        return {"seat": seat, "cards": [CODE[i] for i in cards], "points": self._lp_points}

    @property
    def result(self) -> Result | None:
        """``None`` until the game is finished."""
        return self._result

    def chances(self, seat: int) -> list[str]:
        """That seat's open chances: a subset of ``"cut_in"``, ``"dobon"``, ``"return"``."""
        self._check_seat(seat)
        return list(_CHANCE_KINDS[self._chances[seat]])

    def to_act(self) -> list[int]:
        """The seats the game waits for: the seat on turn, the chooser, or those asked in a wait.

        Optional chances during a turn (cut-ins, the dobon chances of others) are not
        waited for, so they are not listed; ``legal_actions`` shows them.
        """
        phase = self._phase
        if phase is _TURN:
            return [self._turn]
        if phase is _COLOR:
            return [self._chooser]
        return [s for s in range(self._n) if self._chances[s]]

    @property
    def next_deadline(self) -> float | None:
        """The earliest pending deadline (lapsing chances included), or ``None``."""
        return self._due()[0]

    # ------------------------------------------------------------------ acting

    def play(self, seat: int, cards: list[str], now: float) -> list[Event]:
        """Play identical cards: on turn, onto a draw stack, or as a cut-in (§R4, §R5, §R7).

        >>> g = Game.from_setup(hands=[["R5", "R5", "B1"], ["R3"]], first_card="R7",
        ...                     deck=["G1"], first_player=0)
        >>> g.play(0, ["R5", "R5"], 0.0)[0]["points"]
        10
        """
        self._check_seat(seat)
        now = _as_time(now)
        ids = _parse_action_cards(cards)
        cut_in = self._check_play(seat, ids)
        self._mv_seat = -1
        return self._play(seat, ids, now, cut_in)

    def draw(self, seat: int, now: float) -> list[Event]:
        """The optional draw of one card (§R4.2), or taking the open draw stack (§R5.2)."""
        return self._checked(seat, now, self._check_draw, self._draw_or_take)

    def pass_turn(self, seat: int, now: float) -> list[Event]:
        """Pass after the optional draw (§R4.2)."""
        return self._checked(seat, now, self._check_pass, self._pass)

    def choose_color(self, seat: int, color: str, now: float) -> list[Event]:
        """Choose the colour after a W or W+4 (§R6), ``color`` in ``"R" "B" "G" "Y"``."""
        self._check_seat(seat)
        now = _as_time(now)
        self._check_color(seat, color)
        self._mv_seat = -1
        return self._set_color(seat, COLOR_INDEX[color], now)

    def swap(self, seat: int, target: int, now: float) -> list[Event]:
        """§H6.4: the 7's player swaps hands with ``target`` (only under ``seven_zero``)."""
        self._check_seat(seat)
        now = _as_time(now)
        self._check_swap(seat, target)
        self._mv_seat = -1
        return self._swap(seat, target, now)

    def _check_swap(self, seat: int, target: Any) -> None:
        self._check_running()
        _fail("not_swapper", "you are not choosing a seat to swap hands with (H6.4)")

    def _swap(self, seat: int, target: int, now: float) -> list[Event]:
        raise NotImplementedError  # only HouseGame ever passes _check_swap

    def dobon(self, seat: int, now: float) -> list[Event]:
        """Declare dobon on the last play (§R9)."""
        return self._checked(seat, now, self._check_dobon, self._declare)

    def dobon_return(self, seat: int, now: float) -> list[Event]:
        """Return a dobon (§R10)."""
        return self._checked(seat, now, self._check_return, self._return)

    def decline(self, seat: int, now: float) -> list[Event]:
        """Let all of this seat's open chances lapse (§R7.6, §R9.2, §R10.2)."""
        return self._checked(seat, now, self._check_decline, self._decline)

    def _checked(self, seat: int, now: float, check: Callable[[int], None],
                 do: Callable[[int, float], list[Event]]) -> list[Event]:
        """Check, then do, an action that names only the seat (draw, pass, dobon, return,
        decline): an illegal one raises before anything changes."""
        self._check_seat(seat)
        now = _as_time(now)
        check(seat)
        self._mv_seat = -1
        return do(seat, now)

    def apply(self, seat: int, action: Action, now: float) -> list[Event]:
        """Any action given as a dict (the shapes :meth:`legal_actions` lists).

        >>> g = Game.from_setup(hands=[["R5", "B1"], ["R3", "G2"]], first_card="R7",
        ...                     deck=["G1", "G3"], first_player=0)
        >>> [e["type"] for e in g.apply(0, {"type": "draw"}, 0.0)]
        ['draw', 'drawn', 'turn']
        """
        if type(now) is not float:
            now = _as_time(now)
        if seat == self._mv_seat and type(seat) is int:
            # legal_actions listed this seat's actions for this very state: an exact match
            # with one of them needs no checks. Anything else goes the checked way below.
            kind = type(action)
            if kind is FrozenAction:
                key = action.key  # type: ignore[attr-defined]
                if type(key) is int and self._mv_singles >> key & 1:  # the commonest step
                    self._mv_seat = -1
                    return self._play_single(seat, key, now)
                if type(key) is str and action in self._mv_other:  # draw, pass, colour, ...
                    self._mv_seat = -1
                    return _LISTED[key](self, seat, now)
                events = self._apply_listed(seat, key, now)
            elif kind is dict:
                events = self._apply_listed(seat, _key_of(action), now)
            else:
                events = None
            if events is not None:
                return events
        return self._apply_checked(seat, action, now)

    def _apply_listed(self, seat: int, key: int | tuple[str, ...] | str | None,
                      now: float) -> list[Event] | None:
        """Do the listed action with this key (see FrozenAction.key), or return None."""
        if type(key) is int:
            if self._mv_singles >> key & 1:
                self._mv_seat = -1
                return self._play_single(seat, key, now)
            key = (CODE[key],)  # a one-card play that is not a "single" (a cut-in, say)
        if type(key) is tuple:
            move = self._mv_plays.get(key)
            if move is not None:
                self._mv_seat = -1
                return self._play(seat, move[0], now, move[1], list(key))
        elif type(key) is str and any(a.key == key for a in self._mv_other):
            self._mv_seat = -1
            return _LISTED[key](self, seat, now)
        return None

    def _apply_checked(self, seat: int, action: Action, now: float) -> list[Event]:
        if not isinstance(action, dict):
            _fail("malformed_action", "an action is a dict with a 'type'")
        kind = action.get("type")
        if kind == "play":
            return self.play(seat, action.get("cards"), now)  # type: ignore[arg-type]
        if kind == "color":
            color = action.get("color")
            if not isinstance(color, str):
                _fail("malformed_action", "a colour action needs a 'color'")
            return self.choose_color(seat, color, now)
        if kind == "swap":
            return self.swap(seat, action.get("target"), now)  # type: ignore[arg-type]
        method = _CHECKED.get(kind) if isinstance(kind, str) else None
        if method is None:
            _fail("malformed_action", f"unknown action type {kind!r}")
        return method(self, seat, now)

    def advance(self, now: float) -> list[Event]:
        """Apply every timeout due by ``now`` (§R14), each at its own deadline.

        >>> g = Game.from_setup(hands=[["R5", "B1"], ["R3", "G2"]], first_card="R7",
        ...                     deck=["G1", "G3", "Y4"], first_player=0, timeout=10.0)
        >>> [e["type"] for e in g.advance(25.0)]
        ['timeout', 'draw', 'drawn', 'pass', 'turn', 'timeout', 'draw', 'drawn', 'pass', 'turn']
        >>> g.next_deadline
        30.0
        """
        now = _as_time(now)
        events: list[Event] = []
        while True:
            deadline, is_chance = self._due()
            if deadline is None or deadline > now:
                return events
            self._mv_seat = -1
            if is_chance:
                events += self._lapse_chances(deadline)
            else:
                events += self._clock_timeout(deadline)

    def resume(self, now: float) -> list[Event]:
        """Restart every clock already due by ``now`` with a full timeout from ``now``,
        instead of applying its timeout: for a server whose clock was stopped (an
        outage), so that each waiting seat gets a fresh timeout rather than the
        automatic actions of the whole outage (§R14 note in docs/protocol.md).

        >>> g = Game.from_setup(hands=[["R5", "B1"], ["R3", "G2"]], first_card="R7",
        ...                     deck=["G1"], first_player=0, timeout=10.0)
        >>> [e["type"] for e in g.resume(600.0)], g.next_deadline, g.turn
        (['resume'], 610.0, 0)
        >>> g.resume(605.0)
        []
        """
        self._clock, self._chance_dl, events = restart_due_clocks(
            self._clock, self._chance_dl, _as_time(now), self._timeout
        )
        return events

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action dict :meth:`apply` would accept from ``seat`` now.

        >>> g = Game.from_setup(hands=[["R5", "R5", "B1"], ["R3"]], first_card="R7",
        ...                     deck=["G1"], first_player=0)
        >>> g.legal_actions(0)  # doctest: +NORMALIZE_WHITESPACE
        [{'type': 'play', 'cards': ['R5']}, {'type': 'play', 'cards': ['R5', 'R5']},
         {'type': 'draw'}]
        """
        if seat != self._mv_seat:
            if type(seat) is not int or not 0 <= seat < self._n:
                self._check_seat(seat)
            if seat == self._turn and not self._chances[seat]:
                singles = self._find_turn_plays(seat)  # the commonest case: one call only
            else:
                self._find_moves(seat)
                singles = self._mv_singles
        else:
            singles = self._mv_singles
        actions: list[Action] = []
        while singles:  # lowest id first: the same order however the hand was built
            low = singles & -singles
            singles ^= low
            actions.append(SINGLE_PLAYS[low.bit_length() - 1])
        if self._mv_plays:
            for move in self._mv_plays.values():
                actions.append(move[2])
        actions += self._mv_other
        return actions

    def _find_moves(self, seat: int) -> None:
        """Work out (and keep until the next change) everything ``seat`` may do now."""
        bits = self._chances[seat]
        if seat == self._turn:  # only set in phase "turn"
            self._find_turn_plays(seat)
            if not bits:
                return
            other = list(self._mv_other)
        else:
            self._mv_seat, self._mv_singles, self._mv_plays = seat, 0, _NO_PLAYS
            other = []
            if self._phase is _COLOR and seat == self._chooser:
                other += COLOR_CHOICES
            elif bits & CUT_IN:
                self._mv_plays = self._cut_in_plays(seat)
        if bits & DOBON:
            other.append(SIMPLE["dobon"])
        if bits & RETURN:
            other.append(SIMPLE["return"])
        if bits:
            other.append(SIMPLE["decline"])
        self._mv_other = tuple(other)

    def _find_turn_plays(self, seat: int) -> int:
        """What the seat on turn may do, chances aside: §R4.1 / §R5.1 plays of every count,
        minus what §R8.1 forbids, and the draw or the pass (§R4.2, §R5.2).

        Cards held once (not F) go into the ``_mv_singles`` mask, which is returned: the
        common case, and one that apply can verify with a bit test. Larger groups and F
        cards go into ``_mv_plays``.
        """
        top_rank = RANK[self._discards[-1]]
        if self._stack:
            playable = self._masks[seat] & STACK_ON[top_rank]
            self._mv_other = _DRAW
        else:
            playable = self._masks[seat] & MATCH[self._color + 1][top_rank]
            self._mv_other = _PASS if self._drawn else _DRAW
        grouped = playable & (self._multi[seat] | _FORCE_MASK)
        singles = playable ^ grouped
        hand_size = len(self._hands[seat])
        if hand_size == 1:
            singles &= _NUMBER_MASK  # §R8.1: only a number card may go out
        self._mv_seat, self._mv_singles = seat, singles
        if not grouped:
            self._mv_plays = _NO_PLAYS
            return singles
        hand = self._hands[seat]
        plays: dict[tuple[str, ...], Move] = {}
        while grouped:
            low = grouped & -grouped
            card = low.bit_length() - 1
            if card >= _FIRST_FORCE:  # F ids are the highest: only F cards are left
                if self._multi[seat] & _FORCE_MASK:
                    counts = _force_counts(hand)
                else:  # each F held once (as in a full deck): the bits are the counts
                    counts = _F_COUNTS[grouped >> _FIRST_FORCE]
                found = _force_plays_for(counts, hand_size, cut_in=False)
                if not plays:
                    self._mv_plays = found  # shared, like every _mv_plays: never mutated
                    return singles
                plays.update(found)
                break
            grouped ^= low
            count = hand.count(card)
            if count == hand_size and not IS_NUMBER[card]:
                count -= 1
            for codes, ids in groups(card, count):
                plays[codes] = (ids, False, play_action(codes))
        self._mv_plays = plays
        return singles

    def _cut_in_plays(self, seat: int) -> dict[tuple[str, ...], Move]:
        """§R7.1: cards identical to the top card, any count §R8.1 allows."""
        top = self._discards[-1]
        hand = self._hands[seat]
        plays: dict[tuple[str, ...], Move] = {}
        if CLASS_OF[top] == FORCE_CLASS:
            return _force_plays_for(_force_counts(hand), len(hand), cut_in=True)
        count = hand.count(top)
        if count == len(hand) and not IS_NUMBER[top]:
            count -= 1
        for codes, ids in groups(top, count):
            plays[codes] = (ids, True, play_action(codes))
        return plays

    def _playable(self, card: int) -> bool:
        """§R4.1 matching, or §R5.1 stacking when a draw stack is open."""
        top_rank = RANK[self._discards[-1]]
        if self._stack:
            return bool(self._stack_mask(top_rank) >> card & 1)
        return bool(MATCH[self._color + 1][top_rank] >> card & 1)

    def _stack_mask(self, top_rank: int) -> int:
        """§R5.1, §H3.1 (cross) and §H3.3 (off): the ids that may go on an open draw stack
        topped by this rank (the default variant's table is §R5.1's)."""
        return self._v.stack_accepts[top_rank]

    # ------------------------------------------------------------------ checks

    def _check_seat(self, seat: int) -> None:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self._n:
            _fail("invalid_seat", f"no seat {seat!r} at this table")

    def _check_running(self) -> None:
        if self._phase is _FINISHED:
            _fail("game_finished", "the game is over")
        if self._phase in _STOPPED:
            _fail("game_stopped_by_dobon", "a dobon stopped the game (R9.4)")

    def _check_play(self, seat: int, ids: list[int]) -> bool:
        """Verify a play; returns whether it is a cut-in."""
        self._check_running()
        phase = self._phase
        if phase is _TURN and seat == self._turn:
            self._check_turn_play(seat, ids)
            return False
        if phase is _COLOR and seat == self._chooser:
            _fail("must_choose_color", "choose a colour first (R6.1)")
        self._check_cut_in(seat, ids)
        return True

    def _check_in_hand(self, seat: int, ids: list[int]) -> None:
        hand = self._hands[seat]
        for card in set(ids):
            if ids.count(card) > hand.count(card):
                _fail("not_in_hand", f"you do not hold {ids.count(card)} × {CODE[card]}")

    def _check_going_out(self, seat: int, ids: list[int]) -> None:
        if self._v.action_finish:  # §H4.1: any play may go out
            return
        if len(ids) == len(self._hands[seat]) and not IS_NUMBER[ids[0]]:
            _fail("cannot_go_out_with_action_card", "you cannot go out with an action card (R8.1)")

    def _check_turn_play(self, seat: int, ids: list[int]) -> None:
        self._check_in_hand(seat, ids)
        if not self._together(ids):
            _fail("not_identical", "cards played together must be identical (R2.2)")
        if not self._playable(ids[0]):
            if self._stack:
                _fail("must_draw_or_stack", "stack a draw card or take the stack (R5)")
            _fail("does_not_match", f"{CODE[ids[0]]} does not match the field (R4.1)")
        self._check_going_out(seat, ids)

    def _together(self, ids: list[int]) -> bool:
        """§R2.2: cards played together are identical."""
        cls = CLASS_OF[ids[0]]
        return all(CLASS_OF[i] == cls for i in ids)

    def _check_cut_in(self, seat: int, ids: list[int]) -> None:
        if self._v.cut_in == "off":  # §H2.2
            _fail("cut_in_off", "cut-ins are off at this table (H2)")
        if not self._cut_in_cards(ids):
            _fail("not_your_turn", "it is not your turn")
        if self._phase is _AGARI_WAIT:
            _fail("no_cut_in_on_going_out", "no cut-in on a going-out play, only dobon (R7.3)")
        if self._lp_seat < 0:
            _fail("no_cut_in_on_first_card", "nobody can cut in on the first card (R3.4)")
        if seat == self._lp_seat:
            _fail("cannot_cut_in_own_play", "you cannot cut in on your own play (R7.1)")
        self._check_cut_in_on_stack()
        self._check_in_hand(seat, ids)
        self._check_going_out(seat, ids)
        if not self._chances[seat] & CUT_IN:
            _fail("window_closed", "the chance to cut in on this play has closed (R7.2)")

    def _cut_in_cards(self, ids: list[int]) -> bool:
        """§R7.1: a cut-in plays cards identical to the top card."""
        top_cls = CLASS_OF[self._discards[-1]]
        return all(CLASS_OF[i] == top_cls for i in ids)

    def _check_cut_in_on_stack(self) -> None:
        """§R7 allows a cut-in on an open draw stack; §H3.3 / §H3.4 may not."""
        if self._cut_in_blocked():
            _fail("no_cut_in_on_stack", "no cut-in on an open draw stack at this table (H3)")

    def _cut_in_blocked(self) -> bool:
        """§H3.3 / §H3.4 (§H3.5): no cut-in on a +2 or W+4 while its stack is open."""
        if not self._stack or RANK[self._discards[-1]] not in (_DRAW_TWO, _WILD4):
            return False
        return not self._v.cut_in_on_stack

    def _check_turn(self, seat: int) -> None:
        self._check_running()
        if self._phase is _COLOR and seat == self._chooser:
            _fail("must_choose_color", "choose a colour first (R6.1)")
        if self._phase is not _TURN or seat != self._turn:
            _fail("not_your_turn", "it is not your turn")

    def _check_draw(self, seat: int) -> None:
        self._check_turn(seat)
        if self._drawn and not self._stack:
            _fail("already_drawn", "you already drew this turn: play or pass (R4.2)")

    def _check_pass(self, seat: int) -> None:
        self._check_turn(seat)
        if self._stack:
            _fail("must_draw_or_stack", "stack a draw card or take the stack (R5)")
        if not self._drawn:
            _fail("must_draw_before_pass", "you may pass only after drawing (R4.2)")
        if self._v.draw_until_playable:  # §H7.2
            _fail("must_play_after_draw", "after drawing until playable you must play (H7)")

    def _check_color(self, seat: int, color: str) -> None:
        self._check_running()
        if self._phase is not _COLOR or seat != self._chooser:
            _fail("not_chooser", "you are not choosing a colour")
        if type(color) is not str or color not in COLOR_INDEX:
            _fail("invalid_color", f"{color!r} is not one of R, B, G, Y")

    def _check_dobon(self, seat: int) -> None:
        if self._phase is _FINISHED:
            _fail("game_finished", "the game is over")
        if self._chances[seat] & DOBON:
            return
        if seat in self._declarers:
            _fail("already_declared", "you already declared dobon")
        could = (self._lp_seat >= 0 and seat != self._lp_seat and self._phase is not _RETURN_WAIT
                 and self._points[seat] == self._lp_points)
        if could:
            _fail("window_closed", "the chance to dobon on this play has closed (R9.2)")
        _fail("cannot_dobon", "your hand's points do not equal the last play's (R9.1)")

    def _check_return(self, seat: int) -> None:
        if self._phase is _FINISHED:
            _fail("game_finished", "the game is over")
        if not self._chances[seat] & RETURN:
            _fail("not_eligible_to_return", "you cannot return a dobon now (R10.1)")

    def _check_decline(self, seat: int) -> None:
        if self._phase is _FINISHED:
            _fail("game_finished", "the game is over")
        if not self._chances[seat]:
            _fail("nothing_to_decline", "you have no open chance to decline")

    # ------------------------------------------------------------------ doing

    def _play(self, seat: int, ids: list[int], now: float, cut_in: bool,
              cards: list[str] | None = None) -> list[Event]:
        """Put down ``ids`` (``cards`` are their codes when the caller has them)."""
        hand, totals = self._hands[seat], self._class_total
        points = self._remove(seat, ids)
        hand_points = self._points
        self._discards += ids
        self._lp_seat, self._lp_count, self._lp_points = seat, len(ids), points
        if self._chance_dl is not None:  # R7.2a: a new play closes every chance before it
            self._close_chances()
        if cards is None:
            cards = [CODE[i] for i in ids]
        played: Event = {"type": "play", "to": None, "seat": seat, "cards": cards,
                         "cut_in": cut_in, "points": points}
        last = ids[-1]
        if not hand:
            return [played] + self._go_out(seat, last, now)
        rank = RANK[last]
        if rank <= 9 or rank == _FORCE:  # no effect but the colour: the next seat plays
            self._color = COLOR_OF[last]
            # _start_turn, inlined (two plays in three): no chance is open at this point,
            # so there is no cut-in chance of the next seat to take back.
            nxt = (seat + self._dir) % self._n
            self._phase, self._turn, self._chooser, self._drawn = _TURN, nxt, -1, False
            deadline = self._clock = now + self._timeout
            clock = {"type": "turn", "to": None, "seat": nxt, "deadline": deadline}
        else:
            clock = self._apply_effect(seat, ids, now)
        # A cheap filter before _open_chances: does another seat tie the points or hold a
        # card identical to the top? Usually nobody does.
        cls = CLASS_OF[last]
        if (hand_points.count(points) > (hand_points[seat] == points)
                or totals[cls] > _class_count(hand, cls)):
            return [played, clock] + self._open_chances(seat, now)
        return [played, clock]

    def _remove(self, seat: int, ids: list[int]) -> int:
        """Take ``ids`` out of ``seat``'s hand, keeping its mask, multiples, the class totals
        and its points in step (the one copy of this bookkeeping; ``_play_single`` writes
        out its one-card case); returns the points taken out."""
        hand, totals = self._hands[seat], self._class_total
        points = 0
        for card in ids:
            hand.remove(card)
            left = hand.count(card)
            if not left:
                self._masks[seat] ^= _BIT[card]
            elif left == 1:
                self._multi[seat] ^= _BIT[card]
            totals[CLASS_OF[card]] -= 1
            points += POINTS[card]
        self._points[seat] -= points
        return points

    def _play_single(self, seat: int, card: int, now: float) -> list[Event]:
        """_play for one card held once, played on turn: a ``_mv_singles`` play, half of
        all actions. Written out apart from _play because it needs none of its loop and
        count bookkeeping (the card is not F, so it is its own identity class, and the
        seat holds no copy of it afterwards, so no multi bit changes); keep the two in
        step."""
        hand = self._hands[seat]
        hand.remove(card)
        self._masks[seat] ^= _BIT[card]
        totals = self._class_total
        totals[card] -= 1
        points = POINTS[card]
        hand_points = self._points
        hand_points[seat] -= points
        self._discards.append(card)
        self._lp_seat, self._lp_count, self._lp_points = seat, 1, points
        if self._chance_dl is not None:  # R7.2a: a new play closes every chance before it
            self._close_chances()
        played: Event = {"type": "play", "to": None, "seat": seat, "cards": [CODE[card]],
                         "cut_in": False, "points": points}
        if not hand:
            return [played] + self._go_out(seat, card, now)
        self._color = COLOR_OF[card]
        if RANK[card] <= 9:  # no effect but the colour: the next seat plays
            # _start_turn, inlined: no chance is open at this point, so there is no
            # cut-in chance of the next seat to take back; and the phase is already
            # "turn" (with no chooser), as this seat was on turn.
            nxt = (seat + self._dir) % self._n
            self._turn, self._drawn = nxt, False
            deadline = self._clock = now + self._timeout
            clock = {"type": "turn", "to": None, "seat": nxt, "deadline": deadline}
        else:
            clock = self._apply_effect(seat, _ONE[card], now)
        # Does another seat tie the points or hold an identical card? Usually nobody does.
        if totals[card] or hand_points.count(points) > (hand_points[seat] == points):
            return [played, clock] + self._open_chances(seat, now)
        return [played, clock]

    def _apply_effect(self, seat: int, ids: list[int], now: float) -> Event:
        """§R4.4 / §R4.5: the effect of a play of k identical action cards; returns the clock
        event. (Numbers and F cards only set the colour: see _play.)"""
        k, last, n = len(ids), ids[-1], self._n
        rank = RANK[last]
        self._color = COLOR_OF[last]
        skips = 0
        if rank == _SKIP or (rank == _REVERSE and n == 2):
            skips = k
        elif rank == _REVERSE and k % 2:
            self._dir = -self._dir
        elif rank == _DRAW_TWO:
            self._stack += 2 * k
        elif rank == _WILD4:
            self._stack += 4 * k
        nxt = (seat + (1 + skips) * self._dir) % n
        if rank == _WILD or rank == _WILD4:
            self._color = -1
            return self._ask_color(seat, nxt, now)
        # _start_turn, inlined: the play closed every chance, so there is no cut-in chance
        # of the next seat to take back.
        self._phase, self._turn, self._chooser, self._drawn = _TURN, nxt, -1, False
        deadline = self._clock = now + self._timeout
        return {"type": "turn", "to": None, "seat": nxt, "deadline": deadline}

    def _ask_color(self, chooser: int, then: int, now: float) -> Event:
        self._phase = _COLOR
        self._turn, self._chooser, self._next = -1, chooser, then
        self._drawn = False
        self._clock = now + self._timeout
        return {"type": "choose", "to": None, "seat": chooser, "deadline": self._clock}

    def _start_turn(self, seat: int, now: float) -> Event:
        self._phase = _TURN
        self._turn, self._chooser = seat, -1
        self._drawn = False
        self._clock = now + self._timeout
        if self._chances[seat] & CUT_IN:
            # On turn, the seat plays normally; its cut-in chance is part of its turn.
            self._chances[seat] &= ~CUT_IN
            self._forget_deadline_if_idle()
        return {"type": "turn", "to": None, "seat": seat, "deadline": self._clock}

    def _open_chances(self, player: int, now: float) -> list[Event]:
        """§R7.1 / §R9.1: who may cut in on or dobon the play just made; tell only them."""
        top = self._discards[-1]
        identical, number, points = _CLASS_MASK[top], IS_NUMBER[top], self._lp_points
        turn, chances, hand_points, masks = self._turn, self._chances, self._points, self._masks
        events: list[Event] = []
        deadline = now + self._timeout
        for s in range(self._n):
            if s == player:
                continue
            bits = DOBON if hand_points[s] == points else 0
            if s != turn and masks[s] & identical and (number or len(self._hands[s]) > 1):
                bits |= CUT_IN
            if bits:
                chances[s] = bits
                events.append({"type": "chance", "to": s, "seat": s,
                               "kinds": list(_CHANCE_KINDS[bits]), "deadline": deadline})
        if events:
            self._chance_dl = deadline
        return events

    def _close_chances(self) -> None:
        if self._chance_dl is not None:  # an open chance always has a deadline
            self._chances = [0] * self._n
            self._chance_dl = None

    def _forget_deadline_if_idle(self) -> None:
        if not any(self._chances):
            self._chance_dl = None

    def _dobon_bit(self, seat: int) -> int:
        """``DOBON`` when ``seat``'s hand points equal the last play's (§R9.1), else 0
        (``_open_chances`` makes the same test inline: it runs on every play)."""
        return DOBON if self._points[seat] == self._lp_points else 0

    def _go_out(self, seat: int, last: int, now: float) -> list[Event]:
        """§R8.2: a going-out play waits for dobon declarations when any seat can."""
        self._color = COLOR_OF[last]
        self._phase = _AGARI_WAIT
        self._turn, self._chooser, self._clock, self._drawn = -1, -1, None, False
        events: list[Event] = [{"type": "agari", "to": None, "seat": seat}]
        deadline = now + self._timeout
        for s in range(self._n):
            if s != seat and self._dobon_bit(s):
                self._chances[s] = DOBON
                events.append({"type": "chance", "to": s, "seat": s, "kinds": ["dobon"],
                               "deadline": deadline})
        if len(events) > 1:
            self._chance_dl = deadline
            return events
        return events + self._finish(settle_agari(seat, list(self._points), self._rate), seat)

    def _draw_cards(self, seat: int, count: int) -> list[int]:
        """Move up to ``count`` cards from the deck to ``seat``'s hand; returns them.

        _count_in for each card, done with local totals (a draw stack is often 4+ cards).
        """
        deck = self._deck
        start = max(len(deck) - count, 0)
        got = deck[start:]
        got.reverse()  # the next card is the deck's last
        del deck[start:]
        self._hands[seat] += got
        totals = self._class_total
        mask, multi, points = self._masks[seat], self._multi[seat], 0
        for card in got:
            bit = _BIT[card]
            if mask & bit:
                multi |= bit
            else:
                mask |= bit
            totals[CLASS_OF[card]] += 1
            points += POINTS[card]
        self._masks[seat], self._multi[seat] = mask, multi
        self._points[seat] += points
        return got

    def _count_in(self, seat: int, card: int) -> None:
        """Keep the derived counts in step with a card that joined ``seat``'s hand."""
        bit, mask = _BIT[card], self._masks[seat]
        if mask & bit:
            self._multi[seat] |= bit
        else:
            self._masks[seat] = mask | bit
        self._class_total[CLASS_OF[card]] += 1
        self._points[seat] += POINTS[card]

    def _index_hands(self) -> None:
        """Derive every count, mask and point total from the hands (a new or loaded game)."""
        self._masks, self._multi, self._points = [], [], []
        totals = self._class_total = [0] * N_CLASSES
        for hand in self._hands:
            mask = multi = points = 0
            for card in hand:
                bit = _BIT[card]
                if mask & bit:
                    multi |= bit
                else:
                    mask |= bit
                totals[CLASS_OF[card]] += 1
                points += POINTS[card]
            self._masks.append(mask)
            self._multi.append(multi)
            self._points.append(points)

    def _draw_or_take(self, seat: int, now: float) -> list[Event]:
        if self._stack:
            return self._take(seat, now)
        deck = self._deck
        if len(deck) < 2:  # §R12.1: this draw ends the game
            return self._draw_one(seat)
        # _draw_one and _count_in, inlined: a third of the actions of a game are draws.
        if self._chance_dl is not None:
            self._close_chances()
        card = deck.pop()
        self._hands[seat].append(card)
        bit, mask = _BIT[card], self._masks[seat]
        if mask & bit:
            self._multi[seat] |= bit
        else:
            self._masks[seat] = mask | bit
        self._class_total[CLASS_OF[card]] += 1
        self._points[seat] += POINTS[card]
        self._drawn = True
        # §R14.1: the optional draw restarts the clock for the play-or-pass decision.
        deadline = self._clock = now + self._timeout
        return [{"type": "draw", "to": None, "seat": seat, "count": 1},
                {"type": "drawn", "to": seat, "seat": seat, "cards": [CODE[card]]},
                {"type": "turn", "to": None, "seat": seat, "deadline": deadline}]

    def _draw_one(self, seat: int) -> list[Event]:
        """The optional draw; §R12.1: the last card (or an empty deck) ends the game."""
        if self._chance_dl is not None:
            self._close_chances()
        deck = self._deck
        if not deck:
            event: Event = {"type": "draw", "to": None, "seat": seat, "count": 0}
            return [event] + self._deck_out(seat)
        card = deck.pop()
        self._hands[seat].append(card)
        self._count_in(seat, card)
        events: list[Event] = [{"type": "draw", "to": None, "seat": seat, "count": 1},
                               {"type": "drawn", "to": seat, "seat": seat, "cards": [CODE[card]]}]
        if not deck:
            return events + self._deck_out(seat)
        self._drawn = True
        return events

    def _take(self, seat: int, now: float) -> list[Event]:
        """§R5.2: take the whole stack; §R5.4 / §R12.1: a short deck ends the game."""
        self._close_chances()
        was_empty = not self._deck
        got = self._draw_cards(seat, self._stack)
        self._stack = 0
        events: list[Event] = [{"type": "take", "to": None, "seat": seat, "count": len(got)}]
        if got:
            events.append({"type": "drawn", "to": seat, "seat": seat,
                           "cards": [CODE[i] for i in got]})
        if was_empty or not self._deck:
            return events + self._deck_out(seat)
        nxt = (seat + self._dir) % self._n
        if self._color < 0:
            # §R3.3: F took a first-card W+4, so the next player chooses and then plays.
            events.append(self._ask_color(nxt, nxt, now))
            return events
        # _start_turn, inlined: the chances are closed, so there is no cut-in chance of
        # the next seat to take back.
        self._turn, self._drawn = nxt, False  # the phase is already "turn"
        deadline = self._clock = now + self._timeout
        events.append({"type": "turn", "to": None, "seat": nxt, "deadline": deadline})
        return events

    def _pass(self, seat: int, now: float) -> list[Event]:
        # No chance can be open: the draw before the pass closed them. So _start_turn,
        # inlined here, has no cut-in chance of the next seat to take back.
        nxt = (seat + self._dir) % self._n
        self._turn, self._drawn = nxt, False  # the phase is already "turn"
        deadline = self._clock = now + self._timeout
        return [{"type": "pass", "to": None, "seat": seat},
                {"type": "turn", "to": None, "seat": nxt, "deadline": deadline}]

    def _set_color(self, seat: int, color: int, now: float) -> list[Event]:
        self._color = color
        event: Event = {"type": "color", "to": None, "seat": seat, "color": COLORS[color]}
        return [event, self._start_turn(self._next, now)]

    def _declare(self, seat: int, now: float) -> list[Event]:
        """§R9.4: the first dobon stops the game; others with an open chance may follow."""
        event: Event = {"type": "dobon", "to": None, "seat": seat, "target": self._lp_seat,
                        "hand": [CODE[i] for i in self._hands[seat]]}
        self._annotate_declaration(event, seat)
        self._chances[seat] = 0
        self._declarers.append(seat)
        if self._phase is not _DOBON_WAIT:
            self._stop_for_dobon(now)
        self._close_other_dobons()
        if any(self._chances):
            return [event]
        return [event] + self._close_dobon_wait(now)

    def _annotate_declaration(self, event: Event, seat: int) -> None:
        """What a dobon or return event tells beyond the hand: §H8.4's expression."""
        if self._v.arithmetic:
            points = [POINTS[c] for c in self._hands[seat]]
            event["expression"] = expression(points, self._lp_points, True)

    def _close_other_dobons(self) -> None:
        """After a declaration every other open dobon chance stays open here (§R9.4);
        house rules may close some (§H11)."""

    def _stop_for_dobon(self, now: float) -> None:
        self._target = self._lp_seat
        self._phase = _DOBON_WAIT
        self._turn, self._chooser, self._clock, self._drawn = -1, -1, None, False
        # Only dobon chances on the same play survive, for one timeout from now.
        self._chances = [bits & DOBON for bits in self._chances]
        self._chance_dl = now + self._timeout

    def _close_dobon_wait(self, now: float) -> list[Event]:
        """§R10.1: the dobon'd seat may return when its remaining hand equals the play."""
        self._chances = [0] * self._n
        target = self._target
        if self._hands[target] and self._may_return(target):
            self._phase = _RETURN_WAIT
            self._chances[target] = RETURN
            self._chance_dl = now + self._timeout
            return [{"type": "chance", "to": target, "seat": target, "kinds": ["return"],
                     "deadline": self._chance_dl}]
        self._chance_dl = None
        return self._finish(self._settle_dobon(returned=False), self._declarers[-1])

    def _may_return(self, target: int) -> bool:
        """§R10.1: the dobon'd seat's remaining hand points equal the play's."""
        return self._points[target] == self._lp_points

    def _return(self, seat: int, now: float) -> list[Event]:
        event: Event = {"type": "return", "to": None, "seat": seat,
                        "hand": [CODE[i] for i in self._hands[seat]]}
        self._annotate_declaration(event, seat)
        return [event] + self._finish(self._settle_dobon(returned=True), seat)

    def _settle_dobon(self, returned: bool) -> Result:
        points = list(self._points)
        points[self._target] += self._lp_points  # §R11: the play dobon'd on counts back
        return settle_dobon(self._target, list(self._declarers), points, self._rate, returned)

    def _decline(self, seat: int, now: float, timed_out: bool = False) -> list[Event]:
        self._chances[seat] = 0
        event: Event = {"type": "decline", "to": seat, "seat": seat}
        if timed_out:
            event["timeout"] = True
        if any(self._chances):
            return [event]
        return [event] + self._all_answered(now)

    def _all_answered(self, now: float) -> list[Event]:
        """§R14.2: a wait ends once every seat asked has answered."""
        self._chance_dl = None
        phase = self._phase
        if phase is _AGARI_WAIT:
            return self._finish(settle_agari(self._lp_seat, list(self._points), self._rate),
                                self._lp_seat)
        if phase is _DOBON_WAIT:
            return self._close_dobon_wait(now)
        if phase is _RETURN_WAIT:
            return self._finish(self._settle_dobon(returned=False), self._target)
        return []

    def _deck_out(self, drawer: int) -> list[Event]:
        nxt = (drawer + self._dir) % self._n  # §R13.2
        return self._finish(settle_deck_out(nxt, list(self._points), self._rate), drawer)

    def _finish(self, result: Result, seat: int) -> list[Event]:
        self._phase = _FINISHED
        self._turn, self._chooser, self._clock, self._drawn = -1, -1, None, False
        self._chances = [0] * self._n
        self._chance_dl = None
        self._result = result
        return [{"type": "finished", "to": None, "seat": seat, "result": result.to_dict(),
                 "hands": [[CODE[i] for i in h] for h in self._hands]}]

    # ------------------------------------------------------------------ timeouts

    def _due(self) -> tuple[float | None, bool]:
        """The earliest deadline and whether it is the chances' (they lapse first on a tie)."""
        chance, clock = self._chance_dl, self._clock
        if chance is not None and (clock is None or chance <= clock):
            return chance, True
        return clock, False

    def _lapse_chances(self, deadline: float) -> list[Event]:
        """§R7.6 / §R9.2 / §R10.2: unanswered chances lapse, told only to their seats."""
        events: list[Event] = []
        for s in range(self._n):
            if self._chances[s]:
                self._chances[s] = 0
                events.append({"type": "decline", "to": s, "seat": s, "timeout": True})
        return events + self._all_answered(deadline)

    def _clock_timeout(self, deadline: float) -> list[Event]:
        """§R14: the automatic action of the seat on turn or the chooser."""
        if self._phase is _COLOR:
            seat = self._chooser
            color = self._own_rng().randrange(4)
            return [_timeout_event(seat, "color")] + self._set_color(seat, color, deadline)
        seat = self._turn
        if self._stack:
            return [_timeout_event(seat, "take")] + self._take(seat, deadline)
        if self._drawn:
            return [_timeout_event(seat, "pass")] + self._pass(seat, deadline)
        events = [_timeout_event(seat, "draw_pass")] + self._draw_one(seat)
        if self._phase is _FINISHED:
            return events
        return events + self._pass(seat, deadline)

    # ------------------------------------------------------------------ views

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (§R15); ``None`` for a spectator. JSON-safe.

        >>> g = Game.new(players=2, first_player=1, seed=3)
        >>> v = g.view(None)
        >>> "hand" in v, v["hand_counts"]
        (False, [7, 7])
        """
        if seat is not None:
            self._check_seat(seat)
        view: dict[str, Any] = {
            "seat": seat, "players": self._n, "phase": self._phase.value,
            "turn": self.turn, "chooser": self.chooser, "direction": self._dir,
            "top": self.top, "color": self.color, "pending_draw": self._stack,
            "deck_count": len(self._deck), "discard_count": len(self._discards),
            "rate": self._rate, "timeout": self._timeout,
            "hand_counts": self.hand_counts,
            "revealed": self._revealed(),
            "has_drawn": self._drawn,
            "turn_deadline": self._clock,
            "wait_deadline": self._chance_dl if self._phase in _WAITS else None,
            "last_play": self.last_play,
            "dobon": self._dobon_view(),
            "result": self._result.to_dict() if self._result else None,
            "house_rules": self._rules.to_dict(),
        }
        if seat is None:
            view.update(deadline=None, chances=[], legal_actions=[])
            return view
        view["hand"] = self.hand(seat)
        view["deadline"] = self._deadline_for(seat)
        view["chances"] = list(_CHANCE_KINDS[self._chances[seat]])
        view["legal_actions"] = [plain(a) for a in self.legal_actions(seat)]
        return view

    def _revealed(self) -> list[list[str] | None]:
        """§R9.5: declarers' and a returner's hands; §R15.2: every hand once finished."""
        shown: list[list[str] | None] = [None] * self._n
        finished = self._phase is _FINISHED
        returned = self._result is not None and self._result.kind == "return"
        for s in range(self._n):
            if finished or s in self._declarers or (returned and s == self._target):
                shown[s] = [CODE[i] for i in self._hands[s]]
        return shown

    def _dobon_view(self) -> dict[str, Any] | None:
        if self._target < 0:
            return None
        return {"target": self._target, "declarers": list(self._declarers)}

    def _deadline_for(self, seat: int) -> float | None:
        mine = [d for d, ok in ((self._clock, seat in (self._turn, self._chooser)),
                                (self._chance_dl, bool(self._chances[seat])))
                if ok and d is not None]
        return min(mine) if mine else None

    # ------------------------------------------------------------------ copy and save

    def copy(self) -> Game:
        """An independent copy (RNG included) that behaves identically."""
        g = self.__class__.__new__(self.__class__)
        g._rules, g._v = self._rules, self._v
        g._n, g._dir, g._phase, g._color = self._n, self._dir, self._phase, self._color
        g._hands = [list(h) for h in self._hands]
        g._masks = list(self._masks)
        g._multi = list(self._multi)
        g._class_total = list(self._class_total)
        g._points = list(self._points)
        g._deck, g._discards = list(self._deck), list(self._discards)
        g._turn, g._chooser, g._next = self._turn, self._chooser, self._next
        g._clock, g._drawn, g._stack = self._clock, self._drawn, self._stack
        g._rate, g._timeout = self._rate, self._timeout
        g._lp_seat, g._lp_count, g._lp_points = self._lp_seat, self._lp_count, self._lp_points
        g._chances, g._chance_dl = list(self._chances), self._chance_dl
        g._target, g._declarers, g._result = self._target, list(self._declarers), self._result
        # Share the generator until one side needs it (see _own_rng): copies stay cheap.
        g._rng = self._rng
        g._rng_shared = self._rng_shared = True
        g._mv_seat, g._mv_singles, g._mv_plays = -1, 0, _NO_PLAYS
        g._mv_other = ()
        return g

    def _own_rng(self) -> SeededRandom:
        if self._rng_shared:
            self._rng, self._rng_shared = self._rng.clone(), False
        return self._rng

    def to_dict(self) -> dict[str, Any]:
        """The whole state, JSON-safe (hidden cards and the RNG included: keep it server-side)."""
        return {
            "format": _FORMAT,
            "hands": [[CODE[i] for i in h] for h in self._hands],
            "deck": [CODE[i] for i in reversed(self._deck)],
            "discards": [CODE[i] for i in self._discards],
            "color": self.color, "direction": self._dir, "phase": self._phase.value,
            "turn": self._turn, "chooser": self._chooser, "next": self._next,
            "clock": self._clock, "has_drawn": self._drawn, "pending_draw": self._stack,
            "rate": self._rate, "timeout": self._timeout,
            "last_play": {"seat": self._lp_seat, "count": self._lp_count,
                          "points": self._lp_points},
            "chances": [list(_CHANCE_KINDS[b]) for b in self._chances],
            "chance_deadline": self._chance_dl,
            "target": self._target, "declarers": list(self._declarers),
            "result": self._result.to_dict() if self._result else None,
            # The seed and the words drawn (SeededRandom), not the 625-word state.
            "rng": self._rng.state(),
            "house_rules": self._rules.to_dict(),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Game:
        """Rebuild a game saved by :meth:`to_dict`; it then plays on identically."""
        if d.get("format") != _FORMAT:
            raise ValueError(f"unsupported saved game format {d.get('format')!r}")
        saved = d.get("house_rules")  # absent: saved before §H1-§H14
        rules = DEFAULT_RULES if saved == _DEFAULT_SAVED else HouseRules.from_mapping(saved)
        klass = _class_for(cls, rules)
        g = klass.__new__(klass)
        g._rules, g._v = rules, _variant(rules)
        g._hands = [parse_cards(h) for h in d["hands"]]
        g._n = len(g._hands)
        g._index_hands()
        g._deck = list(reversed(parse_cards(d["deck"])))
        g._discards = parse_cards(d["discards"])
        g._color = COLOR_INDEX[d["color"]] if d["color"] is not None else -1
        g._dir, g._phase = int(d["direction"]), Phase(d["phase"])
        g._turn, g._chooser, g._next = int(d["turn"]), int(d["chooser"]), int(d["next"])
        g._clock, g._drawn = _float_or_none(d["clock"]), bool(d["has_drawn"])
        g._stack = int(d["pending_draw"])
        g._rate, g._timeout = int(d["rate"]), float(d["timeout"])
        lp = d["last_play"]
        g._lp_seat, g._lp_count, g._lp_points = int(lp["seat"]), int(lp["count"]), int(lp["points"])
        g._chances = [sum(_KIND_BITS[k] for k in kinds) for kinds in d["chances"]]
        g._chance_dl = _float_or_none(d["chance_deadline"])
        g._target, g._declarers = int(d["target"]), [int(s) for s in d["declarers"]]
        g._result = Result.from_dict(d["result"]) if d["result"] is not None else None
        g._rng, g._rng_shared = SeededRandom.from_state(d["rng"]), False
        g._mv_seat, g._mv_singles, g._mv_plays = -1, 0, _NO_PLAYS
        g._mv_other = ()
        g._load_house(d)
        return g

    def _load_house(self, d: dict[str, Any]) -> None:
        """Restore the state only house rules use (none here: see HouseGame)."""

    def __repr__(self) -> str:
        return (f"<Game {self._n} seats phase={self._phase.value} top={self.top} "
                f"color={self.color} turn={self.turn}>")


# The class that plays house rules. house_game.py subclasses Game, so it registers itself
# here when imported (the package's __init__ imports it) instead of this module importing
# it: no import circle.
_house_classes: list[type[Game]] = []


def register_house_class(house_class: type[Game]) -> None:
    _house_classes[:] = [house_class]


def _class_for(cls: type[Game], rules: HouseRules) -> type[Game]:
    """The class that plays ``rules``: Game itself when the engine plays RULES.md exactly,
    so that a default game never reads a house rule on its hot paths."""
    if cls is not Game or rules is DEFAULT_RULES or rules.engine_default:
        return cls
    if not _house_classes:  # pragma: no cover - the package __init__ always registers it
        raise RuntimeError("game.rules.dobon_uno.house_game was not imported")
    return _house_classes[0]


_DEFAULT_VARIANT = variant_of(DEFAULT_RULES)
_DRAW_TWO, _WILD4 = int(Rank.DRAW_TWO), int(Rank.WILD_DRAW_FOUR)


def _variant(rules: HouseRules) -> Variant:
    """The rule set's variant (the default one without hashing the rules)."""
    return _DEFAULT_VARIANT if rules is DEFAULT_RULES else variant_of(rules)


def _as_time(now: Any) -> float:
    """``now`` as a float; anything but a real number is refused before any change."""
    if isinstance(now, bool) or not isinstance(now, (int, float)) or now != now:
        _fail("malformed_action", f"now must be a number of seconds, not {now!r}")
    return float(now)


def _float_or_none(value: Any) -> float | None:
    return None if value is None else float(value)


def _timeout_event(seat: int, action: str) -> Event:
    return {"type": "timeout", "to": None, "seat": seat, "action": action}


def _check_table(players: int, first_player: int, rate: int, timeout: float,
                 now: float) -> None:
    if not isinstance(players, int) or not 2 <= players <= 8:
        raise ValueError(f"a table has 2 to 8 seats, not {players!r} (R1.1)")
    if not isinstance(first_player, int) or not 0 <= first_player < players:
        raise ValueError(f"first_player {first_player!r} is not a seat")
    if not isinstance(rate, int) or not 1 <= rate <= MAX_RATE:
        raise ValueError(f"rate must be 1 to 2^20, not {rate!r} (R16.14)")
    if not isinstance(timeout, (int, float)) or not 5 <= timeout <= 60:
        raise ValueError(f"timeout must be 5 to 60 seconds, not {timeout!r} (R1.3)")
    if isinstance(now, bool) or not isinstance(now, (int, float)):
        raise ValueError(f"now must be a number of seconds, not {now!r}")


def _key_of(action: Action) -> int | tuple[str, ...] | str | None:
    """The FrozenAction.key an ordinary action dict would have, or None if it has none."""
    kind = action.get("type")
    if kind == "play":
        cards = action.get("cards")
        if type(cards) is not list or not all(type(c) is str for c in cards):
            return None
        if len(cards) == 1:
            return ID_OF.get(cards[0])
        return tuple(cards)
    if kind == "color":
        color = action.get("color")
        return color if type(color) is str and color in COLOR_INDEX else None
    return kind if type(kind) is str and kind in SIMPLE else None


def _class_count(hand: list[int], cls: int) -> int:
    """How many cards of identity class ``cls`` the hand holds."""
    if cls == FORCE_CLASS:
        return sum(map(hand.count, FORCE_IDS))
    return hand.count(cls)


def _force_counts(hand: list[int]) -> tuple[int, ...]:
    """How many of each F card (R, B, G, Y) the hand holds."""
    return tuple(map(hand.count, FORCE_IDS))


# _force_counts of a hand holding each F at most once, by the F bits of its mask.
_F_COUNTS = tuple(tuple(bits >> c & 1 for c in range(len(FORCE_IDS))) for bits in range(16))


def _force_plays_for(counts: tuple[int, ...], hand_size: int,
                     cut_in: bool) -> dict[tuple[str, ...], Move]:
    """§R4.4: every sub-multiset of the F cards held (``counts``), once per final colour.

    F cards never go out (§R8.1), so a play may not use the whole hand. The dict
    returned is shared (memoised): never mutate it.
    """
    key = (counts, hand_size if hand_size <= sum(counts) else 0, cut_in)
    found = _FORCE_PLAYS.get(key)
    if found is None:
        found = _FORCE_PLAYS[key] = _force_plays(counts, hand_size, cut_in)
    return found


# Memo of _force_plays. Its keys are few (F counts per colour, and the hand size only when
# the F cards could be the whole hand), so it stays small.
_FORCE_PLAYS: dict[tuple[tuple[int, ...], int, bool], dict[tuple[str, ...], Move]] = {}


def _force_plays(counts: tuple[int, ...], hand_size: int,
                 cut_in: bool) -> dict[tuple[str, ...], Move]:
    plays: dict[tuple[str, ...], Move] = {}
    for take in itertools.product(*(range(c + 1) for c in counts)):
        size = sum(take)
        if size == 0 or size == hand_size:
            continue
        cards = [f for f, t in zip(FORCE_IDS, take, strict=True) for _ in range(t)]
        for last in FORCE_IDS:
            if last in cards:
                ids = list(cards)
                ids.remove(last)
                ids.append(last)
                codes = tuple(CODE[i] for i in ids)
                plays[codes] = (ids, cut_in, play_action(codes))
    return plays


def _choose(color: int) -> Callable[[Game, int, float], list[Event]]:
    def choose(game: Game, seat: int, now: float) -> list[Event]:
        return game._set_color(seat, color, now)
    return choose


# How apply does an action without cards that legal_actions listed (already known
# legal), by its key ...
_LISTED: dict[str, Callable[[Game, int, float], list[Event]]] = {
    "draw": Game._draw_or_take,
    "pass": Game._pass,
    "dobon": Game._declare,
    "return": Game._return,
    "decline": Game._decline,
    **{code: _choose(color) for code, color in COLOR_INDEX.items()},
}
# ... and any other simple action, checked first.
_CHECKED: dict[str, Callable[[Game, int, float], list[Event]]] = {
    "draw": Game.draw,
    "pass": Game.pass_turn,
    "dobon": Game.dobon,
    "return": Game.dobon_return,
    "decline": Game.decline,
}
