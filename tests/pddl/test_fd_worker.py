"""Fast Downward run by the warm worker (planloop.pddl.fd_worker) answers as the per-call
subprocesses do (PLANLOOP_FD_WORKER=0), and leaves no process behind."""

import os
import re
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from planloop.envs.blocksworld import generate_problem
from planloop.pddl import fd_worker, load, parse, solve, validate
from planloop.pddl.fd_planner import FD_WORKER_VARIABLE, TRANSLATIONS, solve_fast_downward

from conftest import IPC, PLANBENCH, wait_for

DOMAIN = IPC / "domain.pddl"
SLOW = generate_problem(100, seed=3, style="ipc")  # seconds of translation
pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")

TYPED = """(define (domain m) (:requirements :strips :typing) (:types {types})
  (:predicates (at ?o ?l))
  (:action move :parameters (?o ?a ?b) :precondition (at ?o ?a)
    :effect (and (at ?o ?b) (not (at ?o ?a)))))"""
MOVE = """(define (problem t) (:domain m) (:objects o l1 l2)
  (:init (at o l1)) (:goal (at o l2)))"""
UNSOLVABLE = """(define (problem stuck) (:domain blocksworld-4ops) (:objects a b)
  (:init (handempty) (ontable a) (ontable b) (clear a) (clear b))
  (:goal (and (on a b) (on b a))))"""
TASKS = {
    "planbench-bw": (PLANBENCH / "blocksworld" / "generated_domain.pddl", None),
    "planbench-mystery": (PLANBENCH / "mystery" / "generated_domain.pddl", None),
    "ipc-10": (DOMAIN, IPC / "instances" / "instance-10.pddl"),
    "ipc-20": (DOMAIN, IPC / "instances" / "instance-20.pddl"),
    "reserved-type": (TYPED.format(types="number"), MOVE),  # the translator's exit 31
    "unsolvable": (PLANBENCH / "blocksworld" / "generated_domain.pddl", UNSOLVABLE),
}


def task(name: str):
    domain, problem = TASKS[name]
    if problem is None:
        problem = sorted((domain.parent / "generated_basic").glob("*.pddl"))[0]
    return domain, problem


@pytest.fixture(autouse=True)
def translations_forgotten():
    """Each test's solves translate: none is served a translation an earlier one kept."""
    TRANSLATIONS.clear()


@pytest.fixture
def per_call(monkeypatch):
    """Call it to solve with the per-call subprocesses until the test ends (translating
    again what the warm worker translated)."""

    def switch():
        monkeypatch.setenv(FD_WORKER_VARIABLE, "0")
        TRANSLATIONS.clear()

    return switch


def untimed(message: str) -> str:
    """``message`` without the seconds that Fast Downward logs."""
    return re.sub(r"\d+(\.\d+)?s\b", "N s", message)


def worker_pid() -> int:
    worker = fd_worker._WORKER
    assert worker is not None and not worker.lost and worker._proc is not None
    return worker._proc.pid


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in "ZX"
    except OSError:
        return False


def children(pid: int) -> list[int]:
    """The pids of the running processes whose parent is ``pid``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # it ended meanwhile
            continue
        if int(fields[1]) == pid and fields[0] not in "ZX":
            found.append(int(stat.parent.name))
    return found


def in_thread(call):
    """Start ``call`` in a thread; a function that waits for its result."""
    box = []
    thread = threading.Thread(target=lambda: box.append(call()))
    thread.start()
    return lambda: (thread.join(), box[0])[1]


@pytest.mark.parametrize("name", TASKS)
def test_the_worker_answers_as_the_per_call_path(name, per_call):
    warm = solve(*task(name), planner="lama-first", timeout=60)
    per_call()
    cold = solve(*task(name), planner="lama-first", timeout=60)
    assert (warm.status, warm.plan, warm.exit_code) == (cold.status, cold.plan, cold.exit_code)
    assert untimed(warm.message) == untimed(cold.message)
    assert warm.status != "error"


@pytest.mark.parametrize("megabytes, status", [(20, "out_of_memory"), (400, "solved")])
def test_a_memory_limit_binds_as_before(megabytes, status, per_call):
    small = generate_problem(4, seed=3, style="ipc")
    warm = solve(DOMAIN, small, planner="lama-first", memory_limit_mb=megabytes)
    per_call()
    cold = solve(DOMAIN, small, planner="lama-first", memory_limit_mb=megabytes)
    assert (warm.status, warm.exit_code) == (cold.status, cold.exit_code)
    assert warm.status == status


def test_a_timeout_in_translation_kills_it():
    solve(DOMAIN, generate_problem(4, seed=3, style="ipc"))  # the worker runs
    start = time.monotonic()
    result = solve(DOMAIN, SLOW, planner="lama-first", timeout=1.0)
    assert result.status == "timeout" and "translation" in result.message
    assert time.monotonic() - start < 3
    assert children(worker_pid()) == []


def test_stop_ends_a_translation():
    solve(DOMAIN, generate_problem(4, seed=3, style="ipc"))
    d, p = parse(DOMAIN, SLOW)
    stop = threading.Event()
    result = in_thread(
        lambda: solve_fast_downward(d, p, "lama-first", 60, None, time.monotonic(), stop)
    )
    assert wait_for(lambda: children(worker_pid()) != [], 5)
    stop.set()
    stopped = time.monotonic()
    assert result().status == "timeout"
    assert time.monotonic() - stopped < 1
    assert children(worker_pid()) == []


def test_concurrent_solves_each_get_their_own_plan():
    problems = [generate_problem(n, seed=n, style="ipc") for n in (3, 5, 7, 9)]
    slow = in_thread(lambda: solve(DOMAIN, generate_problem(40, seed=1, style="ipc")))
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda p: solve(DOMAIN, p, planner="lama-first"), problems))
    for problem, result in zip(problems, results, strict=True):
        assert result.solved, result.message
        assert validate(load(DOMAIN, problem), list(result.plan)).valid
    assert slow().solved


def test_a_killed_worker_is_replaced():
    small = generate_problem(5, seed=2, style="ipc")
    first = solve(DOMAIN, small)
    os.kill(worker_pid(), signal.SIGKILL)
    assert wait_for(lambda: fd_worker._WORKER is not None and fd_worker._WORKER.lost, 5)
    assert solve(DOMAIN, small).plan == first.plan
    assert alive(worker_pid())


def test_a_job_lost_with_its_worker_runs_per_call():
    solve(DOMAIN, generate_problem(4, seed=3, style="ipc"))
    problem = generate_problem(40, seed=3, style="ipc")
    pid = worker_pid()
    result = in_thread(lambda: solve(DOMAIN, problem, planner="lama-first"))
    assert wait_for(lambda: children(pid) != [], 5)
    os.kill(pid, signal.SIGKILL)
    solved = result()
    assert solved.solved, solved.message
    assert validate(load(DOMAIN, problem), list(solved.plan)).valid


def test_the_worker_dies_with_its_process(tmp_path):
    problem = tmp_path / "problem.pddl"
    problem.write_text(generate_problem(4, seed=3, style="ipc"))
    code = (
        "import sys, time\n"
        "from planloop.pddl import fd_worker, solve\n"
        f"assert solve({str(DOMAIN)!r}, {str(problem)!r}).solved\n"
        "print(fd_worker._WORKER._proc.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    caller = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert caller.stdout is not None
        worker = int(caller.stdout.readline())
        assert alive(worker)
    finally:
        caller.kill()
        caller.wait()
    assert wait_for(lambda: not alive(worker), 3)
