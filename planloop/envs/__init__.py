"""Gymnasium environments, registered when ``planloop`` is imported."""

from gymnasium.envs.registration import register, registry

from .catalog import (
    CATALOG,
    CONTINGENT_ENVIRONMENTS,
    ENVIRONMENTS,
    FULLY_OBSERVABLE,
    TWX_ENVIRONMENTS,
    EnvEntry,
    entries,
    entry,
)
from .pddl_env import PDDLEnv
from .view import Outcome, TaskView


def register_envs() -> None:
    """Register every environment of the :data:`CATALOG` with gymnasium (idempotent);
    TextWorld Express's own games need the ``twx`` extra and java when made."""
    for env in CATALOG:
        if env.id not in registry:
            register(
                id=env.id,
                entry_point=env.entry_point,
                max_episode_steps=env.max_episode_steps,
                disable_env_checker=False,
            )


__all__ = [
    "CATALOG",
    "CONTINGENT_ENVIRONMENTS",
    "ENVIRONMENTS",
    "EnvEntry",
    "FULLY_OBSERVABLE",
    "TWX_ENVIRONMENTS",
    "Outcome",
    "PDDLEnv",
    "TaskView",
    "entries",
    "entry",
    "register_envs",
]
