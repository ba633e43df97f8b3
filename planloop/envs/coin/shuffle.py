"""The shuffle TextWorld Express applies to valid actions: ``java.util.Random(0)`` and
``Collections.shuffle``."""

from __future__ import annotations

_MULTIPLIER = 0x5DEECE66D
_MASK = (1 << 48) - 1


class JavaRandom:
    """``java.util.Random``, as far as ``Collections.shuffle`` uses it."""

    def __init__(self, seed: int = 0):
        self.state = (seed ^ _MULTIPLIER) & _MASK

    def shuffle(self, items: list) -> list:
        """Shuffle ``items`` in place as ``Collections.shuffle(list, this)`` does; return it.

        ``nextInt(n)`` is inlined: this runs at every step of the game.
        """
        state = self.state
        for size in range(len(items), 1, -1):
            while True:
                state = (state * _MULTIPLIER + 0xB) & _MASK
                bits = state >> 17
                if size & -size == size:
                    k = (size * bits) >> 31
                    break
                k = bits % size
                if bits - k + (size - 1) < (1 << 31):
                    break
            items[size - 1], items[k] = items[k], items[size - 1]
        self.state = state
        return items
