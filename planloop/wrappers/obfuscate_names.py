"""Rename a PDDL environment's predicates and actions (and objects): any domain
becomes a Mystery domain."""

from __future__ import annotations

import gymnasium as gym

from ..envs.pddl_env import PDDLEnv
from ..envs.view import TaskView
from ..pddl import make_renaming


class ObfuscateNames(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Show the agent seeded fresh names (``style`` ``words``, ``random`` or
    ``planbench``) and read its commands only in them.

    The wrapper gives the underlying :class:`PDDLEnv` a renamed view, so every text
    the environment produces (observations, feedback, ``info``) uses the new names
    and the true names become unknown words. With ``objects=True`` objects are
    renamed too, afresh for each instance.
    """

    def __init__(
        self,
        env: gym.Env,
        style: str = "words",
        seed: int = 0,
        objects: bool = False,
        obs_format: str | None = None,
    ):
        gym.utils.RecordConstructorArgs.__init__(
            self, style=style, seed=seed, objects=objects, obs_format=obs_format
        )
        gym.Wrapper.__init__(self, env)
        base = env.unwrapped
        if not isinstance(base, PDDLEnv):
            raise TypeError("ObfuscateNames needs a PDDL environment (planloop PDDLEnv)")
        self._style, self._seed, self._objects = style, seed, objects
        self._obs_format = obs_format or base.view.obs_format
        self._base: PDDLEnv = base
        base.view = self._make_view(None)

    def _make_view(self, task) -> TaskView:
        objects = list(task.objects) if task is not None else None
        renaming = make_renaming(self._base.domain, self._style, self._seed, objects)
        name = "mystery-4ops" if self._style == "planbench" else "obfuscated-domain"
        return TaskView(renaming, self._obs_format, domain_name=name)

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        if not self._objects:
            return obs, info
        base = self._base
        base.view = self._make_view(base.task)
        obs, renamed = base.observe()
        return obs, dict(info, **renamed)
