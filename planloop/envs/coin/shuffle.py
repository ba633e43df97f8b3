"""The shuffle TextWorld Express applies to valid actions: ``java.util.Random(0)`` and
``Collections.shuffle``."""

from __future__ import annotations

_MULTIPLIER = 0x5DEECE66D
_MASK = (1 << 48) - 1


class JavaRandom:
    """``java.util.Random`` with ``next(31)`` and ``nextInt(n)``."""

    def __init__(self, seed: int = 0):
        self.state = (seed ^ _MULTIPLIER) & _MASK

    def _next31(self) -> int:
        self.state = (self.state * _MULTIPLIER + 0xB) & _MASK
        return self.state >> 17

    def next_int(self, n: int) -> int:
        if n & -n == n:
            return (n * self._next31()) >> 31
        while True:
            bits = self._next31()
            value = bits % n
            if bits - value + (n - 1) < (1 << 31):
                return value

    def shuffle(self, items: list) -> list:
        """Shuffle ``items`` in place as ``Collections.shuffle(list, this)`` does; return it."""
        for size in range(len(items), 1, -1):
            k = self.next_int(size)
            items[size - 1], items[k] = items[k], items[size - 1]
        return items
