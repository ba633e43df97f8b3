import importlib.util
import shutil
import time
from pathlib import Path

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.llm import LLMError
from planloop.pddl import solve
from planloop.policies.doubles import following_model, goal_of, has_lessons

from headless import Chromium

DATA = Path(__file__).parent / "data"
PLANBENCH = DATA / "planbench"
IPC = DATA / "ipc2000-blocks"
EXPERIMENTS = Path(__file__).parents[1] / "experiments"


def wait_for(condition, seconds: float) -> bool:
    """Whether ``condition()`` comes true within ``seconds`` (polled every 20 ms)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def load_experiment(name: str):
    """The module of ``experiments/<name>.py`` (experiments are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(name, EXPERIMENTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def mystery_plans():
    """Optimal plans of Mystery-BW-v0 problems 3 and 4, keyed by their goal as the
    policies state it."""
    env, found = gym.make("Mystery-BW-v0"), {}
    for instance in (3, 4):
        _, info = env.reset(options={"instance": instance})
        result = solve(info["domain_pddl"], info["problem_pddl"], planner="bfs", timeout=30)
        found[info["task"]] = [step.lower() for step in result.plan]
    return found


def plan_follower(plans, fail_on=None):
    """A loop-policy model following ``plans``: on the second problem it leaves out the
    first action until it has explained a failure; on ``fail_on``'s goal every call
    fails for good."""
    second = list(plans)[1]

    def plan_for(messages):
        goal = goal_of(messages)
        if goal == fail_on:
            raise LLMError("server", "503 after retries")
        plan = plans[goal]
        return plan[1:] if goal == second and not has_lessons(messages) else plan

    return following_model(plan_for)


class BrokenModel:
    """A user's own chat model whose every call raises ``error`` or returns ``reply``."""

    name = "broken"

    def __init__(self, reply=None, error=None):
        self.reply, self.error = reply, error

    def complete(self, messages, tools=None, **params):
        if self.error is not None:
            raise self.error
        return self.reply


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture
def closed_port() -> int:
    """A local TCP port that nothing listens on (connections are refused at once)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def chromium(tmp_path):
    binary = shutil.which("chromium")
    if binary is None:
        pytest.skip("no chromium binary on PATH: apt-get install chromium (.ci/run installs it)")
    browser = Chromium(binary, tmp_path / "profile")
    try:
        browser.connect()
        yield browser
    finally:
        browser.close()
