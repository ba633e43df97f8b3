"""h_add / h_FF, greedy best-first search, the ``auto`` planner and PlanCache."""

import math
import random
import threading
from dataclasses import replace
from pathlib import Path

import gymnasium as gym
import pytest
from adl_domain import DOMAIN as ADL_DOMAIN
from adl_domain import PROBLEM as ADL_PROBLEM

import planloop  # noqa: F401  (registers the environments)
from planloop.envs.blocksworld import generate_problem
from planloop.pddl import (
    Atom,
    Limits,
    PlanCache,
    RelaxedTask,
    auto_portfolio,
    ground,
    load,
    parse,
    planners,
    solve,
    validate,
)
from planloop.pddl.search import SearchTimeout, greedy_best_first

from conftest import DATA, IPC, PLANBENCH

BW_DOMAIN = PLANBENCH / "blocksworld" / "generated_domain.pddl"
ALFWORLD_GAMES = sorted((DATA / "alfworld" / "games").glob("*/game.tw-pddl"))


def three_blocks(
    goal: str, init: str = "(on a b) (ontable b) (ontable c) (clear a) (clear c) (handempty)"
) -> str:
    return f"""(define (problem three) (:domain blocksworld-4ops) (:objects a b c)
      (:init {init}) (:goal {goal}))"""


def texts(plan) -> set[str]:
    return {a.text for a in plan}


# -- heuristics -------------------------------------------------------------------------


def test_h_add_counts_shared_steps_twice_and_h_ff_once():
    """From a-on-b, with b and c on the table: (on b c) needs unstack a b (cost 1, for
    clear b), pick-up b (2), stack b c (3); (ontable a) needs unstack a b (1), put-down a
    (2). h_add = 3 + 2 = 5; the relaxed plan shares the unstack: h_FF = 4."""
    task = load(BW_DOMAIN, three_blocks("(and (on b c) (ontable a))"))
    relaxed = RelaxedTask(task)
    assert relaxed.h_add(task.init) == 5
    assert relaxed.h_ff(task.init) == 4
    assert texts(relaxed.relaxed_plan(task.init)) == {
        "(unstack a b)",
        "(put-down a)",
        "(pick-up b)",
        "(stack b c)",
    }


def test_heuristics_are_zero_at_a_goal_state_and_follow_the_state():
    task = load(BW_DOMAIN, three_blocks("(on a b)"))
    relaxed = RelaxedTask(task)
    assert relaxed.h_add(task.init) == relaxed.h_ff(task.init) == 0
    assert relaxed.relaxed_plan(task.init) == []
    lifted = task.action("unstack", ["a", "b"]).apply(task.init)
    assert relaxed.h_add(lifted) == relaxed.h_ff(lifted) == 1  # stack a b


def test_relaxed_unreachable_goal_is_infinite():
    """No hand is free and none holds a block: nothing can ever move."""
    task = load(BW_DOMAIN, three_blocks("(on a b)", "(ontable a) (ontable b) (clear a) (clear b)"))
    relaxed = RelaxedTask(task)
    assert relaxed.h_add(task.init) == relaxed.h_ff(task.init) == math.inf
    assert relaxed.relaxed_plan(task.init) is None
    assert greedy_best_first(task) is None


SWITCHES = """(define (domain switches) (:requirements :adl)
  (:predicates (on ?x) (broken ?x) (lit))
  (:action toggle :parameters (?x) :precondition (not (broken ?x))
    :effect (and (when (on ?x) (not (on ?x))) (when (not (on ?x)) (on ?x))))
  (:action smash :parameters (?x) :precondition (on ?x) :effect (broken ?x))
  (:action light :parameters () :precondition (or (on s1) (on s2)) :effect (lit)))"""
SWITCHES_PROBLEM = """(define (problem dark) (:domain switches) (:objects s1 s2)
  (:init (broken s1)) (:goal (lit)))"""


def test_relaxation_of_negative_conditions_disjunctions_and_conditional_effects():
    """A negative precondition or effect condition counts as true (so the broken s1 can
    be toggled in the relaxation), a disjunction costs its cheapest part, a conditional
    effect needs the action's precondition and its own."""
    task = load(SWITCHES, SWITCHES_PROBLEM)
    relaxed = RelaxedTask(task)
    assert relaxed.h_add(task.init) == 2  # toggle (either switch), then light
    assert relaxed.h_ff(task.init) == 2
    assert [a.text for a in relaxed.relaxed_plan(task.init)] == ["(light)", "(toggle s1)"]
    plan = greedy_best_first(task)
    assert [a.text for a in plan] == ["(toggle s2)", "(light)"]  # s1 is broken
    assert validate(task, [a.text for a in plan]).valid


