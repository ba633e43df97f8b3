"""A study stops cleanly: SIGTERM and Ctrl-C in one line with the count saved, nothing
lost and no planner folder left; a server gone stops it after a few episodes; damaged
results lines are set aside and reported, never fatal; bad flags exit 2 before any
episode."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from planloop.envs.blocksworld import generate_problem
from planloop.llm import LLMError, ScriptedModel
from planloop.study import open_model

from conftest import EXPERIMENTS, load_experiment

EPISODES = 16
ARGS = [
    "--env",
    "Mystery-BW-v0",
    "--instances",
    f"0:{EPISODES}",
    "--workers",
    "2",
    "--planner",
    "seq-sat-lama-2011",
    "--timeout",
    "1",
]  # anytime on 10 blocks: each episode runs its whole second, so the study lasts 8 s
# however fast the machine and a loaded one still signals it mid-study (PlanBench's own
# instances end in 0.1 s: 40 of them were all done before a starved test signalled)


def ten_block_instances(folder):
    """A folder of EPISODES PlanBench-style problems of 10 blocks (``-o instances=``)."""
    folder.mkdir()
    for seed in range(EPISODES):
        (folder / f"instance-{seed}.pddl").write_text(generate_problem(10, seed=seed))
    return ["-o", f"instances={folder}"]


def records(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.slow
@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_the_study_in_one_line_and_a_rerun_finishes_it(tmp_path, signum, code):
    out = tmp_path / "out"
    env = dict(os.environ, HOME=str(tmp_path), TMPDIR=str(tmp_path))
    argv = [sys.executable, str(EXPERIMENTS / "planner_baseline.py"), *ARGS, "--out", str(out)]
    argv += ten_block_instances(tmp_path / "instances")
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    results = out / "episodes.jsonl"
    while not (results.exists() and results.read_text().count("\n") >= 2):
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(0.05)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    err = err.decode()
    assert proc.returncode == code, err
    saved = len(records(results))
    assert (
        f"planner_baseline.py: interrupted: {saved} of {EPISODES} episodes saved; rerun "
        f"the same command to resume" in err
    )
    assert "Traceback" not in err
    assert not list(tmp_path.glob("planloop-fd-*"))  # the running planners' folders too

    rerun = subprocess.run(argv, env=env, capture_output=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr.decode()
    keys = [r["key"] for r in records(results)]
    assert len(keys) == len(set(keys)) == EPISODES  # nothing lost, nothing twice


def test_a_server_gone_stops_the_study_after_three_episodes(tmp_path, capsys):
    study = load_experiment("horizon_sweep")
    model = ScriptedModel(lambda messages: LLMError("connection", "connection refused"))
    assert (
        study.main(
            [
                "--env",
                "Mystery-BW-v0",
                "--instances",
                "0:6",
                "--horizons",
                "1",
                "--trials",
                "1",
                "--out",
                str(tmp_path),
            ],
            model=model,
        )
        == 2
    )
    err = capsys.readouterr().err
    saved = len(records(tmp_path / "episodes.jsonl"))  # the 3, and one already started
    assert saved in (3, 4)
    assert (
        "error: the model server stopped answering: 3 episodes in a row ended on "
        f"connection: connection refused; {saved} of 6 episodes saved" in err
    )


@pytest.mark.slow
def test_damaged_results_lines_are_set_aside_and_reported_once(tmp_path, capsys):
    study = load_experiment("planner_baseline")
    args = ["--env", "Mystery-BW-v0", "--instances", "0:3", "--out", str(tmp_path)]
    assert study.main(args) == 0
    path = tmp_path / "episodes.jsonl"
    first, second, third = records(path)
    damaged = [
        {**first, "message": "\ud800 a lone surrogate"},
        {"key": second["key"]},
        {**third, "won": "yes"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in damaged))
    capsys.readouterr()
    assert study.main(args) == 0  # the two damaged episodes run again
    err = capsys.readouterr().err
    assert err.count("were not valid records") == 1
    assert (
        "2 lines of episodes.jsonl were not valid records and were set aside in "
        "episodes.jsonl.torn (line 2: no study; line 3: won is 'yes', not true or "
        "false); their episodes run again" in err
    )
    assert "| 3 | 3 | 100.0% |" in (tmp_path / "results.md").read_text()
    assert study.main(args) == 0  # a lone surrogate in a record does not stop a rerun
    assert "were not valid records" not in capsys.readouterr().err


def test_a_report_is_written_whatever_the_text_inside(tmp_path):
    from planloop.protocols.pddlego_plus.report import write_report

    record = {
        "key": "k",
        "study": "s",
        "instance": 0,
        "trial": 0,
        "won": False,
        "details": {
            "rounds": [{"reply": "\ud83d broken \udfff", "df": None, "pf": None, "steps": []}]
        },
    }
    assert write_report([record], tmp_path / "r.html", "t").read_bytes()


@pytest.mark.parametrize(
    "script, flags, named",
    [
        ("planner_baseline", ["--timeout", "-1"], "--timeout"),
        ("pddlego", ["--retries", "-1", "--llm", "groundtruth"], "--retries"),
        ("horizon_sweep", ["--temperature", "7", "--llm", "openai:x"], "--temperature"),
        ("mystery", ["--planner-timeout", "0", "--conditions", "planner"], "--planner-timeout"),
        ("formalize", ["--per-cell", "0", "--llm", "groundtruth"], "--per-cell"),
        ("pddlego", ["--call-timeout", "nan", "--llm", "groundtruth"], "--call-timeout"),
    ],
)
def test_bad_flags_exit_2_before_any_episode(tmp_path, capsys, script, flags, named):
    study = load_experiment(script)
    with pytest.raises(SystemExit) as stop:
        study.main([*flags, "--out", str(tmp_path)])
    assert stop.value.code == 2 and named in capsys.readouterr().err
    assert not (tmp_path / "episodes.jsonl").exists()


def test_out_naming_a_file_is_one_line(tmp_path, capsys):
    taken = tmp_path / "results.txt"
    taken.write_text("mine")
    study = load_experiment("planner_baseline")
    assert study.main(["--instances", "0:1", "--out", str(taken)]) == 2
    assert f"error: --out {taken} is a file: give a folder" in capsys.readouterr().err
    assert taken.read_text() == "mine"


def test_call_timeout_bounds_a_call_with_its_retries():
    pytest.importorskip("openai")
    model = open_model("http://127.0.0.1:9/v1@m", call_timeout=7.5)
    assert getattr(model, "model", model).deadline == 7.5


@pytest.mark.slow
def test_a_task_refused_at_reset_is_one_line(tmp_path, capsys):
    """A problem past the core's limits, met when the study resets the environment."""
    study = load_experiment("planner_baseline")
    domain, problem = tmp_path / "d.pddl", tmp_path / "p.pddl"
    domain.write_text(
        "(define (domain d) (:predicates (p ?a ?b ?c ?d ?e)) "
        "(:action a :parameters (?a ?b ?c ?d ?e) :precondition (and) "
        ":effect (p ?a ?b ?c ?d ?e)))"
    )
    objects = " ".join(f"o{i}" for i in range(40))
    problem.write_text(
        f"(define (problem p) (:domain d) (:objects {objects}) (:init) (:goal (p o1 o2 o3 o4 o5)))"
    )
    code = study.main(
        [
            "--env",
            "PDDL-v0",
            "-o",
            f"domain={domain}",
            "-o",
            f"problem={problem}",
            "--instances",
            "0:1",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "error: " in err and "limit" in err.lower()


@pytest.mark.slow
def test_reproduce_passes_a_studys_interruption_through(tmp_path):
    """SIGTERM during one of reproduce.py's studies: the study's own line, exit 143, and
    no second message from reproduce.py."""
    out = tmp_path / "papers"
    env = dict(os.environ, HOME=str(tmp_path), TMPDIR=str(tmp_path))
    argv = [sys.executable, str(EXPERIMENTS / "reproduce.py"), "pddlego-plus"]
    argv += ["--llm", "groundtruth", "--workers", "2", "--out", str(out)]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    results = out / "pddlego-plus" / "episodes.jsonl"
    while not (results.exists() and results.read_text().count("\n") >= 1):
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    err = err.decode()
    assert proc.returncode == 143, err
    assert err.count("interrupted:") == 1 and "pddlego.py: interrupted:" in err
    assert "exit code" not in err and "Traceback" not in err


def java_children(pid: int) -> list[int]:
    """The java processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)
            name = fields[0].split("(", 1)[1]
            if name == "java" and int(fields[1].split()[1]) == pid:
                found.append(int(entry))
        except (OSError, ValueError, IndexError):
            continue
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_to_the_group_while_a_twx_game_starts_is_an_interrupt(tmp_path, signum, code):
    """The signal a terminal (Ctrl-C) or a job manager sends to the whole process group,
    sent while TextWorld Express's Java process starts: the study's one line and exit
    code, no py4j traceback, and no Java process left."""
    pytest.importorskip("textworld_express")
    if shutil.which("java") is None:
        pytest.skip("TextWorld Express needs java")
    env = dict(os.environ, HOME=str(tmp_path), TMPDIR=str(tmp_path))
    argv = [sys.executable, str(EXPERIMENTS / "pddlego.py"), "--coin-games", "twx"]
    argv += ["--llm", "groundtruth", "--instances", "0:2", "--out", str(tmp_path / "out")]
    proc = subprocess.Popen(
        argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    deadline = time.monotonic() + 120
    while not (javas := java_children(proc.pid)):
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read().decode()
        time.sleep(0.01)
    os.killpg(proc.pid, signum)  # the start is under way: its JVM is booting
    _, err = proc.communicate(timeout=60)
    err = err.decode()
    assert proc.returncode == code, err
    lines = [line for line in err.splitlines() if line.strip() and "episodes" not in line[:9]]
    assert lines[-1].startswith("pddlego.py: interrupted: "), err
    assert "Traceback" not in err and "py4j" not in err and "Exception" not in err, err
    deadline = time.monotonic() + 30
    while any(alive(pid) for pid in javas):  # Java ends with its parent
        assert time.monotonic() < deadline, f"java {javas} outlived the study"
        time.sleep(0.1)


def test_a_signal_during_a_game_call_is_handled_when_the_call_returns():
    """py4j fails on an interrupt raised inside its call; signals_held handles it after."""
    from planloop.envs.twx.gateway import signals_held

    finished = []
    with pytest.raises(KeyboardInterrupt):
        with signals_held():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # a handler would run here, inside the call
            finished.append(True)
    assert finished == [True]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back
