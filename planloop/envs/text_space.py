"""The text space of planloop's observations, readable from an ``AsyncVectorEnv``'s
shared memory.

Gymnasium (1.x) reads a batch of ``Text`` out of shared memory once, when the vector
env is built, into a tuple of strings, so every later observation is lost (the
workers' writes never reach it: all '0's). ``ObservationText`` reads the batch as a
live view instead, decoded when the vector env copies it (``copy=True``, the default).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import read_from_shared_memory


class ObservationText(spaces.Text):
    """``gymnasium.spaces.Text`` whose shared-memory batch is a live view."""


class SharedTexts(Sequence):
    """``n`` texts in an ``AsyncVectorEnv``'s shared buffer, decoded on access;
    ``copy.deepcopy`` gives a tuple of the current strings."""

    def __init__(self, space: spaces.Text, shared_memory, n: int):
        self._codes = np.frombuffer(shared_memory.get_obj(), dtype=np.int32).reshape(
            n, space.max_length
        )
        self._pad = len(space.character_list)  # gymnasium pads with this index
        self._points = np.array([ord(c) for c in space.character_list], dtype="<u4")

    def __len__(self) -> int:
        return len(self._codes)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        codes = self._codes[index]
        end = np.flatnonzero(codes == self._pad)
        codes = codes[: end[0] if len(end) else len(codes)]
        return self._points[codes].tobytes().decode("utf-32-le")

    def __deepcopy__(self, memo) -> tuple[str, ...]:
        return tuple(self)

    def __repr__(self) -> str:
        return f"SharedTexts({tuple(self)!r})"


@read_from_shared_memory.register(ObservationText)
def _read_texts(space: ObservationText, shared_memory, n: int = 1) -> SharedTexts:
    return SharedTexts(space, shared_memory, n)
