"""Blocksworld and its Mystery variants: instance sets, PlanBench equivalence."""

import re
from collections import Counter

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.envs.blocksworld import (
    GeneratedInstances,
    blocks_for_instance,
    blocksworld_domain,
    generate_problem,
)
from planloop.pddl import parse_domain, parse_problem, solve

from conftest import IPC, PLANBENCH


def test_default_instances_follow_planbench_proportions():
    counts = Counter(blocks_for_instance(i) for i in range(len(GeneratedInstances())))
    assert counts == {4: 446, 5: 54, 3: 100}
    instances = GeneratedInstances()
    for i in (0, 445, 446, 499, 500, 599):
        problem = parse_problem(instances[i], blocksworld_domain())
        assert len(problem.objects) == blocks_for_instance(i)


def test_instances_are_deterministic_and_varied():
    instances = GeneratedInstances()
    assert instances[17] == GeneratedInstances()[17]
    assert len({instances[i] for i in range(100)}) > 90


@pytest.mark.parametrize("index", [0, 1, 2, 445, 446, 599])
def test_generated_instances_are_solvable_and_not_trivial(index):
    text = GeneratedInstances()[index]
    result = solve(blocksworld_domain(), text, planner="bfs", timeout=30)
    assert result.status == "solved" and len(result.plan) >= 1


def test_mystery_instance_is_plain_instance_renamed():
    plain = gym.make("Blocksworld-v0", obs_format="pddl")
    mystery = gym.make("Mystery-BW-v0", obs_format="pddl")
    _, p_info = plain.reset(options={"instance": 42})
    _, m_info = mystery.reset(options={"instance": 42})
    translate = {
        "clear": "province",
        "ontable": "planet",
        "handempty": "harmony",
        "holding": "pain",
        "on": "craves",
        "pick-up": "attack",
        "put-down": "succumb",
        "stack": "overcome",
        "unstack": "feast",
    }
    renamed = [
        re.sub(r"\(([\w-]+)", lambda m: "(" + translate[m.group(1)], a)
        for a in p_info["admissible_actions"]
    ]
    assert renamed == m_info["admissible_actions"]
    assert plain.unwrapped.state == mystery.unwrapped.state


@pytest.mark.parametrize("instance", range(1, 21))
def test_mystery_env_reproduces_planbench_mystery_files(instance):
    """Our Mystery view of PlanBench's plain instance i is PlanBench's Mystery instance i."""
    env = gym.make("Mystery-BW-v0", instances=PLANBENCH / "blocksworld" / "generated_basic")
    _, info = env.reset(options={"instance": instance - 1})
    theirs_domain = parse_domain(PLANBENCH / "mystery" / "generated_domain.pddl")
    ours_domain = parse_domain(info["domain_pddl"])
    assert ours_domain.predicates == theirs_domain.predicates
    assert ours_domain.actions == theirs_domain.actions
    theirs = parse_problem(
        PLANBENCH / "mystery" / "generated_basic" / f"instance-{instance}.pddl", theirs_domain
    )
    ours = parse_problem(info["problem_pddl"], ours_domain)
    assert set(ours.init) == set(theirs.init)
    assert ours.goal == theirs.goal
    assert set(ours.objects) == set(theirs.objects)


def test_mystery_env_reads_planbench_mystery_files_as_written():
    mystery_files = PLANBENCH / "mystery" / "generated_basic"
    from_mystery = gym.make("Mystery-BW-v0", instances=mystery_files, obs_format="pddl")
    from_plain = gym.make(
        "Mystery-BW-v0", instances=PLANBENCH / "blocksworld" / "generated_basic", obs_format="pddl"
    )
    plain = gym.make("Blocksworld-v0", instances=mystery_files)
    theirs_domain = parse_domain(PLANBENCH / "mystery" / "generated_domain.pddl")
    for index in range(from_mystery.unwrapped.num_instances):
        _, info = from_mystery.reset(options={"instance": index})
        name = from_mystery.unwrapped.problems.sources[index]
        theirs = parse_problem(name, theirs_domain)
        ours = parse_problem(info["problem_pddl"], parse_domain(info["domain_pddl"]))
        assert (set(ours.init), ours.goal, set(ours.objects)) == (
            set(theirs.init),
            theirs.goal,
            set(theirs.objects),
        )
        _, plain_info = plain.reset(options={"instance": index})  # renamed back to plain
        assert "(craves" not in plain_info["problem_pddl"] and "(on " in plain_info["problem_pddl"]
    _, info = from_mystery.reset(options={"instance": 0})
    _, same = from_plain.reset(options={"instance": 0})
    assert info["admissible_actions"] == same["admissible_actions"]


def test_ipc_upper_case_instances_load():
    env = gym.make("Blocksworld-v0", instances=IPC / "instances")
    _, info = env.reset(options={"instance": 0})
    assert info["admissible_actions"]
    assert all(a == a.lower() for a in info["admissible_actions"])


def test_mystery_random_names_follow_planbench_format():
    env = gym.make("MysteryRandom-BW-v0")
    _, info = env.reset(options={"instance": 0})
    names = {a.strip("(").split()[0] for a in info["admissible_actions"]}
    assert all(re.fullmatch(r"[a-z][a-z0-9]{15}", n) for n in names)
    other = gym.make("MysteryRandom-BW-v0", names_seed=1)
    _, info1 = other.reset(options={"instance": 0})
    assert info1["admissible_actions"] != info["admissible_actions"]


def test_generator_refuses_impossible_sizes():
    with pytest.raises(ValueError):
        generate_problem(27, seed=0)
    assert "B30 - block" in generate_problem(30, seed=0, style="ipc")


def test_one_block_cannot_have_a_goal():
    with pytest.raises(ValueError, match="at least 2"):
        generate_problem(1, 0, style="ipc")
