"""``ALFWorld-v0``: ALFWorld's text games on planloop's own engine (no TextWorld)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from ...pddl import Limits, write_problem
from ...pddl.model import Problem
from .. import arguments
from ..feedback import check_feedback, observation
from ..info import ALFWorldInfo, CausedError, caused_error, step_info
from ..text_env import MAX_OBS, Step, TextEnv
from .causes import explain
from .engine import Engine, Outcome, World
from .game import Game, load_game
from .generate import find_logic_dir, generate_game, walkthrough
from .sources import (
    RELEASE,
    SPLITS,
    file_entry,
    folder_entries,
    generated_entries,
    split_folder,
)

MAX_GENERATED = 100_000  # num_generated; ALFWorld's own train split has 3,553 games


_ALWAYS_KNOWN = frozenset({"agent", "otype", "rtype"})


class ALFWorldEnv(TextEnv[ALFWorldInfo]):
    """ALFWorld's text games, played by planloop's engine.

    The games: one file (``game_file=``); a folder of them (``data_dir=``, every
    ``game.tw-pddl`` under it); ALFWorld's released data (``data_dir=`` or
    ``$ALFWORLD_DATA`` holding ``json_2.1.1``, with ``split="train" | "valid_seen" |
    "valid_unseen"``); or, with none of these, ``num_generated`` games from the offline
    generator (ALFWorld's logic files from ``logic_dir=``, ``$ALFWORLD_DATA/logic`` or
    the ``alfworld`` package). ``task_types=`` selects task types. Games are in sorted
    order; the instance is drawn from the seed or given as ``reset(options={"instance":
    i})``. Games ALFWorld's own environment skips (sliced objects, movable receptacles)
    are kept, with ``info["flags"]`` saying so, unless ``skip_flagged=True``. Each
    game's PDDL is read and grounded within ``limits`` (a :class:`~planloop.pddl.Limits`
    or a dict of its fields).

    Observations and actions are strings; the texts, admissible commands and win are
    those of ALFWorld's text environment. ``info`` (a :class:`~..info.ALFWorldInfo`)
    carries ``admissible_actions``, ``task``, ``won``, ``feedback``, ``action_error``,
    ``task_type``, ``flags`` and ``instance``. An ``action_error`` has a ``cause`` in
    words (see ``causes``), which ``feedback="detailed"`` appends to the game's "Nothing
    happens." in the observation (``"game"``, the default: the game's text alone). The
    hidden world is ``self.task`` and ``self.state`` (``self.world`` adds the engine's
    memory of negated facts); see also :meth:`world_pddl`, :meth:`observed_facts` and
    :meth:`walkthrough`.
    """

    def __init__(
        self,
        game_file: str | os.PathLike | None = None,
        data_dir: str | os.PathLike | None = None,
        split: str | None = None,
        task_types=None,
        skip_flagged: bool = False,
        num_generated: int = 600,
        logic_dir: str | os.PathLike | None = None,
        feedback: str = "game",
        render_mode: str | None = None,
        max_obs_length: int = MAX_OBS,
        limits: Limits | dict | None = None,
    ):
        super().__init__(render_mode, max_obs_length)
        self.feedback = check_feedback(feedback)
        if game_file is not None and data_dir is not None:
            raise ValueError("give game_file= or data_dir=, not both")
        split = arguments.choice("split", split, SPLITS, optional=True)
        skip_flagged = arguments.boolean("skip_flagged", skip_flagged)
        num_generated = arguments.integer("num_generated", num_generated, 1, MAX_GENERATED)
        self.limits = arguments.limits(limits)
        self.logic_dir = None
        released = os.environ.get("ALFWORLD_DATA")
        if game_file is not None:
            self.games = [file_entry(game_file)]
        elif data_dir is not None or (released and Path(released, RELEASE).is_dir()):
            folder = data_dir or released
            assert folder is not None  # data_dir or released, as the condition says
            self.games = folder_entries(split_folder(folder, split), task_types, skip_flagged)
        elif split is not None:
            raise ValueError(
                f"split={split!r} needs ALFWorld's released games: set "
                f"ALFWORLD_DATA or data_dir= to the folder holding {RELEASE}/"
            )
        else:
            self.logic_dir = find_logic_dir(logic_dir)
            self.games = generated_entries(task_types, num_generated)
        self._engines: dict[int, Engine] = {}
        self._generated: dict[int, dict] = {}  # generated games, walkthrough once asked for
        self.engine: Engine | None = None
        self.world: World | None = None
        self.instance = 0
        self._seen: list[str] = []  # the game's texts shown since the reset
        self._shown: set[str] = set()  # the objects named in _seen[:_scanned]
        self._scanned = 0

    # -- games -----------------------------------------------------------------------
    @property
    def num_instances(self) -> int:
        return len(self.games)

    def load_instance(self, index: int) -> Engine:
        """The engine of game ``index`` (loaded, or generated, once)."""
        index = self._check_instance(index)
        engine = self._engines.get(index)
        if engine is None:
            entry = self.games[index]
            source: Path | dict
            if entry.path is not None:
                source = entry.path
            else:
                # An entry without a path is a generated game's: generated_entries gives
                # each its task type and seed.
                assert entry.task_type is not None and entry.seed is not None
                source = self._generated[index] = generate_game(
                    entry.task_type, entry.seed, self.logic_dir, with_walkthrough=False
                )
            engine = self._engines[index] = Engine(load_game(source, self.limits))
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
        """The game file's walkthrough: commands that win from the start (a generated
        game's is planned the first time it is asked for)."""
        if self.engine is None:
            raise RuntimeError("call reset() first")
        generated = self._generated.get(self.instance)
        if generated is None:
            return list(self.engine.game.walkthrough)
        if not generated["walkthrough"]:
            generated["walkthrough"] = walkthrough(generated)
        return list(generated["walkthrough"])

    # -- gymnasium API ---------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed, options=options)
        self.instance = self._choose_instance(options)
        self.engine = self.load_instance(self.instance)
        self.world = self.engine.initial_world()
        self._seen, self._shown, self._scanned = [], set(), 0
        intro = self.engine.intro(self.world)
        return self._begin(*self._emit(intro, Outcome(self.world, intro)))

    def _started(self) -> tuple[Engine, World]:
        """``self.engine`` and ``self.world``, once :meth:`reset` has set them."""
        if self.engine is None or self.world is None:
            raise RuntimeError("call reset() first")
        return self.engine, self.world

    def _step(self, command: str) -> Step[ALFWorldInfo]:
        if self.engine is None:
            raise RuntimeError("call reset() before step()")
        engine, world = self._started()
        outcome = engine.execute(world, command)
        self.world = outcome.world
        obs, info = self._emit(outcome.feedback, outcome)
        won = info["won"]
        return obs, float(won), won, False, info

    def _emit(self, obs: str, outcome: Outcome) -> tuple[str, ALFWorldInfo]:
        engine, world = self._started()
        admissible = engine.commands(world)
        error = caused_error() if outcome.failure is None else self._error(outcome, admissible)
        info = step_info(
            ALFWorldInfo,
            list(admissible),
            engine.game.sentence,
            bool(engine.task.is_goal(world.state)),
            outcome.feedback,
            error,
            {
                "task_type": engine.game.task_type,
                "flags": self.games[self.instance].flags,
                "instance": self.instance,
            },
        )
        self._seen.append(obs)
        return self._show(observation(self.feedback, obs, error)), info

    def _error(self, outcome: Outcome, admissible: Iterable[str]) -> CausedError:
        """The ``action_error`` of a failed command, its cause included."""
        engine = self._started()[0]
        failure = outcome.failure
        assert failure is not None  # _emit asks only about a failed command
        return caused_error(
            failure.kind,
            failure.message,
            [engine.show_unmet(u) for u in failure.unmet],
            explain(engine, outcome.world, failure, admissible, self._shown_objects()),
        )

    def _shown_objects(self) -> set[str]:
        """The objects the texts shown since the reset have named."""
        for text in self._seen[self._scanned :]:
            self._shown |= self._started()[0].objects_named(text)
        self._scanned = len(self._seen)
        return self._shown

    # -- ground truth for evaluators --------------------------------------------------
    def world_pddl(self) -> tuple[str, str]:
        """The hidden world now: (domain text, problem text of the current state), in the
        game's object ids; ``self.game.entities`` maps an id to its displayed name.

        The texts read without a warning in the strict reading: the domain's constants
        (``sinkbasintype``, ...) are not among the problem's objects, and facts ALFWorld's
        own typing excludes are left out (its ``look`` marks a location ``checked``, a
        predicate typed for receptacles, and no precondition reads such facts)."""
        domain_text, problem = self.world_model()
        return domain_text, write_problem(problem, self._started()[0].task.domain)

    def world_model(self) -> tuple[str, Problem]:
        """:meth:`world_pddl` without writing the problem: the domain text, and the
        Problem that reading the problem text against it gives."""
        engine, world = self._started()
        task = engine.task
        domain = task.domain
        well_typed = tuple(
            fact
            for fact in task.atoms(world.state)
            if all(
                domain.is_subtype(task.objects[arg], param.types)
                for arg, param in zip(
                    fact.args, domain.predicates[fact.predicate].params, strict=True
                )
            )
        )
        objects = {
            o: t for o, t in task.problem.objects.items() if o not in domain.external_constants
        }
        return engine.domain_pddl, replace(task.problem, objects=objects, init=well_typed)

    def observed_facts(self) -> list[str]:
        """The true facts about what the texts shown since the reset have named: every
        object of the fact was named (the agent and the object and receptacle types are
        always known; locations never are)."""
        engine, world = self._started()
        task = engine.task
        shown = self._shown_objects() | {
            obj for obj, obj_type in task.objects.items() if obj_type in _ALWAYS_KNOWN
        }
        return [
            str(fact) for fact in task.atoms(world.state) if all(arg in shown for arg in fact.args)
        ]
