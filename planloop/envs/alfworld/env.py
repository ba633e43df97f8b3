"""``ALFWorld-v0``: ALFWorld's text games on planloop's own engine (no TextWorld)."""

from __future__ import annotations

import os
from pathlib import Path

from ..text_env import TextEnv
from .engine import Engine, Outcome, World
from .game import Game, load_game


class ALFWorldEnv(TextEnv):
    """One ALFWorld game (``game_file=``) or a folder of them (``data_dir=``, the
    ``*/game.tw-pddl`` files in sorted order; the instance is drawn from the seed or
    given as ``reset(options={"instance": i})``).

    Observations and actions are strings; the texts, admissible commands and win are
    those of ALFWorld's text environment. ``info`` carries ``admissible_actions``,
    ``task``, ``won``, ``feedback``, ``action_error``, ``task_type`` and ``instance``.
    The hidden world is ``self.task`` and ``self.state`` (``self.world`` adds the
    engine's memory of negated facts).
    """

    def __init__(self, game_file: str | os.PathLike | None = None,
                 data_dir: str | os.PathLike | None = None, render_mode: str | None = None):
        super().__init__(render_mode)
        if (game_file is None) == (data_dir is None):
            raise ValueError("give exactly one of game_file= and data_dir=")
        if game_file is not None:
            self.game_files = [Path(game_file)]
        else:
            self.game_files = sorted(Path(data_dir).glob("*/game.tw-pddl"))
            if not self.game_files:
                raise ValueError(f"no */game.tw-pddl in {data_dir}")
        self._engines: dict[int, Engine] = {}
        self.engine: Engine | None = None
        self.world: World | None = None
        self.instance = 0

    # -- games -----------------------------------------------------------------------
    @property
    def num_instances(self) -> int:
        return len(self.game_files)

    def load_instance(self, index: int) -> Engine:
        """The engine of game ``index`` (loaded once)."""
        if not 0 <= index < len(self.game_files):
            raise IndexError(f"instance {index} out of range 0..{len(self.game_files) - 1}")
        engine = self._engines.get(index)
        if engine is None:
            engine = self._engines[index] = Engine(load_game(self.game_files[index]))
        return engine

    @property
    def game(self) -> Game | None:
        return None if self.engine is None else self.engine.game

    @property
    def task(self):
        return None if self.engine is None else self.engine.task

    @property
    def state(self) -> int | None:
        return None if self.world is None else self.world.state

    def walkthrough(self) -> list[str]:
        """The game file's walkthrough: commands that win from the start."""
        if self.engine is None:
            raise RuntimeError("call reset() first")
        return list(self.engine.game.walkthrough)

    # -- gymnasium API ---------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.instance = self._choose_instance(options, len(self.game_files))
        self.engine = self.load_instance(self.instance)
        self.world = self.engine.initial_world()
        intro = self.engine.intro(self.world)
        return self._emit(intro, Outcome(self.world, intro))

    def step(self, action: str):
        if self.engine is None:
            raise RuntimeError("call reset() before step()")
        outcome = self.engine.execute(self.world, str(action))
        self.world = outcome.world
        obs, info = self._emit(outcome.feedback, outcome)
        won = info["won"]
        return obs, float(won), won, False, info

    def _emit(self, obs: str, outcome: Outcome):
        engine = self.engine
        info = {
            "admissible_actions": list(engine.commands(self.world)),
            "task": engine.game.sentence,
            "won": bool(engine.task.is_goal(self.world.state)),
            "feedback": outcome.feedback,
            "action_error": outcome.error,
            "task_type": engine.game.task_type,
            "instance": self.instance,
        }
        return self._show(obs), info
