"""The resume keys of the Mystery, agentic, NL-to-PDDL and horizon studies, pinned as
they were computed before the studies moved into ``planloop.protocols``: a results file
written before resumes with the same keys.

The agentic study's key holds the absolute path of its IPC instances (the shipped ones by
default): its keys were pinned in a checkout at PINNED_ROOT, so this one's root is read as
that one's (a results file resumes where its study ran; moving the checkout is another
study to the key).
"""

import dataclasses
from pathlib import Path

import pytest

from planloop.study.jobs import Study
from tests.conftest import load_experiment

ROOT = str(Path(__file__).resolve().parents[2])
PINNED_ROOT = "/work/wt-papers"


def _pinned(value):
    """``value`` with this checkout's root read as PINNED_ROOT."""
    if isinstance(value, (str, Path)) and str(value).startswith(ROOT):
        return type(value)(PINNED_ROOT + str(value)[len(ROOT) :])
    return value


class Keyed(Exception):
    """Raised by the patched ``Study.jobs`` once the first jobs are keyed."""


class Named:
    name = "m"

    def complete(self, messages, tools=None, **params):  # never called: no episode runs
        raise AssertionError("no episode runs")


def first_keys(monkeypatch, script: str, argv: list[str]) -> list[str]:
    """The key of each condition's first job, from the study's first ``jobs`` call."""
    jobs, keys = Study.jobs, []

    def keyed(self, conditions, instances, trials):
        kwargs = {key: _pinned(value) for key, value in self.env_kwargs.items()}
        made = jobs(dataclasses.replace(self, env_kwargs=kwargs), conditions, [0], 1)
        keys.extend(job.key for job in made)
        raise Keyed

    monkeypatch.setattr(Study, "jobs", keyed)
    with pytest.raises(Keyed):
        load_experiment(script).main(argv, model=Named(), show=False)
    return keys


CASES = {  # (script, flags): each condition's config hash, computed before the move
    ("mystery", "--instances 0:1"): [
        "c2abd0da063a150c",
        "dc17353bf0b9c66d",
        "3a550b9598c0d13d",
        "2a5b7300f872b9d7",
        "236897ec6848c984",
        "61a8c0d74d308429",
        "a3d87b809d5846ac",
        "4a48f4d59358a54d",
        "cbaabc2fa446a7b1",
    ],
    ("mystery", "--instances 0:1 --paper"): [
        "35cadda1fb12ab90",
        "cb6956dd20453c41",
        "0292345ee39ceb1f",
        "76d6c9976286b32b",
        "f28957792fdd256d",
        "7a6c4e337b1ce17f",
        "8b52f724cd9445af",
        "57c34b198dfc127a",
        "6180a77fa314a398",
    ],
    ("mystery", "--instances 0:1 --paper --attempts 4 --temperature 0.5"): [
        "ffa1b809e08cafcb",
        "20be188acdd494d3",
        "d2814d53e9c74b3c",
        "94c0677423d1d8e2",
        "3dc7048e53040fa6",
        "4631cd49129821f0",
        "b6e9554afb4f818b",
        "b4a979f3ab811000",
        "71b827ad483c57dc",
    ],
    (
        "mystery",
        "--instances 0:1 --conditions pipeline,direct-zero-shot --attempts 3 --direct-attempts 1 --progress-feedback ff",
    ): ["498fe9294f426bd8", "d7884c6fd0e9af67"],
    (
        "mystery",
        "--instances 0:1 --conditions planner,agentic --planner-timeout 30 --agentic-feedback cause --max-actions 20 --max-seconds 60",
    ): ["1be7c8495bee3413", "2ca7b094b1f987c6"],
    ("agentic", "--instances 0:1"): [
        "12d3e990f16bd1dc",
        "857b240cd9a3225d",
        "8a6f80a3cacdfbca",
        "fda610ce7bd55b1e",
    ],
    ("agentic", "--instances 0:1 --paper"): [
        "7109fd4c66fcf633",
        "fd9d7988a6569027",
        "595211d5be384452",
        "8961e8d69f3a6196",
    ],
    ("agentic", "--instances 0:1 --paper --seconds 90 --top-p 0.9"): [
        "750bf8773fa87040",
        "6475cd5576acc8bd",
        "d853cc2a83ea913d",
        "b6f66b0d54154fce",
    ],
    (
        "agentic",
        "--instances 0:1 --conditions direct,agentic --max-attempts none --feedback outcome --seconds 60 --max-tool-calls 7",
    ): ["eedba5302a3a4faa", "507f9854428d0e95"],
    # formalize's keys since 2026-12-02: the loop keeps the best verified candidate
    # (--keep, in every key), so episodes kept by the rule before must not resume as these
    ("formalize", "--domains blocksworld --sizes 10 --per-cell 1"): ["941f99e873c96c79"],
    ("formalize", "--paper --domains blocksworld --sizes 10 --per-cell 1"): ["59d08697c33eb7f3"],
    ("formalize", "--paper --max-iterations 3 --domains blocksworld --sizes 10 --per-cell 1"): [
        "6785e454e1e37c8a"
    ],
    (
        "formalize",
        "--domains gripper --sizes 20 --per-cell 1 --max-iterations 2 --timeout 30 --temperature 0.3",
    ): ["ce07a165e174601d"],
    ("horizon_sweep", "--instances 0:1"): [
        "c773c1fbd30a25c3",
        "2f5ba1fadd0dddb8",
        "1a8bd7f8db721283",
    ],
    ("horizon_sweep", "--instances 0:1 --paper"): [
        "a6cb7d38cfbb82fb",
        "b9b7de4372a91490",
        "232b988df355e07b",
    ],
    ("horizon_sweep", "--instances 0:1 --paper --max-restarts 3 --temperature 0.2"): [
        "f3bf68dc056815a5",
        "cfb01badbf4fe117",
        "f35d02390f516dc9",
    ],
    (
        "horizon_sweep",
        "--instances 0:1 --horizons 1,open --max-actions 20 --max-restarts none --feedback state --grounding per_variable --progress-feedback ff",
    ): ["3a434533d483010c", "551618c8fc070515"],
}


@pytest.mark.parametrize(
    ("script", "argv", "expected"),
    [
        pytest.param(script, argv.split(), keys, id=f"{script} {argv}")
        for (script, argv), keys in CASES.items()
    ],
)
def test_keys_are_those_of_earlier_runs(monkeypatch, tmp_path, script, argv, expected):
    argv = [*argv, "--out", str(tmp_path), "--llm", "openai:m"]
    keys = first_keys(monkeypatch, script, argv)
    assert [key.split("/")[0] for key in keys] == expected
