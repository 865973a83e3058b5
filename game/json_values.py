"""What a client's JSON may hold: values every store of ours keeps as they are.

Python's `json` reads `NaN`, `Infinity` and `-Infinity` (not JSON at all), turns `1e400`
into an infinite float, and reads integers of any size. PostgreSQL's `jsonb` refuses the
first ones, orjson writes them as `null`, and a 64-bit column refuses the last: a value
the site would accept and then fail to store, or store as something else. So the socket
reads a message with `parse` (None: unreadable, answered `bad_json`), and the services
check a value that did not come through it with `storable` (issue #31).

Django-free, like the engines.

>>> parse('{"a": [1, 2.5, "x"]}')
{'a': [1, 2.5, 'x']}
>>> parse('{"a": NaN}') is None, parse('[1e400]') is None, parse(str(2**63)) is None
(True, True, True)
>>> storable({"a": [float("inf")]}), storable({"a": -(2**63)})
(False, True)
"""

from __future__ import annotations

import json
import math
from typing import Any

INT_MIN, INT_MAX = -(2**63), 2**63 - 1


class Unstorable(ValueError):
    """A number no store of ours keeps as it is."""


def _integer(text: str) -> int:
    value = int(text)
    if not INT_MIN <= value <= INT_MAX:
        raise Unstorable(f"an integer beyond 64 bits: {text[:30]}")
    return value


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise Unstorable(f"a number too large for a float: {text[:30]}")
    return value


def _constant(text: str) -> Any:
    raise Unstorable(f"{text} is not JSON")


def parse(text: str | None) -> Any:
    """The message as JSON, or None when unreadable: invalid, bytes, `NaN`/`Infinity`,
    a number beyond 64 bits or a float's range, or nested so deep that the parser gives
    up (RecursionError, which is not a ValueError)."""
    if text is None:
        return None
    try:  # json, not orjson: messages are small, and json refuses deep nesting
        return json.loads(
            text, parse_int=_integer, parse_float=_finite, parse_constant=_constant
        )
    except (ValueError, RecursionError):  # Unstorable is a ValueError
        return None


def storable(value: Any, depth: int = 0) -> bool:
    """Whether `value` holds only finite floats and 64-bit integers (strings, lists and
    dicts are looked into; anything 32 levels deep is refused)."""
    if depth > 32:
        return False
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return True
    if isinstance(value, int):
        return INT_MIN <= value <= INT_MAX
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list | tuple):
        return all(storable(item, depth + 1) for item in value)
    if isinstance(value, dict):
        return all(storable(item, depth + 1) for item in value.values())
    return True
