"""Fast Downward under a wall-clock and a memory limit: a planner that times out, runs
out of memory or loses its caller leaves no process and no temporary folder behind."""

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from planloop.envs.blocksworld import generate_problem
from planloop.pddl import solve
from planloop.pddl.memo import clear_all

from conftest import IPC, wait_for

DOMAIN = IPC / "domain.pddl"
HARD = generate_problem(40, seed=3, style="ipc")  # minutes for astar(lmcut())
needs_proc = pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="needs /proc")


def planners_in(folder: Path) -> list[int]:
    """The pids of processes (translator or search) working under ``folder``."""
    found, root = [], os.path.realpath(folder)
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if os.readlink(proc / "cwd").startswith(root + os.sep):
                found.append(int(proc.name))
        except OSError:  # not ours, or it ended meanwhile
            continue
    return found


def name_of(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:  # it ended
        return None


@pytest.fixture
def tmp(tmp_path, monkeypatch) -> Path:
    """A temporary folder that only this test's solves use."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def assert_clean(folder: Path) -> None:
    assert list(folder.glob("planloop-fd-*")) == []
    assert planners_in(folder) == []


@pytest.mark.slow
@needs_proc
def test_a_timeout_leaves_nothing_behind(tmp):
    result = solve(DOMAIN, HARD, planner="astar(lmcut())", timeout=0.8)
    assert result.status == "timeout"
    assert_clean(tmp)


@needs_proc
@pytest.mark.parametrize(
    "blocks, megabytes, code",
    [
        (100, 60, 20),  # the translator's own out-of-memory exit
        (4, 20, 1),  # too little memory for the translator to reach its handler
    ],
)
def test_out_of_memory_leaves_nothing_behind(tmp, blocks, megabytes, code):
    clear_all()  # the translator runs: no translation kept from an earlier solve
    problem = generate_problem(blocks, seed=3, style="ipc")
    result = solve(DOMAIN, problem, planner="lama-first", timeout=30, memory_limit_mb=megabytes)
    assert (result.status, result.exit_code) == ("out_of_memory", code), result.message
    assert_clean(tmp)
    assert solve(
        DOMAIN, generate_problem(4, seed=3, style="ipc"), planner="lama-first"
    ).solved  # the limit bound that call only


@pytest.mark.slow
@needs_proc
@pytest.mark.parametrize("stage, blocks", [("search", 40), ("translator", 160)])
def test_a_killed_caller_takes_its_planner_along(tmp, stage, blocks):
    problem = tmp / "problem.pddl"
    problem.write_text(generate_problem(blocks, seed=3, style="ipc"))
    code = (
        f"from planloop.pddl import solve; solve({str(DOMAIN)!r}, {str(problem)!r}, "
        f"planner='astar(lmcut())', timeout=120)"
    )
    caller = subprocess.Popen([sys.executable, "-c", code], env=dict(os.environ, TMPDIR=str(tmp)))
    try:

        def running() -> bool:
            names = [name_of(pid) for pid in planners_in(tmp)]
            return ("downward" in names) == (stage == "search") and any(names)

        assert wait_for(running, 60), f"no {stage} started"
        planners = planners_in(tmp)
    finally:
        caller.send_signal(signal.SIGKILL)
        caller.wait()
    # at once: the translator, which seldom prints, outlived its caller by seconds
    # (until SIGPIPE) before it was given a parent-death signal
    assert wait_for(lambda: not set(planners) & set(planners_in(tmp)), 1)
    [folder] = tmp.glob("planloop-fd-*")  # nothing could remove it ...
    assert folder.name.startswith(f"planloop-fd-{caller.pid}-")
    assert solve(DOMAIN, generate_problem(4, seed=0, style="ipc"), planner="lama-first").solved
    assert_clean(tmp)  # ... until the next solve swept it
