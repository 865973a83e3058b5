"""Cards of Dobon UNO (RULES.md §R2) and their compact integer encoding.

The public API speaks card codes (``"R5"``, ``"GS"``, ``"B+2"``, ``"W"``, ``"W+4"``,
``"RF"``). Inside the engine a card is a small int (its *id*, 0..57): every copy of the
same card shares one id, so hands are lists of ints and every per-card fact is a
tuple lookup.

>>> Card.parse("B+2").points
20
>>> Card.parse("RF").identical(Card.parse("GF"))
True
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum, StrEnum


class Color(StrEnum):
    """The four colours, in the order R, B, G, Y of RULES.md §R2."""

    RED = "R"
    BLUE = "B"
    GREEN = "G"
    YELLOW = "Y"


class Kind(StrEnum):
    """What a card does (§R2, §R4.4)."""

    NUMBER = "number"
    SKIP = "skip"
    REVERSE = "reverse"
    DRAW_TWO = "draw_two"
    WILD = "wild"
    WILD_DRAW_FOUR = "wild_draw_four"
    FORCE = "force"


class Rank(IntEnum):
    """The face of a card; numbers 0-9 are their own rank."""

    SKIP = 10
    REVERSE = 11
    DRAW_TWO = 12
    WILD = 13
    WILD_DRAW_FOUR = 14
    FORCE = 15


COLORS: tuple[str, ...] = tuple(c.value for c in Color)
COLOR_INDEX: dict[str, int] = {c: i for i, c in enumerate(COLORS)}

_SYMBOLS = {Rank.SKIP: "S", Rank.REVERSE: "R", Rank.DRAW_TWO: "+2"}
_KIND_OF_RANK = {
    Rank.SKIP: Kind.SKIP,
    Rank.REVERSE: Kind.REVERSE,
    Rank.DRAW_TWO: Kind.DRAW_TWO,
    Rank.WILD: Kind.WILD,
    Rank.WILD_DRAW_FOUR: Kind.WILD_DRAW_FOUR,
    Rank.FORCE: Kind.FORCE,
}
_POINTS_OF_KIND = {
    Kind.SKIP: 20,
    Kind.REVERSE: 20,
    Kind.DRAW_TWO: 20,
    Kind.WILD: 30,
    Kind.WILD_DRAW_FOUR: 50,
    Kind.FORCE: 10,
}

# Ids: colour * 13 + rank for the 52 coloured cards, then W, W+4, RF, BF, GF, YF.
WILD_ID = 52
WILD4_ID = 53
FORCE_IDS = (54, 55, 56, 57)
# Identity classes (§R2.2): a coloured card is its own class; all F cards share one.
FORCE_CLASS = 54
N_CLASSES = 55


@dataclass(frozen=True, slots=True)
class Card:
    """One card face. Copies of a card are equal (same id).

    >>> card = Card.parse("Y7")
    >>> card.id, card.kind, card.color, card.points
    (46, <Kind.NUMBER: 'number'>, <Color.YELLOW: 'Y'>, 7)
    """

    code: str
    id: int
    kind: Kind
    color: Color | None
    rank: int
    points: int

    @property
    def is_action(self) -> bool:
        """Action cards for going out (§R2.1, §R8.1): everything but numbers."""
        return self.kind is not Kind.NUMBER

    @property
    def number(self) -> int | None:
        """The face value of a number card, else ``None``."""
        return self.rank if self.kind is Kind.NUMBER else None

    def identical(self, other: Card) -> bool:
        """§R2.2: two W, two W+4, two F of any colours, otherwise the same card."""
        return CLASS_OF[self.id] == CLASS_OF[other.id]

    @staticmethod
    def parse(code: str) -> Card:
        """The card with this code; unknown codes raise ``ValueError``."""
        try:
            return CARDS[ID_OF[code]]
        except (KeyError, TypeError):
            raise ValueError(f"unknown card code {code!r}") from None


def _coloured_card(color: int, rank: int) -> Card:
    kind = Kind.NUMBER if rank <= 9 else _KIND_OF_RANK[Rank(rank)]
    face = str(rank) if rank <= 9 else _SYMBOLS[Rank(rank)]
    points = rank if rank <= 9 else _POINTS_OF_KIND[kind]
    colour = Color(COLORS[color])
    return Card(COLORS[color] + face, color * 13 + rank, kind, colour, rank, points)


def _all_cards() -> tuple[Card, ...]:
    cards = [_coloured_card(c, r) for c in range(4) for r in range(13)]
    cards.append(Card("W", WILD_ID, Kind.WILD, None, Rank.WILD, 30))
    cards.append(Card("W+4", WILD4_ID, Kind.WILD_DRAW_FOUR, None, Rank.WILD_DRAW_FOUR, 50))
    for c, colour in enumerate(Color):
        cards.append(Card(colour.value + "F", FORCE_IDS[c], Kind.FORCE, colour, Rank.FORCE, 10))
    return tuple(cards)


CARDS: tuple[Card, ...] = _all_cards()
ID_OF: dict[str, int] = {card.code: card.id for card in CARDS}
# Flat per-id tables: the hot paths index these instead of touching Card objects.
CODE: tuple[str, ...] = tuple(card.code for card in CARDS)
POINTS: tuple[int, ...] = tuple(card.points for card in CARDS)
RANK: tuple[int, ...] = tuple(card.rank for card in CARDS)
COLOR_OF: tuple[int, ...] = tuple(
    -1 if card.color is None else COLOR_INDEX[card.color] for card in CARDS
)
CLASS_OF: tuple[int, ...] = tuple(
    FORCE_CLASS if card.kind is Kind.FORCE else card.id for card in CARDS
)
IS_NUMBER: tuple[bool, ...] = tuple(card.kind is Kind.NUMBER for card in CARDS)


def full_deck() -> list[int]:
    """The 112 card ids of one deck (§R2), in a fixed order before shuffling."""
    deck: list[int] = []
    for card in CARDS:
        if card.kind is Kind.NUMBER:
            deck += [card.id] * (1 if card.rank == 0 else 2)
        elif card.kind is Kind.FORCE:
            deck.append(card.id)
        elif card.color is None:
            deck += [card.id] * 4
        else:
            deck += [card.id] * 2
    return deck


def parse_cards(codes: list[str]) -> list[int]:
    """Ids of a list of codes; ``ValueError`` on an unknown code or a non-list."""
    if not isinstance(codes, (list, tuple)):
        raise ValueError(f"expected a list of card codes, got {codes!r}")
    return [Card.parse(code).id for code in codes]


def codes_of(ids: list[int]) -> list[str]:
    """Codes of a list of ids."""
    return [CODE[i] for i in ids]


# ---------------------------------------------------------------- matching tables
# Precomputed so that "may this card be played now?" is one tuple index on the hot path.

N_IDS = len(CARDS)
# The ids that are identical to a given id (§R2.2): itself, or every F.
CLASS_IDS: tuple[tuple[int, ...], ...] = tuple(
    FORCE_IDS if CLASS_OF[i] == FORCE_CLASS else (i,) for i in range(N_IDS)
)


def _matches(card: int, color: int, top_rank: int) -> bool:
    # §R4.1: W, W+4 and F always match; a coloured card by colour or number/symbol.
    if RANK[card] >= Rank.WILD:
        return True
    return COLOR_OF[card] == color or RANK[card] == top_rank


def _stacks_on(card: int, top_rank: int) -> bool:
    # §R5.1: +2 on +2; W+4 on +2 or W+4.
    if card == WILD4_ID:
        return top_rank in (Rank.DRAW_TWO, Rank.WILD_DRAW_FOUR)
    return top_rank == Rank.DRAW_TWO and RANK[card] == Rank.DRAW_TWO


def mask_of(ids: Iterable[int]) -> int:
    """A set of card ids as a bit mask (bit i = id i)."""
    return sum(1 << i for i in set(ids))


# MATCH[color + 1][top rank]: mask of the ids playable with no draw stack open
# (colour -1 = none). Hands keep the same kind of mask, so "what may I play" is one AND.
MATCH: tuple[tuple[int, ...], ...] = tuple(
    tuple(mask_of(i for i in range(N_IDS) if _matches(i, color, rank)) for rank in range(16))
    for color in range(-1, 4)
)
# STACK_ON[top rank]: mask of the ids playable onto an open draw stack.
STACK_ON: tuple[int, ...] = tuple(
    mask_of(i for i in range(N_IDS) if _stacks_on(i, rank)) for rank in range(16)
)

_GROUPS: list[list[tuple[tuple[str, ...], list[int]]]] = [[] for _ in range(N_IDS)]


def groups(card: int, count: int) -> list[tuple[tuple[str, ...], list[int]]]:
    """``(codes, ids)`` for plays of 1..count copies of one card (memoised; never mutate)."""
    known = _GROUPS[card]
    if len(known) < count:
        # Build a new list and swap it in whole, so that concurrent readers never see a
        # half-grown one.
        known = [((CODE[card],) * k, [card] * k) for k in range(1, count + 1)]
        _GROUPS[card] = known
    return known[:count] if len(known) > count else known
