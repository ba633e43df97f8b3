"""The shuffle TextWorld Express applies to valid actions: ``Collections.shuffle`` with a
``java.util.Random(0)`` made for each episode.

Every episode draws the same numbers, so the first ``STREAM`` are drawn once, here, and
each episode reads them until it needs more (then it draws its own). The table stops
before any draw that ``nextInt(n)`` could reject for ``n <= FAST_LENGTH``, so reading it
needs no rejection test. A shuffle of ``n`` items from draw ``p`` on picks
``nextInt(s)`` from draw ``p + n - s`` for ``s = n, ..., 2``: with ``end = p + n``, the
picks of every shuffle that ends there are one row, by ``s``, built once (``_row``) and
lengthened when a longer list ends there.
"""

from __future__ import annotations

_MULTIPLIER = 0x5DEECE66D
_MASK = (1 << 48) - 1
_SEED = (0 ^ _MULTIPLIER) & _MASK  # Random(0)'s scrambled seed
_TOP = 1 << 31  # next(31) draws are below this
FAST_LENGTH = 64  # longest list shuffled from the table
STREAM = 1 << 13  # draws in the table: 200 moves of 40 valid actions


def _next(state: int) -> int:
    return (state * _MULTIPLIER + 0xB) & _MASK


def _safe_draws(count: int) -> tuple[int, ...]:
    """Random(0)'s first ``count`` ``next(31)`` draws, cut before the first that
    ``nextInt(n)`` rejects for some ``n <= FAST_LENGTH``."""
    draws, state = [], _SEED
    for _ in range(count):
        state = _next(state)
        if (state >> 17) > _TOP - FAST_LENGTH:
            break
        draws.append(state >> 17)
    return tuple(draws)


_DRAWS = _safe_draws(STREAM)
_ROWS = [b""] * (len(_DRAWS) + 2)  # by end, built as far as read
_DOWN = [range(n - 1, 0, -1) for n in range(FAST_LENGTH + 1)]  # the places a shuffle fills


def _row(end: int, size: int) -> bytes:
    """``nextInt(s)`` from draw ``end - s``, for each ``s`` up to ``size`` (0 for s < 2)."""
    row = bytes(_pick(_DRAWS[end - s], s) if s >= 2 else 0 for s in range(size + 1))
    _ROWS[end] = row
    return row


def _pick(bits: int, size: int) -> int:
    """``nextInt(size)`` from an accepted ``next(31)`` draw."""
    return (size * bits) >> 31 if not size & (size - 1) else bits % size


class EpisodeShuffle:
    """``Collections.shuffle(list, random)`` with one episode's ``random = new Random(0)``."""

    def __init__(self) -> None:
        self.drawn = 0  # draws read from the table
        self._table_end = len(_DRAWS) + 1  # read the table while drawn + len(items) <= this
        self._state = _SEED  # the generator's own state, once past the table

    def shuffle(self, items: list) -> list:
        """Shuffle ``items`` in place as Java does; return them."""
        n = len(items)
        if n < 2:
            return items  # no draws
        end = self.drawn + n
        if n > FAST_LENGTH or end > self._table_end:
            return self._shuffle_live(items)
        row = _ROWS[end]
        if len(row) <= n:
            row = _row(end, n)
        for i, k in zip(_DOWN[n], row[n:1:-1], strict=True):
            items[i], items[k] = items[k], items[i]
        self.drawn = end - 1
        return items

    def _shuffle_live(self, items: list) -> list:
        """The shuffle past the table (or of a long list), drawing from the generator."""
        state = self._state
        if self._table_end:  # leaving the table for good: replay the draws read from it
            for _ in range(self.drawn):
                state = _next(state)
            self._table_end = 0
        for i in range(len(items) - 1, 0, -1):
            size = i + 1
            while True:  # nextInt(size), rejections included
                state = _next(state)
                bits = state >> 17
                k = _pick(bits, size)
                if not size & i or bits - k + i < _TOP:
                    break
            items[i], items[k] = items[k], items[i]
        self._state = state
        return items
