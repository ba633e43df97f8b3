"""Every study, killed with SIGKILL at random moments and started again with the same
arguments, finishes with every episode recorded exactly once and no torn line (a line
torn by a kill mid-write, which a kill cannot be timed to make, is written by hand),
each record carrying what reproduces it."""

import json
import os
import random
import re
import subprocess
import sys
import time
from contextlib import nullcontext
from pathlib import Path

import pytest

import planloop

from conftest import EXPERIMENTS

pytestmark = pytest.mark.slow  # whole studies and campaigns: -m "not slow" skips them

KILLS = 3
PROVENANCE = {
    "planloop",
    "study",
    "env",
    "env_kwargs",
    "model",
    "model_spec",
    "settings",
    "condition",
    "instance",
    "trial",
    "seed",
    "policy",
    "prompt_version",
}
STUDIES = {  # script: (arguments, episodes)
    "planner_baseline": (["--env", "Mystery-BW-v0", "--instances", "0:48"], 48),
    "mystery": (["--conditions", "planner", "--instances", "0:16"], 16),
    "pddlego": (["--llm", "groundtruth", "--env", "CoinCollector-v0", "--instances", "0:30"], 30),
    "formalize": (
        ["--llm", "groundtruth", "--domains", "blocksworld", "--sizes", "5", "--per-cell", "36"],
        36,
    ),
    "horizon_sweep": (
        ["--env", "Mystery-BW-v0", "--instances", "0:7", "--horizons", "1,open", "--trials", "1"],
        14,
    ),
}


def lines_of(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def run(script: str, argv: list[str], env: dict) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(EXPERIMENTS / f"{script}.py"), *argv],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


@pytest.mark.parametrize("script", list(STUDIES))
def test_a_study_killed_again_and_again_finishes_every_episode_once(script, tmp_path):
    argv, episodes = STUDIES[script]
    argv = [*argv, "--workers", "2", "--out", str(tmp_path / "out")]
    env = dict(os.environ, HOME=str(tmp_path), TMPDIR=str(tmp_path))
    if script == "horizon_sweep":
        pytest.importorskip("openai")
        from planloop.llm.fake_server import FakeChatServer

        server = FakeChatServer([("slow", 0.3, "DONE")] * 100)  # one call an episode
    else:
        server = None
    with server or nullcontext():
        if server is not None:
            argv += ["--llm", f"{server.url}@fake"]
        results = tmp_path / "out" / "episodes.jsonl"
        rng = random.Random(script)
        killed_running = 0
        for _ in range(KILLS):
            proc = run(script, argv, env)
            target = lines_of(results) + rng.randint(1, 2)
            deadline = time.monotonic() + 60
            while (
                proc.poll() is None and lines_of(results) < target and time.monotonic() < deadline
            ):
                time.sleep(0.01)
            time.sleep(rng.uniform(0, 0.15))  # between records, or in the middle of one
            killed_running += proc.poll() is None
            proc.kill()
            proc.wait()
        assert killed_running == KILLS, "a kill came after the study had finished"
        assert lines_of(results) < episodes
        torn = b'{"key": "0123456789abcdef/3/0", "stu'  # as if killed mid-write
        with results.open("ab") as out:
            out.write(torn)
        proc = run(script, argv, env)  # the same command again finishes the study
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
        assert re.search(rf"^{script}[^\n]*: {episodes} episodes, ", err.decode(), re.M), (
            err.decode()
        )
        assert re.search(
            rf"^{script}: 1 lines of episodes.jsonl were not valid records and "
            rf"were set aside in episodes.jsonl.torn \(line \d+: not JSON\)",
            err.decode(),
            re.M,
        ), err.decode()  # the torn line, said once

    data = results.read_bytes()
    assert data.endswith(b"\n")
    records = [json.loads(line) for line in data.splitlines()]  # no torn line
    keys = [r["key"] for r in records if not r.get("error")]
    assert len(keys) == len(set(keys)) == episodes  # each episode exactly once
    # set aside: the torn text, and any record a kill cut short inside its write (a large
    # record's one write can be cut), nothing else
    aside = results.with_name("episodes.jsonl.torn").read_bytes()
    assert aside.endswith(torn + b"\n")
    for line in aside.splitlines():
        with pytest.raises(ValueError):
            json.loads(line)
    assert not list(tmp_path.glob("planloop-fd-*"))  # killed planners' folders swept
    for record in records:
        assert_reproducible(script, record)


def assert_reproducible(script: str, record: dict) -> None:
    """The record names the package, environment, model, condition, seed, policy, prompt
    and planner (with its settings) that played it."""
    provenance = record["provenance"]
    assert set(provenance) - {"request"} == PROVENANCE  # request: a server model's
    if "request" in provenance:
        assert set(provenance["request"]) == {
            "sent_sets",
            "unlisted_requests",
            "dropped",
            "served_model",
        }
    assert (provenance["planloop"], provenance["study"]) == (planloop.__version__, script)
    assert (provenance["instance"], provenance["trial"]) == (record["instance"], record["trial"])
    assert provenance["model_spec"] is not None or script in ("planner_baseline", "mystery")
    assert provenance["policy"] is not None or script == "formalize"  # no policy: one call
    assert provenance["prompt_version"] is not None or script in ("planner_baseline", "mystery")
    if script != "horizon_sweep":  # the one study without a planner
        options = {**provenance["settings"], **provenance["condition"]}
        assert options["planner"]
        assert {"timeout", "planner_timeout"} & set(options) or script == "pddlego"
