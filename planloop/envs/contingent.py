"""``ContingentPDDL-v0``: a contingent PDDL problem (the CLG / SDR / CPOR dialect) as a
partially observable text game, and the ids of the shipped sample.

An instance is a problem and a hidden world: problem ``instance % P`` of the ``P`` given,
its true initial world drawn uniformly from the initial belief by
``numpy.random.default_rng(instance // P)``. The agent plays by knowledge: a command is
admissible when its precondition holds in every world it still considers possible,
sensing actions tell the true value of what they observe, and the game is won when the
goal holds in every such world. What it reads (observation and ``info``, ``instance``
aside) is a function of its commands and what they sensed, never of the hidden world.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from ..pddl import ActionLookupError, Limits, UnmetFact, parse_domain, parse_problem
from ..pddl.belief import Belief
from ..pddl.contingent import GOLD_BUDGET, MAX_BELIEF, ContingentTask, Sensed
from ..pddl.source import read_source
from . import arguments
from .feedback import no_error
from .pddl_env import problem_sources
from .text_env import Step, TextEnv
from .view import Outcome, TaskView

CONTINGENT_ENVIRONMENTS = {
    "ContingentPDDL-v0": ("planloop.envs.contingent:ContingentPDDLEnv", 500),
    "Contingent-Doors-v0": ("planloop.envs.contingent:doors_env", 500),
    "Contingent-Blocks-v0": ("planloop.envs.contingent:blocks_env", 50),
    "Contingent-ColorBalls-v0": ("planloop.envs.contingent:colorballs_env", 500),
    "Contingent-Logistics-v0": ("planloop.envs.contingent:logistics_env", 100),
}
MAX_BELIEF_LIMIT = 2**31 - 1
MAX_CONTINGENT_OBS = 2**16  # characters: doors15 in words shows ~29,500
CACHE = 16  # grounded problems kept


class ContingentPDDLEnv(TextEnv):
    """A contingent domain with one problem, a list of problems or a folder of them.

    ``info`` carries the step interface's keys (``admissible_actions``, ``task``, ``won``,
    ``feedback``, ``action_error``, ``domain_pddl`` and ``problem_pddl`` as given,
    ``instance``) and what the agent knows, facts in PDDL syntax: ``known_facts``,
    ``known_false`` (of the facts the grounded task names), ``unknown_facts``, ``sensed``
    (``[{"fact": "(opened p2-3)", "value": True}]`` after a sensing command, else ``[]``)
    and ``belief_size`` (the worlds still possible). Each component of the belief holds at
    most ``max_belief`` assignments, and each query of it (the initial belief, whether a
    command is known applicable, the admissible commands, a step, the goal test) spends at
    most ``limits.max_belief_work`` work units (a ValueError naming each past it). The
    hidden world and the evaluators (:meth:`world_pddl`, :meth:`observed_facts`,
    :meth:`gold_path`) are for judges and reference policies only.
    """

    def __init__(
        self,
        domain,
        problem,
        obs_format: str = "text",
        max_belief: int = MAX_BELIEF,
        render_mode: str | None = None,
        max_obs_length: int = MAX_CONTINGENT_OBS,
        strict: bool = False,
        limits: Limits | dict | None = None,
    ):
        super().__init__(render_mode, max_obs_length)
        self.strict = arguments.boolean("strict", strict)
        self.limits = arguments.limits(limits)
        self.max_belief = arguments.integer("max_belief", max_belief, 1, MAX_BELIEF_LIMIT)
        self.view = TaskView(obs_format=obs_format)
        self.domain_text = read_source(arguments.source("domain", domain), "domain", self.limits)
        self.domain = parse_domain(self.domain_text, self.limits, self.strict, contingent=True)
        self.problems = problem_sources(arguments.sources("problem", problem))
        self._loaded: dict[int, tuple[ContingentTask, str, int]] = {}
        self.contingent: ContingentTask | None = None
        self.problem_text = ""
        self.instance = 0
        self.belief: Belief | None = None
        self.world = 0
        self._universe = 0  # the facts the grounded task names, a mask
        self._outcome: Outcome | None = None
        self._sensed: tuple[Sensed, ...] = ()

    # -- instances -------------------------------------------------------------------
    def load_problem(self, index: int) -> tuple[ContingentTask, str, int]:
        """(the grounded task, the problem text, the mask of the facts it names) of problem
        ``index`` (cached)."""
        found = self._loaded.get(index)
        if found is None:
            text = read_source(self.problems[index], "problem", self.limits)
            problem = parse_problem(text, self.domain, self.limits, self.strict, contingent=True)
            task = ContingentTask(self.domain, problem, self.limits, self.max_belief)
            if len(self._loaded) >= CACHE:
                self._loaded.pop(next(iter(self._loaded)))
            found = self._loaded[index] = (task, text, (1 << len(task.task.facts)) - 1)
        return found

    # -- gymnasium API ---------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed, options=options)
        self.instance = self._seeded_instance(seed, options)
        count = len(self.problems)
        self.contingent, self.problem_text, self._universe = self.load_problem(
            self.instance % count
        )
        self.belief = self.contingent.init
        self.world = self.contingent.draw_world(self.instance // count)
        self._outcome, self._sensed = None, ()
        return self._observe()

    def _step(self, command: str) -> Step:
        if self.contingent is None:
            raise RuntimeError("call reset() before step()")
        self._outcome = outcome = self._execute(command)
        obs, info = self._observe()
        return obs, float(outcome.won), outcome.won, False, info

    def _execute(self, command: str) -> Outcome:
        self._sensed = ()
        ct, view = self._started(), self.view
        belief = self._belief()
        action = view.known_command(command, ct.task)
        if action is None:
            try:
                action = ct.task.action(*view.read_command(command))
            except ActionLookupError as exc:
                return Outcome(exc.kind, command, message=str(exc))
            except ValueError as exc:
                return Outcome("malformed", command, message=str(exc))
        if not ct.knows(belief, action):
            return Outcome("inapplicable", command, action, unmet=tuple(ct.unmet(belief, action)))
        self.belief, self.world, self._sensed = ct.step(belief, self.world, action)
        return Outcome("ok", command, action, won=ct.is_goal(self.belief))

    # -- what the agent reads --------------------------------------------------------
    def observe(self) -> tuple[str, dict]:
        """The observation and info of the current step."""
        ct, view, belief, outcome = self._started(), self.view, self._belief(), self._outcome
        task, domain = ct.task, self.domain
        feedback = None
        if outcome is not None:
            feedback = view.feedback(outcome, task)
            if self._sensed:
                feedback += (
                    " Sensed: "
                    + ", ".join(
                        view.unmet(UnmetFact(s.fact, s.value), domain) for s in self._sensed
                    )
                    + "."
                )
        error = no_error(cause="")
        if outcome is not None and outcome.kind != "ok":
            error = {
                "kind": outcome.kind,
                "message": feedback,
                "unmet": [view.unmet(u, domain) for u in outcome.unmet],
                "cause": feedback,
            }
        unknown = view.state(task, belief.unknown) if belief.unknown else "nothing"
        lines = [feedback] if feedback is not None else []
        lines += [f"Known: {view.state(task, belief.known)}", f"Unknown: {unknown}"]
        if feedback is None:
            lines.append(f"Goal: {view.goal(task)}")
        info = {
            "admissible_actions": view.commands(ct.admissible(belief), task),
            "task": view.goal(task),
            "won": bool(outcome is not None and outcome.won),
            "feedback": feedback or "",
            "action_error": error,
            "domain_pddl": self.domain_text,
            "problem_pddl": self.problem_text,
            "known_facts": [str(a) for a in task.atoms(belief.known)],
            "known_false": [
                str(a) for a in task.atoms(self._universe & ~(belief.known | belief.unknown))
            ],
            "unknown_facts": [str(a) for a in task.atoms(belief.unknown)],
            "sensed": [{"fact": str(s.fact), "value": s.value} for s in self._sensed],
            "belief_size": belief.size,
            "instance": self.instance,
        }
        return "\n".join(lines), info

    def _observe(self):
        obs, info = self.observe()
        return self._show(obs), info

    # -- evaluators ------------------------------------------------------------------
    def _started(self) -> ContingentTask:
        if self.contingent is None:
            raise RuntimeError("call reset() first")
        return self.contingent

    def _belief(self) -> Belief:
        if self.belief is None:
            raise RuntimeError("call reset() first")
        return self.belief

    def world_pddl(self) -> tuple[str, str]:
        """The hidden world now as plain PDDL: (domain without sensing actions, problem)."""
        return self._started().world_pddl(self.world)

    def observed_facts(self) -> list[str]:
        """The true facts the agent knows now."""
        return [str(a) for a in self._started().task.atoms(self._belief().known)]

    def gold_path(self, budget: int = GOLD_BUDGET) -> list[str] | None:
        """A shortest command list that wins from now in this hidden world, by search over
        (world, belief); None when none exists, a ValueError past ``budget`` work units
        (see :meth:`~planloop.pddl.contingent.ContingentTask.gold_path`)."""
        ct = self._started()
        path = ct.gold_path(self._belief(), self.world, budget)
        return None if path is None else self.view.commands(path, ct.task)


def _sample(name: str, **kwargs) -> ContingentPDDLEnv:
    folder = Path(str(resources.files("planloop.envs") / "data" / "contingent" / name))
    return ContingentPDDLEnv(folder / "domain.pddl", folder / "problem.pddl", **kwargs)


def doors_env(**kwargs) -> ContingentPDDLEnv:
    """doors15: find the open door of each of 7 walls on a 15 x 15 grid (15^7 worlds)."""
    return _sample("doors15", **kwargs)


def blocks_env(**kwargs) -> ContingentPDDLEnv:
    """blocks2: two blocks, whether b2 is on b1 unknown (2 worlds)."""
    return _sample("blocks2", **kwargs)


def colorballs_env(**kwargs) -> ContingentPDDLEnv:
    """colorballs-10-1: find a ball of unknown colour on a 10 x 10 grid and trash it in the
    garbage of its colour (96 x 4 worlds)."""
    return _sample("colorballs", **kwargs)


def logistics_env(**kwargs) -> ContingentPDDLEnv:
    """logistic_conf: three packages, each in one of two places (8 worlds)."""
    return _sample("logistic_conf", **kwargs)
