"""The read-only action dicts ``Game.legal_actions`` returns, built once and shared.

They are the Dobon UNO engine's read-only dicts (``FrozenAction``), of a subclass of their
own so that the trump engine recognises its own listed actions by identity.

>>> play(8 - 1, 1, False) == {"type": "play", "cards": ["S8"], "suit": "H"}
True
"""

from __future__ import annotations

from ..dobon_uno.actions import Cards, FrozenAction
from .cards import AU_NAMES, CODE, N_IDS, STD_NAMES, SUITS


class TrumpAction(FrozenAction):
    """A listed trump action (read-only).

    ``op`` says what it does without reading the dict: a card id (a play, with ``named``
    and ``last_one``) or one of the negative ``OP_*`` codes (with ``arg``: a dobon's
    count). ``stamp`` is the token of the latest ``legal_actions`` listing that held it,
    which lets ``apply`` take a listed action without checking it again. A play also
    says in ``tables`` which of the tables below hold it (bits ``IN_AU``, ``IN_STD``,
    ``IN_STD_LO``), so that a listing for the seat on turn need not stamp its plays.
    """

    __slots__ = ("op", "arg", "named", "last_one", "stamp", "tables")
    op: int
    arg: int
    named: int
    last_one: bool
    stamp: int
    tables: int


OP_DRAW, OP_DOBON, OP_RETURN, OP_DECLINE, OP_LAST_ONE, OP_YAKU, OP_BID = range(-1, -8, -1)


def _action(key: str, op: int, fields: dict[str, object], arg: int = 0, named: int = -1,
            last_one: bool = False) -> TrumpAction:
    action = TrumpAction(fields)
    action.key = key
    action.op, action.arg, action.named, action.last_one = op, arg, named, last_one
    action.stamp = -1
    action.tables = 0
    return action


def _play(card: int, suit: int, last_one: bool) -> TrumpAction:
    fields: dict[str, object] = {"type": "play", "cards": Cards([CODE[card]])}
    if suit >= 0:
        fields["suit"] = SUITS[suit]
    if last_one:
        fields["last_one"] = True
    return _action("play", card, fields, 0, suit, last_one)


# PLAYS[card][suit + 1][last_one]: suit -1 for a play that names none.
# Made in the order of their use, the commonest first (every card naming no suit, without
# last one), so that the actions a listing touches lie together in memory.
_MADE = {(lo, s, c): _play(c, s, lo)
         for lo in (False, True) for s in range(-1, 4) for c in range(N_IDS)}
PLAYS: tuple[tuple[tuple[TrumpAction, TrumpAction], ...], ...] = tuple(
    tuple((_MADE[False, s, c], _MADE[True, s, c]) for s in range(-1, 4)) for c in range(N_IDS)
)


def play(card: int, suit: int, last_one: bool) -> TrumpAction:
    """The shared action of a play of ``card`` naming ``suit`` (-1: none)."""
    return PLAYS[card][suit + 1][last_one]


# The plays of each card that name no suit / every suit it may name (au, standard).
AU_PLAYS: tuple[tuple[TrumpAction, ...], ...] = tuple(
    tuple(PLAYS[c][s + 1][0] for s in AU_NAMES[c]) or (PLAYS[c][0][0],) for c in range(N_IDS)
)
STD_PLAYS: tuple[tuple[TrumpAction, ...], ...] = tuple(
    tuple(PLAYS[c][s + 1][0] for s in STD_NAMES[c]) or (PLAYS[c][0][0],) for c in range(N_IDS)
)
# ... and the same leaving one card: without and with last one (standard).
STD_PLAYS_LO: tuple[tuple[TrumpAction, ...], ...] = tuple(
    tuple(PLAYS[c][s + 1][lo] for s in (STD_NAMES[c] or (-1,)) for lo in (0, 1))
    for c in range(N_IDS)
)

DRAW = _action("draw", OP_DRAW, {"type": "draw"})
RETURN = _action("return", OP_RETURN, {"type": "return"})
DECLINE = _action("decline", OP_DECLINE, {"type": "decline"})
LAST_ONE = _action("last_one", OP_LAST_ONE, {"type": "last_one"})
YAKU = _action("yaku", OP_YAKU, {"type": "yaku"})
DOBON_AU = _action("dobon", OP_DOBON, {"type": "dobon"})
# standard dobons by count (a target of 1 up to 59 cards: more than a round can hold).
DOBON_STD: tuple[TrumpAction, ...] = tuple(
    _action("dobon", OP_DOBON, {"type": "dobon", "count": k}, k) for k in range(60)
)
# The same by the card's bit rather than its id, which is what a listing reads, in two
# halves: ids below HALF by the bit_length of 1 << id, the others by that of
# 1 << (id - HALF) (index 0, no card, is empty). Each half of a hand's mask then fits one
# digit of a Python int, whose operators have a quick path. (Tuples by bit_length rather
# than dicts by the bit itself: a power of two is its own hash, so such keys share their
# first slots in a dict and its lookups probe several of them.)
HALF = 26  # spades and hearts; diamonds, clubs and the joker
LOW_HALF = (1 << HALF) - 1
ByBit = tuple[tuple[tuple[TrumpAction, ...], ...], tuple[tuple[TrumpAction, ...], ...]]


def _by_bit(table: tuple[tuple[TrumpAction, ...], ...]) -> ByBit:
    return ((), *table[:HALF]), ((), *table[HALF:])


AU_BY_BIT, STD_BY_BIT, STD_LO_BY_BIT = _by_bit(AU_PLAYS), _by_bit(STD_PLAYS), _by_bit(STD_PLAYS_LO)

IN_AU, IN_STD, IN_STD_LO = 1, 2, 4
for _bit, _table in ((IN_AU, AU_PLAYS), (IN_STD, STD_PLAYS), (IN_STD_LO, STD_PLAYS_LO)):
    for _plays in _table:
        for _listed in _plays:
            _listed.tables |= _bit

# The auction's descriptor (§T21.46): listed, but apply never takes it as it stands.
BID = _action("bid", OP_BID, {"type": "bid", "min": 1, "max": 999})
