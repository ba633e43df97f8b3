"""``--backend ray`` on a local Ray runtime: the same records, episode for episode, as the
local threads with the same seeds (timings aside), the same resume and the same failure
semantics."""

import json
import os
import re

import pytest

from planloop.study import Study, run_study

from conftest import load_experiment, plan_follower

ray = pytest.importorskip("ray")

TIMINGS = {"seconds", "planner_seconds"}  # wall-clock measurements, different every run
TIME_IN_TEXT = re.compile(r"\d+\.\d+ ?s\b")  # "0.11 s", a planner log's "Total time: 0.003s"


@pytest.fixture(scope="module", autouse=True)
def runtime():
    """One light local runtime for the whole file, shut down after it."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def timeless(value):
    """``value`` without its timing fields, at any depth, and its texts without times."""
    if isinstance(value, str):
        return TIME_IN_TEXT.sub("<time>", value)
    if isinstance(value, dict):
        return {k: timeless(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [timeless(v) for v in value]
    return value


def records_of(out) -> dict[str, dict]:
    """The latest record of each key in ``out/episodes.jsonl``."""
    lines = (out / "episodes.jsonl").read_text().splitlines()
    return {r["key"]: r for r in map(json.loads, lines)}


def run_both(tmp_path, script: str, argv: list[str], model=None, workers: int = 2):
    """Runs ``script`` locally and on Ray with the same arguments; returns both outs."""
    study = load_experiment(script)
    outs = {}
    for backend in ("local", "ray"):
        outs[backend] = tmp_path / backend
        extra = {"model": model} if model is not None else {}
        assert (
            study.main(
                [
                    *argv,
                    "--workers",
                    str(workers),
                    "--backend",
                    backend,
                    "--out",
                    str(outs[backend]),
                ],
                **extra,
            )
            == 0
        )
    return outs["local"], outs["ray"]


def assert_same_records(local, on_ray) -> None:
    mine, theirs = records_of(local), records_of(on_ray)
    assert list(mine) and sorted(mine) == sorted(theirs)
    for key, record in mine.items():
        assert timeless(theirs[key]) == timeless(record), key


def test_planner_baseline_on_ray_and_its_resume(tmp_path, capsys):
    local, on_ray = run_both(tmp_path, "planner_baseline", ["--instances", "0:6"])
    assert_same_records(local, on_ray)
    assert all(r["won"] for r in records_of(on_ray).values())
    capsys.readouterr()
    study = load_experiment("planner_baseline")
    assert study.main(["--instances", "0:6", "--backend", "ray", "--out", str(on_ray)]) == 0
    assert "6 episodes, 6 already in" in capsys.readouterr().err  # 0 to run: resumed
    assert len((on_ray / "episodes.jsonl").read_text().splitlines()) == 6


def test_formalize_with_scripted_defects_on_ray(tmp_path):
    argv = [
        "--llm",
        "scripted-defects",
        "--domains",
        "blocksworld",
        "--sizes",
        "5",
        "--per-cell",
        "2",
        "--defects",
        "syntax,missing_fact",
    ]
    local, on_ray = run_both(tmp_path, "formalize", argv)
    assert_same_records(local, on_ray)
    assert any(r["repaired_at"] for r in records_of(on_ray).values())


def test_pddlego_ground_truth_on_ray(tmp_path):
    argv = ["--llm", "groundtruth", "--env", "CoinCollector-v0", "--instances", "0:3"]
    local, on_ray = run_both(tmp_path, "pddlego", argv)
    assert_same_records(local, on_ray)


def test_horizon_sweep_on_ray_records_failures_and_reruns_them(tmp_path, capsys, mystery_plans):
    argv = ["--env", "Mystery-BW-v0", "--instances", "3:5", "--horizons", "1,open", "--trials", "2"]
    failing = plan_follower(mystery_plans, fail_on=list(mystery_plans)[0])
    local, on_ray = run_both(tmp_path, "horizon_sweep", argv, model=failing)
    assert_same_records(local, on_ray)
    assert sum(bool(r["error"]) for r in records_of(on_ray).values()) == 4
    capsys.readouterr()

    local, on_ray = run_both(tmp_path, "horizon_sweep", argv, model=plan_follower(mystery_plans))
    assert "8 episodes, 4 already in" in capsys.readouterr().err  # the failed ones again
    assert_same_records(local, on_ray)
    records = records_of(on_ray).values()
    assert not any(r["error"] for r in records) and any(r["restarts"] for r in records)


def test_a_served_model_and_its_cache_are_opened_again_on_the_workers(tmp_path, monkeypatch):
    pytest.importorskip("openai")
    from planloop.llm.fake_server import FakeChatServer

    monkeypatch.setenv("HOME", str(tmp_path))  # the model cache lives under ~
    with FakeChatServer([("ok", "DONE")] * 20) as server:
        argv = [
            "--env",
            "Mystery-BW-v0",
            "--instances",
            "3:5",
            "--horizons",
            "1,open",
            "--trials",
            "1",
            "--temperature",
            "0",
            "--llm",
            f"{server.url}@fake",
        ]
        local, on_ray = run_both(tmp_path, "horizon_sweep", argv)
        assert len(server.requests) == 1 + 4 + 1  # a check each; Ray's episodes: cached
    mine, theirs = records_of(local), records_of(on_ray)
    assert [r["usage"]["cached_calls"] for r in theirs.values()] == [1] * 4
    assert {k: timeless({**r, "usage": None}) for k, r in theirs.items()} == {
        k: timeless({**r, "usage": None}) for k, r in mine.items()
    }


def test_mystery_planner_and_closed_loop_on_ray(tmp_path, mystery_plans):
    argv = ["--env", "Mystery-BW-v0", "--instances", "3:5", "--conditions", "planner,closed-loop"]
    local, on_ray = run_both(tmp_path, "mystery", argv, model=plan_follower(mystery_plans))
    assert_same_records(local, on_ray)
    assert all(r["won"] for r in records_of(on_ray).values())


def test_a_bug_in_play_on_ray_stops_the_study_and_surfaces(tmp_path, capsys):
    study = Study("demo", "Mystery-BW-v0")
    jobs = study.jobs([{}], range(8), 1)

    def buggy(env, job):
        if job.instance == 0:
            return {"won": 1 / 0}
        env.reset(options={"instance": job.instance})
        return {"won": True}

    with pytest.raises(ZeroDivisionError) as raised:
        run_study(study, jobs, buggy, out=tmp_path, workers=2, backend="ray")
    assert "in buggy" in str(raised.value.__cause__)  # the worker's traceback, chained
    assert (
        "instance 0 trial 0: ZeroDivisionError: division by zero (a bug in play? "
        "stopping after the running episodes)\n"
    ) in capsys.readouterr().err
    recorded = records_of(tmp_path)
    assert jobs[0].key not in recorded and len(recorded) < len(jobs)

    records = run_study(
        study,
        jobs,
        lambda env, job: {"won": True, "pid": os.getpid()},
        out=tmp_path,
        workers=2,
        backend="ray",
    )
    assert len(records) == 8 and len(records_of(tmp_path)) == 8  # a rerun plays the rest
    played_in = {r["pid"] for r in records if "pid" in r}
    assert played_in and os.getpid() not in played_in and len(played_in) <= 2  # 2 actors
