"""``solve(planner="auto")`` as a portfolio: goals refuted by an invariant of the domain,
the in-process search racing Fast Downward, and real model-written tasks that used to
stall it (tests/data/auto_portfolio)."""

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from test_planner_limits import (  # noqa: F401  (tmp is a fixture)
    assert_clean,
    name_of,
    needs_proc,
    planners_in,
    tmp,
    wait_for,
)

from planloop.envs.blocksworld import generate_problem
from planloop.pddl import PlanResult, auto_portfolio, fd_planner, load, solve, validate
from planloop.pddl.portfolio import Race
from planloop.pddl.search import SearchTimeout

from conftest import DATA, IPC, PLANBENCH

CASES = json.loads((DATA / "auto_portfolio" / "cases.json").read_text())
BW_DOMAIN = PLANBENCH / "blocksworld" / "generated_domain.pddl"


def case(name: str) -> tuple[str, str]:
    return CASES[name]["domain"], CASES[name]["problem"]


# -- goals that no reachable state satisfies ----------------------------------------------


@pytest.mark.parametrize("name", ["unvisited_goal", "unvisited_goal_moves_to_unvisited"])
def test_auto_refutes_going_somewhere_unvisited_when_every_move_marks_it(name):
    result = solve(*case(name), planner="auto", timeout=60)
    assert result.status == "unsolvable" and result.planner == "auto/invariant"
    assert "(at ?r)" in result.message and "(not (visited ?r))" in result.message


def moves(marks: str, more: str = "") -> str:
    return f"""(define (domain moves) (:requirements :adl)
      (:predicates (at ?r) (visited ?r))
      (:action go :parameters (?from ?to) :precondition (at ?from)
        :effect (and (not (at ?from)) (at ?to) {marks}))
      {more})"""


def rooms(init: str, goal: str = "(exists (?r) (and (at ?r) (not (visited ?r))))") -> str:
    return f"(define (problem p) (:domain moves) (:objects a b c) (:init {init}) (:goal {goal}))"


FORGET = "(:action forget :parameters (?r) :effect (not (visited ?r)))"
RESET = "(:action reset :effect (forall (?r) (not (visited ?r))))"


@pytest.mark.parametrize(
    "domain, problem, planner",
    [
        (moves("(visited ?to)"), rooms("(at a) (visited a)"), "auto/invariant"),
        (
            moves("(visited ?to)"),
            rooms("(at a) (visited a)", "(and (at b) (not (visited b)))"),
            "auto/invariant",
        ),
        (moves("(visited ?from)"), rooms("(at a) (visited a)"), "auto/gbfs"),
        (moves("(visited ?to)"), rooms("(at a)"), "auto/gbfs"),
        (moves("(visited ?to)", FORGET), rooms("(at a) (visited a)"), "auto/gbfs"),
        (moves("(visited ?to)", RESET), rooms("(at a) (visited a)"), "auto/gbfs"),
        (moves("(when (at ?from) (visited ?to))"), rooms("(at a) (visited a)"), "auto/gbfs"),
        (moves("(visited ?to) (not (visited ?from))"), rooms("(at a) (visited a)"), "auto/gbfs"),
    ],
    ids=[
        "proved",
        "proved-ground-goal",
        "marks-origin",
        "unvisited-at-start",
        "forget",
        "forall-reset",
        "conditional-mark",
        "add-beats-delete",
    ],
)
def test_auto_claims_unsolvable_only_when_breadth_first_search_agrees(domain, problem, planner):
    """The invariant gives up on what it cannot prove (a conditional or quantified
    effect, an add and a delete of the same predicate) and the search decides."""
    exact = solve(domain, problem, planner="bfs", timeout=60)
    result = solve(domain, problem, planner="auto", timeout=60)
    assert result.status == exact.status and result.planner == planner, result.message
    if result.solved:
        assert validate(load(domain, problem), list(result.plan)).valid


# -- the race ------------------------------------------------------------------------------


def fake_fast_downward(log: list, status: str = "", plan=None):
    """A stand-in for Fast Downward: answers ``status`` at once, or with no status waits
    until it is stopped. ``log`` records what happened."""

    def run(d, p, planner, timeout, memory_limit_mb, start, stop=None):
        log.append("started")
        if not status:
            stop.wait(timeout)
            log.append("stopped" if stop.is_set() else "timed out")
            return PlanResult("timeout", None, "stopped", 0.0, planner)
        return PlanResult(status, plan, f"fake {status}", 0.0, planner)

    return run


def test_small_tasks_never_start_fast_downward(monkeypatch):
    log = []
    monkeypatch.setattr(auto_portfolio, "solve_fast_downward", fake_fast_downward(log, "error"))
    # 2 ms of search alone, well within AUTO_ALONE_SECONDS on a loaded machine
    result = solve(IPC / "domain.pddl", IPC / "instances" / "instance-3.pddl", planner="auto")
    assert result.solved and result.planner == "auto/gbfs" and log == []


