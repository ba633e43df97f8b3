"""Every registered environment's ``info`` is exactly its family's TypedDict (see
``planloop.envs.info``): the keys it declares (optional ones aside) and values of the
declared types, at reset, after valid and invalid commands, and after the episode ended."""

from __future__ import annotations

import importlib.util
import shutil
import types
import typing
from importlib import resources
from pathlib import Path

import gymnasium as gym
import pytest

import planloop  # noqa: F401  (registers the environments)
from planloop.envs import CATALOG, ENVIRONMENTS, TWX_ENVIRONMENTS
from planloop.envs.info import ALFWorldInfo, CoinInfo
from planloop.envs.text_env import TextEnv
from planloop.pddl.search import breadth_first

from conftest import DATA

SAMPLES = Path(str(resources.files("planloop.envs") / "data" / "contingent"))
KWARGS = {
    "PDDL-v0": {
        "domain": DATA / "planbench/blocksworld/generated_domain.pddl",
        "problem": DATA / "planbench/blocksworld/generated_basic",
        "goal_distance": "ff",  # an optional key: present on every step, as the others
    },
    "ContingentPDDL-v0": {
        "domain": SAMPLES / "blocks2/domain.pddl",
        "problem": SAMPLES / "blocks2/problem.pddl",
    },
    "ALFWorld-v0": {"data_dir": DATA / "alfworld/games"},
}
FAMILIES = {env.id: env.info for env in CATALOG}  # each environment's declared info
UNWON = ("Contingent-Doors-v0", "Contingent-ColorBalls-v0")  # too large to win in a test
TWX = pytest.mark.skipif(
    importlib.util.find_spec("textworld_express") is None or shutil.which("java") is None,
    reason="the twx extra and java",
)


def mismatch(value, hint, where: str = "info") -> str | None:
    """Where ``value`` is not of type ``hint`` (a TypedDict exactly: its required keys,
    none it does not declare), or None."""
    if typing.is_typeddict(hint):
        if not isinstance(value, dict):
            return f"{where} is {type(value).__name__}, not a dict"
        hints = typing.get_type_hints(hint)
        missing = hint.__required_keys__ - value.keys()
        extra = value.keys() - hints.keys()
        if missing or extra:
            return f"{where}: missing {sorted(missing)}, undeclared {sorted(extra)}"
        found = (mismatch(value[k], hints[k], f"{where}[{k!r}]") for k in value)
        return next((m for m in found if m), None)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        found = [mismatch(value, arg, where) for arg in args]
        return None if None in found else " or ".join(m for m in found if m)
    if origin is typing.Literal:
        return None if type(value) is str and value in args else f"{where} = {value!r}"
    if origin in (list, tuple):
        if type(value) is not origin:
            return f"{where} is {type(value).__name__}, not {origin.__name__}"
        found = (mismatch(v, args[0], f"{where}[{i}]") for i, v in enumerate(value))
        return next((m for m in found if m), None)
    if hint is type(None):
        return None if value is None else f"{where} is {type(value).__name__}, not None"
    return None if type(value) is hint else f"{where} is {type(value).__name__}, not {hint}"


def declared_family(env: gym.Env) -> type:
    """The info family ``env``'s class declares (``TextEnv[Family]``)."""
    for cls in type(env.unwrapped).__mro__:
        for base in getattr(cls, "__orig_bases__", ()):
            if typing.get_origin(base) is TextEnv:
                return typing.get_args(base)[0]
    raise AssertionError(f"{type(env.unwrapped).__name__} declares no info family")


def winning(env: gym.Env) -> list[str]:
    """Commands that win the episode just reset."""
    base = env.unwrapped
    for name in ("walkthrough", "gold_path"):
        if hasattr(base, name):
            return getattr(base, name)()
    plan = breadth_first(base.task, timeout=60)
    assert plan is not None
    return base.view.commands(plan, base.task)


def check_contract(env_id: str, **kwargs) -> None:
    env = gym.make(env_id, **KWARGS.get(env_id, {}), **kwargs)
    family = FAMILIES[env_id]
    assert declared_family(env) is family
    try:
        _, info = env.reset(seed=1)
        infos = [info]
        for command in ["xyzzy plugh", "(xyzzy)", "", info["admissible_actions"][0]]:
            infos.append(env.step(command)[-1])
        kinds = {i["action_error"]["kind"] for i in infos}
        assert "" in kinds and kinds & {"unknown", "malformed"}, kinds
        if env_id not in UNWON:
            _, info = env.reset(seed=1)
            for command in winning(env):
                *_, terminated, _, info = env.step(command)
            assert terminated and info["won"]
            _, _, _, _, info = env.step("look")
            assert info["action_error"]["kind"] == "episode_over"
            infos.append(info)
        keys = [list(i) for i in infos]
        assert all(k == keys[0] for k in keys), keys  # the same keys, in the same order
        for info in infos:
            assert mismatch(info, family) is None, mismatch(info, family)
    finally:
        env.close()


@pytest.mark.parametrize("env_id", list(ENVIRONMENTS))
def test_every_environment_returns_its_family_of_info(env_id):
    check_contract(env_id)


def test_every_registered_environment_has_a_family():
    assert set(FAMILIES) == set(ENVIRONMENTS) | set(TWX_ENVIRONMENTS)


def test_optional_keys_are_there_when_asked_for():
    info = gym.make("PDDL-v0", **KWARGS["PDDL-v0"]).reset(seed=0)[1]
    assert {"goal_distance"} <= info.keys() and "domain_description" not in info
    assert "domain_description" in gym.make("Baking-v0").reset(seed=0)[1]


def test_a_value_of_another_type_is_a_mismatch():
    _, info = gym.make("CoinCollector-v0").reset(seed=0)
    assert mismatch(info, CoinInfo) is None
    assert mismatch({**info, "moves": 1.0}, CoinInfo) == "info['moves'] is float, not <class 'int'>"
    assert "undeclared ['extra']" in mismatch({**info, "extra": 1}, CoinInfo)
    assert "missing ['look']" in mismatch({k: v for k, v in info.items() if k != "look"}, CoinInfo)
    error = {**info["action_error"], "kind": "refused"}
    assert mismatch({**info, "action_error": error}, CoinInfo) == (
        "info['action_error']['kind'] = 'refused'"
    )
    assert mismatch({**info, "admissible_actions": ("look",)}, CoinInfo) is not None


def test_an_alfworld_game_without_a_task_type_has_none(tmp_path):
    game = next((DATA / "alfworld/games").glob("*/game.tw-pddl"))
    shutil.copy(game, tmp_path / "game.tw-pddl")  # no task folder, no traj_data.json
    _, info = gym.make("ALFWorld-v0", game_file=tmp_path / "game.tw-pddl").reset(seed=0)
    assert info["task_type"] is None and mismatch(info, ALFWorldInfo) is None
    assert mismatch({**info, "task_type": 1}, ALFWorldInfo) == (
        "info['task_type'] is int, not <class 'str'> or info['task_type'] is int, not None"
    )


@pytest.mark.slow  # a Java simulator per game
@TWX
@pytest.mark.parametrize("env_id", list(TWX_ENVIRONMENTS))
def test_every_twx_game_returns_coin_collectors_info(env_id):
    check_contract(env_id)


@pytest.mark.slow
@TWX
def test_coin_collector_on_the_twx_backend_returns_the_same_info():
    check_contract("CoinCollector-v0", backend="twx")
