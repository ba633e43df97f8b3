"""A view keeps the texts of a task's last states (issue 25): what it shows from them
must be what rendering afresh shows, and what it keeps is bounded."""

import random

import gymnasium as gym

import planloop  # noqa: F401  (registers the environments)
from planloop.envs import view
from planloop.envs.blocksworld import generate_problem
from planloop.envs.view import TaskView

from conftest import IPC


def test_a_revisited_state_shows_what_a_fresh_view_renders():
    env = gym.make("Blocksworld-v0")
    obs, info = env.reset(seed=0, options={"instance": 3})
    fresh, rng = TaskView(), random.Random(1)
    for _ in range(300):
        info["admissible_actions"].append("(scribble)")  # the caller's copy, not the view's
        obs, _, won, _, info = env.step(rng.choice(info["admissible_actions"][:-1]))
        task, state = env.unwrapped.task, env.unwrapped.state
        assert info["admissible_actions"] == fresh.commands(task.applicable(state), task)
        assert obs.endswith(f"Current state: {fresh._render_state(task, state)}")
        if won:
            obs, info = env.reset(options={"instance": 3})


def test_the_states_kept_are_bounded_by_count_and_by_the_size_of_a_state(monkeypatch):
    small = gym.make("Blocksworld-v0").unwrapped
    _, info = small.reset(seed=0)
    rng = random.Random(0)
    for _ in range(3000):
        _, _, won, _, info = small.step(rng.choice(info["admissible_actions"]))
        if won:
            _, info = small.reset(seed=0)
    assert len(small.view._cache(small.task).states) <= 1024
    monkeypatch.setattr(view, "STATE_MEMO_BYTES", 10_000)
    large = gym.make(
        "PDDL-v0", domain=IPC / "domain.pddl", problem=generate_problem(60, 0, style="ipc")
    ).unwrapped
    _, info = large.reset(seed=0)
    for _ in range(200):
        _, _, _, _, info = large.step(rng.choice(info["admissible_actions"]))
    kept = large.view._cache(large.task).states
    assert len(kept) == 10_000 // (len(large.task.facts) // 8 + 1) < 200