def test_a_relaxation_for_another_goal_equals_one_compiled_afresh():
    """with_goal keeps the actions' operators and compiles the goal alone: every
    heuristic equals that of a relaxation compiled from the task, along a random walk,
    for goals with disjunctions (which add nodes after the actions')."""
    first = load(SWITCHES, SWITCHES_PROBLEM)
    relaxed = RelaxedTask(first)
    for goal in ("(and (on s2) (lit))", "(or (on s1) (broken s2))", "(not (lit))"):
        problem = parse(SWITCHES, SWITCHES_PROBLEM.replace("(:goal (lit))", f"(:goal {goal})"))[1]
        task = first.with_problem(problem)
        assert task is not None and relaxed.fits(task)
        again, fresh = relaxed.with_goal(task), RelaxedTask(task)
        state, rng = task.init, random.Random(goal)
        for _ in range(12):
            assert again.h_add(state) == fresh.h_add(state)
            assert again.h_ff(state) == fresh.h_ff(state)
            assert again.relaxed_plan(state) == fresh.relaxed_plan(state)
            state = rng.choice(task.applicable(state)).apply(state)
    assert relaxed.h_ff(first.init) == 2  # the relaxation it came from is as it was
    other = load(SWITCHES, SWITCHES_PROBLEM.replace("(broken s1)", "(broken s2)"))
    with pytest.raises(ValueError, match="same actions and facts"):
        relaxed.with_goal(other)


# -- greedy best-first search -------------------------------------------------------------


@pytest.mark.parametrize(
    "problem", sorted((IPC / "instances").glob("*.pddl"))[:5], ids=lambda p: p.stem
)
def test_gbfs_plans_validate(problem):
    task = load(IPC / "domain.pddl", problem)
    plan = greedy_best_first(task, timeout=60)
    assert validate(task, [a.text for a in plan]).valid


def test_gbfs_is_a_planner_of_solve():
    problem = IPC / "instances" / "instance-10.pddl"
    result = solve(IPC / "domain.pddl", problem, planner="gbfs")
    assert result.solved and result.planner == "gbfs"
    assert validate(load(IPC / "domain.pddl", problem), list(result.plan)).valid


def test_gbfs_exhausts_a_relaxed_solvable_but_unsolvable_task():
    task = load(BW_DOMAIN, three_blocks("(and (on a b) (on b a))"))
    assert RelaxedTask(task).h_ff(task.init) < math.inf
    assert greedy_best_first(task) is None


def test_gbfs_timeout():
    task = load(IPC / "domain.pddl", generate_problem(30, seed=1, style="ipc"))
    with pytest.raises(SearchTimeout):
        greedy_best_first(task, timeout=0.01)


# -- auto agrees with Fast Downward ----------------------------------------------------------


def coin_world(locations: int) -> tuple[str, str]:
    env = gym.make("CoinCollector-v0", num_locations=locations, include_doors=True)
    env.reset(seed=locations)
    return env.unwrapped.world_pddl()


def alfworld_world(game: Path) -> tuple[str, str]:
    env = gym.make("ALFWorld-v0", game_file=game)
    env.reset()
    return env.unwrapped.world_pddl()


UNSOLVABLE_BW = three_blocks("(and (on a b) (on b a))")
STUCK_BW = three_blocks("(on a b)", "(ontable a) (ontable b) (clear a) (clear b)")
CASES = (
    [
        (f"ipc-{p.stem}", lambda p=p: (IPC / "domain.pddl", p))
        for p in sorted((IPC / "instances").glob("*.pddl"))
    ]
    + [
        (
            f"planbench-{p.parent.parent.name}-{p.parent.name}-{p.stem}",
            lambda p=p: (p.parent.parent / "generated_domain.pddl", p),
        )
        for p in sorted(PLANBENCH.glob("*/generated_basic*/*.pddl"))
    ]
    + [(f"coin-{n}", lambda n=n: coin_world(n)) for n in range(3, 12)]
    + [(f"alfworld-{g.parent.name}", lambda g=g: alfworld_world(g)) for g in ALFWORLD_GAMES]
    + [
        ("adl", lambda: (ADL_DOMAIN, ADL_PROBLEM)),
        ("unsolvable", lambda: (BW_DOMAIN, UNSOLVABLE_BW)),
        ("stuck", lambda: (BW_DOMAIN, STUCK_BW)),
    ]
)


