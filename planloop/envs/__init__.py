"""Gymnasium environments, registered when ``planloop`` is imported."""

from gymnasium.envs.registration import register, registry

from .contingent import CONTINGENT_ENVIRONMENTS
from .pddl_env import PDDLEnv
from .twx import TWX_ENVIRONMENTS
from .view import Outcome, TaskView

ENVIRONMENTS = {
    "PDDL-v0": ("planloop.envs.pddl_env:PDDLEnv", 200),
    "Blocksworld-v0": ("planloop.envs.blocksworld:blocksworld_env", 100),
    "Mystery-BW-v0": ("planloop.envs.blocksworld:mystery_env", 100),
    "MysteryRandom-BW-v0": ("planloop.envs.blocksworld:mystery_random_env", 100),
    "CoinCollector-v0": ("planloop.envs.coin:coin_collector", 200),
    "ALFWorld-v0": ("planloop.envs.alfworld:ALFWorldEnv", 50),
    "Baking-v0": ("planloop.envs.baking:baking_env", 100),
    **CONTINGENT_ENVIRONMENTS,
}
FULLY_OBSERVABLE = (
    "PDDL-v0",
    "Blocksworld-v0",
    "Mystery-BW-v0",
    "MysteryRandom-BW-v0",
    "Baking-v0",
)


def register_envs() -> None:
    """Register every planloop environment id with gymnasium (idempotent): ENVIRONMENTS
    (native, no extra needed) and TWX_ENVIRONMENTS (TextWorld Express's own games, the
    ``twx`` extra and java)."""
    for env_id, (entry_point, max_steps) in {**ENVIRONMENTS, **TWX_ENVIRONMENTS}.items():
        if env_id not in registry:
            register(
                id=env_id,
                entry_point=entry_point,
                max_episode_steps=max_steps,
                disable_env_checker=False,
            )


__all__ = [
    "ENVIRONMENTS",
    "FULLY_OBSERVABLE",
    "TWX_ENVIRONMENTS",
    "Outcome",
    "PDDLEnv",
    "TaskView",
    "register_envs",
]
