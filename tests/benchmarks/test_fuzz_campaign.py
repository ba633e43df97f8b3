"""A seeded sample of the fuzzing campaign (``benchmarks/fuzz.py``): a few hundred
generated commands, PDDL texts, plans and model replies, through the same code as the
full campaign; none may crash, hang or leave its observation space."""

import importlib.util
import re
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # whole studies and campaigns: -m "not slow" skips them

FUZZ = Path(__file__).parents[2] / "benchmarks" / "fuzz.py"


def load_fuzz():
    """The module of ``benchmarks/fuzz.py`` (benchmarks are scripts, not a package)."""
    if "planloop_fuzz" not in sys.modules:  # loaded once, shared by every test here
        spec = importlib.util.spec_from_file_location("planloop_fuzz", FUZZ)
        module = importlib.util.module_from_spec(spec)
        sys.modules["planloop_fuzz"] = module
        spec.loader.exec_module(module)
    return sys.modules["planloop_fuzz"]


@pytest.fixture(scope="module")
def fuzz():
    pytest.importorskip("openai")  # the model target drives the openai client
    return load_fuzz()


@pytest.fixture(scope="module")
def campaign(fuzz):
    return fuzz.run_campaign(cases=250, seed=0, slack=5)  # a hang, not a loaded machine


def test_the_sample_covers_every_target(fuzz, campaign):
    assert set(campaign["targets"]) == set(fuzz.TARGETS)
    assert sum(r["cases"] for r in campaign["targets"].values()) == 250
    assert all(r["cases"] > 0 for r in campaign["targets"].values())


@pytest.mark.parametrize(
    "target", ["env", "pddl", "plan", "model", "mcp", "results", "explosion", "exits"]
)
def test_no_crash_hang_or_observation_outside_its_space(fuzz, campaign, target):
    result = campaign["targets"][target]
    found = len(result["crashes"]) + len(result["hangs"]) + len(result["outside_space"])
    report = fuzz.details({"targets": {target: result}}, examples=3)
    assert found == 0, f"{found} failures:\n{report}"


def test_every_environment_gets_commands(fuzz, campaign):
    played = {label.split("[")[0] for label in campaign["targets"]["env"]["coverage"]}
    assert played == set(fuzz.ENV_IDS)


def test_cases_are_reproducible_one_by_one(fuzz):
    model = fuzz.make_targets()["model"]
    model.setup(1)

    def case(index):
        record = fuzz.run_case(model, 3, index)[0]
        return record.label, re.sub(r"0x[0-9a-f]+", "", fuzz.cut(record.input, 10**6))

    try:
        first = [case(i) for i in (5, 6)]
        assert [case(i) for i in (6, 5)] == first[::-1]
    finally:
        model.close()


def test_the_watchdog_turns_a_stuck_case_into_a_hang(fuzz):
    class Stuck:
        name = "stuck"

        def budget(self, index):
            return 0.2

        def run(self, rng, index, record):
            record.input = "forever"
            while True:
                pass

    record, error, seconds, hung = fuzz.run_case(Stuck(), 0, 0)
    assert hung and error is None and seconds < 30  # the watchdog fired (a hang guard)


def test_a_crash_is_recorded_with_a_reproducer(fuzz):
    class Broken:
        name = "broken"

        def setup(self, cases):
            pass

        def budget(self, index):
            return 5

        def recover(self, record):
            pass

        def run(self, rng, index, record):
            record.input = "x" * 1000
            raise KeyError("boom")

    result = fuzz.run_target(Broken(), 2, seed=7)
    crash = result["crashes"][0]
    assert (crash["type"], crash["case"], crash["seed"]) == ("KeyError", 0, 7)
    assert crash["replay"] == "--seed 7 --replay broken:0"
    assert len(crash["input"]) < 250
    assert len(result["crashes"]) == 2 and not result["hangs"]


def test_the_cli_splits_at_least_the_cases_asked(fuzz):
    shares = fuzz.split_cases(10_000, fuzz.TARGETS)
    assert sum(shares.values()) == 10_000
    assert 500 <= shares["model"] <= 1_000
    assert fuzz.split_cases(7, ["plan"]) == {"plan": 7}


def test_the_mcp_contract_can_fail(fuzz):
    """What the mcp target calls a leak: the secret in an error the client did not send
    it in, a long echo of the input, an unknown id answered with more than the words."""
    boundary, record = fuzz.BOUNDARY, fuzz.Record()
    check = boundary.McpTarget._check_error
    long_text = "(" + "x" * 500
    call = ("start", {"domain": long_text, "problem": "p.pddl"})
    check(f"bad domain: {long_text}", call, str(call[1]), record)
    check(f"cannot read: {boundary.SECRET}", call, str(call[1]), record)
    check("no such session; live: s1, s2", ("run", "s3"), '"s3"', record)
    assert [kind for kind, _ in record.violations] == ["LongEcho", "SecretLeaked", "IdLeak"]


def test_the_results_target_reads_damage_as_a_study_does(fuzz):
    target = fuzz.make_targets()["results"]
    try:
        result = fuzz.run_target(target, 30, seed=0)
    finally:
        target.close()
    assert result["cases"] == 30 and not result["crashes"] and not result["hangs"]


def test_the_exits_target_reports_the_old_exits(fuzz, monkeypatch):
    """A contradiction read as a meaning and a step after the end played and paid again
    (issue 32), a size below a domain's minimum let through to the workers and a goal
    that holds at reset not won there (issue 40) are violations of its contract."""
    from planloop.envs.text_env import TextEnv
    from planloop.pddl import memo, problem_reader
    from planloop.protocols.nl_pddl.config import FormalizeConfig

    monkeypatch.setattr(TextEnv, "step", lambda env, action: env._step(env._command(action)))
    monkeypatch.setattr(TextEnv, "_begin", lambda env, obs, info: (obs, {**info, "won": False}))
    monkeypatch.setattr(problem_reader, "_contradiction", lambda *args: None)
    monkeypatch.setattr(FormalizeConfig, "check", lambda config: None)
    target = fuzz.make_targets()["exits"]
    try:
        result = fuzz.run_target(target, 120, seed=0)
    finally:
        target.close()
        memo.clear_all()  # the texts read while contradictions were let through
    kinds = {crash["type"] for crash in result["crashes"]}
    assert {"Contradiction", "AfterEnd", "FlagValue", "WonAtReset"} <= kinds
