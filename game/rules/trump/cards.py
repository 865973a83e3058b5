"""Trump cards as small integers (TRUMP-RULES.md §T2).

Card id ``suit * 13 + number - 1`` for the 52 suited cards (suits S, H, D, C in that
order), and ``JOKER`` (52) for both jokers, which are identical. Every table below is
indexed by card id, so the engine never parses a code while it plays.

>>> [CODE[i] for i in parse_cards(["S1", "H12", "JK"])]
['S1', 'H12', 'JK']
>>> NUMBER[parse_cards(["C13"])[0]], AU_VALUE[parse_cards(["C13"])[0]]
(13, 10)
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS = ("S", "H", "D", "C")
SUIT_INDEX = {s: i for i, s in enumerate(SUITS)}
ALL_SUITS = 0b1111
JOKER = 52
N_IDS = 53

CODE: tuple[str, ...] = tuple(f"{s}{n}" for s in SUITS for n in range(1, 14)) + ("JK",)
ID_OF: dict[str, int] = {code: i for i, code in enumerate(CODE)}
SUIT: tuple[int, ...] = tuple(i // 13 for i in range(52)) + (-1,)
NUMBER: tuple[int, ...] = tuple(i % 13 + 1 for i in range(52)) + (0,)
# au: A, J, Q, K count 10 in a score (§T15.1); standard: 10 and above count 10 (§T16.1).
AU_VALUE: tuple[int, ...] = tuple(10 if n in (1, 11, 12, 13) else n for n in NUMBER[:52]) + (0,)
BASE: tuple[int, ...] = tuple(min(n, 10) for n in NUMBER)


def pair_suit(suit: int) -> int:
    """§T2.5: spades pair with clubs, hearts with diamonds (S0-C3, H1-D2)."""
    return 3 - suit


# standard: the effective suits a card has in a hand (§T7.2), as a 4-bit mask.
HAND_SUITS: tuple[int, ...] = tuple(
    ALL_SUITS if n in (0, 8) else (1 << s) | (1 << pair_suit(s)) if n == 11 else 1 << s
    for s, n in zip(SUIT, NUMBER, strict=True)
)
# The suits a play may name: an 8 any (both presets), a J its own or its pair (standard).
AU_NAMES: tuple[tuple[int, ...], ...] = tuple(
    (0, 1, 2, 3) if n == 8 else () for n in NUMBER
)
STD_NAMES: tuple[tuple[int, ...], ...] = tuple(
    (0, 1, 2, 3) if n == 8 else tuple(sorted((s, pair_suit(s)))) if n == 11 else ()
    for s, n in zip(SUIT, NUMBER, strict=True)
)


# A hand's signature is the sum of its cards' SIG: 3 bits per number (how many cards of
# it, at most 4) and, from bit 48, 4 bits per printed suit. The 役 of five cards is a
# function of it (result.yaku_of_signature), kept up to date as the hand changes.
SUIT_SHIFT = 48
SIG: tuple[int, ...] = tuple(
    (1 << (3 * n)) | (0 if s < 0 else 1 << (SUIT_SHIFT + 4 * s))
    for s, n in zip(SUIT, NUMBER, strict=True)
)


# Hands are also kept as masks (bit i: the card of id i is held; both jokers are bit 52).
# The cards that match a field card outside an obligation or しばり (§T5.3), by the field's
# suit (au: 0-3) or effective suits (standard: a 4-bit mask) and its number:
AU_MATCH: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(1 << c for c in range(52) if SUIT[c] == fs or NUMBER[c] == n) for n in range(14))
    for fs in range(4)
)
STD_MATCH: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(1 << c for c in range(N_IDS) if HAND_SUITS[c] & fs or NUMBER[c] == n)
          for n in range(14))
    for fs in range(16)
)
TWOS = sum(1 << c for c in range(52) if NUMBER[c] == 2)
ATTACKS = TWOS | 1 << JOKER  # standard attack cards (§T7.3)
FIVES = sum(1 << c for c in range(52) if NUMBER[c] == 5)  # standard reflect cards


def card_id(code: str) -> int:
    """The id of one code; anything else raises ``ValueError`` (§T2.1)."""
    try:
        return ID_OF[code]
    except (KeyError, TypeError):
        raise ValueError(f"unknown card code {code!r}") from None


def parse_cards(codes: Iterable[str]) -> list[int]:
    """Ids of codes, in order; an unknown code raises ``ValueError``."""
    return [card_id(c) for c in codes]


def full_pack(standard: bool) -> list[int]:
    """The ids of the pack of §T2: 52 cards, and two jokers in standard."""
    return list(range(52)) + ([JOKER, JOKER] if standard else [])
