"""A game played under house rules (HOUSE-RULES.md §H1-§H12): :class:`HouseGame`.

``Game.new`` / ``Game.from_setup`` / ``Game.from_dict`` return a ``HouseGame`` when some
engine house rule is not at its default, and a plain :class:`Game` otherwise, so a
default game never reads a house rule (its hot paths stay as they are). Every method
here overrides the one place of :class:`Game` where a house rule changes something, reads
the game's frozen variant (``self._v``, variant.py: built once from the rule set) there and
cites its H-id; with a rule at its default each method does what ``Game``'s does
(tests/rules/test_house_default_equivalence.py plays both side by side).

>>> g = Game.from_setup(hands=[["R7", "G3", "G9"], ["Y1", "Y2", "Y9"], ["B4", "B8"]],
...                     first_card="R5", deck=["G1"], first_player=0,
...                     house_rules={"seven_zero": True})
>>> [e["type"] for e in g.play(0, ["R7"], 0.0)]
['play', 'choose_swap']
>>> [e["type"] for e in g.swap(0, 2, 1.0) if e["to"] is None]
['swap', 'turn']
>>> g.hand(0)
['B4', 'B8']
"""

from __future__ import annotations

from typing import Any

from .actions import SWAPS, play_action
from .cards import (
    CLASS_OF,
    CODE,
    COLOR_OF,
    FORCE_CLASS,
    FORCE_IDS,
    ID_OF,
    IS_NUMBER,
    MATCH,
    RANK,
    Rank,
    groups,
    mask_of,
)
from .game import (
    _CHANCE_KINDS,
    _COLOR,
    _DOBON_WAIT,
    _DRAW,
    _FINISHED,
    _FORCE,
    _PASS,
    _RETURN_WAIT,
    _TURN,
    _WAITS,
    CUT_IN,
    DOBON,
    Event,
    Game,
    Move,
    Phase,
    _as_time,
    _fail,
    _force_counts,
    _force_plays_for,
    _timeout_event,
    register_house_class,
)
from .result import Result, add_payments, settle_dobon
from .variant import expression

_SWAP = Phase.SWAP
_AGARI_WAIT = Phase.AGARI_WAIT
_NUMBER_IDS_BY_RANK = tuple(
    tuple(i for i in range(len(CODE)) if IS_NUMBER[i] and RANK[i] == r) for r in range(10)
)
_FORCE_MASK = mask_of(FORCE_IDS)
_PENALTY = 20  # §H10.3.4: what a false declarer pays each other seat, times the rate
_DRAW_TWO, _WILD4 = int(Rank.DRAW_TWO), int(Rank.WILD_DRAW_FOUR)


