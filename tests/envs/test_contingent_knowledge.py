"""One meaning for knowledge in ``info``: ``known_false`` lists the facts once in doubt
(left open by ``:init``, unknown at some step, or sensed) that are now false in every
world; a sensed fact is known from then on; the keys and their types never change."""

from __future__ import annotations

import random
from importlib import resources
from pathlib import Path

import pytest

from planloop.envs.contingent import ContingentPDDLEnv, blocks_env
from planloop.envs.wumpus import wumpus_env

SAMPLE = Path(str(resources.files("planloop.envs").joinpath("data", "contingent")))
TESTS = Path(__file__).parent.parent / "data" / "contingent"
FOLDERS = [SAMPLE / "blocks2", SAMPLE / "logistic_conf", TESTS / "lamps", TESTS / "doors3"]


def test_closed_world_facts_are_known_false_once_sensed_not_before():
    env = blocks_env()
    _, info = env.reset(seed=0)
    assert info["known_false"] == []  # (on b1 b1) is false in every world, never in doubt
    _, _, _, _, info = env.step("(senseon b1 b1)")
    assert info["known_false"] == ["(on b1 b1)"]
    _, _, _, _, info = env.step("(senseon b2 b1)")
    # the oneofs settle the rest: (on b2 b1) excludes (on-table b2) and (clear b1)
    settled = {"(on-table b2)", "(clear b1)"} if info["sensed"][0]["value"] else {"(on b2 b1)"}
    assert set(info["known_false"]) == {"(on b1 b1)"} | settled and not info["unknown_facts"]


def test_a_fact_sensed_false_that_no_clause_names_is_known_false():
    env = wumpus_env(5)
    _, info = env.reset(seed=0)
    assert "(stench p1-1)" not in info["known_false"] + info["unknown_facts"]
    _, _, _, _, info = env.step("(smell_wumpus p1-1)")
    assert info["sensed"] == [{"fact": "(stench p1-1)", "value": False}]
    assert "(stench p1-1)" in info["known_false"]
    assert "(stench p1-1)" not in info["known_facts"] + info["unknown_facts"]
    _, _, _, _, info = env.step("(feel-breeze p1-1)")
    assert "(stench p1-1)" in info["known_false"] and "(breeze p1-1)" in info["known_false"]


@pytest.mark.parametrize("max_belief", [2**16, 1], ids=["listed", "formula"])
@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_each_fact_once_in_doubt_is_in_exactly_one_list_along_seeded_walks(folder, max_belief):
    env = ContingentPDDLEnv(folder / "domain.pddl", folder / "problem.pddl", max_belief=max_belief)
    for seed in range(3):
        rng = random.Random(seed)
        _, info = env.reset(seed=seed)
        types = {k: type(v) for k, v in info.items()}
        doubted = set(info["unknown_facts"])
        for _ in range(30):
            command = rng.choice(info["admissible_actions"] + ["(nonsense)"])
            _, _, terminated, _, info = env.step(command)
            assert {k: type(v) for k, v in info.items()} == types
            if max_belief == 1 and info["unknown_facts"]:
                assert info["belief_size"] == -1
            doubted |= set(info["unknown_facts"]) | {s["fact"] for s in info["sensed"]}
            lists = [set(info[k]) for k in ("known_facts", "known_false", "unknown_facts")]
            assert not (lists[0] & lists[1] or lists[0] & lists[2] or lists[1] & lists[2])
            for fact in doubted:
                assert sum(fact in chosen for chosen in lists) == 1, fact
            true = {str(a) for a in env.contingent.task.atoms(env.world)}
            assert set(info["known_facts"]) <= true and not set(info["known_false"]) & true
            if terminated:
                break
