"""CoinCollector's valid-action shuffle, read from a table of Random(0)'s draws, against
java.util.Random and Collections.shuffle written out plainly."""

import random

import pytest

from planloop.envs.coin import shuffle
from planloop.envs.coin.shuffle import EpisodeShuffle


class JavaRandom:
    """``java.util.Random``: ``next(31)`` and ``nextInt(bound)``, as the JDK writes them."""

    def __init__(self, seed):
        self.seed = (seed ^ 0x5DEECE66D) & ((1 << 48) - 1)

    def next31(self):
        self.seed = (self.seed * 0x5DEECE66D + 0xB) & ((1 << 48) - 1)
        return self.seed >> 17

    def next_int(self, bound):
        r = self.next31()
        m = bound - 1
        if bound & m == 0:
            return (bound * r) >> 31
        u = r
        while True:
            r = u % bound
            if u - r + m < (1 << 31):
                return r
            u = self.next31()


def java_shuffle(items, rnd):
    for i in range(len(items), 1, -1):
        j = rnd.next_int(i)
        items[i - 1], items[j] = items[j], items[i - 1]
    return items


@pytest.mark.parametrize("long_at", [None, 100])
def test_episode_shuffle_is_collections_shuffle_past_its_table(long_at):
    """A long walk runs past the table; a list too long for it leaves the table early."""
    lengths = random.Random(7).choices(range(shuffle.FAST_LENGTH + 1), k=shuffle.STREAM // 10)
    if long_at is not None:
        lengths[long_at:long_at] = [shuffle.FAST_LENGTH + 1, 200]
    ours, java = EpisodeShuffle(), JavaRandom(0)
    for i, n in enumerate(lengths):
        assert ours.shuffle(list(range(n))) == java_shuffle(list(range(n)), java), i
    assert ours._table_end == 0


def test_each_episode_shuffles_alike():
    first, second = EpisodeShuffle(), EpisodeShuffle()
    assert [first.shuffle(list(range(9))) for _ in range(5)] == [
        second.shuffle(list(range(9))) for _ in range(5)
    ]


@pytest.mark.parametrize("end", [20, 7000])
def test_lists_of_any_length_ending_at_the_same_draw(end):
    """Lists ending at one draw share a row of picks, lengthened for a longer list."""
    for n in (2, 9, 16, 5):
        ours, java = EpisodeShuffle(), JavaRandom(0)
        for _ in range(end - n):  # one draw each
            assert ours.shuffle([0, 1]) == java_shuffle([0, 1], java)
        assert ours.shuffle(list(range(n))) == java_shuffle(list(range(n)), java)