@pytest.mark.slow
@pytest.mark.parametrize("make", [make for _, make in CASES], ids=[name for name, _ in CASES])
def test_auto_agrees_with_lama_first(make):
    domain, problem = make()
    fd = solve(domain, problem, planner="lama-first", timeout=60)
    auto = solve(domain, problem, planner="auto", timeout=60)
    assert fd.status in ("solved", "unsolvable"), fd.message
    assert auto.status == fd.status, auto.message
    assert auto.planner in ("auto/gbfs", "auto/lama-first")
    if auto.solved:
        assert validate(load(domain, problem), list(auto.plan)).valid


def test_auto_plans_small_tasks_in_process():
    # 2 ms of search alone, well within AUTO_ALONE_SECONDS on a loaded machine (instance-10,
    # 40 ms alone, took 0.3 s beside 4 busy processes and started Fast Downward)
    result = solve(IPC / "domain.pddl", IPC / "instances" / "instance-3.pddl", planner="auto")
    assert result.solved and result.planner == "auto/gbfs"


def test_auto_proves_unsolvability_both_ways():
    stuck = solve(BW_DOMAIN, STUCK_BW, planner="auto")
    assert stuck.status == "unsolvable" and stuck.planner == "auto/gbfs"
    assert "unreachable even ignoring delete effects" in stuck.message
    exhausted = solve(BW_DOMAIN, UNSOLVABLE_BW, planner="auto")
    assert exhausted.status == "unsolvable" and exhausted.planner == "auto/gbfs"
    assert "search space exhausted" in exhausted.message


def test_auto_falls_back_to_fast_downward_over_the_action_threshold(monkeypatch):
    monkeypatch.setattr(auto_portfolio, "AUTO_MAX_ACTIONS", 20)
    problem = IPC / "instances" / "instance-10.pddl"  # 112 ground actions
    result = solve(IPC / "domain.pddl", problem, planner="auto")
    assert result.solved and result.planner == "auto/lama-first"
    assert "112 ground actions, more than 20" in result.message
    assert validate(load(IPC / "domain.pddl", problem), list(result.plan)).valid


def test_auto_falls_back_when_grounding_passes_its_limit(monkeypatch):
    monkeypatch.setattr(auto_portfolio, "AUTO_GROUND_LIMIT", 50)
    result = solve(IPC / "domain.pddl", IPC / "instances" / "instance-10.pddl", planner="auto")
    assert result.solved and result.planner == "auto/lama-first"
    assert "not grounded in-process" in result.message and "max_ground_actions" in result.message


def test_auto_falls_back_when_its_search_runs_out_of_budget(monkeypatch):
    monkeypatch.setattr(auto_portfolio, "AUTO_SEARCH_SECONDS", 1e-4)
    problem = generate_problem(12, seed=2, style="ipc")
    result = solve(IPC / "domain.pddl", problem, planner="auto")
    assert result.solved and result.planner == "auto/lama-first"
    assert "no in-process plan within" in result.message


def test_auto_honours_its_timeout(monkeypatch):
    # Fast Downward not yet due: a loaded machine may reach the race's first check after
    # AUTO_ALONE_SECONDS (0.1 s), and the answer would then be the rival's
    monkeypatch.setattr(auto_portfolio, "AUTO_ALONE_SECONDS", 600.0)
    result = solve(
        IPC / "domain.pddl", generate_problem(18, seed=0, style="ipc"), planner="auto", timeout=0.05
    )
    assert result.status == "timeout" and result.planner == "auto/gbfs"


def test_auto_reports_bad_input_like_every_planner():
    result = solve(BW_DOMAIN, "(define (problem p) (:domain blocksworld-4ops)", planner="auto")
    assert result.status == "invalid_input"


# -- the plan cache ----------------------------------------------------------------------------


@pytest.fixture
def calls(monkeypatch):
    """The (problem, planner) of every solve the cache runs."""
    seen = []
    real = planners.solve

    def counting(domain, problem, planner="lama-first", *args, **kwargs):
        seen.append((problem, planner))
        return real(domain, problem, planner, *args, **kwargs)

    monkeypatch.setattr(planners, "solve", counting)
    return seen


def test_cache_hit_returns_the_stored_result_without_solving(calls):
    cache = PlanCache()
    first = cache.solve(BW_DOMAIN, three_blocks("(on b c)"), planner="auto")
    again = cache.solve(
        BW_DOMAIN.read_text(), three_blocks("(on b c)"), planner="auto", timeout=5
    )  # the same text, given once as a path
    assert first.solved and again is first
    assert len(calls) == 1 and (cache.hits, cache.misses) == (1, 1)


