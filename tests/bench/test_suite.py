"""Suites: the shipped manifests, their sha256, and every way a manifest can be wrong
said in one line naming the file and the field."""

import json

import pytest

from planloop.bench.suite import (
    BASE_FAMILIES,
    MAX_MANIFEST_BYTES,
    OBFUSCATED,
    SuiteError,
    load_suite,
    read_suite,
)
from planloop.stats import wilson_interval

GOOD = {
    "name": "mine",
    "version": "1",
    "families": [
        {
            "family": "blocksworld",
            "policy": "closed-loop",
            "max_steps": 40,
            "max_calls": 8,
            "expect": {"calls": 3, "prompt_tokens": 1000, "completion_tokens": 100},
            "sets": [{"env": "Blocksworld-v0", "instances": [0, 1], "seeds": [0, 1]}],
        }
    ],
}


def manifest(**changes) -> bytes:
    family = {**GOOD["families"][0], **changes}
    return json.dumps({**GOOD, "families": [family]}).encode()


def test_the_shipped_suites_hold_every_family_and_obfuscated_ones():
    smoke, standard = load_suite("smoke"), load_suite("standard")
    for suite in (smoke, standard):
        names = {f.name for f in suite.families}
        assert set(BASE_FAMILIES) <= names
        assert {f"{f}-obfuscated" for f in OBFUSCATED} <= names and len(OBFUSCATED) >= 4
        assert len(suite.sha256) == 64
    assert smoke.sha256 != standard.sha256


def test_the_standard_suite_is_sized_for_ten_points():
    """About 100 episodes a family: a 95% Wilson interval of at most +/-10 points at any
    rate."""
    for family in load_suite("standard").families:
        n = len(family.units)
        low, high = wilson_interval(n // 2, n)
        assert (high - low) / 2 <= 0.10, (family.name, n)


def test_units_are_instances_by_seeds_with_ids():
    suite = read_suite(manifest(), "mine.json")
    units = suite.families[0].units
    assert [(u.id, u.seed) for u in units] == [
        ("Blocksworld-v0/0", 0), ("Blocksworld-v0/0", 1),
        ("Blocksworld-v0/1", 0), ("Blocksworld-v0/1", 1),
    ]  # fmt: skip
    assert suite.only(["blocksworld"]).sha256 == suite.sha256


@pytest.mark.parametrize(
    "data, said",
    [
        (b"{", "mine.json: not JSON"),
        (b"[" * 500 + b"]" * 500, "nested more than"),
        (json.dumps({"name": "x"}).encode(), "no version"),
        (manifest(family="chess"), "unknown family 'chess'"),
        (
            manifest(
                family="mystery-obfuscated",
                sets=[{"env": "Mystery-BW-v0", "instances": [0], "seeds": [0]}],
            ),
            "unknown family",
        ),
        (manifest(policy="telepathy"), "policy 'telepathy' is not one of closed-loop, plangen"),
        (manifest(max_steps=0), "max_steps must be from 1"),
        (manifest(max_calls="ten"), "max_calls is"),
        (
            manifest(sets=[{"env": "CoinCollector-v0", "instances": [0], "seeds": [0]}]),
            "not an environment of the pddl family",
        ),
        (
            manifest(sets=[{"env": "Blocksworld-v0", "instances": [], "seeds": [0]}]),
            "lists its instances and seeds",
        ),
        (
            manifest(sets=[{"env": "Blocksworld-v0", "instances": [-1], "seeds": [0]}]),
            "non-negative",
        ),
        (
            manifest(sets=[{"env": "Blocksworld-v0", "instances": [0, 0], "seeds": [0]}]),
            "listed twice",
        ),
        (
            manifest(
                sets=[{"env": "Blocksworld-v0", "instances": list(range(30_000)), "seeds": [0]}]
            ),
            "more than a suite's",
        ),
        (
            manifest(expect={"calls": -1, "prompt_tokens": 0, "completion_tokens": 0}),
            "non-negative",
        ),
    ],
)
def test_a_bad_manifest_is_one_line(data, said):
    with pytest.raises(SuiteError) as caught:
        read_suite(data, "mine.json")
    message = str(caught.value)
    assert said in message and "\n" not in message and len(message) < 300


def test_an_nl_pddl_set_names_a_sized_domain():
    nl = {"family": "nl-pddl", "policy": "formalize"}
    with pytest.raises(SuiteError, match="domain must be one of"):
        read_suite(
            manifest(**nl, sets=[{"domain": "coin", "size": 3, "instances": [0], "seeds": [0]}]),
            "m",
        )
    with pytest.raises(SuiteError, match="size must be from 2"):
        read_suite(
            manifest(
                **nl, sets=[{"domain": "blocksworld", "size": 1, "instances": [0], "seeds": [0]}]
            ),
            "m",
        )


def test_unknown_suites_and_families_and_big_files(tmp_path):
    with pytest.raises(SuiteError, match="no suite 'huge': give smoke or standard"):
        load_suite("huge")
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (MAX_MANIFEST_BYTES + 1))
    with pytest.raises(SuiteError, match="larger than"):
        load_suite(str(big))
    with pytest.raises(SuiteError, match="has no family 'chess'"):
        load_suite("smoke").only(["blocksworld", "chess"])
