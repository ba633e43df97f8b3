"""solve(): Fast Downward and the built-in searches, every status, clean temp files."""

import tempfile

import pytest

from planloop.envs.blocksworld import generate_problem
from planloop.pddl import fd_planner, load, solve, validate
from planloop.pddl.memo import clear_all

from conftest import IPC, PLANBENCH

BW_DOMAIN = PLANBENCH / "blocksworld" / "generated_domain.pddl"
MYSTERY_DOMAIN = PLANBENCH / "mystery" / "generated_domain.pddl"
SAMPLE = sorted((PLANBENCH / "blocksworld" / "generated_basic").glob("*.pddl"))
MYSTERY_SAMPLE = sorted((PLANBENCH / "mystery" / "generated_basic").glob("*.pddl"))


@pytest.mark.parametrize(
    "domain,problem",
    [(BW_DOMAIN, p) for p in SAMPLE] + [(MYSTERY_DOMAIN, p) for p in MYSTERY_SAMPLE],
    ids=lambda p: (
        f"{p.parent.parent.name}-{p.stem}"
        if p.suffix == ".pddl" and "basic" in p.parent.name
        else p.stem
    ),
)
def test_fast_downward_solves_planbench_sample_and_plans_validate(domain, problem):
    result = solve(domain, problem, planner="lama-first", timeout=60)
    assert result.status == "solved", result.message
    report = validate(load(domain, problem), list(result.plan))
    assert report.valid, report.advice


@pytest.mark.parametrize("planner", ["seq-sat-lama-2011", "astar(lmcut())", "bfs", "astar"])
def test_every_planner_finds_a_valid_plan(planner):
    problem = SAMPLE[0]
    result = solve(BW_DOMAIN, problem, planner=planner, timeout=60)
    assert result.status == "solved", result.message
    assert validate(load(BW_DOMAIN, problem), list(result.plan)).valid


def test_optimal_planners_agree_on_plan_length():
    problem = SAMPLE[1]
    lengths = {
        p: len(solve(BW_DOMAIN, problem, planner=p, timeout=60).plan)
        for p in ("astar(lmcut())", "bfs", "astar")
    }
    assert len(set(lengths.values())) == 1, lengths


def test_upper_case_ipc_instance():
    result = solve(IPC / "domain.pddl", IPC / "instances" / "instance-35.pddl")
    assert result.status == "solved"
    assert validate(
        load(IPC / "domain.pddl", IPC / "instances" / "instance-35.pddl"), list(result.plan)
    ).valid


UNSOLVABLE = """(define (problem stuck) (:domain blocksworld-4ops) (:objects a b)
  (:init (handempty) (ontable a) (ontable b) (clear a) (clear b))
  (:goal (and (on a b) (on b a))))"""


@pytest.mark.parametrize("planner", ["lama-first", "bfs", "astar"])
def test_unsolvable_task(planner):
    result = solve(BW_DOMAIN, UNSOLVABLE, planner=planner, timeout=60)
    assert result.status == "unsolvable"
    assert result.plan is None


def test_syntax_error_is_invalid_input_with_position():
    broken = BW_DOMAIN.read_text().replace("(:action stack", "(:action stack (", 1)
    result = solve(broken, SAMPLE[0])
    assert result.status == "invalid_input"
    assert "unbalanced parentheses" in result.message and "line" in result.message


@pytest.mark.slow
def test_fast_downward_timeout_kills_and_cleans_up(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # only this test's folders
    hard = generate_problem(40, seed=3, style="ipc")
    result = solve(IPC / "domain.pddl", hard, planner="astar(lmcut())", timeout=1.0)
    assert result.status == "timeout"
    assert list(tmp_path.iterdir()) == []


def test_builtin_search_timeout():
    hard = generate_problem(40, seed=3, style="ipc")
    result = solve(IPC / "domain.pddl", hard, planner="bfs", timeout=0.5)
    assert result.status == "timeout"


@pytest.mark.slow
def test_anytime_planner_keeps_best_plan_at_timeout():
    problem = generate_problem(14, seed=5, style="ipc")
    result = solve(IPC / "domain.pddl", problem, planner="seq-sat-lama-2011", timeout=4)
    assert result.status == "solved"
    assert validate(load(IPC / "domain.pddl", problem), list(result.plan)).valid


def test_unknown_planner_is_invalid_input():
    result = solve(BW_DOMAIN, SAMPLE[0], planner="magic")
    assert result.status == "invalid_input" and "unknown planner 'magic'" in result.message


def test_constants_only_the_problem_declares_reach_fast_downward():
    """ALFWorld's actions name ``SinkBasinType``, which only its problems declare."""
    domain = """(define (domain wash) (:requirements :typing) (:types thing kind)
      (:predicates (is ?t - thing ?k - kind) (clean ?t - thing))
      (:action wash :parameters (?t - thing) :precondition (is ?t sinktype)
       :effect (clean ?t)))"""
    problem = """(define (problem p) (:domain wash) (:objects cup - thing sinktype - kind)
      (:init (is cup sinktype)) (:goal (clean cup)))"""
    result = solve(domain, problem, planner="lama-first", timeout=30)
    assert result.status == "solved" and list(result.plan) == ["(wash cup)"]


def test_a_translation_is_kept_so_the_same_task_again_costs_the_search(monkeypatch):
    """The second solve of a task runs no translator, and plans as the first did; another
    task, a failed translation and a translation past TRANSLATION_MAX_BYTES are not
    served from the memo."""
    stages = []
    real = fd_planner._stage

    def stage(argv, *args):
        stages.append("translate" if "fast_downward.translate" in argv else "search")
        return real(argv, *args)

    monkeypatch.setattr(fd_planner, "_stage", stage)
    clear_all()
    problem = generate_problem(4, seed=21, style="ipc")
    first = solve(IPC / "domain.pddl", problem, planner="lama-first")
    again = solve(
        IPC / "domain.pddl", problem, planner="seq-sat-lama-2011"
    )  # the translation is shared
    assert first.solved and again.solved and stages == ["translate", "search", "search"]
    assert solve(IPC / "domain.pddl", problem, planner="lama-first").plan == first.plan
    stages.clear()
    assert solve(
        IPC / "domain.pddl", generate_problem(4, seed=22, style="ipc"), "lama-first"
    ).solved
    assert stages == ["translate", "search"]

    stages.clear()
    monkeypatch.setattr(fd_planner, "TRANSLATION_MAX_BYTES", 10)
    big = generate_problem(5, seed=23, style="ipc")
    assert (
        solve(IPC / "domain.pddl", big, "lama-first").solved
        and solve(IPC / "domain.pddl", big, "lama-first").solved
    )
    assert stages == ["translate", "search", "translate", "search"]

    stages.clear()
    monkeypatch.setattr(fd_planner, "TRANSLATION_MAX_BYTES", 4 << 20)
    starved = generate_problem(4, seed=24, style="ipc")  # 20 MB: the translator fails
    for _ in range(2):
        result = solve(IPC / "domain.pddl", starved, "lama-first", memory_limit_mb=20)
        assert result.status == "out_of_memory", result.message
    assert stages == ["translate", "translate"]