def test_cache_keys_on_problem_planner_and_limits(calls):
    cache = PlanCache()
    cache.solve(BW_DOMAIN, three_blocks("(on b c)"), planner="auto")
    cache.solve(BW_DOMAIN, three_blocks("(on c b)"), planner="auto")
    cache.solve(BW_DOMAIN, three_blocks("(on b c)"), planner="bfs")
    cache.solve(BW_DOMAIN, three_blocks("(on b c)"), planner="auto", limits=Limits(max_objects=10))
    assert len(calls) == 4 and len(cache) == 4


def test_cache_stores_unsolvable_but_not_timeouts_or_bad_input(calls):
    cache = PlanCache()
    for _ in range(2):
        assert cache.solve(BW_DOMAIN, UNSOLVABLE_BW, planner="auto").status == "unsolvable"
    hard = generate_problem(40, seed=3, style="ipc")
    for _ in range(2):
        assert (
            cache.solve(IPC / "domain.pddl", hard, planner="bfs", timeout=0.2).status == "timeout"
        )
        assert cache.solve(BW_DOMAIN, "(define", planner="auto").status == "invalid_input"
    assert len(calls) == 5 and len(cache) == 1


def test_cache_drops_the_least_recently_used(calls):
    cache = PlanCache(maxsize=2)
    a, b, c = (three_blocks(g) for g in ("(on b c)", "(on c b)", "(on c a)"))
    for problem in (a, b, a, c, a, b):  # c evicts b (a was used after b); b comes back
        assert cache.solve(BW_DOMAIN, problem, planner="auto").solved
    assert [p for p, _ in calls] == [a, b, c, b]
    assert len(cache) == 2


def test_cache_is_thread_safe(calls):
    cache = PlanCache()
    problems = [three_blocks(g) for g in ("(on b c)", "(on c b)", "(on c a)")]
    results: list = []

    def work():
        for problem in problems * 5:
            results.append((problem, cache.solve(BW_DOMAIN, problem, planner="auto")))

    threads = [threading.Thread(target=work) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 90 and all(r.solved for _, r in results)
    assert cache.hits + cache.misses == 90 and len(cache) == 3
    for problem in problems:
        assert len({r.plan for p, r in results if p == problem}) == 1


def test_cache_rejects_a_size_below_one():
    with pytest.raises(ValueError):
        PlanCache(maxsize=0)


# -- reusing a task's ground actions ------------------------------------------------------------


def test_a_problem_with_the_same_objects_and_static_facts_reuses_the_ground_actions():
    first = load(BW_DOMAIN, three_blocks("(on b c)"))
    text = three_blocks(
        "(and (on a b) (on b c))",
        "(on c a) (ontable a) (ontable b) (clear b) (clear c) (handempty)",
    )
    again, fresh = first.with_problem(parse(BW_DOMAIN, text)[1]), load(BW_DOMAIN, text)
    assert again is not None and again._grounded is first._grounded
    assert set(map(str, again.atoms(again.init))) == set(map(str, fresh.atoms(fresh.init)))
    assert [a.text for a in again.applicable(again.init)] == [
        a.text for a in fresh.applicable(fresh.init)
    ]
    plan = [a.text for a in greedy_best_first(again)]
    assert validate(fresh, plan).valid and validate(again, plan).valid


def test_other_objects_or_static_facts_need_grounding_again():
    task = load(IPC / "domain.pddl", IPC / "instances" / "instance-1.pddl")
    other = parse(IPC / "domain.pddl", IPC / "instances" / "instance-2.pddl")[1]
    assert task.with_problem(other) is None  # other blocks
    domain, problem = parse(ADL_DOMAIN, ADL_PROBLEM)
    fewer_roads = replace(
        problem, init=tuple(f for f in problem.init if f != Atom("road", ("home", "shop")))
    )
    assert ground(domain, problem).with_problem(fewer_roads) is None


def test_auto_reuses_the_last_round_and_plans_each_round_right():
    """Rounds of one house as a loop meets them: each plan valid for its own round."""
    env = gym.make("CoinCollector-v0", num_locations=5, include_doors=True)
    env.reset(seed=2)
    for command in env.unwrapped.gold_path():
        domain, problem = env.unwrapped.world_pddl()
        for goal in ("(holding coin)", "(visited kitchen)"):
            moved = problem.replace("(:goal (holding coin))", f"(:goal {goal})")
            result = solve(domain, moved, planner="auto")
            assert result.solved and result.planner == "auto/gbfs", result.message
            assert validate(load(domain, moved), list(result.plan)).valid
        env.step(command)