def test_the_in_process_search_wins_and_stops_fast_downward(monkeypatch):
    monkeypatch.setattr(auto_portfolio, "AUTO_ALONE_SECONDS", 0.0)  # start it at once
    log = []
    monkeypatch.setattr(auto_portfolio, "solve_fast_downward", fake_fast_downward(log))
    problem = IPC / "instances" / "instance-10.pddl"
    result = solve(IPC / "domain.pddl", problem, planner="auto", timeout=60)
    assert result.solved and result.planner == "auto/gbfs"
    assert validate(load(IPC / "domain.pddl", problem), list(result.plan)).valid
    assert log == ["started", "stopped"]


def cycle(blocks: int) -> str:
    """``blocks`` blocks on the table and the goal a-on-b-on-a: no plan, and only an
    exhaustive search (of every tower of the blocks) shows it."""
    names = ["a", "b", *(f"b{i}" for i in range(blocks - 2))]
    return f"""(define (problem p) (:domain blocksworld-4ops) (:objects {" ".join(names)})
      (:init (handempty) {" ".join(f"(clear {x}) (ontable {x})" for x in names)})
      (:goal (and (on a b) (on b a))))"""


def test_fast_downward_wins_and_the_in_process_search_stops(monkeypatch):
    """Exhausting 12 blocks' states takes the in-process search far longer than its
    budget; the rival's answer ends it at once (else the message would name the budget)."""
    monkeypatch.setattr(auto_portfolio, "AUTO_ALONE_SECONDS", 0.0)
    monkeypatch.setattr(auto_portfolio, "solve_fast_downward", fake_fast_downward([], "unsolvable"))
    result = solve(BW_DOMAIN, cycle(12), planner="auto", timeout=600)
    assert result.status == "unsolvable" and result.planner == "auto/lama-first"
    assert "Fast Downward answered first" in result.message


def test_when_fast_downward_fails_the_search_goes_on_past_its_budget(monkeypatch):
    monkeypatch.setattr(auto_portfolio, "AUTO_ALONE_SECONDS", 0.0)
    monkeypatch.setattr(auto_portfolio, "AUTO_SEARCH_SECONDS", 0.05)
    log = []
    monkeypatch.setattr(auto_portfolio, "solve_fast_downward", fake_fast_downward(log, "error"))
    problem = generate_problem(18, seed=0, style="ipc")  # more than 0.05 s of search
    result = solve(IPC / "domain.pddl", problem, planner="auto", timeout=600)
    assert result.solved and result.planner == "auto/gbfs" and log == ["started"]
    assert validate(load(IPC / "domain.pddl", problem), list(result.plan)).valid


def test_a_race_whose_rival_failed_lets_the_search_run_past_its_budget():
    start = time.monotonic()
    with Race(
        lambda stop: PlanResult("error", None, "", 0.0), start, alone=0.0, budget=0.0
    ) as race:
        race.launch().wait()
        race.check()  # no SearchTimeout: the search is all that is left
        assert race.rival_failed() and not race.rival_won()
    with Race(lambda stop: stop.wait(), start, alone=0.0, budget=0.0) as race:
        with pytest.raises(SearchTimeout):
            race.check()  # the budget is spent and the rival still runs
        assert race.rival is not None


@needs_proc
def test_a_task_fast_downward_stalls_on_is_planned_in_process(tmp):  # noqa: F811
    """Real Fast Downward: its heuristics never finish setting up on this task's axioms
    (4,360 ground actions, 1,848 reachable). If it started beside the in-process search
    (grounding alone may take longer than AUTO_ALONE_SECONDS), the in-process plan stops it
    and its folder is removed."""
    domain, problem = case("fast_downward_stalls")
    result = solve(domain, problem, planner="auto", timeout=120, memory_limit_mb=2000)
    assert result.solved and result.planner == "auto/gbfs", result.message
    assert validate(load(domain, problem), list(result.plan)).valid
    assert_clean(tmp)


def test_a_stopped_planner_is_killed_before_its_deadline():
    stop = threading.Event()
    threading.Timer(0.2, stop.set).start()
    deadline = time.monotonic() + 120
    code, _ = fd_planner._run(
        [sys.executable, "-c", "import time; time.sleep(600)"],
        None,
        None,
        subprocess.DEVNULL,
        deadline,
        None,
        stop,
    )
    assert code is None and time.monotonic() < deadline


@needs_proc
def test_a_terminated_caller_stops_both_sides_of_the_race(tmp):  # noqa: F811
    """SIGTERM while the in-process search and Fast Downward both exhaust 14 blocks: the
    race stops Fast Downward and removes its folder before the caller exits."""
    problem = tmp / "problem.pddl"
    problem.write_text(cycle(14))
    code = (
        f"from planloop.pddl import solve; solve({str(BW_DOMAIN)!r}, {str(problem)!r}, "
        f"planner='auto', timeout=120)"
    )
    caller = subprocess.Popen([sys.executable, "-c", code], env=dict(os.environ, TMPDIR=str(tmp)))
    try:
        assert wait_for(lambda: "downward" in map(name_of, planners_in(tmp)), 60)
    finally:
        caller.send_signal(signal.SIGTERM)
        caller.wait()
    assert caller.returncode == 143
    assert_clean(tmp)
