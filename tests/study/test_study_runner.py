"""planloop.study.runner: resumable, parallel episodes with the harness's record fields."""

import gc
import json
import re
import sys
import threading
import time
from collections import Counter

import pytest

import planloop
from planloop.llm import InteractiveModel, LLMError, ScriptedModel
from planloop.study import Job, Study, StudyError, latest_records, run_study
from planloop.study.runner import STUDY_GC_THRESHOLDS

STUDY = Study("demo", "Mystery-BW-v0", {"obs_format": "text"}, "m", "URL@m", {"temperature": 0.5})
HORIZONS = [{"horizon": 1}, {"horizon": "open"}]


def lines(out):
    path = out / "episodes.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_keys_are_stable_and_tell_configurations_apart():
    jobs = STUDY.jobs(HORIZONS, range(2, 4), 2)
    assert [(j.condition, j.instance, j.trial) for j in jobs] == [
        ({"horizon": h}, i, t) for h in (1, "open") for i in (2, 3) for t in (0, 1)
    ]
    assert [j.key for j in jobs] == [j.key for j in STUDY.jobs(HORIZONS, range(2, 4), 2)]
    assert len({j.key for j in jobs}) == 8 and jobs[1].key.endswith("/2/1")
    run_id = jobs[0].key.split("/")[0]
    assert jobs[4].key.split("/")[0] != run_id  # another condition
    variants = [
        Study("other", STUDY.env_id, STUDY.env_kwargs, "m", None, STUDY.settings),
        Study("demo", "Blocksworld-v0", STUDY.env_kwargs, "m", None, STUDY.settings),
        Study("demo", STUDY.env_id, {}, "m", None, STUDY.settings),
        Study("demo", STUDY.env_id, STUDY.env_kwargs, "m2", None, STUDY.settings),
        Study("demo", STUDY.env_id, STUDY.env_kwargs, "m", None, {"temperature": 0}),
    ]
    assert all(v.jobs(HORIZONS, [2], 1)[0].key.split("/")[0] != run_id for v in variants)
    same = Study(
        "demo", STUDY.env_id, STUDY.env_kwargs, "m", "http://elsewhere/v1@m", STUDY.settings
    )  # the same model served elsewhere: the same episodes
    assert same.jobs(HORIZONS, [2], 1)[0].key == jobs[0].key
    assert jobs[0].label == "instance 2 trial 0 (horizon=1)"
    assert Job({}, 4, 1, "k").label == "instance 4 trial 1"


def test_records_carry_the_harness_fields(tmp_path, capsys):
    def play(env, job):
        obs, info = env.reset(options={"instance": job.instance})
        return {
            "won": True,
            "task": info["task"],
            "instance": 99,
            "key": "mine",
            "policy": "closed-loop-h1",
            "prompt_version": "loop-v1",
            "seed": None,
        }

    records = run_study(STUDY, STUDY.jobs(HORIZONS[:1], [3], 1), play, out=tmp_path)
    assert lines(tmp_path) == records and len(records) == 1
    record = records[0]
    assert list(record)[:5] == ["key", "study", "horizon", "instance", "trial"]
    assert (
        record["key"],
        record["study"],
        record["horizon"],
        record["instance"],
        record["trial"],
        record["won"],
    ) == (STUDY.jobs(HORIZONS[:1], [3], 1)[0].key, "demo", 1, 3, 0, True)
    assert record["task"]  # played on the study's environment
    assert record["provenance"] == {
        "planloop": planloop.__version__,
        "study": "demo",
        "env": "Mystery-BW-v0",
        "env_kwargs": {"obs_format": "text"},
        "model": "m",
        "model_spec": "URL@m",
        "settings": {"temperature": 0.5},
        "condition": {"horizon": 1},
        "instance": 3,
        "trial": 0,
        "seed": None,
        "policy": "closed-loop-h1",
        "prompt_version": "loop-v1",
    }
    err = capsys.readouterr().err
    cell = "demo on Mystery-BW-v0 (obs_format=text), m"
    assert err.splitlines() == [
        f"{cell}: 1 episode, 0 already in {tmp_path / 'episodes.jsonl'}, 1 to run",
        f"{cell}: 1/1 episodes, 0 failed, 0 s",  # the cell named: its options, its model
    ]


