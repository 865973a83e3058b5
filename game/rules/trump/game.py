"""The trump Dobon state machine (TRUMP-RULES.md §T1-§T20): one mutable :class:`Game` per
round, both presets (``au`` and ``standard``).

Every action verifies first and changes nothing when it raises :class:`IllegalAction`;
then it mutates the state and returns the events it caused (docs/trump-engine.md). Time
only enters as ``now``; randomness only through the round's own generator, saved as its
seed and draw count.

>>> g = Game.from_setup(hands=[["S3", "H7"], ["D9", "C12"]], first_card="H3",
...                     deck=["S1", "S2"], first_player=0)
>>> [e["type"] for e in g.play(0, ["S3"], now=1.0)]
['play', 'turn']
>>> g.turn, g.top, g.suit
(1, 'S3', 'S')
"""

from __future__ import annotations

import itertools
from typing import Any, NoReturn

from ..dobon_uno.errors import IllegalAction
from ..dobon_uno.outage import restart_due_clocks
from ..dobon_uno.rng import SeededRandom
from . import actions as A
from .actions import (
    AU_BY_BIT,
    DRAW,
    HALF,
    IN_AU,
    IN_STD,
    IN_STD_LO,
    LOW_HALF,
    OP_DRAW,
    STD_BY_BIT,
    STD_LO_BY_BIT,
    TrumpAction,
)
from .cards import (
    ALL_SUITS,
    ATTACKS,
    AU_MATCH,
    AU_NAMES,
    AU_VALUE,
    BASE,
    CODE,
    FIVES,
    HAND_SUITS,
    JOKER,
    NUMBER,
    SIG,
    STD_MATCH,
    STD_NAMES,
    SUIT,
    SUIT_INDEX,
    SUITS,
    TWOS,
    card_id,
    full_pack,
    parse_cards,
)
from .result import (
    Result,
    StandardEnd,
    settle_au_agari,
    settle_au_chain,
    settle_au_deck_out,
    settle_standard,
    yaku_of_signature,
    yaku_pattern,
)

Event = dict[str, Any]
Action = dict[str, Any]

AU, STANDARD = "au", "standard"
PRESETS = (AU, STANDARD)
AUCTION, TURN, AGARI_WAIT = "auction", "turn", "agari_wait"
DOBON_WAIT, RETURN_WAIT, FINISHED = "dobon_wait", "return_wait", "finished"
_WAITS = (AGARI_WAIT, DOBON_WAIT, RETURN_WAIT)
_STOPPED = (DOBON_WAIT, RETURN_WAIT)
PHASES = (AUCTION, TURN, AGARI_WAIT, DOBON_WAIT, RETURN_WAIT, FINISHED)

DOBON, RETURN = 1, 2  # a seat's open chances, as bits
_KINDS: tuple[list[str], ...] = ([], ["dobon"], ["return"], ["dobon", "return"])
_HAND_SIZE = 5
_SEATS = {AU: (2, 4), STANDARD: (3, 6)}
_MIN_BID, _MAX_BID = 1, 999
_FORMAT = 1
_SKIPPED, _DREW = -2, -1  # record kinds besides a play (whose kind is the card id >= 0)
_MASK_SUITS = tuple([SUITS[i] for i in range(4) if m >> i & 1] for m in range(16))
_DAMAGE = tuple(5 if c == JOKER else 2 if NUMBER[c] == 2 else 0 for c in range(53))
_BIT = tuple(1 << c for c in range(53))
# standard: the field's effective suits after a play of the card that names none (§T7.2)
_STD_FSUIT = tuple(ALL_SUITS if c == JOKER else 1 << SUIT[c] for c in range(53))
# standard: what a play does besides setting the field (§T7), by card id; None for nothing
_ATTACK, _NAMES, _REVERSE, _REFLECT, _SKIP = "attack", "names", "reverse", "reflect", "skip"
_STD_EFFECT: tuple[str | None, ...] = tuple(
    _ATTACK if _DAMAGE[c] else _NAMES if NUMBER[c] in (8, 11) else _REVERSE if NUMBER[c] == 12
    else _REFLECT if NUMBER[c] == 5 else _SKIP if NUMBER[c] == 1 else None
    for c in range(53)
)

# Events of the commonest steps are copies of these templates, by seat (up to the six of
# §T1), with only what varies stored: a dict copy costs about a quarter of a literal of the
# same keys, and each key stored into it about as much again. The keys and their order are
# the literals' (docs/trump-engine.md), and every list in an event is still its own.
_MAX_SEATS = 6
# a play's, by direction then seat: _PLAY_EVENTS[d][seat] for d = 1 or -1 (index -1 is the
# last), with no last one, no accumulation and no しばり, which a play stores when it has them
_PLAY_EVENTS: tuple[tuple[Event, ...], ...] = tuple(
    tuple({"type": "play", "to": None, "seat": s, "cards": None, "suit": None,
           "last_one": False, "pending_draw": 0, "shibari": False, "direction": d}
          for s in range(_MAX_SEATS))
    for d in (0, 1, -1)
)
_TURN_EVENTS: tuple[Event, ...] = tuple(
    {"type": "turn", "to": None, "seat": s, "deadline": None} for s in range(_MAX_SEATS)
)
_DRAW_EVENTS: tuple[Event, ...] = tuple(
    {"type": "draw", "to": None, "seat": s, "count": 1} for s in range(_MAX_SEATS)
)
_DRAWN_EVENTS: tuple[Event, ...] = tuple(
    {"type": "drawn", "to": s, "seat": s, "cards": None} for s in range(_MAX_SEATS)
)

Record = tuple[int, int, int]  # (seat, card id | _DREW | _SKIPPED, named suit | cards drawn)
_DREW_ONE: tuple[Record, ...] = tuple((s, _DREW, 1) for s in range(_MAX_SEATS))  # shared


def _fail(code: str, message: str) -> NoReturn:
    raise IllegalAction(code, message)


