"""Action values: the read-only dicts that ``Game.legal_actions`` returns.

Actions are values, like python-chess moves: the same action is one shared object, built
once, so listing the legal actions of a state allocates almost nothing. To keep sharing
safe they are read-only: a ``dict`` (and a ``list`` for the cards) in every way that
reads, compares, copies or serialises, but refusing changes. ``dict(action)`` or
``copy.deepcopy(action)`` give ordinary mutable dicts.

>>> a = play_action(("R5", "R5"))
>>> a == {"type": "play", "cards": ["R5", "R5"]}, a is play_action(("R5", "R5"))
(True, True)
>>> a["type"] = "draw"
Traceback (most recent call last):
TypeError: actions are read-only; dict(action) makes a mutable copy
"""

from __future__ import annotations

import copy
from typing import Any, NoReturn

from .cards import CODE, COLORS


def _read_only(*_args: Any, **_kwargs: Any) -> NoReturn:
    raise TypeError("actions are read-only; dict(action) makes a mutable copy")


class Cards(list[str]):
    """The read-only card list of a play action."""

    __slots__ = ()
    append = extend = insert = remove = pop = clear = sort = reverse = _read_only
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _read_only

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))

    def __copy__(self) -> list[str]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[str]:
        return list(self)


class FrozenAction(dict[str, Any]):
    """A read-only action dict. ``key`` tells the engine which action it is without
    reading the dict: a card id (one-card play), a tuple of codes (any other play), a
    colour code, or the action type."""

    __slots__ = ("key",)
    key: int | tuple[str, ...] | str

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _read_only
    __ior__ = _read_only

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (copy.deepcopy(dict(self)),))

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return copy.deepcopy(dict(self), memo)


def _action(key: int | tuple[str, ...] | str, **fields: Any) -> FrozenAction:
    action = FrozenAction(fields)
    action.key = key
    return action


def plain(action: dict[str, Any]) -> dict[str, Any]:
    """An ordinary (mutable, exact-type) copy of an action."""
    return copy.deepcopy(dict(action))


# One-card plays, by card id.
SINGLE_PLAYS: tuple[FrozenAction, ...] = tuple(
    _action(i, type="play", cards=Cards([code])) for i, code in enumerate(CODE)
)
# Actions without cards, by type ("draw", "pass", "dobon", "return", "decline").
SIMPLE: dict[str, FrozenAction] = {
    kind: _action(kind, type=kind) for kind in ("draw", "pass", "dobon", "return", "decline")
}
COLOR_CHOICES: tuple[FrozenAction, ...] = tuple(
    _action(c, type="color", color=c) for c in COLORS
)

# §H6.4: the swap choices, by target seat (§R1.1: at most 8 seats).
SWAPS: tuple[FrozenAction, ...] = tuple(
    _action(f"swap:{s}", type="swap", target=s) for s in range(8)
)

_PLAYS: dict[tuple[str, ...], FrozenAction] = {}


def play_action(codes: tuple[str, ...]) -> FrozenAction:
    """The shared action for a play of these codes (memoised: plays are few)."""
    action = _PLAYS.get(codes)
    if action is None:
        action = _PLAYS[codes] = _action(codes, type="play", cards=Cards(codes))
    return action