def test_resume_skips_finished_jobs_and_reruns_errored_ones(tmp_path, capsys):
    jobs = STUDY.jobs(HORIZONS, range(3), 1)
    played = []

    def flaky(env, job):
        played.append(job.key)
        if job.instance == 1 and job.condition["horizon"] == 1:
            return {"won": False, "error": "server: 503 after retries"}
        return {"won": True, "error": None}

    check = ScriptedModel(["OK"])
    records = run_study(STUDY, jobs, flaky, out=tmp_path, check=check)
    assert check.calls == 1 and len(played) == 6 and len(records) == 6
    assert [r["error"] for r in records] == [None, "server: 503 after retries"] + [None] * 4
    err = capsys.readouterr().err
    assert "instance 1 trial 0 (horizon=1): server: 503 after retries\n" in err
    assert "6/6 episodes, 1 failed" in err

    def fixed(env, job):
        played.append(job.key)
        return {"won": True}

    played.clear()
    records = run_study(STUDY, jobs, fixed, out=tmp_path, check=ScriptedModel(["OK"]))
    assert played == [jobs[1].key]  # only the errored episode ran again
    assert len(lines(tmp_path)) == 7 and records[1]["won"] and not records[1].get("error")
    assert latest_records(lines(tmp_path))[jobs[1].key] == records[1]  # the latest wins
    assert "6 episodes, 5 already in" in capsys.readouterr().err

    dry = ScriptedModel([])  # would fail a check: nothing is left, so nothing is checked
    played.clear()
    assert run_study(STUDY, jobs, flaky, out=tmp_path, check=dry) == records
    assert played == [] and dry.calls == 0 and len(lines(tmp_path)) == 7


def test_workers_play_every_job_exactly_once_each_with_its_own_env(tmp_path):
    jobs = STUDY.jobs(HORIZONS, range(5), 3)
    played, envs = Counter(), {}
    lock = threading.Lock()

    def play(env, job):
        time.sleep(0.01)
        with lock:
            played[job.key] += 1
            envs.setdefault(threading.get_ident(), set()).add(id(env))
        return {"won": job.trial == 0}

    records = run_study(STUDY, jobs, play, out=tmp_path, workers=4)
    assert set(played) == {j.key for j in jobs} and set(played.values()) == {1}
    assert [r["key"] for r in records] == [j.key for j in jobs]
    written = [r["key"] for r in lines(tmp_path)]
    assert sorted(written) == sorted(j.key for j in jobs)  # 30 lines, none twice
    assert 1 < len(envs) <= 4 and all(len(ids) == 1 for ids in envs.values())
    assert len(set().union(*envs.values())) == len(envs)  # no environment shared


def test_one_run_at_a_time_writes_to_a_folder(tmp_path):
    started, release = threading.Event(), threading.Event()

    def slow(env, job):
        started.set()
        release.wait(10)
        return {"won": True}

    first = threading.Thread(
        target=run_study,
        args=(STUDY, STUDY.jobs(HORIZONS, [0], 1), slow),
        kwargs={"out": tmp_path, "stream": sys.stdout},
    )
    first.start()
    assert started.wait(10)
    with pytest.raises(StudyError, match=f"another run is writing to {re.escape(str(tmp_path))}"):
        run_study(STUDY, STUDY.jobs(HORIZONS, [0], 1), slow, out=tmp_path)
    release.set()
    first.join(10)
    assert len(lines(tmp_path)) == 2  # the first run's, and nothing of the second
    assert len(run_study(STUDY, STUDY.jobs(HORIZONS, [0], 1), slow, out=tmp_path)) == 2


