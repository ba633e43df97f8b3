"""The catalog declares each environment once: what Gymnasium registers, the id lists
the package reads and ``planloop envs`` all come from it."""

from __future__ import annotations

import gymnasium as gym

import planloop  # noqa: F401  (registers the environments)
from planloop.envs import (
    CATALOG,
    CONTINGENT_ENVIRONMENTS,
    ENVIRONMENTS,
    FULLY_OBSERVABLE,
    TWX_ENVIRONMENTS,
    entries,
    entry,
)
from planloop.envs.info import PDDLInfo


def test_each_id_is_declared_once_and_registered_as_declared():
    ids = [env.id for env in CATALOG]
    assert len(ids) == len(set(ids)) == 19
    for env in CATALOG:
        spec = gym.spec(env.id)
        assert (spec.entry_point, spec.max_episode_steps) == (
            env.entry_point,
            env.max_episode_steps,
        )
    ours = {i for i, s in gym.registry.items() if str(s.entry_point).startswith("planloop.")}
    assert ours == set(ids)


def test_the_id_lists_are_views_of_the_catalog():
    assert set(ENVIRONMENTS) | set(TWX_ENVIRONMENTS) == {env.id for env in CATALOG}
    assert not set(ENVIRONMENTS) & set(TWX_ENVIRONMENTS)
    assert all(entry(i).extra == "twx" for i in TWX_ENVIRONMENTS)
    assert set(CONTINGENT_ENVIRONMENTS) == {e.id for e in entries("contingent")}
    assert FULLY_OBSERVABLE == tuple(e.id for e in CATALOG if e.info is PDDLInfo)
    assert {e.family for e in entries("mystery")} == {"mystery"}
    assert entry("Nope-v0") is None


def test_a_fully_observable_environment_shows_the_task_and_a_partial_one_does_not():
    for env_id in ("Blocksworld-v0", "CoinCollector-v0"):
        env = gym.make(env_id)
        _, info = env.reset(seed=0)
        env.close()
        assert ("domain_pddl" in info) == (entry(env_id).observability == "full")