class Game:
    """One round of trump Dobon (§T1-§T19) behind the API of §T20.

    >>> g = Game.new(players=4, first_player=1, seed=42)
    >>> g.preset, g.players, len(g.hand(0)), g.deck_count, g.turn
    ('au', 4, 5, 31, 1)
    >>> s = Game.new(players=4, first_player=None, seed=42, preset="standard")
    >>> s.phase, s.deck_count, s.legal_actions(0)
    ('auction', 33, [{'type': 'bid', 'min': 1, 'max': 999}])
    """

    __slots__ = (
        "_std", "_n", "_timeout", "_hands", "_masks", "_sums", "_low_sum", "_jks", "_deck",
        "_discards", "_top",
        "_fsuit", "_match", "_dir", "_next", "_back", "_phase", "_turn", "_clock", "_pending",
        "_first", "_records",
        "_pre", "_at", "_since", "_run_j", "_chances", "_chance_dl",
        "_had", "_counts", "_quick",
        "_lp_seat", "_lp_out", "_chain", "_declared", "_out", "_returners",
        "_losers", "_target", "_last_one", "_lo_open", "_yaku", "_exposed", "_bids",
        "_auction", "_streaks", "_result", "_rng",
        "_mv_seat", "_mv_list", "_mv_tok", "_mv_plays", "_mv_table",
    )

    _std: bool
    _n: int
    _timeout: float
    _hands: list[list[int]]       # card ids, in the order received
    _masks: list[int]             # per seat, bit i set when it holds card id i
    _sums: list[int]              # per seat, the numbers of its hand added up (§T2.3)
    _low_sum: int                 # standard: at most min(_sums), equal after each _open_std
    _jks: list[int]               # per seat, the jokers it holds
    _deck: list[int]              # next card LAST
    _discards: list[int]          # the cards under the field card, oldest first
    _top: int                     # the field card
    _fsuit: int                   # au: the field suit; standard: the field's effective suits
    _match: int                   # the cards the seat on turn may play on the field (§T5.3,
    #                               and §T5.4 / しばり §T7.3 while _pending): see _field_match
    _dir: int
    _next: tuple[int, ...]        # _next[s]: the seat after s in the direction of play
    _back: tuple[int, ...]        # ... and in the other direction (a reverse swaps them)
    _phase: str
    _turn: int                    # -1 while nobody is on turn
    _clock: float | None          # the deadline of the seat on turn, or of the auction
    _pending: int                 # au: the open obligation; standard: the accumulation
    _first: int                   # au: this round's first player; standard: who played first
    _records: list[Record]        # §T13.1, also kept in au (public, §T19.1)
    # standard, derived from the records (§T13.3): _pre[j] is the sum of the numbers of the
    # round's first j cards played, never decreasing (a JK adds 0), so that the js of one
    # sum follow each other: _at maps a sum to its first j; _since[s] is the j of seat s's
    # latest record and _run_j the j of the latest draw: seat s's run is the plays after
    # max(_since[s], _run_j).
    _pre: list[int]
    _at: dict[int, int]
    _since: list[int]
    _run_j: int
    _chances: list[int]           # per seat, DOBON | RETURN bits
    _chance_dl: float | None      # when the open chances (or the current wait) lapse
    _had: int                     # bit per seat that had a dobon chance on the latest play
    _counts: list[int]            # standard: bit k set when k is a valid count on that play
    _quick: int                   # standard: seats that had had no turn just after that play
    _lp_seat: int                 # who made the latest play, -1 for none
    _lp_out: bool                 # the latest play went out
    _chain: list[tuple[int, int]]  # au: (seat, 0 dobon | 1 return); standard: (seat, count)
    _declared: int                # bit per seat that declared (dobon or return)
    _out: list[list[int]]         # standard: cards a declarer or returner put out
    _returners: list[int]
    _losers: list[int]            # standard: the losers once the dobon wait closed
    _target: list[int]            # standard: the cut target once the dobon wait closed
    _last_one: int                # standard: bit per seat with a standing last one
    _lo_open: int                 # standard: the seat that may still declare last one
    _yaku: int                    # standard: bit per seat that declared 役
    _exposed: list[list[int]]     # standard: cards still exposed by a 役, per seat
    _bids: list[int] | None       # standard: bids (-1: not yet); None without an auction
    _auction: int                 # the auction's winner, -1 while running or without one
    _streaks: list[int]
    _result: Result | None
    _rng: SeededRandom
    # What legal_actions last listed for _mv_seat, so that apply can take a listed action
    # without checking it again.
    _mv_seat: int                 # _NOBODY whenever the state changed since
    _mv_list: list[Action]        # that listing, when _mv_tok is a stamp
    _mv_tok: int                  # the stamp of that listing on its actions, or _UNSTAMPED:
    #                               the seat on turn's plays and draw (not kept)
    _mv_plays: int                # ... and its plays: these cards, of this table of
    _mv_table: int                # actions.py (IN_AU, IN_STD or IN_STD_LO; plays unstamped)

    # ------------------------------------------------------------------ creation

    @classmethod
    def new(cls, players: int = 4, first_player: int | None = None, seed: int = 0,
            timeout: float = 10.0, now: float = 0.0, preset: str = AU, rate: int = 1,
            match: dict[str, Any] | None = None) -> Game:
        """Shuffle the pack with ``random.Random(seed)`` and deal 5 each (§T3.1).

        au needs ``first_player`` (§T17.1); standard takes ``None`` and starts with the
        auction (§T4).

        >>> g = Game.new(players=2, first_player=0, seed=7, now=100.0)
        >>> g.next_deadline, g.deck_count
        (110.0, 41)
        """
        std = _check_preset(preset)
        _check_table(std, players, first_player, timeout, rate, now, auction_allowed=std)
        if std and first_player is not None:
            raise ValueError("a standard round starts with its auction: first_player=None")
        streaks = _check_match(match, players)
        rng = SeededRandom(seed)
        pack = full_pack(std)
        _shuffle(rng, pack)
        hands = [pack[s * _HAND_SIZE:(s + 1) * _HAND_SIZE] for s in range(players)]
        first = pack[players * _HAND_SIZE]
        deck = pack[players * _HAND_SIZE + 1:]
        deck.reverse()  # the next card last
        return cls._start(std, hands, first, deck, [], first_player, float(timeout),
                          float(now), rng, None, (), streaks)

    @classmethod
    def from_setup(cls, hands: list[list[str]], first_card: str, deck: list[str],
                   first_player: int | None = None, timeout: float = 10.0,
                   now: float = 0.0, seed: int = 0, preset: str = AU,
                   discards: list[str] | tuple[str, ...] = (),
                   bids: list[int] | None = None, last_one: list[int] | tuple[int, ...] = (),
                   match: dict[str, Any] | None = None, rate: int = 1) -> Game:
        """A round from given hands, first field card and deck (``deck[0]`` is drawn
        first); ``discards`` lie under the first card (§T20.2).

        >>> g = Game.from_setup(hands=[["H9"], ["S5", "D3"], ["C3", "H7"]], first_card="C9",
        ...                     deck=[], first_player=0, preset="standard", last_one=[0])
        >>> g.phase, g.turn, g.view(None)["last_one"]
        ('turn', 0, [True, False, False])
        """
        std = _check_preset(preset)
        if not isinstance(hands, (list, tuple)) or not all(
                isinstance(h, (list, tuple)) for h in hands):
            raise ValueError("hands must be a list of lists of card codes")
        n = len(hands)
        _check_table(std, n, first_player, timeout, rate, now, auction_allowed=std)
        ids = [parse_cards(h) for h in hands]
        if any(not h for h in ids):
            raise ValueError("every seat needs at least one card")
        if not isinstance(first_card, str):
            raise ValueError("first_card must be a card code")
        top = card_id(first_card)
        if not isinstance(deck, (list, tuple)) or not isinstance(discards, (list, tuple)):
            raise ValueError("deck and discards must be lists of card codes")
        pile = parse_cards(deck)
        pile.reverse()
        under = parse_cards(discards)
        if not std and JOKER in [top, *pile, *under, *(c for h in ids for c in h)]:
            raise ValueError("au is played without jokers (T2)")
        if bids is not None:
            if not std:
                raise ValueError("bids are for a standard round")
            if (not isinstance(bids, (list, tuple)) or len(bids) != n
                    or any(type(b) is not int or not _MIN_BID <= b <= _MAX_BID for b in bids)):
                raise ValueError("bids must be one whole number 1-999 per seat")
            if first_player is None or bids[first_player] != max(bids):
                raise ValueError("the first player must be one of the highest bidders")
        if not isinstance(last_one, (list, tuple)):
            raise ValueError("last_one must be a list of seats")
        for s in last_one:
            if not std:
                raise ValueError("last one is a standard rule")
            if type(s) is not int or not 0 <= s < n or len(ids[s]) != 1:
                raise ValueError("last_one lists seats holding one card")
        streaks = _check_match(match, n)
        return cls._start(std, ids, top, pile, under, first_player, float(timeout), float(now),
                          SeededRandom(seed), None if bids is None else list(bids),
                          tuple(last_one), streaks)

    @classmethod
    def _start(cls, std: bool, hands: list[list[int]], top: int, deck: list[int],
               discards: list[int], first_player: int | None, timeout: float, now: float,
               rng: SeededRandom, bids: list[int] | None, last_one: tuple[int, ...],
               streaks: list[int]) -> Game:
        g = cls.__new__(cls)
        n = len(hands)
        g._std, g._n, g._timeout, g._hands = std, n, timeout, hands
        g._index_hands()
        g._deck, g._discards, g._top = deck, discards, top
        # §T3.4: the first field card has no effect; its own suit (a JK: every suit).
        if std:
            g._fsuit = ALL_SUITS if top == JOKER else 1 << SUIT[top]
        else:
            g._fsuit = SUIT[top]
        g._dir, g._pending, g._records = 1, 0, []
        g._order_seats()
        g._match = g._field_match()
        g._index_run()
        g._chances, g._chance_dl, g._had = [0] * n, None, 0
        g._counts, g._quick = [0] * n, 0
        g._lp_seat, g._lp_out = -1, False
        g._chain, g._declared, g._out, g._returners = [], 0, [[] for _ in range(n)], []
        g._losers, g._target = [], []
        g._last_one = sum(1 << s for s in last_one)
        g._lo_open, g._yaku, g._exposed = -1, 0, [[] for _ in range(n)]
        g._streaks, g._result, g._rng = streaks, None, rng
        g._mv_seat, g._mv_list, g._mv_tok, g._mv_plays, g._mv_table = _NOBODY, [], -1, 0, 0
        if first_player is None:  # standard: the auction (§T4)
            g._phase, g._turn, g._first, g._auction = AUCTION, -1, -1, -1
            g._bids = [-1] * n
            g._clock = now + timeout
        else:
            g._phase, g._turn, g._first = TURN, first_player, first_player
            g._bids = bids
            g._auction = first_player if bids is not None else -1
            g._clock = now + timeout
        return g

    def _order_seats(self) -> None:
        # (a table read is cheaper than `(seat + self._dir) % self._n` on every step)
        n, d = self._n, self._dir
        self._next = tuple((s + d) % n for s in range(n))
        self._back = tuple((s - d) % n for s in range(n))

    def _had_turn(self) -> int:
        """Bit per seat that has had a turn (the standard quick dobon, §T21.39): a seat with
        a record, as every play, draw and skipped turn leaves one (§T13.1). Worked out when
        a dobon chance opens, which is rare, rather than kept up to date on every step."""
        everyone = (1 << self._n) - 1
        had = 0
        for seat, _, _ in self._records:
            had |= 1 << seat
            if had == everyone:
                break
        return had

    def _index_run(self) -> None:
        """Derive _pre, _at and _since from the records since the latest draw."""
        self._pre, self._at, self._since, self._run_j = [0], {0: 0}, [0] * self._n, 0
        for seat, card, _ in self._records:
            if card >= 0:
                self._add_to_run(seat, card)
            elif card == _DREW:
                self._run_j = len(self._pre) - 1
            else:
                self._since[seat] = len(self._pre) - 1

    def _add_to_run(self, seat: int, card: int) -> None:
        pre = self._pre
        j = len(pre)
        total = pre[-1] + NUMBER[card]
        pre.append(total)
        self._at.setdefault(total, j)
        self._since[seat] = j

    def _index_hands(self) -> None:
        # One plain loop: a round starts here. (map over a table's __getitem__ makes an
        # argument tuple per card, which cost several times as much.)
        sums, masks, jks = [], [], []
        for hand in self._hands:
            total = mask = 0
            for c in hand:
                total += NUMBER[c]
                mask |= _BIT[c]  # both jokers are one bit
            sums.append(total)
            masks.append(mask)
            jks.append(hand.count(JOKER))
        self._sums, self._masks, self._jks = sums, masks, jks
        self._low_sum = min(sums)

    def _field_match(self) -> int:
        """The mask of the cards that may be played on the field now (au §T5.3-§T5.4,
        standard §T5.3 and しばり §T7.3), kept in _match as the field changes: every listing
        for the seat on turn reads it, and most steps are listings."""
        number = NUMBER[self._top]
        if self._std:
            match = STD_MATCH[self._fsuit][number]
            return ATTACKS | (FIVES & match) if self._pending else match
        return TWOS if self._pending else AU_MATCH[self._fsuit][number]

    # ------------------------------------------------------------------ reading

    @property
    def preset(self) -> str:
        """``"au"`` or ``"standard"`` (§T1.1)."""
        return STANDARD if self._std else AU

    @property
    def players(self) -> int:
        return self._n

    def hand(self, seat: int) -> list[str]:
        """That seat's cards, as codes, in the order received."""
        self._check_seat(seat)
        return [CODE[c] for c in self._hands[seat]]

    def hand_points(self, seat: int) -> int:
        """The points of that seat's hand as its result would count them: au V(hand)
        (§T15.6), standard base points (§T16.1)."""
        self._check_seat(seat)
        table = BASE if self._std else AU_VALUE
        return sum(table[c] for c in self._hands[seat])

    @property
    def last_play(self) -> dict[str, Any]:
        """The latest play: ``{"seat": s, "cards": [code]}``; seat ``None`` for the first
        field card."""
        seat = self._lp_seat if self._lp_seat >= 0 else None
        return {"seat": seat, "cards": [CODE[self._top]]}

    @property
    def hand_counts(self) -> list[int]:
        return [len(h) for h in self._hands]

    @property
    def top(self) -> str:
        """The field card [場札]."""
        return CODE[self._top]

    @property
    def suit(self) -> str | list[str]:
        """au: the field suit; standard: the field card's effective suits (§T20.5)."""
        if self._std:
            return list(_MASK_SUITS[self._fsuit])
        return SUITS[self._fsuit]

    @property
    def color(self) -> None:
        """Always ``None``: trump has no colour (kept so that one API reads both games)."""
        return None

    @property
    def chooser(self) -> None:
        return None

    @property
    def turn(self) -> int | None:
        return self._turn if self._turn >= 0 else None

    @property
    def direction(self) -> int:
        return self._dir

    @property
    def pending_draw(self) -> int:
        """au: the open obligation; standard: the accumulation under しばり (0: none)."""
        return self._pending

    @property
    def shibari(self) -> bool:
        return self._std and self._pending > 0

    @property
    def deck_count(self) -> int:
        return len(self._deck)

    @property
    def discard_count(self) -> int:
        return len(self._discards)

    @property
    def rate(self) -> int:
        return 1

    @property
    def timeout(self) -> float:
        return self._timeout

    @property
    def phase(self) -> str:
        return self._phase

    @property
    def has_drawn(self) -> bool:
        return False

    @property
    def result(self) -> Result | None:
        """``None`` until the round is finished."""
        return self._result

    @property
    def first_player(self) -> int | None:
        """au: the round's first player [親]; standard: the auction's winner (or the set-up's
        first player), ``None`` during the auction."""
        return self._first if self._first >= 0 else None

    def chances(self, seat: int) -> list[str]:
        """That seat's open chances: a subset of ``"dobon"``, ``"return"``."""
        self._check_seat(seat)
        return list(_KINDS[self._chances[seat]])

    def dobon_counts(self, seat: int) -> list[int]:
        """standard: the counts this seat may name in a dobon now (§T13.4)."""
        self._check_seat(seat)
        if not self._std or not self._chances[seat] & DOBON:
            return []
        bits = self._counts[seat]
        return [k for k in range(bits.bit_length()) if bits >> k & 1]

    def to_act(self) -> list[int]:
        """The seats the round waits for: the seat on turn, the bidders still to bid, or
        the seats asked in a wait. Optional chances during a turn are not listed."""
        if self._phase is TURN:
            return [self._turn]
        if self._phase is AUCTION:
            assert self._bids is not None
            return [s for s, b in enumerate(self._bids) if b < 0]
        return [s for s, c in enumerate(self._chances) if c]

    @property
    def next_deadline(self) -> float | None:
        """The earliest pending deadline (auction, turn, chances, waits), or ``None``."""
        clock, chance = self._clock, self._chance_dl
        if clock is None:
            return chance
        if chance is None:
            return clock
        return chance if chance < clock else clock

    # ------------------------------------------------------------------ acting

    def play(self, seat: int, cards: list[str], now: float, suit: str | None = None,
             last_one: bool = False) -> list[Event]:
        """Play one card (§T5); ``suit`` with an 8 (and a J in standard), ``last_one`` on a
        standard play that leaves one card (§T8.1).

        >>> g = Game.from_setup(hands=[["S8", "C9"], ["D4", "S6"]], first_card="S11",
        ...                     deck=["H10"], first_player=0)
        >>> g.play(0, ["S8"], 0.0, suit="D")[0]["suit"]
        'D'
        """
        if not isinstance(cards, (list, tuple)) or len(cards) != 1 or type(cards[0]) is not str:
            _fail("malformed_action", "a play is a list of exactly one card code")
        try:
            card = card_id(cards[0])
        except ValueError as err:
            raise IllegalAction("unknown_card", str(err)) from None
        if card == JOKER and not self._std:  # §T20.4 (1): au's deck has no JK (§T2)
            _fail("unknown_card", "JK is not a card of au (T2: no jokers)")
        named = _parse_suit(suit)
        if type(last_one) is not bool:
            _fail("malformed_action", "last_one is true or false")
        now = _as_time(now)
        self._check_seat(seat)
        self._check_turn_action(seat)
        hand = self._hands[seat]
        if card not in hand:
            _fail("not_in_hand", f"{CODE[card]} is not in seat {seat}'s hand")
        self._find_moves(seat)
        if A.play(card, named, last_one).stamp != self._mv_tok:
            self._refuse_play(seat, card, named, last_one)
        self._mv_seat = _NOBODY
        return self._do_play(seat, card, named, last_one, now)

    def draw(self, seat: int, now: float) -> list[Event]:
        """Draw one card, the obligation (au) or the accumulation (standard) (§T5.4)."""
        now = _as_time(now)
        self._check_seat(seat)
        self._check_turn_action(seat)
        self._mv_seat = _NOBODY
        return self._do_draw(seat, now)

    def dobon(self, seat: int, now: float, count: int | None = None) -> list[Event]:
        """Declare dobon on the latest play (au §T11, standard §T13 naming ``count``)."""
        if count is not None and type(count) is not int:
            _fail("malformed_action", "count is a whole number")
        now = _as_time(now)
        self._check_seat(seat)
        self._check_running()
        if self._phase is AUCTION:
            _fail("auction_running", "nobody may dobon during the auction")
        if not self._std and count is not None:
            _fail("invalid_count", "an au dobon names no count")
        if not self._chances[seat] & DOBON:
            if self._declared >> seat & 1:
                _fail("already_declared", "this seat has already declared")
            if self._had >> seat & 1:
                _fail("window_closed", "this seat's dobon chance has lapsed")
            _fail("cannot_dobon", "this seat cannot dobon on the latest play")
        if self._std and (count is None or count < 1 or not self._counts[seat] >> count & 1):
            _fail("invalid_count", f"no valid target of {count} cards")
        self._mv_seat = _NOBODY
        return self._do_dobon(seat, count or 0, now)

    def dobon_return(self, seat: int, now: float) -> list[Event]:
        """Return a dobon (au §T12.1, standard §T14.4)."""
        now = _as_time(now)
        self._check_seat(seat)
        self._check_running()
        if not self._chances[seat] & RETURN:
            if seat in self._returners or (not self._std and self._declared >> seat & 1
                                           and seat == self._lp_seat):
                _fail("already_declared", "this seat has already returned")
            _fail("not_eligible_to_return", "this seat may not return now")
        self._mv_seat = _NOBODY
        return self._do_return(seat, now)

    def decline(self, seat: int, now: float) -> list[Event]:
        """Let every open dobon and return chance of this seat lapse (au: leave the chain)."""
        now = _as_time(now)
        self._check_seat(seat)
        self._check_running()
        if not self._chances[seat]:
            _fail("nothing_to_decline", "this seat has no open chance")
        self._mv_seat = _NOBODY
        return self._do_decline(seat, now, False)

    def bid(self, seat: int, amount: int, now: float) -> list[Event]:
        """standard: a sealed bid of 1-999 in the auction (§T4).

        >>> g = Game.new(players=3, seed=1, preset="standard")
        >>> g.bid(0, 7, 1.0)
        [{'type': 'bid', 'to': None, 'seat': 0}]
        """
        if type(amount) is not int:
            _fail("malformed_action", "a bid is a whole number")
        now = _as_time(now)
        self._check_seat(seat)
        self._check_running()
        if self._phase is not AUCTION or self._bids is None or self._bids[seat] >= 0:
            _fail("not_bidding", "no auction is waiting for this seat's bid")
        if not _MIN_BID <= amount <= _MAX_BID:
            _fail("invalid_bid", "a bid is a whole number from 1 to 999")
        self._mv_seat = _NOBODY
        return self._do_bid(seat, amount, now)

    def declare_last_one(self, seat: int, now: float) -> list[Event]:
        """standard: declare last one after the play that left one card (§T8.1)."""
        now = _as_time(now)
        self._check_seat(seat)
        self._check_running()
        if not self._may_last_one(seat):
            _fail("cannot_declare_last_one", "this seat may not declare last one now")
        self._mv_seat = _NOBODY
        return self._do_last_one(seat)

    def declare_yaku(self, seat: int, now: float) -> list[Event]:
        """standard: declare 役 at the start of one's turn (§T8.3)."""
        now = _as_time(now)
        self._check_seat(seat)
        self._check_running()
        if not self._may_yaku(seat):
            _fail("no_yaku", "no 役 to declare now")
        self._mv_seat = _NOBODY
        return self._do_yaku(seat)

    def pass_turn(self, seat: int, now: float) -> list[Event]:
        """There is no pass in trump Dobon (§T5.1)."""
        _fail("not_in_this_game", "there is no pass in trump Dobon")

    def choose_color(self, seat: int, color: str, now: float) -> list[Event]:
        """There is no colour in trump Dobon."""
        _fail("not_in_this_game", "there is no colour in trump Dobon")

    def apply(self, seat: int, action: Action, now: float) -> list[Event]:
        """Any action as a dict (the shapes :meth:`legal_actions` lists, §T20.3).

        >>> g = Game.from_setup(hands=[["S3", "H7"], ["D9", "C12"]], first_card="H3",
        ...                     deck=["S1", "S2"], first_player=0)
        >>> [e["type"] for e in g.apply(0, {"type": "draw"}, 0.0)]
        ['draw', 'drawn', 'turn']
        """
        if seat is self._mv_seat and type(action) is TrumpAction:  # perhaps listed just now
            op = action.op
            if op >= 0:
                if (_BIT[op] & self._mv_plays and action.tables & self._mv_table
                        or action.stamp == self._mv_tok):
                    if type(now) is not float:
                        now = _as_time(now)
                    self._mv_seat = _NOBODY
                    if self._std:
                        return self._play_std(seat, op, action.named, action.last_one, now)
                    return self._play_au(seat, op, action.named, now)
            elif op == OP_DRAW:
                if self._mv_tok == _UNSTAMPED or action.stamp == self._mv_tok:
                    if type(now) is not float:
                        now = _as_time(now)
                    self._mv_seat = _NOBODY
                    return self._do_draw(seat, now)
            elif action.stamp == self._mv_tok:
                if type(now) is not float:
                    now = _as_time(now)
                self._mv_seat = _NOBODY
                return _LISTED[op](self, seat, action.arg, now)
        return self._apply_checked(seat, action, now)

    def _apply_checked(self, seat: int, action: Action, now: float) -> list[Event]:
        if not isinstance(action, dict):
            _fail("malformed_action", "an action is a dict with a 'type'")
        kind = action.get("type")
        if kind == "play":
            return self.play(seat, action.get("cards"),  # type: ignore[arg-type]
                             now, action.get("suit"), action.get("last_one", False))
        if kind == "draw":
            return self.draw(seat, now)
        if kind == "dobon":
            return self.dobon(seat, now, action.get("count"))
        if kind == "return":
            return self.dobon_return(seat, now)
        if kind == "decline":
            return self.decline(seat, now)
        if kind == "bid":
            return self.bid(seat, action.get("amount"), now)  # type: ignore[arg-type]
        if kind == "last_one":
            return self.declare_last_one(seat, now)
        if kind == "yaku":
            return self.declare_yaku(seat, now)
        if kind in ("pass", "color"):
            _fail("not_in_this_game", f"there is no {kind} in trump Dobon")
        _fail("malformed_action", f"unknown action type {kind!r}")

    def advance(self, now: float) -> list[Event]:
        """Apply every timeout due by ``now`` (§T18), each at its own deadline; on equal
        deadlines lapsing chances come first (§T18.3).

        >>> g = Game.from_setup(hands=[["S3", "H7"], ["D9", "C12"]], first_card="H3",
        ...                     deck=["S1", "S2", "S4"], first_player=0)
        >>> [e["type"] for e in g.advance(15.0)]
        ['timeout', 'draw', 'drawn', 'turn']
        """
        now = _as_time(now)
        events: list[Event] = []
        while True:
            clock, chance = self._clock, self._chance_dl
            if chance is not None and chance <= now and (clock is None or chance <= clock):
                self._mv_seat = _NOBODY
                events += self._lapse(chance)
            elif clock is not None and clock <= now:
                self._mv_seat = _NOBODY
                events += self._clock_timeout(clock)
            else:
                return events

    def resume(self, now: float) -> list[Event]:
        """After the server's clock was stopped (an outage), restart every clock already
        due by ``now`` with a full timeout from ``now`` instead of applying its §T18
        timeouts: the turn (or the auction's clock, or a wait's) and the open chances.
        Nothing else changes. Returns ``[]`` when nothing was due. Outages are the site's
        concern, which TRUMP-RULES.md leaves open; decided as for Dobon UNO (§R14 note in
        docs/protocol.md, "The clock, and outages").

        >>> g = Game.from_setup(hands=[["S3", "H7"], ["C12", "D4"]], first_card="H3",
        ...                     deck=["S1"], first_player=0, timeout=10.0)
        >>> [e["type"] for e in g.resume(600.0)], g.next_deadline, g.turn
        (['resume'], 610.0, 0)
        >>> g.resume(605.0)
        []
        """
        self._clock, self._chance_dl, events = restart_due_clocks(
            self._clock, self._chance_dl, _as_time(now), self._timeout
        )
        if events:
            self._mv_seat = _NOBODY  # what a seat may do is unchanged: keep no stale listing
        return events

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action dict :meth:`apply` would accept from ``seat`` now (§T20.3); during
        the auction a seat still to bid gets the one descriptor ``{"type": "bid",
        "min": 1, "max": 999}`` instead.

        >>> g = Game.from_setup(hands=[["S3", "H7", "D9"], ["C12"]], first_card="H3",
        ...                     deck=["S1"], first_player=0)
        >>> g.legal_actions(0)  # doctest: +NORMALIZE_WHITESPACE
        [{'type': 'play', 'cards': ['S3']}, {'type': 'play', 'cards': ['H7']},
         {'type': 'draw'}]
        """
        if (seat is self._turn and not self._chances[seat]
                and self._lo_open != seat and self._phase is TURN):
            # the commonest case, the seat on turn's plays and the draw: _turn_moves,
            # inlined and unstamped (apply recognises the plays by _mv_plays
            # and _mv_table, the draw by _mv_tok). Listed afresh even when this seat's
            # listing is kept: it is the same list, found sooner than the kept one.
            size = len(self._hands[seat])
            if self._std:
                if size > 5 or size == 3 or size == 4:  # no 役, no last one to mind
                    plays, table = STD_BY_BIT, IN_STD
                elif size == 5 and not self._yaku >> seat & 1 and yaku_of_signature(
                        _signature(self._hands[seat])):
                    return self._listed_and_kept(seat)  # rare: a 役 to declare
                elif size == 1 and (not self._last_one >> seat & 1
                                    or self._hands[seat][0] == JOKER):
                    self._mv_seat, self._mv_tok = seat, _UNSTAMPED
                    self._mv_plays = 0  # going-out-forbidden (§T8.2): the draw only
                    return [DRAW]
                elif size == 2:
                    plays, table = STD_LO_BY_BIT, IN_STD_LO
                else:
                    plays, table = STD_BY_BIT, IN_STD
            else:
                plays, table = AU_BY_BIT, IN_AU
            playable = self._masks[seat] & self._match
            self._mv_seat = seat
            self._mv_tok = _UNSTAMPED
            self._mv_plays = playable
            self._mv_table = table
            listed: list[Action] = []
            low_half, high_half = plays  # lowest id first, by halves (see A.HALF)
            part = playable & LOW_HALF
            while part:
                low = part & -part
                listed += low_half[low.bit_length()]
                part ^= low
            part = playable >> HALF
            while part:
                low = part & -part
                listed += high_half[low.bit_length()]
                part ^= low
            listed.append(DRAW)
            return listed  # the caller's own: not kept
        if seat != self._mv_seat:
            if type(seat) is not int or not 0 <= seat < self._n:
                self._check_seat(seat)
            return self._listed_and_kept(seat)
        if self._mv_tok == _UNSTAMPED:  # (kept by the inlined case above: list again)
            listed = []
            self._turn_moves(seat, listed)
            return listed
        return self._mv_list[:]

    def _listed_and_kept(self, seat: int) -> list[Action]:
        self._find_moves(seat)
        return self._mv_list[:]

    def _find_moves(self, seat: int) -> None:
        """Work out (and keep until the next change) everything ``seat`` may do now."""
        listed: list[Action] = []
        phase = self._phase
        if phase is TURN and seat == self._turn:
            self._turn_moves(seat, listed)
        elif phase is AUCTION:
            assert self._bids is not None
            if self._bids[seat] < 0:
                listed.append(A.BID)  # a descriptor, never stamped: apply does not take it
        bits = self._chances[seat]
        if bits:
            if bits & DOBON:
                if self._std:
                    counts = self._counts[seat]
                    for k in range(1, counts.bit_length()):
                        if counts >> k & 1:
                            listed.append(A.DOBON_STD[k])
                else:
                    listed.append(A.DOBON_AU)
            if bits & RETURN:
                listed.append(A.RETURN)
            listed.append(A.DECLINE)
        if self._lo_open == seat and phase is TURN:
            listed.append(A.LAST_ONE)
        tok = next(_TOKENS)
        for action in listed:
            if action is not A.BID:
                action.stamp = tok  # type: ignore[attr-defined]
        self._mv_seat, self._mv_list, self._mv_tok = seat, listed, tok
        self._mv_plays = self._mv_table = 0  # every listed play is stamped

    def _turn_moves(self, seat: int, listed: list[Action]) -> None:
        """The plays of the seat on turn (§T5.3), its 役 (§T8.3) and the draw (§T5.4)."""
        hand = self._hands[seat]
        if self._std:
            if (len(hand) == 5 and not self._yaku >> seat & 1
                    and yaku_of_signature(_signature(hand))):
                listed.append(A.YAKU)
            size = len(hand)
            if size == 1 and (not self._last_one >> seat & 1 or hand[0] == JOKER):
                pass  # going-out-forbidden (§T8.2): the draw only
            else:
                plays = A.STD_PLAYS_LO if size == 2 else A.STD_PLAYS
                playable = self._masks[seat] & self._match
                while playable:  # lowest id first
                    low = playable & -playable
                    listed += plays[low.bit_length() - 1]
                    playable ^= low
        else:
            plays = A.AU_PLAYS
            playable = self._masks[seat] & self._match
            while playable:  # lowest id first
                low = playable & -playable
                listed += plays[low.bit_length() - 1]
                playable ^= low
        listed.append(DRAW)

    def _refuse_play(self, seat: int, card: int, named: int, last_one: bool) -> NoReturn:
        """The rule's own code for a play that is not listed (§T20.4 step 5)."""
        hand = self._hands[seat]
        std = self._std
        number = NUMBER[card]
        if std and len(hand) == 1 and (not self._last_one >> seat & 1 or hand[0] == JOKER):
            _fail("going_out_forbidden", "one card without last one (or a JK): draw")
        if not std and self._pending and number != 2:
            _fail("must_play_two_or_draw", f"play a 2 or draw {self._pending}")
        if std and self._pending:
            if not (_DAMAGE[card] or number == 5 and (
                    HAND_SUITS[card] & self._fsuit or NUMBER[self._top] == 5)):
                _fail("must_answer_shibari", "under しばり: an attack card, a matching 5, or draw")
        elif std:
            if not (HAND_SUITS[card] & self._fsuit or number == NUMBER[self._top]):
                _fail("does_not_match", f"{CODE[card]} does not match the field")
        elif not self._pending and not (SUIT[card] == self._fsuit
                                        or number == NUMBER[self._top]):
            _fail("does_not_match", f"{CODE[card]} does not match the field")
        names = (STD_NAMES if std else AU_NAMES)[card]
        if names and named < 0:
            _fail("suit_required", f"a play of {CODE[card]} names a suit")
        if named >= 0 and named not in names:
            _fail("invalid_suit", f"{CODE[card]} cannot name {SUITS[named]}")
        if last_one:
            _fail("cannot_declare_last_one", "last one goes with a standard play leaving one card")
        _fail("does_not_match", f"{CODE[card]} cannot be played now")  # pragma: no cover

    # ------------------------------------------------------------------ checks

    def _check_seat(self, seat: Any) -> None:
        if type(seat) is not int or not 0 <= seat < self._n:
            _fail("invalid_seat", f"no seat {seat!r} at this table")

    def _check_running(self) -> None:
        if self._phase is FINISHED:
            _fail("game_finished", "the round is over")

    def _check_turn_action(self, seat: int) -> None:
        self._check_running()
        phase = self._phase
        if phase is AUCTION:
            _fail("auction_running", "nobody is on turn during the auction")
        if phase in _STOPPED:
            _fail("game_stopped_by_dobon", "a dobon stopped the round")
        if seat != self._turn:
            _fail("not_your_turn", f"it is not seat {seat}'s turn")

    def _may_last_one(self, seat: int) -> bool:
        return self._lo_open == seat and self._phase is TURN

    def _may_yaku(self, seat: int) -> bool:
        hand = self._hands[seat]
        return (self._std and self._phase is TURN and seat == self._turn and len(hand) == 5
                and not self._yaku >> seat & 1 and yaku_pattern(hand) is not None)

    # ------------------------------------------------------------------ doing

    def _do_play(self, seat: int, card: int, named: int, last_one: bool,
                 now: float) -> list[Event]:
        if self._std:
            return self._play_std(seat, card, named, last_one, now)
        return self._play_au(seat, card, named, now)

    def _play_au(self, seat: int, card: int, named: int, now: float) -> list[Event]:
        hand = self._hands[seat]
        hand.remove(card)
        number = NUMBER[card]
        sums = self._sums
        sums[seat] -= number
        if card != JOKER or JOKER not in hand:  # (au has no jokers, but from_dict takes any)
            self._masks[seat] ^= _BIT[card]
        self._discards.append(self._top)
        self._top = card
        if self._chance_dl is not None:  # §T11.3: a turn action closes every chance
            self._chances = [0] * self._n
            self._chance_dl = None
        self._lo_open = -1
        records = self._records
        records.append((seat, card, named))
        self._lp_seat = seat
        if not hand:
            return self._go_out(seat, card, named, now)
        if number == 2:
            pending = self._pending = self._pending + 2
            fsuit = SUIT[card]
        else:
            pending = self._pending
            fsuit = named if named >= 0 else SUIT[card]
        self._fsuit = fsuit
        self._match = TWOS if pending else AU_MATCH[fsuit][number]  # (see _field_match)
        event: Event = {"type": "play", "to": None, "seat": seat, "cards": [CODE[card]],
                        "suit": SUITS[fsuit], "last_one": False, "pending_draw": pending,
                        "shibari": False, "direction": 1}
        nxt = self._next[seat]
        self._turn = nxt
        deadline = self._clock = now + self._timeout
        turn: Event = {"type": "turn", "to": None, "seat": nxt, "deadline": deadline}
        # _open_au behind a quick filter: nobody else's numbers may add up to the card's
        if number in sums:
            chances = self._open_au(seat, card, now)
            if chances:
                return [event, turn, *chances]
        else:
            self._had = 0
        return [event, turn]

    def _play_std(self, seat: int, card: int, named: int, last_one: bool,
                  now: float) -> list[Event]:
        hand = self._hands[seat]
        hand.remove(card)
        number = NUMBER[card]
        sums = self._sums
        left = sums[seat] = sums[seat] - number
        if left < self._low_sum:
            self._low_sum = left
        if card != JOKER:
            self._masks[seat] ^= _BIT[card]
        else:
            self._jks[seat] -= 1
            if JOKER not in hand:  # the other joker keeps the bit
                self._masks[seat] ^= _BIT[card]
        self._discards.append(self._top)
        self._top = card
        if self._chance_dl is not None:  # §T13.5: a turn action closes every chance
            self._chances = [0] * self._n
            self._chance_dl = None
        self._lo_open = -1
        records = self._records
        records.append((seat, card, named))
        self._lp_seat = seat
        if self._yaku:  # only a 役 exposes cards (§T8.3)
            exposed = self._exposed[seat]
            if card in exposed:
                exposed.remove(card)
        if not hand:
            return self._go_out(seat, card, named, now)
        pending = self._pending
        effect = _STD_EFFECT[card]
        if not effect:  # the commonest card: it only sets the field
            fsuit = self._fsuit = _STD_FSUIT[card]
        elif effect is _ATTACK:
            pending = self._pending = pending + _DAMAGE[card]
            fsuit = self._fsuit = _STD_FSUIT[card]
        elif effect is _NAMES:
            fsuit = self._fsuit = 1 << named
        else:
            fsuit = self._fsuit = _STD_FSUIT[card]
            if effect is _REVERSE or effect is _REFLECT and pending:
                self._dir = -self._dir
                self._next, self._back = self._back, self._next
        event = _PLAY_EVENTS[self._dir][seat].copy()  # (see _PLAY_EVENTS)
        event["cards"] = [CODE[card]]
        event["suit"] = [*_MASK_SUITS[fsuit]]
        match = STD_MATCH[fsuit][number]  # (see _field_match)
        if pending:
            self._match = ATTACKS | (FIVES & match)
            event["pending_draw"] = pending
            event["shibari"] = True
        else:
            self._match = match
        if last_one:
            self._last_one |= 1 << seat
            event["last_one"] = True
        elif len(hand) == 1:
            self._lo_open = seat
        # _add_to_run, inlined: this is the commonest step of a standard round
        pre = self._pre
        j = len(pre)
        total = pre[-1] + number
        pre.append(total)
        if number:  # (a new sum: only a JK leaves the sum as it was, already in _at)
            self._at[total] = j
        self._since[seat] = j
        # _open_std behind a quick filter: a seat's valid count k needs its sum to be
        # the last k cards' sum, so at most the whole run's.
        if total - pre[self._run_j] >= self._low_sum:
            chances = self._open_std(seat, now, total, j)
        else:
            chances = None
            if self._had:  # (_counts holds counts exactly when _had holds seats)
                self._had, self._counts = 0, [0] * self._n
        if effect is _SKIP:  # §T7.6: the skipped turn passes at once, leaving a record
            skipped = self._next[seat]
            records.append((skipped, _SKIPPED, 0))
            self._since[skipped] = j
            nxt = self._next[skipped]
            self._turn = nxt
            deadline = self._clock = now + self._timeout
            events = [event, {"type": "skip", "to": None, "seat": skipped},
                      {"type": "turn", "to": None, "seat": nxt, "deadline": deadline}]
            if chances:
                events += chances
            return events
        nxt = self._turn = self._next[seat]
        turn = _TURN_EVENTS[nxt].copy()
        turn["deadline"] = self._clock = now + self._timeout
        if chances:
            return [event, turn, *chances]
        return [event, turn]

    def _open_au(self, player: int, card: int, now: float) -> list[Event] | None:
        """§T11.1: every other seat of 2 cards or more whose numbers sum to the card's."""
        number, sums, hands = NUMBER[card], self._sums, self._hands
        had = 0
        for s in range(self._n):
            if sums[s] == number and s != player and len(hands[s]) >= 2:
                had |= 1 << s
        self._had = had
        if not had:
            return None
        return self._tell_chances(had, now)

    def _open_std(self, player: int, now: float, total: int, last: int) -> list[Event] | None:
        """§T13.2-§T13.5: each seat's valid counts on the play just made (judged now, before
        a skip it causes).

        The last k cards of the run sum to ``_pre[last] - _pre[last - k]``; so seat s has a
        valid count k exactly when ``_pre[j]`` equals that total minus its hand's sum for
        j = last - k at or after the start of its run.
        """
        at, sums = self._at, self._sums  # (total is _pre[last], the latest play's prefix)
        had, low = 0, sums[0]  # and the lowest sum, as builtin min is slow
        counts: list[int] | None = None  # (made only for a seat with valid counts: rare)
        for s, held in enumerate(sums):
            if held < low:
                low = held
            # at[total - held]: the first j whose prefix would leave that sum (the test
            # first: most seats have none, and `in` is cheaper than a call of get)
            if total - held in at and s != player:
                valid = self._valid_counts(s, at[total - held], last)
                if valid:
                    if counts is None:
                        counts = [0] * self._n
                    counts[s] = valid
                    had |= 1 << s
        self._low_sum = low
        if not had:
            if self._had:  # (_counts holds counts exactly when _had holds seats)
                self._had, self._counts = 0, [0] * self._n
            return None
        assert counts is not None  # (had holds a seat)
        self._had, self._counts = had, counts
        self._quick = ~self._had_turn() & ((1 << self._n) - 1)  # judged now (§T21.39)
        return self._tell_chances(had, now)

    def _valid_counts(self, s: int, j: int, last: int) -> int:
        """Seat s's valid counts, as bits, given the first j of the prefix it needs."""
        jk = self._jks[s]
        if jk and jk != len(self._hands[s]):  # a JK with other cards: no dobon (§T13.2)
            return 0
        pre, want, valid = self._pre, self._pre[j], 0
        j = max(j, self._since[s], self._run_j)
        while j < last and pre[j] == want:  # every j of that sum in the seat's run
            valid |= 1 << (last - j)
            j += 1
        return valid

    def _tell_chances(self, seats: int, now: float) -> list[Event]:
        deadline = self._chance_dl = now + self._timeout
        chances = self._chances
        events: list[Event] = []
        for s in range(self._n):
            if seats >> s & 1:
                chances[s] |= DOBON
                events.append(self._chance_event(s, deadline))
        return events

    def _chance_event(self, s: int, deadline: float) -> Event:
        event: Event = {"type": "chance", "to": s, "seat": s,
                        "kinds": list(_KINDS[self._chances[s]]), "deadline": deadline}
        if self._std:
            bits = self._counts[s] if self._chances[s] & DOBON else 0
            event["dobon_counts"] = [k for k in range(1, bits.bit_length()) if bits >> k & 1]
        return event

    def _go_out(self, seat: int, card: int, named: int, now: float) -> list[Event]:
        """§T10: the last card has no effect; the round waits for dobons (§T10.4)."""
        std = self._std
        self._fsuit = (1 << SUIT[card]) if std else SUIT[card]
        self._match = self._field_match()
        self._lp_out = True
        self._phase, self._turn, self._clock = AGARI_WAIT, -1, None
        events: list[Event] = [
            {"type": "play", "to": None, "seat": seat, "cards": [CODE[card]],
             "suit": list(_MASK_SUITS[self._fsuit]) if std else SUITS[self._fsuit],
             "last_one": False, "pending_draw": self._pending, "shibari": self._pending > 0,
             "direction": self._dir},
            {"type": "agari", "to": None, "seat": seat},
        ]
        if std:
            self._add_to_run(seat, card)
            chances = self._open_std(seat, now, self._pre[-1], len(self._pre) - 1)
        else:
            chances = self._open_au(seat, card, now)
        if chances:
            return events + chances
        return events + self._finish_agari(seat)

    def _finish_agari(self, seat: int) -> list[Event]:
        if self._std:
            return self._finish(self._settle_std("agari", [seat], [], []))
        return self._finish(settle_au_agari(seat, self._hands))

    def _do_draw(self, seat: int, now: float, timed_out: bool = False) -> list[Event]:
        if self._chance_dl is not None:  # a turn action closes every chance (§T11.3, §T13.5)
            self._chances = [0] * self._n
            self._chance_dl = None
        self._lo_open = -1
        pending = self._pending
        deck = self._deck
        if not pending and len(deck) > 1 and not timed_out:  # the commonest draw
            card = deck.pop()
            self._hands[seat].append(card)
            self._masks[seat] |= _BIT[card]
            self._sums[seat] += NUMBER[card]
            self._records.append(_DREW_ONE[seat])
            if self._std:
                self._run_j = len(self._pre) - 1
                if card == JOKER:
                    self._jks[seat] += 1
                if self._last_one:
                    self._last_one &= ~(1 << seat)
            drawn = _DRAWN_EVENTS[seat].copy()  # (see _PLAY_EVENTS)
            drawn["cards"] = [CODE[card]]
            nxt = self._turn = self._next[seat]
            turn = _TURN_EVENTS[nxt].copy()
            turn["deadline"] = self._clock = now + self._timeout
            return [_DRAW_EVENTS[seat].copy(), drawn, turn]
        count = pending or 1
        got, shuffles, ended = self._draw_cards(seat, count)
        if pending:
            self._pending = 0
            self._match = self._field_match()
        self._records.append((seat, _DREW, len(got)))
        if self._std:
            self._run_j = len(self._pre) - 1
        if self._std and len(self._hands[seat]) >= 2:
            self._last_one &= ~(1 << seat)
        kind = "take" if pending else "draw"
        events: list[Event] = []
        if timed_out:
            events.append({"type": "timeout", "to": None, "seat": seat, "action": kind})
        events.append({"type": kind, "to": None, "seat": seat, "count": len(got)})
        if shuffles:
            events += shuffles
        if got:
            drawn = _DRAWN_EVENTS[seat].copy()
            drawn["cards"] = [CODE[c] for c in got]
            events.append(drawn)
        if ended:
            return events + self._finish_deck_out()
        nxt = self._next[seat]
        self._turn = nxt
        turn = _TURN_EVENTS[nxt].copy()
        turn["deadline"] = self._clock = now + self._timeout
        events.append(turn)
        return events

    def _draw_cards(self, seat: int, count: int) -> tuple[list[int], list[Event], bool]:
        """§T9: draw up to ``count`` cards, reshuffling the discards when the deck empties;
        the third value says the round ends (nothing to draw, or standard exhaustion)."""
        deck, hand = self._deck, self._hands[seat]
        got: list[int] = []
        shuffles: list[Event] = []
        ended = False
        for _ in range(count):
            if not deck:
                if not self._discards:
                    ended = True
                    break
                shuffles.append(self._reshuffle())
                deck = self._deck
            card = deck.pop()
            got.append(card)
            if not deck:
                if self._discards:
                    shuffles.append(self._reshuffle())
                    deck = self._deck
                elif self._std:  # §T9.3 exhaustion: the round ends at once
                    ended = True
                    break
        hand += got
        added, mask = 0, self._masks[seat]  # (one loop: no generators)
        for c in got:
            added += NUMBER[c]
            mask |= _BIT[c]
        self._sums[seat] += added
        self._masks[seat] = mask
        if self._std:
            self._jks[seat] += got.count(JOKER)
        return got, shuffles, ended

    def _reshuffle(self) -> Event:
        deck = self._discards
        self._discards = []
        _shuffle(self._rng, deck)
        self._deck = deck
        return {"type": "reshuffle", "to": None, "seat": None, "count": len(deck)}

    def _finish_deck_out(self) -> list[Event]:
        if self._std:
            return self._finish(self._settle_std("deck_out", [], [], []))
        return self._finish(settle_au_deck_out(self._first, self._hands))

    def _stop(self) -> None:
        """The first dobon stops the round (§T11.6, §T13.9)."""
        self._phase, self._turn, self._clock, self._lo_open = DOBON_WAIT, -1, None, -1

    def _do_dobon(self, seat: int, count: int, now: float) -> list[Event]:
        if self._std:
            return self._dobon_std(seat, count, now)
        first = self._phase is not DOBON_WAIT
        if first:
            self._stop()
            player = self._lp_seat
            hand = self._hands[player]
            if len(hand) >= 2 and self._sums[player] == NUMBER[self._top]:
                self._chances[player] |= RETURN  # §T12.1: the player may return
        self._chances[seat] = 0
        self._declared |= 1 << seat
        chain = self._chain
        beats = chain[-1][0] if chain else self._lp_seat
        chain.append((seat, 0))
        events: list[Event] = [{"type": "dobon", "to": None, "seat": seat,
                                "hand": self.hand(seat), "beats": beats,
                                "position": len(chain)}]
        return events + self._chain_clocks(now)

    def _chain_clocks(self, now: float) -> list[Event]:
        """§T12.2: a fresh clock for every seat that may still declare, or the end."""
        if not any(self._chances):
            return self._settle_chain()
        deadline = self._chance_dl = now + self._timeout
        return [self._chance_event(s, deadline) for s in range(self._n) if self._chances[s]]

    def _settle_chain(self) -> list[Event]:
        chain = [(s, "return" if kind else "dobon") for s, kind in self._chain]
        return self._finish(settle_au_chain(self._lp_seat, self._top, chain, self._hands))

    def _target_cards(self, count: int) -> list[Record]:
        """The last ``count`` plays of the run ending at the latest play (§T13.4)."""
        records = self._records
        found: list[Record] = []
        i = len(records) - 1  # (records after the latest play are no plays)
        while len(found) < count:
            rec = records[i]
            if rec[1] >= 0:
                found.append(rec)
            i -= 1
        found.reverse()
        return found

    def _dobon_std(self, seat: int, count: int, now: float) -> list[Event]:
        first = self._phase is not DOBON_WAIT
        if first:
            self._stop()
        hand = self._hands[seat]
        events: list[Event] = [{"type": "dobon", "to": None, "seat": seat,
                                "hand": [CODE[c] for c in hand], "count": count,
                                "target": [CODE[r[1]] for r in self._target_cards(count)]}]
        self._put_out(seat)
        self._chances[seat] = 0
        self._declared |= 1 << seat
        self._chain.append((seat, count))
        if not any(self._chances):
            return events + self._close_dobon_wait(now)
        if first:  # §T14.1: the others' open chances run to one timeout after it
            deadline = self._chance_dl = now + self._timeout
            events += [self._chance_event(s, deadline)
                       for s in range(self._n) if self._chances[s]]
        return events

    def _put_out(self, seat: int) -> None:
        """§T13.8, §T14.8: the declarer (or returner) puts all its cards out."""
        self._out[seat] = self._hands[seat]
        self._hands[seat] = []
        self._sums[seat] = self._jks[seat] = self._masks[seat] = 0
        self._low_sum = 0
        self._exposed[seat] = []
        self._last_one &= ~(1 << seat)

    def _close_dobon_wait(self, now: float) -> list[Event]:
        """§T14.2-§T14.4: align the counts, name the losers, open the return wait."""
        m = min(k for _, k in self._chain)
        target = self._target_cards(m)
        self._target = [r[1] for r in target]
        self._losers = sorted({r[0] for r in target})
        want = sum(NUMBER[c] for c in self._target)
        eligible = [s for s in self._losers
                    if self._hands[s] and not self._jks[s] and self._sums[s] == want
                    and not self._had >> s & 1]
        if not eligible:
            return self._finish_dobon()
        self._phase = RETURN_WAIT
        deadline = self._chance_dl = now + self._timeout
        events = []
        for s in eligible:
            self._chances[s] = RETURN
            events.append(self._chance_event(s, deadline))
        return events

    def _do_return(self, seat: int, now: float) -> list[Event]:
        if not self._std:
            self._chances[seat] = 0
            self._declared |= 1 << seat
            self._chain.append((seat, 1))
            events: list[Event] = [{"type": "return", "to": None, "seat": seat,
                                    "hand": self.hand(seat)}]
            return events + self._chain_clocks(now)
        events = [{"type": "return", "to": None, "seat": seat,
                   "hand": [CODE[c] for c in self._hands[seat]]}]
        self._put_out(seat)
        self._chances[seat] = 0
        self._returners.append(seat)
        if not any(self._chances):
            return events + self._finish_return()
        return events

    def _finish_dobon(self) -> list[Event]:
        winners = sorted(s for s, _ in self._chain)
        return self._finish(self._settle_std("dobon", winners, self._losers, self._target))

    def _finish_return(self) -> list[Event]:
        winners = set(self._returners)
        if self._lp_out:  # §T14.5: the seat that went out is no longer a loser
            winners.add(self._lp_seat)
        losers = sorted(s for s, _ in self._chain)
        return self._finish(self._settle_std("return", sorted(winners), losers, self._target))

    def _settle_std(self, kind: str, winners: list[int], losers: list[int],
                    target: list[int]) -> Result:
        auction = None
        if self._bids is not None and self._auction >= 0:
            auction = (self._auction, self._bids[self._auction])
        end = StandardEnd(
            kind=kind, winners=winners, losers=losers, target=target,
            dobons=[(s, self._out[s], bool(self._quick >> s & 1)) for s, _ in self._chain],
            returns=[(s, self._out[s]) for s in self._returners],
            answered=[c for s, _ in self._chain for c in self._out[s]],
            went_out=self._lp_seat if self._lp_out else -1,
            auction=auction,
            yaku=[s for s in range(self._n) if self._yaku >> s & 1],
            streaks=self._streaks,
        )
        return settle_standard(end, self._hands)

    def _do_decline(self, seat: int, now: float, timed_out: bool) -> list[Event]:
        self._chances[seat] = 0
        events: list[Event] = [{"type": "decline", "to": seat, "seat": seat,
                                "timeout": timed_out}]
        if any(self._chances):
            return events
        return events + self._all_answered(now)

    def _all_answered(self, now: float) -> list[Event]:
        """Nobody may still act on the latest play: the wait (if any) closes (§T18.2)."""
        self._chance_dl = None
        phase = self._phase
        if phase is AGARI_WAIT:
            return self._finish_agari(self._lp_seat)
        if phase is DOBON_WAIT:
            if self._std:
                return self._close_dobon_wait(now)
            return self._settle_chain()
        if phase is RETURN_WAIT:
            if self._returners:
                return self._finish_return()
            return self._finish_dobon()
        return []

    def _do_bid(self, seat: int, amount: int, now: float) -> list[Event]:
        bids = self._bids
        assert bids is not None
        bids[seat] = amount
        events: list[Event] = [{"type": "bid", "to": None, "seat": seat}]
        if min(bids) >= _MIN_BID:
            events += self._close_auction(now)
        return events

    def _close_auction(self, now: float) -> list[Event]:
        """§T4.4: the highest bid wins; a tie is drawn with the round's generator."""
        bids = self._bids
        assert bids is not None
        high = max(bids)
        tied = [s for s, b in enumerate(bids) if b == high]
        winner = tied[0] if len(tied) == 1 else self._rng.choice(tied)
        self._auction = self._first = winner
        self._phase, self._turn = TURN, winner
        deadline = self._clock = now + self._timeout
        return [{"type": "auction_end", "to": None, "seat": winner, "bids": list(bids),
                 "winner": winner, "drawn": len(tied) > 1},
                {"type": "turn", "to": None, "seat": winner, "deadline": deadline}]

    def _do_last_one(self, seat: int) -> list[Event]:
        self._last_one |= 1 << seat
        self._lo_open = -1
        return [{"type": "last_one", "to": None, "seat": seat}]

    def _do_yaku(self, seat: int) -> list[Event]:
        hand = self._hands[seat]
        self._yaku |= 1 << seat
        self._exposed[seat] = list(hand)
        return [{"type": "yaku", "to": None, "seat": seat, "hand": [CODE[c] for c in hand],
                 "pattern": yaku_pattern(hand)}]

    def _finish(self, result: Result) -> list[Event]:
        self._result = result
        self._phase, self._turn, self._clock, self._chance_dl = FINISHED, -1, None, None
        self._chances = [0] * self._n
        self._lo_open = -1
        return [{"type": "finished", "to": None, "seat": None, "result": result.to_dict(),
                 "hands": [[CODE[c] for c in h] for h in self._hands]}]

    # ------------------------------------------------------------------ timeouts

    def _lapse(self, deadline: float) -> list[Event]:
        """Every open chance lapses at its deadline (silently to the others, §T18)."""
        events: list[Event] = []
        for s in range(self._n):
            if self._chances[s]:
                self._chances[s] = 0
                events.append({"type": "decline", "to": s, "seat": s, "timeout": True})
        return events + self._all_answered(deadline)

    def _clock_timeout(self, deadline: float) -> list[Event]:
        if self._phase is AUCTION:
            bids = self._bids
            assert bids is not None
            events: list[Event] = []
            for s in range(self._n):
                if bids[s] < 0:  # §T18: an absent bidder bids 1
                    bids[s] = _MIN_BID
                    events.append({"type": "timeout", "to": None, "seat": s, "action": "bid"})
                    events.append({"type": "bid", "to": None, "seat": s})
            return events + self._close_auction(deadline)
        return self._do_draw(self._turn, deadline, timed_out=True)

    # ------------------------------------------------------------------ view

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (§T19); ``None`` for a spectator. JSON-safe.

        >>> g = Game.new(players=2, first_player=1, seed=3)
        >>> v = g.view(None)
        >>> "hand" in v, v["hand_counts"], v["preset"]
        (False, [5, 5], 'au')
        """
        if seat is not None:
            self._check_seat(seat)
        std, n = self._std, self._n
        finished = self._phase is FINISHED
        view: dict[str, Any] = {
            "seat": seat, "players": n, "preset": self.preset, "phase": self._phase,
            "turn": self.turn, "first_player": self.first_player, "direction": self._dir,
            "top": CODE[self._top], "suit": self.suit, "color": None, "chooser": None,
            "pending_draw": self._pending, "shibari": self.shibari,
            "deck_count": len(self._deck), "discard_count": len(self._discards),
            "rate": 1, "timeout": self._timeout, "hand_counts": self.hand_counts,
            "revealed": self._revealed(), "has_drawn": False, "last_play": self.last_play,
            "turn_deadline": self._clock if self._phase in (TURN, AUCTION) else None,
            "wait_deadline": self._chance_dl if self._phase in _WAITS else None,
            "records": [_record_view(r) for r in self._records],
            "last_one": [bool(self._last_one >> s & 1) for s in range(n)],
            "exposed": [[CODE[c] for c in e] if e else None for e in self._exposed],
            "auction": self._auction_view(seat),
            "chain": (None if std else
                      [{"seat": s, "kind": "return" if k else "dobon"} for s, k in self._chain]),
            "dobon": self._dobon_view() if std else None,
            "result": self._result.to_dict() if self._result else None,
            "hands": [[CODE[c] for c in h] for h in self._hands] if finished else None,
        }
        if seat is None:
            view.update(deadline=None, chances=[], dobon_counts=[], legal_actions=[])
            return view
        view["hand"] = self.hand(seat)
        view["deadline"] = self._deadline_for(seat)
        view["chances"] = list(_KINDS[self._chances[seat]])
        view["dobon_counts"] = self.dobon_counts(seat)
        view["legal_actions"] = [_plain(a) for a in self.legal_actions(seat)]
        return view

    def _revealed(self) -> list[list[str] | None]:
        """§T19.4: declarers' and returners' hands (standard: the cards they put out);
        every hand once the round is over."""
        shown: list[list[str] | None] = [None] * self._n
        finished = self._phase is FINISHED
        for s in range(self._n):
            if self._std and (self._out[s] or s in self._returners):
                shown[s] = [CODE[c] for c in self._out[s]]
            elif finished or self._declared >> s & 1:
                shown[s] = [CODE[c] for c in self._hands[s]]
        return shown

    def _auction_view(self, seat: int | None) -> dict[str, Any] | None:
        bids = self._bids
        if bids is None:
            return None
        if self._phase is AUCTION:
            mine = bids[seat] if seat is not None and bids[seat] >= 0 else None
            return {"has_bid": [b >= 0 for b in bids], "mine": mine}
        return {"bids": list(bids), "winner": self._auction}

    def _dobon_view(self) -> dict[str, Any] | None:
        if not self._chain:
            return None
        if self._target:
            target, losers = self._target, self._losers
        else:
            recs = self._target_cards(min(k for _, k in self._chain))
            target, losers = [r[1] for r in recs], sorted({r[0] for r in recs})
        return {"declarers": [{"seat": s, "count": k} for s, k in self._chain],
                "target": [CODE[c] for c in target], "losers": list(losers),
                "returners": list(self._returners)}

    def _deadline_for(self, seat: int) -> float | None:
        mine: list[float] = []
        if self._clock is not None and (
                seat == self._turn
                or (self._phase is AUCTION and self._bids is not None and self._bids[seat] < 0)):
            mine.append(self._clock)
        if self._chances[seat] and self._chance_dl is not None:
            mine.append(self._chance_dl)
        return min(mine) if mine else None

    # ------------------------------------------------------------------ copy and save

    def to_dict(self) -> dict[str, Any]:
        """The whole state, JSON-safe (hidden cards and the generator included: keep it
        server-side). The generator is its seed and draw count."""
        return {
            "format": _FORMAT, "preset": self.preset, "timeout": self._timeout,
            "hands": [[CODE[c] for c in h] for h in self._hands],
            "deck": [CODE[c] for c in reversed(self._deck)],
            "discards": [CODE[c] for c in self._discards],
            "top": CODE[self._top], "field_suits": self._fsuit, "direction": self._dir,
            "phase": self._phase, "turn": self._turn, "clock": self._clock,
            "pending": self._pending, "first": self._first,
            # flat: seat, card id (-1 a draw, -2 a skipped turn), named suit or cards drawn
            "records": [x for r in self._records for x in r], "run_start": self._run_start(),
            "had_turn": self._had_turn(), "chances": list(self._chances),
            "chance_deadline": self._chance_dl, "had": self._had,
            "counts": list(self._counts), "quick": self._quick,
            "latest": [self._lp_seat, self._latest_play_index(), self._lp_out],
            "chain": [list(c) for c in self._chain], "declared": self._declared,
            "out": [[CODE[c] for c in o] for o in self._out],
            "returners": list(self._returners), "losers": list(self._losers),
            "target": [CODE[c] for c in self._target],
            "last_one": self._last_one, "last_one_open": self._lo_open,
            "yaku": self._yaku, "exposed": [[CODE[c] for c in e] for e in self._exposed],
            "bids": None if self._bids is None else list(self._bids),
            "auction": self._auction, "streaks": list(self._streaks),
            "result": self._result.to_dict() if self._result else None,
            "rng": self._rng.state(),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Game:
        """Rebuild a round saved by :meth:`to_dict`; it then plays on identically."""
        if d.get("format") != _FORMAT:
            raise ValueError(f"unsupported saved round format {d.get('format')!r}")
        g = cls.__new__(cls)
        g._std = _check_preset(d["preset"])
        g._timeout = float(d["timeout"])
        g._hands = [parse_cards(h) for h in d["hands"]]
        g._n = n = len(g._hands)
        low, high = _SEATS[d["preset"]]
        if not low <= n <= high:  # §T1.2, as new and from_setup check it
            raise ValueError(f"{d['preset']} is played by {low} to {high} seats, not {n}")
        g._index_hands()
        g._deck = list(reversed(parse_cards(d["deck"])))
        g._discards = parse_cards(d["discards"])
        g._top, g._fsuit, g._dir = card_id(d["top"]), int(d["field_suits"]), int(d["direction"])
        g._order_seats()
        phase = d["phase"]
        if phase not in PHASES:
            raise ValueError(f"unknown phase {phase!r}")
        g._phase = PHASES[PHASES.index(phase)]  # the module's own string: compared with `is`
        g._turn, g._clock = int(d["turn"]), _float_or_none(d["clock"])
        g._pending, g._first = int(d["pending"]), int(d["first"])
        g._match = g._field_match()
        flat = [int(x) for x in d["records"]]
        if len(flat) % 3:
            raise ValueError("records come in threes")
        g._records = list(zip(flat[0::3], flat[1::3], flat[2::3], strict=True))
        # ("run_start" and "had_turn" follow from the records)
        g._index_run()
        g._chances = [int(c) for c in d["chances"]]
        g._chance_dl, g._had = _float_or_none(d["chance_deadline"]), int(d["had"])
        g._counts, g._quick = [int(c) for c in d["counts"]], int(d["quick"])
        lp = d["latest"]
        g._lp_seat, g._lp_out = int(lp[0]), bool(lp[2])  # (its index follows from the records)
        g._chain = [(int(s), int(k)) for s, k in d["chain"]]
        g._declared = int(d["declared"])
        g._out = [parse_cards(o) for o in d["out"]]
        g._returners, g._losers = [int(s) for s in d["returners"]], [int(s) for s in d["losers"]]
        g._target = parse_cards(d["target"])
        g._last_one, g._lo_open = int(d["last_one"]), int(d["last_one_open"])
        g._yaku, g._exposed = int(d["yaku"]), [parse_cards(e) for e in d["exposed"]]
        g._bids = None if d["bids"] is None else [int(b) for b in d["bids"]]
        g._auction, g._streaks = int(d["auction"]), [int(s) for s in d["streaks"]]
        if len(g._streaks) != n:
            raise ValueError("one streak per seat")
        g._result = Result.from_dict(d["result"]) if d["result"] is not None else None
        g._rng = SeededRandom.from_state(d["rng"])
        g._mv_seat, g._mv_list, g._mv_tok, g._mv_plays, g._mv_table = _NOBODY, [], -1, 0, 0
        return g

    def _latest_play_index(self) -> int:
        """The index in _records of the latest play, -1 before any: worked out when the
        round is saved, rather than kept on every play."""
        records = self._records
        for i in range(len(records) - 1, -1, -1):
            if records[i][1] >= 0:
                return i
        return -1

    def _run_start(self) -> int:
        """The index of the first record after the latest draw (0 before any)."""
        records = self._records
        for i in range(len(records) - 1, -1, -1):
            if records[i][1] == _DREW:
                return i + 1
        return 0

    def copy(self) -> Game:
        """An independent copy that behaves identically."""
        return Game.from_dict(self.to_dict())

    def __repr__(self) -> str:
        return (f"<trump Game {self.preset} {self._n} seats phase={self._phase} "
                f"top={self.top} turn={self.turn}>")


# ---------------------------------------------------------------------- helpers

# _mv_seat when no listing is kept. apply compares a seat with _mv_seat (and
# legal_actions with _turn) by identity, which spares a type() call on every step: a
# seat that is the very int object kept there is an int, and an equal seat of another
# type (True, 1.0) never is. Seats are small ints, one object each in CPython (an equal
# int that is another object only takes the slower path, to the same answer); this one
# is not small, so no caller's int is it, yet one digit, which == compares quickly.
_NOBODY = -(1 << 20)

_TOKENS = itertools.count()  # one stamp per legal_actions listing, never reused
_UNSTAMPED = -2  # _mv_tok of a listing that stamped nothing: no action carries it


def _listed_dobon(g: Game, seat: int, arg: int, now: float) -> list[Event]:
    return g._do_dobon(seat, arg, now)


def _listed_return(g: Game, seat: int, _arg: int, now: float) -> list[Event]:
    return g._do_return(seat, now)


def _listed_decline(g: Game, seat: int, _arg: int, now: float) -> list[Event]:
    return g._do_decline(seat, now, False)


def _listed_last_one(g: Game, seat: int, _arg: int, now: float) -> list[Event]:
    return g._do_last_one(seat)


def _listed_yaku(g: Game, seat: int, _arg: int, now: float) -> list[Event]:
    return g._do_yaku(seat)


_LISTED = {
    A.OP_DOBON: _listed_dobon, A.OP_RETURN: _listed_return,
    A.OP_DECLINE: _listed_decline, A.OP_LAST_ONE: _listed_last_one, A.OP_YAKU: _listed_yaku,
}


def _shuffle(rng: SeededRandom, cards: list[int]) -> None:
    """Fisher-Yates with the digits of one random number: a single call to the generator
    (64 spare bits make every order equally likely to within 2^-64).

    The digits are those of ``big`` in the mixed radix n, n-1, ..., 2, lowest first; they
    are taken a few at a time (one division of the big number per step of the plan, then
    divisions of a one-digit remainder), which gives the same digits faster.
    """
    n = len(cards)
    if n < 2:
        return
    big = rng.getrandbits(64 + 6 * n)  # log2(n!) < 6n for every pack size here
    for product, steps in _shuffle_plan(n):
        big, small = divmod(big, product)
        for i, radix in steps:
            j = small % radix  # (two operators: cheaper than a call of divmod)
            small //= radix
            cards[i], cards[j] = cards[j], cards[i]


def _shuffle_plan(n: int) -> tuple[tuple[int, tuple[tuple[int, int], ...]], ...]:
    """The steps of :func:`_shuffle` for n cards: (product of the radices, ((index,
    radix), ...)), each product below 2^30 (one digit of a Python int)."""
    plan = _SHUFFLE_PLANS.get(n)
    if plan is None:
        steps: list[tuple[int, tuple[tuple[int, int], ...]]] = []
        chunk: list[tuple[int, int]] = []
        product = 1
        for i in range(n - 1, 0, -1):
            if product * (i + 1) >= 1 << 30:
                steps.append((product, tuple(chunk)))
                chunk, product = [], 1
            chunk.append((i, i + 1))
            product *= i + 1
        steps.append((product, tuple(chunk)))
        plan = _SHUFFLE_PLANS[n] = tuple(steps)
    return plan


_SHUFFLE_PLANS: dict[int, tuple[tuple[int, tuple[tuple[int, int], ...]], ...]] = {}


def _signature(hand: list[int]) -> int:
    """A hand's signature (cards.SIG summed), of which its 役 is a function: worked out at
    the few turns that start with five cards, which costs less than keeping every seat's
    up to date on every play and draw."""
    signature = 0
    for c in hand:
        signature += SIG[c]
    return signature


def _plain(action: Action) -> dict[str, Any]:
    out = dict(action)
    if "cards" in out:
        out["cards"] = list(out["cards"])
    return out


def _record_view(rec: Record) -> dict[str, Any]:
    seat, kind, value = rec
    if kind >= 0:
        return {"seat": seat, "play": CODE[kind], "suit": SUITS[value] if value >= 0 else None}
    if kind == _DREW:
        return {"seat": seat, "draw": value}
    return {"seat": seat, "skipped": True}


def _parse_suit(suit: Any) -> int:
    if suit is None:
        return -1
    if type(suit) is not str:
        _fail("malformed_action", "a suit is one of 'S', 'H', 'D', 'C'")
    named = SUIT_INDEX.get(suit)
    if named is None:
        _fail("invalid_suit", f"{suit!r} is no suit")
    return named


def _as_time(now: Any) -> float:
    """``now`` as a float; anything but a real number is refused before any change."""
    if isinstance(now, bool) or not isinstance(now, (int, float)) or now != now:
        _fail("malformed_action", f"now must be a number of seconds, not {now!r}")
    return float(now)


def _float_or_none(value: Any) -> float | None:
    return None if value is None else float(value)


def _check_preset(preset: Any) -> bool:
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}: 'au' or 'standard'")
    return bool(preset == STANDARD)


def _check_table(std: bool, players: Any, first_player: Any, timeout: Any, rate: Any,
                 now: Any, auction_allowed: bool) -> None:
    low, high = _SEATS[STANDARD if std else AU]
    if type(players) is not int or not low <= players <= high:
        raise ValueError(f"{'standard' if std else 'au'} is played by {low} to {high} seats")
    if first_player is None:
        if not auction_allowed:
            raise ValueError("an au round needs its first player (T17.1)")
    elif type(first_player) is not int or not 0 <= first_player < players:
        raise ValueError(f"no seat {first_player!r} to play first")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not (
            5 <= timeout <= 60):
        raise ValueError("the timeout is 5 to 60 seconds (T1.3)")
    if rate != 1 or type(rate) is not int:
        raise ValueError("trump rounds have no rate: rate must be 1 (T1.7)")
    if isinstance(now, bool) or not isinstance(now, (int, float)):
        raise ValueError("now must be a number of seconds")


def _check_match(match: Any, n: int) -> list[int]:
    if match is None:
        return [0] * n
    if not isinstance(match, dict):
        raise ValueError("match is a dict like {'streaks': [...]}")
    streaks = match.get("streaks", [0] * n)
    if (not isinstance(streaks, (list, tuple)) or len(streaks) != n
            or any(type(s) is not int or s < 0 for s in streaks)):
        raise ValueError("match streaks: one whole number per seat")
    return list(streaks)