def test_a_failing_check_plays_nothing(tmp_path, capsys):
    def play(env, job):
        raise AssertionError("no episode may start")

    with pytest.raises(StudyError, match="model scripted cannot answer: server: 503"):
        run_study(
            STUDY,
            STUDY.jobs(HORIZONS, [0], 1),
            play,
            out=tmp_path,
            check=ScriptedModel([LLMError("server", "503")]),
        )
    assert lines(tmp_path) == [] and capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "study, instances, message",
    [
        (
            Study("demo", "Mystery-BW-v0", {"bogus": 1}),
            [0],
            "cannot make Mystery-BW-v0 with bogus=1: ",
        ),
        (Study("demo", "Nowhere-v0"), [0], "no environment Nowhere-v0"),
        (
            Study("demo", "Baking-v0"),
            range(2, 9),
            "Baking-v0 has 4 instances (0 to 3); there is no instance 4, 5, 6, ...",
        ),
    ],
)
def test_environment_mistakes_are_one_line_before_the_model_check(
    tmp_path, study, instances, message
):
    check = ScriptedModel(["OK"])
    with pytest.raises(StudyError) as raised:
        run_study(
            study, study.jobs([{}], instances, 1), lambda env, job: {}, out=tmp_path, check=check
        )
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)
    assert check.calls == 0


def test_a_backend_that_cannot_run_is_one_line_before_anything_starts(tmp_path, monkeypatch):
    jobs = STUDY.jobs(HORIZONS, [0], 1)
    with pytest.raises(
        StudyError, match="--llm interactive answers at this terminal: use --backend local"
    ):
        run_study(
            STUDY, jobs, lambda env, job: {}, out=tmp_path, backend="ray", check=InteractiveModel()
        )
    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed
    with pytest.raises(
        StudyError, match=re.escape("--backend ray needs Ray: pip install 'planloop[ray]'")
    ):
        run_study(STUDY, jobs, lambda env, job: {}, out=tmp_path, backend="ray")
    assert lines(tmp_path) == []


def test_a_bug_in_play_stops_the_study_and_surfaces(tmp_path, capsys):
    jobs = STUDY.jobs(HORIZONS[:1], range(10), 1)

    def buggy(env, job):
        if job.instance == 0:
            return {"won": 1 / 0}
        time.sleep(0.05)
        return {"won": True}

    with pytest.raises(ZeroDivisionError):
        run_study(STUDY, jobs, buggy, out=tmp_path, workers=2)
    err = capsys.readouterr().err
    assert (
        "instance 0 trial 0 (horizon=1): ZeroDivisionError: division by zero (a bug in "
        "play? stopping after the running episodes)\n"
    ) in err
    recorded = {r["key"] for r in lines(tmp_path)}
    assert jobs[0].key not in recorded and len(recorded) <= 3  # only the running ones finish

    records = run_study(STUDY, jobs, lambda env, job: {"won": True}, out=tmp_path, workers=2)
    assert len(records) == 10 and len(lines(tmp_path)) == 10  # a rerun plays what was left


def test_episodes_play_with_the_study_thresholds_of_the_collector_then_they_are_restored(
    tmp_path,
):
    seen = []

    def play(env, job):
        seen.append(gc.get_threshold())
        if job.instance == 1:
            raise RuntimeError("a bug in play")
        return {"won": True}

    before = gc.get_threshold()
    run_study(STUDY, STUDY.jobs(HORIZONS[:1], [0], 1), play, out=tmp_path)
    assert seen == [STUDY_GC_THRESHOLDS] and gc.get_threshold() == before
    with pytest.raises(RuntimeError, match="a bug in play"):
        run_study(STUDY, STUDY.jobs(HORIZONS[:1], [1], 1), play, out=tmp_path)
    assert gc.get_threshold() == before


def test_many_failed_episodes_are_said_by_kind_not_one_line_each(tmp_path, capsys):
    """20 episodes of a failing model: their errors once a kind, with one example, and a
    progress line a tenth (a line an episode, and a long one, before)."""
    jobs = STUDY.jobs(HORIZONS, range(10), 1)

    def failing(env, job):
        kind = "server" if job.instance % 2 else "bad_request"
        return {"won": False, "error": f"{kind}: {'x' * 500}", "error_kind": kind}

    run_study(STUDY, jobs, failing, out=tmp_path)
    err = capsys.readouterr().err.splitlines()
    assert len(err) <= 15, err  # the header, 10 progress lines, 2 kinds said twice
    assert (
        sum(line.startswith("10 episodes failed with server, e.g. instance 1") for line in err) == 1
    )
    assert sum(line.startswith("10 episodes failed with bad_request, e.g.") for line in err) == 1
    assert max(map(len, err)) < 400
