"""Tests between conditions and robust summaries, against values worked by hand."""

import math

import pytest

from planloop.stats import npmi, npmi_table, percentile, trimmed_mean, two_proportion_z_test


def test_two_proportion_z_test_by_hand():
    # 30/50 vs 20/50: pooled 0.5, spread sqrt(0.25 * (1/50 + 1/50)) = 0.1, z = 0.2 / 0.1
    test = two_proportion_z_test(30, 50, 20, 50)
    assert test.z == pytest.approx(2.0)
    assert test.p == pytest.approx(0.0455003, abs=1e-6)  # the two-sided p of z = 2
    assert test.h == pytest.approx(2 * math.asin(math.sqrt(0.6)) - 2 * math.asin(math.sqrt(0.4)))
    assert test.h == pytest.approx(0.4027158, abs=1e-6)
    flipped = two_proportion_z_test(20, 50, 30, 50)
    assert (flipped.z, flipped.p, flipped.h) == pytest.approx((-2.0, test.p, -test.h))
    # 0/10 vs 10/10: pooled 0.5, spread sqrt(0.25 * 0.2), z = -1 / 0.2236 = -4.472; h = -pi
    extreme = two_proportion_z_test(0, 10, 10, 10)
    assert extreme.z == pytest.approx(-math.sqrt(20)) and extreme.h == pytest.approx(-math.pi)


def test_z_test_of_equal_certain_rates_and_bad_counts():
    for test in (two_proportion_z_test(5, 5, 7, 7), two_proportion_z_test(0, 5, 0, 7)):
        assert (test.z, test.p, test.h) == (0.0, 1.0, 0.0)
    for bad in ((1, 0, 1, 2), (3, 2, 1, 2), (-1, 2, 1, 2)):
        with pytest.raises(ValueError):
            two_proportion_z_test(*bad)


def test_percentiles_interpolate_between_ranks():
    values = [10, 1, 4, 3, 2]  # sorted 1 2 3 4 10
    assert percentile(values, 50) == 3
    assert percentile(values, 90) == pytest.approx(7.6)  # rank 3.6: 4 + 0.6 * (10 - 4)
    assert percentile(values, 0) == 1 and percentile(values, 100) == 10
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([7.0], 90) == 7.0
    with pytest.raises(ValueError):
        percentile([], 50)


def test_trimmed_mean_cuts_whole_values_from_each_end():
    assert trimmed_mean([1, 2, 3, 4, 100], 0.2) == 3  # one cut from each end: (2 + 3 + 4) / 3
    assert trimmed_mean([1, 2, 3, 4, 100], 0.1) == 22  # floor(0.5) = 0 cut
    assert trimmed_mean([5, 1, 9, 3, 7, 100, 2, 8, 6, 4], 0.1) == 5.5  # drops 1 and 100
    with pytest.raises(ValueError):
        trimmed_mean([1, 2], 0.5)


def test_npmi_by_hand_and_its_conventions():
    assert npmi(1, 2, 2, 8) == pytest.approx(1 / 3)  # log(1/8 / (1/4 * 1/4)) / log 8
    assert npmi(1, 4, 2, 8) == pytest.approx(0.0)  # independent: 1/8 = 1/2 * 1/4
    assert npmi(2, 2, 2, 4) == pytest.approx(1.0)  # always together
    assert npmi(0, 2, 2, 4) == -1.0 and npmi(4, 4, 4, 4) == 1.0
    with pytest.raises(ValueError):
        npmi(3, 2, 4, 4)


def test_npmi_table_over_failing_steps():
    steps = [
        ("attack", ["planet", "harmony"]),
        ("attack", ["planet"]),
        ("feast", ["harmony"]),
        ("feast", ["craves"]),
    ]
    table = npmi_table(steps)
    assert table == pytest.approx(
        {
            ("attack", "craves"): -1.0,
            ("attack", "harmony"): 0.0,
            ("attack", "planet"): 1.0,
            ("feast", "craves"): 0.5,  # log(1/4 / (1/2 * 1/4)) / log 4
            ("feast", "harmony"): 0.0,
            ("feast", "planet"): -1.0,
        }
    )