class HouseGame(Game):
    """A game under house rules: the same API as :class:`Game`, plus ``swap`` (§H6.4)."""

    __slots__ = ("_declined", "_lost", "_false", "_void", "_dobon_dir", "_last_drawn", "_late")

    _declined: list[bool]   # §H6.6: seats that let their chances on the last play lapse
    _lost: list[bool]       # §H10.3.3: seats that lost their dobon and return rights
    _false: list[int]       # §H10.3.4: false declarers, in the order they declared
    _void: list[int]        # §H11.2: declarations that were not the nearest
    _dobon_dir: int         # §H11.2: the direction in force at the first dobon
    _last_drawn: int        # §H7 timeouts: the card the last draw ended with, -1 for none
    # S29: seats whose chance a swap opened (§H6.6), with its own deadline; the others'
    # chances keep the shared one (_chance_dl).
    _late: dict[int, float]

    def _init_house(self) -> None:
        n = self._n
        self._declined, self._lost = [False] * n, [False] * n
        self._false, self._void, self._dobon_dir, self._last_drawn = [], [], 0, -1
        self._late = {}

    # ------------------------------------------------------------------ acting

    def apply(self, seat: int, action: dict[str, Any], now: float) -> list[Event]:
        """As :meth:`Game.apply`, always the checked way (speed matters for defaults only)."""
        return self._apply_checked(seat, action, _as_time(now))

    def to_act(self) -> list[int]:
        if self._phase is _SWAP:
            return [self._chooser]
        return super().to_act()

    # ------------------------------------------------------------------ legal actions

    def _find_moves(self, seat: int) -> None:
        if self._phase is _SWAP and seat == self._chooser:  # §H6.4
            self._mv_seat, self._mv_singles, self._mv_plays = seat, 0, {}
            self._mv_other = tuple(SWAPS[s] for s in range(self._n) if s != seat)
            return
        super()._find_moves(seat)

    def _find_turn_plays(self, seat: int) -> int:
        v = self._v
        top_rank = RANK[self._discards[-1]]
        hand = self._hands[seat]
        if self._stack:
            playable = self._masks[seat] & self._stack_mask(top_rank)
            self._mv_other = _DRAW
        else:
            playable = self._masks[seat] & MATCH[self._color + 1][top_rank]
            if not self._drawn:
                self._mv_other = _DRAW
            else:  # §H7.2: after a draw-until-playable the player must play
                self._mv_other = () if v.draw_until_playable else _PASS
        plays: dict[tuple[str, ...], Move] = {}
        size = len(hand)
        may_finish = v.action_finish  # §H4.1
        for card in _ids(playable & ~_FORCE_MASK):
            count = hand.count(card)
            if count == size and not IS_NUMBER[card] and not may_finish:
                count -= 1  # §R8.1
            for codes, ids in groups(card, count):
                plays[codes] = (ids, False, play_action(codes))
        if playable & _FORCE_MASK:
            plays.update(_force_plays_for(_force_counts(hand), 0 if may_finish else size,
                                          cut_in=False))
        if v.mixed_multi and not self._stack:  # §H5.1, §H5.4
            for rank in {RANK[c] for c in _ids(self._masks[seat]) if IS_NUMBER[c]}:
                plays.update(self._mixed_plays(hand, rank, cut_in=False))
        self._mv_seat, self._mv_singles, self._mv_plays = seat, 0, plays
        return 0

    def _mixed_plays(self, hand: list[int], rank: int, cut_in: bool) -> dict[tuple[str, ...], Move]:
        """§H5.4: every set of number cards of ``rank`` in two colours or more, once per
        last card, led by a card that matches the field (any card, for a cut-in)."""
        held = [(c, hand.count(c)) for c in _NUMBER_IDS_BY_RANK[rank] if hand.count(c)]
        plays: dict[tuple[str, ...], Move] = {}
        if len(held) < 2:
            return plays
        match = -1 if cut_in else MATCH[self._color + 1][RANK[self._discards[-1]]]
        for take in _products([k for _, k in held]):
            cards = [c for (c, _), t in zip(held, take, strict=True) for _ in range(t)]
            if sum(1 for t in take if t) < 2:
                continue  # one colour: an identical play, listed already
            for last in dict.fromkeys(cards):
                rest = list(cards)
                rest.remove(last)
                lead = next((c for c in rest if match >> c & 1), None)
                if lead is None:
                    continue
                rest.remove(lead)
                ids = [lead, *rest, last]
                codes = tuple(CODE[i] for i in ids)
                plays[codes] = (ids, cut_in, play_action(codes))
        return plays

    def _cut_in_plays(self, seat: int) -> dict[tuple[str, ...], Move]:
        """§R7.1 with §H2.1 (same number), §H4.3 (action-card finish) and §H5 (mixed)."""
        v = self._v
        top = self._discards[-1]
        hand = self._hands[seat]
        size = len(hand)
        may_finish = v.action_finish
        if CLASS_OF[top] == FORCE_CLASS:
            return _force_plays_for(_force_counts(hand), 0 if may_finish else size, cut_in=True)
        plays: dict[tuple[str, ...], Move] = {}
        cards = [top]
        if v.same_number_cut_in and IS_NUMBER[top]:
            cards = list(_NUMBER_IDS_BY_RANK[RANK[top]])
        for card in cards:
            count = hand.count(card)
            if count == size and not IS_NUMBER[card] and not may_finish:
                count -= 1
            for codes, ids in groups(card, count) if count else ():
                plays[codes] = (ids, True, play_action(codes))
        if v.same_number_cut_in and v.mixed_multi and IS_NUMBER[top]:
            plays.update(self._mixed_plays(hand, RANK[top], cut_in=True))
        return plays

    # ------------------------------------------------------------------ checks

    def _check_play(self, seat: int, ids: list[int]) -> bool:
        if self._phase is _SWAP and seat == self._chooser:
            self._check_running()
            _fail("must_choose_swap", "choose a seat to swap hands with first (H6.4)")
        return super()._check_play(seat, ids)

    def _check_turn(self, seat: int) -> None:
        if self._phase is _SWAP and seat == self._chooser:
            _fail("must_choose_swap", "choose a seat to swap hands with first (H6.4)")
        super()._check_turn(seat)

    def _together(self, ids: list[int]) -> bool:
        """§R2.2 identical cards, or §H5.1 number cards of one number in any colours (§H5.2:
        the first card is the one that must match the field)."""
        if super()._together(ids):
            return True
        return (self._v.mixed_multi and all(IS_NUMBER[i] for i in ids)
                and len({RANK[i] for i in ids}) == 1)

    def _cut_in_cards(self, ids: list[int]) -> bool:
        """§R7.1, or §H2.1: number cards of the top's number (§H5: in several colours)."""
        top = self._discards[-1]
        if all(CLASS_OF[i] == CLASS_OF[top] for i in ids):
            return True
        if not self._v.same_number_cut_in or not IS_NUMBER[top]:
            return False
        if not all(IS_NUMBER[i] and RANK[i] == RANK[top] for i in ids):
            return False
        return self._v.mixed_multi or len(set(ids)) == 1

    def _check_swap(self, seat: int, target: Any) -> None:
        self._check_running()
        if self._phase is not _SWAP or seat != self._chooser:
            _fail("not_swapper", "you are not choosing a seat to swap hands with (H6.4)")
        if (not isinstance(target, int) or isinstance(target, bool)
                or not 0 <= target < self._n or target == seat):
            _fail("invalid_swap_target", f"{target!r} is not another seat of this game (H6.4)")

    def _check_dobon(self, seat: int) -> None:
        if self._phase is _FINISHED:
            _fail("game_finished", "the game is over")
        if self._lost[seat]:  # §H10.3.3
            _fail("dobon_rights_lost", "a false declaration lost your dobon rights (H10)")
        if self._chances[seat] & DOBON:
            return
        if seat in self._declarers or seat in self._void:
            _fail("already_declared", "you already declared dobon")
        could = (self._lp_seat >= 0 and seat != self._lp_seat and self._phase is not _RETURN_WAIT
                 and self._makes(self._hands[seat]))
        if could:
            _fail("window_closed", "the chance to dobon on this play has closed (R9.2)")
        _fail("cannot_dobon", "your hand does not make the last play's points (R9.1)")

    def _check_return(self, seat: int) -> None:
        if self._phase is not _FINISHED and self._lost[seat]:  # S26
            _fail("dobon_rights_lost", "a false declaration lost your dobon rights (H10)")
        super()._check_return(seat)

    # ------------------------------------------------------------------ dobon conditions

    def _makes(self, hand: list[int]) -> bool:
        """§R9.1 / §R10.1 with §H8.1 (four operations) and §H9.1 (numbers only)."""
        return self._v.makes(hand, self._lp_points)

    def _dobon_bit(self, seat: int) -> int:
        """Whether ``seat`` has a dobon chance on the last play (and is asked in §R8.2's
        wait): §H10.1 / §H10.2 every seat with its rights under blind dobon, else the seat
        whose hand makes the play (§R9.1)."""
        if self._lost[seat]:
            return 0
        if self._v.blind or self._makes(self._hands[seat]):
            return DOBON
        return 0

    def _cut_in_bit(self, seat: int) -> int:
        """§R7.1 with §H2 (mode), §H3.3/§H3.4 (open stacks) and §H4.3 (action-card finish)."""
        v = self._v
        if seat == self._turn or v.cut_in == "off" or self._cut_in_blocked():
            return 0
        top = self._discards[-1]
        hand = self._hands[seat]
        if CLASS_OF[top] == FORCE_CLASS:
            held = sum(map(hand.count, FORCE_IDS))
        else:
            held = hand.count(top)
        if not held and v.same_number_cut_in and IS_NUMBER[top]:
            held = sum(map(hand.count, _NUMBER_IDS_BY_RANK[RANK[top]]))
        if not held:
            return 0
        if IS_NUMBER[top] or len(hand) > 1 or v.action_finish:  # §R16.2, §H4.3
            return CUT_IN
        return 0

    # ------------------------------------------------------------------ doing

    def _play_single(self, seat: int, card: int, now: float) -> list[Event]:
        return self._play(seat, [card], now, False)

    def _play(self, seat: int, ids: list[int], now: float, cut_in: bool,
              cards: list[str] | None = None) -> list[Event]:
        points = self._remove(seat, ids)
        self._discards += ids
        self._lp_seat, self._lp_count, self._lp_points = seat, len(ids), points
        self._close_chances()
        self._declined = [False] * self._n
        played: Event = {"type": "play", "to": None, "seat": seat,
                         "cards": [CODE[i] for i in ids], "cut_in": cut_in, "points": points}
        last = ids[-1]
        if not self._hands[seat]:  # §H6.3: a going-out 7 or 0 neither swaps nor rotates
            return [played] + self._go_out(seat, last, now)
        rank = RANK[last]
        if rank <= 9 or rank == _FORCE:
            self._color = COLOR_OF[last]
            nxt = (seat + self._dir) % self._n
            if rank == 7 and self._v.seven_zero:  # §H6.1, §H6.4
                events = self._seven(seat, nxt, now)
            elif rank == 0 and self._v.seven_zero:  # §H6.2
                events = self._rotate(seat) + [self._start_turn(nxt, now)]
            else:
                events = [self._start_turn(nxt, now)]
        else:
            events = [self._apply_effect(seat, ids, now)]
        return [played] + events + self._open_chances(seat, now)

    def _open_chances(self, player: int, now: float) -> list[Event]:
        chances = self._chances
        events: list[Event] = []
        deadline = now + self._timeout
        for s in range(self._n):
            if s == player:
                continue
            bits = self._dobon_bit(s) | self._cut_in_bit(s)
            if bits:
                chances[s] = bits
                events.append({"type": "chance", "to": s, "seat": s,
                               "kinds": list(_CHANCE_KINDS[bits]), "deadline": deadline})
        if events:
            self._chance_dl = deadline
        return events

    # -- §H6: 7-0

    def _seven(self, seat: int, nxt: int, now: float) -> list[Event]:
        """§H6.4: the swap choice; with 2 seats the swap happens at once."""
        if self._n == 2:
            return self._exchange(seat, 1 - seat) + [self._start_turn(nxt, now)]
        self._phase = _SWAP
        self._turn, self._chooser, self._next, self._drawn = -1, seat, nxt, False
        self._clock = now + self._timeout
        return [{"type": "choose_swap", "to": None, "seat": seat, "deadline": self._clock}]

    def _swap(self, seat: int, target: int, now: float) -> list[Event]:
        """§H6.1: swap, then the next turn starts (§H6.4) and chances are judged again (§H6.6)."""
        events = self._exchange(seat, target)
        events.append(self._start_turn(self._next, now))
        return events + self._rejudge([seat, target], now)

    def _exchange(self, a: int, b: int) -> list[Event]:
        hands, masks, multi, points = self._hands, self._masks, self._multi, self._points
        hands[a], hands[b] = hands[b], hands[a]
        masks[a], masks[b] = masks[b], masks[a]
        multi[a], multi[b] = multi[b], multi[a]
        points[a], points[b] = points[b], points[a]
        return [{"type": "swap", "to": None, "seat": a, "target": b},
                self._hand_event(a), self._hand_event(b)]

    def _rotate(self, seat: int) -> list[Event]:
        """§H6.2: seat s's hand goes to seat s + direction, all at once."""
        n, d = self._n, self._dir
        for name in ("_hands", "_masks", "_multi", "_points"):
            table = getattr(self, name)
            moved = [table[(s - d) % n] for s in range(n)]
            setattr(self, name, moved)
        return ([{"type": "rotate", "to": None, "seat": seat, "direction": d}]
                + [self._hand_event(s) for s in range(n)])

    def _hand_event(self, seat: int) -> Event:
        """§H6 (§R15.2): a seat's new hand, told to that seat only."""
        return {"type": "hand", "to": seat, "seat": seat,
                "cards": [CODE[i] for i in self._hands[seat]]}

    def _rejudge(self, seats: list[int], now: float) -> list[Event]:
        """§H6.6: chances of seats whose hand moved, judged again; a new chance starts now."""
        events: list[Event] = []
        for s in seats:
            if s == self._lp_seat or self._declined[s] or self._phase not in (_TURN, _COLOR):
                continue
            old = self._chances[s]
            new = self._dobon_bit(s) | self._cut_in_bit(s)
            if new == old:
                continue
            self._chances[s] = new
            if new & ~old:  # S29: the seat's open chances share a deadline from the move
                self._late[s] = now + self._timeout
                if self._chance_dl is None:
                    self._chance_dl = self._late[s]
            elif not new:
                self._late.pop(s, None)
            events.append({"type": "chance", "to": s, "seat": s,
                           "kinds": list(_CHANCE_KINDS[new]),
                           "deadline": self._chance_deadline(s) if new else None})
        if not any(self._chances):
            self._chance_dl, self._late = None, {}
        return events

    # -- S29: per-seat deadlines for chances a move opened

    def _chance_deadline(self, seat: int) -> float | None:
        return self._late.get(seat, self._chance_dl)

    def resume(self, now: float) -> list[Event]:
        """As :meth:`Game.resume`, with the S29 per-seat chance deadlines restarted too."""
        events = super().resume(now)
        fresh = float(now) + self._timeout
        late = [s for s, d in self._late.items() if d <= float(now)]
        for s in late:
            self._late[s] = fresh
        if late and not events:
            events = [{"type": "resume", "to": None, "seat": None, "deadline": fresh}]
        return events

    def _due(self) -> tuple[float | None, bool]:
        if not self._late:
            return super()._due()
        open_seats = [s for s in range(self._n) if self._chances[s]]
        dls = [d for d in map(self._chance_deadline, open_seats) if d is not None]
        chance, clock = (min(dls) if dls else None), self._clock
        if chance is not None and (clock is None or chance <= clock):
            return chance, True
        return clock, False

    def _deadline_for(self, seat: int) -> float | None:
        mine = [self._clock] if seat in (self._turn, self._chooser) else []
        if self._chances[seat]:
            mine.append(self._chance_deadline(seat))
        known = [d for d in mine if d is not None]
        return min(known) if known else None

    def _close_chances(self) -> None:
        super()._close_chances()
        self._late = {}

    def _forget_deadline_if_idle(self) -> None:
        super()._forget_deadline_if_idle()
        if self._chance_dl is None:
            self._late = {}

    def _stop_for_dobon(self, now: float) -> None:
        self._dobon_dir = self._dir  # §H11.2
        super()._stop_for_dobon(now)  # every chance left runs one timeout from the dobon
        self._late = {}

    # -- drawing: §H7 (draw until playable) and §H12 (reshuffle)

    def _refill(self, seat: int) -> list[Event]:
        """§H12.1: the discards but the last play, shuffled, become the deck."""
        keep = self._lp_count
        under = self._discards[:-keep]
        if not self._v.reshuffle or not under:
            return []
        del self._discards[:-keep]
        self._own_rng().shuffle(under)
        self._deck = under
        return [{"type": "reshuffle", "to": None, "seat": seat, "count": len(under)}]

    def _pull(self, seat: int, count: int,
              until_playable: bool) -> tuple[list[int], list[Event], bool]:
        """Draw ``count`` cards (or, §H7.1, until one is playable); returns the cards, the
        reshuffle events, and whether the game ends by deck-out (§R12.1, §H12.2)."""
        got: list[int] = []
        events: list[Event] = []
        reshuffle = self._v.reshuffle
        while until_playable or len(got) < count:
            if not self._deck:
                events += self._refill(seat)
                if not self._deck:
                    return got, events, True
            card = self._deck.pop()
            got.append(card)
            self._hands[seat].append(card)
            self._count_in(seat, card)
            if not reshuffle and not self._deck:
                return got, events, True  # §R12.1: the last card was drawn
            if until_playable and self._playable(card):
                break
        return got, events, False

    def _draw_or_take(self, seat: int, now: float) -> list[Event]:
        if self._stack:
            return self._take(seat, now)
        events = self._draw_one(seat)
        if self._phase is _FINISHED:
            return events
        deadline = self._clock = now + self._timeout  # §R14.1
        return events + [{"type": "turn", "to": None, "seat": seat, "deadline": deadline}]

    def _draw_one(self, seat: int) -> list[Event]:
        """§R4.2's draw, or §H7.1's draw until playable; no turn event."""
        self._close_chances()
        got, events, out = self._pull(seat, 1, self._v.draw_until_playable)
        events.append({"type": "draw", "to": None, "seat": seat, "count": len(got)})
        if got:
            events.append({"type": "drawn", "to": seat, "seat": seat,
                           "cards": [CODE[i] for i in got]})
            self._last_drawn = got[-1]
        if out:
            return events + self._deck_out(seat)
        self._drawn = True
        return events

    def _take(self, seat: int, now: float) -> list[Event]:
        """§R5.2 (§H7 does not apply); §H12: the take goes on through reshuffles."""
        self._close_chances()
        got, events, out = self._pull(seat, self._stack, until_playable=False)
        self._stack = 0
        events.append({"type": "take", "to": None, "seat": seat, "count": len(got)})
        if got:
            events.append({"type": "drawn", "to": seat, "seat": seat,
                           "cards": [CODE[i] for i in got]})
        if out:
            return events + self._deck_out(seat)
        nxt = (seat + self._dir) % self._n
        if self._color < 0:  # §R3.3
            events.append(self._ask_color(nxt, nxt, now))
            return events
        events.append(self._start_turn(nxt, now))
        return events

    # -- declarations: §H8, §H10, §H11

    def _declare(self, seat: int, now: float) -> list[Event]:
        if self._v.blind and not self._makes(self._hands[seat]):
            return self._false_declaration(seat, "dobon", now)  # §H10.3
        return super()._declare(seat, now)

    def _close_other_dobons(self) -> None:
        multi = self._v.multi_dobon
        if multi == "first":  # §H11.1: no wait
            self._chances = [0] * self._n
        elif multi == "nearest":
            self._end_wait_if_settled()

    def _distance(self, seat: int) -> int:
        """§H11.2: how far ``seat`` comes after the dobon'd player in turn order."""
        return (seat - self._target) * self._dobon_dir % self._n

    def _end_wait_if_settled(self) -> None:
        """§H11.2: the wait ends early as soon as no seat with an open chance is nearer than
        the nearest declarer so far. Until then farther seats keep their chances (a
        declaration of theirs is void, §H11.2; under §H10 a false one still pays): closing
        them at a nearer true dobon would tell them it was true, which §H10 hides. When the
        wait ends, the chances left close silently (no ``decline``: nobody declined)."""
        if not self._declarers:
            return
        nearest = min(self._distance(s) for s in self._declarers)
        if not any(self._chances[s] and self._distance(s) < nearest for s in range(self._n)):
            self._chances = [0] * self._n

    def _close_dobon_wait(self, now: float) -> list[Event]:
        events: list[Event] = []
        if self._v.multi_dobon == "nearest" and len(self._declarers) > 1:  # §H11.2
            winner = min(self._declarers, key=self._distance)
            self._void = [s for s in self._declarers if s != winner]
            self._declarers = [winner]
            events = [{"type": "dobon_void", "to": None, "seat": s} for s in self._void]
        return events + super()._close_dobon_wait(now)

    def _may_return(self, target: int) -> bool:
        """§R10.1 with §H8.2 / §H9.2; §H10.2: under blind dobon the return is always offered."""
        if self._lost[target]:
            return False
        return self._v.blind or self._makes(self._hands[target])

    def _return(self, seat: int, now: float) -> list[Event]:
        if self._v.blind and not self._makes(self._hands[seat]):
            return self._false_declaration(seat, "return", now)  # §H10.4
        return super()._return(seat, now)

    def _false_declaration(self, seat: int, what: str, now: float) -> list[Event]:
        """§H10.3: shown, rights lost, a penalty settled with the result; play goes on."""
        self._lost[seat] = True
        self._false.append(seat)
        event: Event = {"type": "false_declaration", "to": None, "seat": seat, "what": what,
                        "hand": [CODE[i] for i in self._hands[seat]],
                        "penalty": _PENALTY * self._rate}
        self._chances[seat] &= CUT_IN  # S27: a cut-in chance stays
        if not self._chances[seat]:
            self._late.pop(seat, None)
        if what == "return":  # §H10.4: the dobon's payments stand
            self._chances[seat] = 0
            self._chance_dl = None
            return [event] + self._finish(self._settle_dobon(returned=False), self._target)
        if self._phase is _DOBON_WAIT and self._v.multi_dobon == "nearest":
            self._end_wait_if_settled()  # §H11.2: a nearer seat's chance is gone
        if any(self._chances):
            return [event]
        if self._phase in _WAITS:
            return [event] + self._all_answered(now)
        self._chance_dl = None
        return [event]

    def _decline(self, seat: int, now: float, timed_out: bool = False) -> list[Event]:
        self._declined[seat] = True  # §H6.6: no new chance on this play
        self._late.pop(seat, None)
        if self._phase is _DOBON_WAIT and self._v.multi_dobon == "nearest":
            self._chances[seat] = 0
            self._end_wait_if_settled()
        return super()._decline(seat, now, timed_out)

    def _lapse_chances(self, deadline: float) -> list[Event]:
        events: list[Event] = []
        for s in range(self._n):
            due = self._chance_deadline(s)
            if self._chances[s] and due is not None and due <= deadline:
                self._chances[s] = 0
                self._declined[s] = True
                self._late.pop(s, None)
                events.append({"type": "decline", "to": s, "seat": s, "timeout": True})
        if any(self._chances):  # S29: a chance a move opened runs on to its own deadline
            late = [self._late[s] for s in range(self._n) if self._chances[s] and s in self._late]
            shared = any(self._chances[s] and s not in self._late for s in range(self._n))
            if not shared:
                self._chance_dl = min(late)
            return events
        self._late = {}
        return events + self._all_answered(deadline)

    def _settle_dobon(self, returned: bool) -> Result:
        points = list(self._points)
        points[self._target] += self._lp_points
        return settle_dobon(self._target, list(self._declarers), points, self._rate, returned)

    def _finish(self, result: Result, seat: int) -> list[Event]:
        """§H10.3.4: false declarers' penalties follow §R11's payments, whatever the end."""
        if self._false:
            penalty = _PENALTY * self._rate
            extra = [(s, p, penalty) for s in self._false for p in range(self._n) if p != s]
            result = add_payments(result, extra)
        self._late = {}
        return super()._finish(result, seat)

    # ------------------------------------------------------------------ timeouts

    def _clock_timeout(self, deadline: float) -> list[Event]:
        if self._phase is _SWAP:  # §H6 timeout
            seat = self._chooser
            target = self.automatic_swap_target(seat)
            return [_timeout_event(seat, "swap")] + self._swap(seat, target, deadline)
        if self._phase is _COLOR or self._stack or not self._v.draw_until_playable:
            return super()._clock_timeout(deadline)
        seat = self._turn  # §H7 timeouts: draw until playable, then play the last drawn card
        if self._drawn:
            events = [_timeout_event(seat, "play")]
        else:
            events = [_timeout_event(seat, "draw_play")] + self._draw_one(seat)
            if self._phase is _FINISHED:
                return events
        return events + self._auto_play(seat, deadline)

    def _auto_play(self, seat: int, now: float) -> list[Event]:
        """§H7 / S13 / S28: the last drawn card alone; a colour or a swap at once."""
        events = self._play(seat, [self._last_drawn], now, False)
        if self._phase is _COLOR and self._chooser == seat:
            events += self._set_color(seat, self._own_rng().randrange(4), now)
        elif self._phase is _SWAP and self._chooser == seat:
            events += self._swap(seat, self.automatic_swap_target(seat), now)
        return events

    def automatic_swap_target(self, seat: int) -> int:
        """Whom `seat` swaps with when its clock chooses (§H6 timeout, §H7's automatic
        play): the next seat in the current direction. Also a program's match clock's
        choice (game/services/engines.py), so both clocks choose alike."""
        return (seat + self._dir) % self._n

    # ------------------------------------------------------------------ views and saving

    def view(self, seat: int | None) -> dict[str, Any]:
        view = super().view(seat)
        view["dobon_rights_lost"] = [s for s in range(self._n) if self._lost[s]]
        if view["dobon"] is not None:
            view["dobon"]["void"] = list(self._void)
        return view

    def _revealed(self) -> list[list[str] | None]:
        shown = super()._revealed()
        for s in self._void:  # §H11.2: void declarations stay revealed (§R9.5)
            shown[s] = [CODE[i] for i in self._hands[s]]
        return shown

    def copy(self) -> HouseGame:
        g = super().copy()
        assert isinstance(g, HouseGame)
        g._declined, g._lost = list(self._declined), list(self._lost)
        g._false, g._void = list(self._false), list(self._void)
        g._dobon_dir, g._last_drawn = self._dobon_dir, self._last_drawn
        g._late = dict(self._late)
        return g

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d["house_state"] = {
            "declined": list(self._declined), "rights_lost": list(self._lost),
            "false_declarations": list(self._false), "void": list(self._void),
            "dobon_direction": self._dobon_dir,
            "last_drawn": CODE[self._last_drawn] if self._last_drawn >= 0 else None,
            "late_deadlines": [[s, d] for s, d in sorted(self._late.items())],
        }
        return d

    def _load_house(self, d: dict[str, Any]) -> None:
        self._init_house()
        state = d.get("house_state")
        if state is None:
            return
        self._declined = [bool(x) for x in state["declined"]]
        self._lost = [bool(x) for x in state["rights_lost"]]
        self._false = [int(s) for s in state["false_declarations"]]
        self._void = [int(s) for s in state["void"]]
        self._dobon_dir = int(state["dobon_direction"])
        last = state["last_drawn"]
        self._last_drawn = -1 if last is None else ID_OF[last]
        self._late = {int(s): float(dl) for s, dl in state.get("late_deadlines", [])}



def _ids(mask: int) -> list[int]:
    """The card ids of a mask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _products(counts: list[int]) -> list[tuple[int, ...]]:
    """Every way of taking 0..k of each card."""
    combos: list[tuple[int, ...]] = [()]
    for k in counts:
        combos = [c + (t,) for c in combos for t in range(k + 1)]
    return combos


__all__ = ["HouseGame", "expression"]


register_house_class(HouseGame)
