"""The game's random generator, saved as its seed and the number of words drawn.

A Mersenne Twister's full state is 625 integers (about 7 KB of JSON), saved with every
move of every game. This generator is the same `random.Random`, seeded the same way, but
it also counts the 32-bit words it has drawn: the seed and that count restore it exactly,
by drawing the same number of words again in one C call.

Every draw `random.Random` offers goes through `getrandbits` (integers, `shuffle`,
`choice`, `randrange`) or `random()` (floats), and both are counted here. `gauss` keeps a
cached second value outside the word stream; while one is cached the compact form does
not describe the generator and `state()` falls back to the full one.
"""

from __future__ import annotations

import random
from typing import Any

_WORD = 32


class SeededRandom(random.Random):
    """`random.Random(seed)` that knows how far it has drawn.

    >>> a = SeededRandom(42)
    >>> _ = [a.randrange(4) for _ in range(5)]
    >>> b = SeededRandom.from_state(a.state())
    >>> [a.random() for _ in range(3)] == [b.random() for _ in range(3)]
    True
    """

    _seed: int | None  # None: restored from a full state, no compact form
    _words: int

    def __init__(self, seed: int = 0) -> None:
        self._seed, self._words = None, 0
        super().__init__(seed)
        # An int seed is used as is (its absolute value), so it alone rebuilds the stream.
        self._seed = seed if type(seed) is int else None
        self._words = 0

    def getrandbits(self, k: int, /) -> int:
        # CPython's generator spends ceil(k / 32) words on getrandbits(k), none for k = 0.
        self._words += -(-k // _WORD)
        return super().getrandbits(k)

    def random(self) -> float:
        self._words += 2  # a double is made of two words
        return super().random()

    def state(self) -> dict[str, Any] | list[Any]:
        """JSON-safe: `{"seed", "draws"}` when that describes it, else the full state."""
        if self._seed is not None and getattr(self, "gauss_next", None) is None:
            return {"seed": self._seed, "draws": self._words}
        version, internal, gauss = self.getstate()
        return [version, list(internal), gauss]

    @classmethod
    def from_state(cls, saved: dict[str, Any] | list[Any]) -> SeededRandom:
        """The generator `state()` described (also the full `[version, internal, gauss]`
        form saved by earlier versions)."""
        if isinstance(saved, dict):
            seed, draws = saved["seed"], saved["draws"]
            if type(seed) is not int or type(draws) is not int or draws < 0:
                raise ValueError(f"malformed generator state {saved!r}")
            rng = cls(seed)
            if draws:
                rng.getrandbits(_WORD * draws)  # the same words, in one call
            return rng
        version, internal, gauss = saved
        rng = cls(0)
        rng.setstate((version, tuple(internal), gauss))
        rng._seed = None
        return rng

    def clone(self) -> SeededRandom:
        """An independent generator at the same point of the same stream."""
        twin = SeededRandom.__new__(SeededRandom)
        twin.setstate(self.getstate())
        twin._seed, twin._words = self._seed, self._words
        return twin
