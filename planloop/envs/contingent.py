"""``ContingentPDDL-v0``: a contingent PDDL problem (the CLG / SDR / CPOR dialect) as a
partially observable text game, and the ids of the shipped sample.

An instance is a problem and a hidden world: problem ``instance % P`` of the ``P`` given,
its true initial world drawn from the initial belief by
``numpy.random.default_rng(instance // P)`` (uniformly while no component of the belief
is a formula), or chosen (see
:meth:`ContingentPDDLEnv.reset`). The agent plays by knowledge: a command is
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
from ..pddl.dialects import effect_literals
from ..pddl.hidden import hidden_world, read_hidden
from ..pddl.model import Atom, Problem
from ..pddl.source import read_source
from . import arguments
from .info import ContingentInfo, SensedFact, caused_error, failure_kind, step_info
from .pddl_env import problem_sources
from .text_env import Step, TextEnv
from .view import Outcome, TaskView

MAX_BELIEF_LIMIT = 2**31 - 1
MAX_CONTINGENT_OBS = 2**16  # characters: the sample's shows at most ~5,800 (doors15, reset)
CACHE = 16  # grounded problems kept


class ContingentPDDLEnv(TextEnv[ContingentInfo]):
    """A contingent domain with one problem, a list of problems or a folder of them.

    ``info`` (a :class:`~.info.ContingentInfo`) carries the step interface's keys
    (``admissible_actions``, ``task``, ``won``, ``feedback``, ``action_error``,
    ``domain_pddl`` and ``problem_pddl`` as given, ``instance``) and what the agent
    knows, facts in PDDL syntax: ``known_facts`` (true in every world),
    ``unknown_facts``, ``known_false`` (the facts that ``:init`` leaves open,
    or that were unknown or sensed this episode, now false in every world: closed-world
    facts never in doubt are not listed, and a sensed fact is in ``known_facts`` or
    ``known_false`` from then on until a step makes it unknown again), ``sensed`` (``[{"fact": "(opened p2-3)", "value": True}]``
    after a sensing command, else ``[]``) and ``belief_size`` (the worlds still possible,
    -1 while a component of the belief is held as a formula). A component of more than
    ``max_belief`` assignments is held as a formula, and each query of the belief (the
    initial belief, whether a command is known applicable, the admissible commands, a
    step, the goal test) spends at most ``limits.max_belief_work`` work units (a
    ValueError naming it past it). The
    hidden world and the evaluators (:meth:`world_pddl`, :meth:`observed_facts`,
    :meth:`gold_path`) are for judges and reference policies only.

    The observation at reset states the facts that never change (known then, of
    predicates no action changes), then each observation what is known of the others and
    what is unknown, grouped by predicate (:data:`GROUPED`); ``repeat_static=True``
    states the unchanging facts at every step. ``hidden=`` plays a hidden-worlds file's
    worlds (see :meth:`reset`).
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
        hidden=None,
        repeat_static: bool = False,
    ):
        super().__init__(render_mode, max_obs_length)
        self.hidden = None if hidden is None else arguments.hidden("hidden", hidden)
        self.repeat_static = arguments.boolean("repeat_static", repeat_static)
        self.strict = arguments.boolean("strict", strict)
        self.limits = arguments.limits(limits)
        self.max_belief = arguments.integer("max_belief", max_belief, 1, MAX_BELIEF_LIMIT)
        self.view = TaskView(obs_format=obs_format)
        self.domain_text = read_source(arguments.source("domain", domain), "domain", self.limits)
        self.domain = parse_domain(self.domain_text, self.limits, self.strict, contingent=True)
        self.problems = problem_sources(arguments.sources("problem", problem))
        self._loaded: dict[int, tuple[ContingentTask, str]] = {}
        self.contingent: ContingentTask | None = None
        self.problem_text = ""
        self.instance = 0
        self.belief: Belief | None = None
        self.world = 0
        self._once = 0  # the facts left open by :init, once unknown or sensed, a mask
        self._outcome: Outcome | None = None
        self._sensed: tuple[Sensed, ...] = ()
        self._worlds: dict[int, tuple] = {}  # problem index -> the worlds of ``hidden``
        self._static = 0  # the facts known at reset that no action changes, a mask
        self._static_text = ""
        self._unknown = (-1, "")  # the unknown facts (a mask) last shown, and their text

    # -- instances -------------------------------------------------------------------
    def load_problem(self, index: int) -> tuple[ContingentTask, str]:
        """(the grounded task, the problem text) of problem ``index`` (cached)."""
        found = self._loaded.get(index)
        if found is None:
            text = read_source(self.problems[index], "problem", self.limits)
            problem = parse_problem(text, self.domain, self.limits, self.strict, contingent=True)
            task = ContingentTask(self.domain, problem, self.limits, self.max_belief)
            if len(self._loaded) >= CACHE:
                self._loaded.pop(next(iter(self._loaded)))
            found = self._loaded[index] = (task, text)
        return found

    # -- gymnasium API ---------------------------------------------------------------
    reset_options = arguments.CONTINGENT_RESET_OPTIONS

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an instance (see the module's docstring). ``options["hidden"]`` plays the
        one world it gives (see :func:`~.arguments.hidden`); with ``hidden=`` or a
        problem's own ``:hidden`` sections, instance *i* plays world *(i // P) mod W* of
        them, and with ``hidden=`` a reset without a seed or instance plays the next
        instance (the first: 0). A world outside the initial belief is a ValueError."""
        super().reset(seed=seed, options=options)
        if self.hidden is not None and seed is None and "instance" not in (options or {}):
            instance = self.instance + 1 if self.contingent is not None else 0
        else:
            instance = self._seeded_instance(seed, options)
        count = len(self.problems)
        ct, text = self.load_problem(instance % count)
        world = self._world(ct, instance, options)
        self.instance, self.contingent, self.problem_text, self.world = instance, ct, text, world
        self.belief = self.contingent.start()
        self._once = self.contingent.uncertain
        self._outcome, self._sensed = None, ()
        changing, facts = _changing(ct), ct.task.facts
        self._static = sum(
            1 << fid
            for fid in ct.task.true_ids(self.belief.known)
            if facts[fid].predicate not in changing
        )
        self._static_text = _grouped(self.view, ct.task.atoms(self._static))
        return self._begin(*self._observe())

    def _world(self, ct: ContingentTask, instance: int, options: dict | None) -> int:
        """The hidden world of ``instance`` (of task ``ct``), or the one ``options`` give."""
        count = len(self.problems)
        if options and "hidden" in options:
            worlds = _worlds(options["hidden"], ct, self.limits)
            if len(worlds) != 1:
                raise ValueError(
                    f"options['hidden'] holds {len(worlds)} worlds: give one (hidden= plays "
                    f"a file's worlds in order)"
                )
            return hidden_world(ct, worlds[0])
        if self.hidden is not None:
            index = instance % count
            if index not in self._worlds:
                self._worlds[index] = _worlds(self.hidden, ct, self.limits)
            worlds = self._worlds[index]
        else:
            worlds = ct.problem.hidden
        if worlds:
            return hidden_world(ct, worlds[(instance // count) % len(worlds)])
        return ct.draw_world(instance // count)

    def _step(self, command: str) -> Step[ContingentInfo]:
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
                return Outcome(failure_kind(exc.kind), command, message=str(exc))
            except ValueError as exc:
                return Outcome("malformed", command, message=str(exc))
        if not ct.knows(belief, action):
            return Outcome("inapplicable", command, action, unmet=tuple(ct.unmet(belief, action)))
        self.belief, self.world, self._sensed = ct.step(belief, self.world, action)
        self._once |= self.belief.unknown | sum(1 << fid for fid in ct.observed(action))
        return Outcome("ok", command, action, won=ct.is_goal(self.belief))

    # -- what the agent reads --------------------------------------------------------
    def observe(self) -> tuple[str, ContingentInfo]:
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
        error = caused_error()
        if outcome is not None and outcome.kind != "ok":
            unmet = [view.unmet(u, domain) for u in outcome.unmet]
            error = caused_error(outcome.kind, feedback or "", unmet, feedback or "")
        if self._unknown[0] != belief.unknown:
            self._unknown = (belief.unknown, _grouped(view, task.atoms(belief.unknown)))
        unknown = self._unknown[1] or "nothing"
        known = belief.known & ~self._static
        lines = [feedback] if feedback is not None else []
        if feedback is None or self.repeat_static:
            lines.append(GROUPED)
            if self._static:
                lines.append(f"Never change: {self._static_text}")
        lines += [
            f"Known: {view.state(task, known) if known else 'nothing'}",
            f"Unknown: {unknown}",
        ]
        if feedback is None:
            lines.append(f"Goal: {view.goal(task)}")
        info = step_info(
            ContingentInfo,
            view.commands(ct.admissible(belief), task),
            view.goal(task),
            ct.is_goal(belief) if outcome is None else outcome.won,
            feedback or "",
            error,
            {
                "domain_pddl": self.domain_text,
                "problem_pddl": self.problem_text,
                "known_facts": [str(a) for a in task.atoms(belief.known)],
                "known_false": [
                    str(a) for a in task.atoms(self._once & ~(belief.known | belief.unknown))
                ],
                "unknown_facts": [str(a) for a in task.atoms(belief.unknown)],
                "sensed": [SensedFact(fact=str(s.fact), value=s.value) for s in self._sensed],
                "belief_size": -1 if belief.size is None else belief.size,
                "instance": self.instance,
            },
        )
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


GROUPED = (
    'Facts are grouped by predicate: "p a: b c; d: e" stands for (p a b), (p a c) and '
    '(p d e), "p (symmetric) a: b" for (p a b) and (p b a); "|" separates predicates.'
)


def _grouped(view: TaskView, atoms: list[Atom]) -> str:
    """``atoms`` in the agent's names, by predicate and then by all arguments but the
    last: ``adj p1-1: p1-2 p2-1; p1-2: p1-1 | opened: p1-1 p1-2``; a relation of two
    arguments that holds both ways of every pair lists each pair once, marked
    ``(symmetric)``."""
    renaming = view.renaming
    by_predicate: dict[str, list[tuple[str, ...]]] = {}
    for atom in atoms:
        seen = renaming.atom(atom) if renaming.predicates or renaming.objects else atom
        by_predicate.setdefault(seen.predicate, []).append(seen.args)
    parts = []
    for predicate, tuples in by_predicate.items():
        name = predicate
        pairs = set(tuples)
        if len(tuples[0]) == 2 and all((b, a) in pairs for a, b in tuples):
            name += " (symmetric)"
            kept: set[tuple[str, ...]] = set()
            for a, b in tuples:
                if (b, a) not in kept:
                    kept.add((a, b))
            tuples = [t for t in tuples if t in kept]
        groups: dict[tuple[str, ...], list[str]] = {}
        for args in tuples:
            groups.setdefault(args[:-1], []).append(args[-1] if args else "")
        items = [
            (" ".join(head) + ": " if head else "") + " ".join(lasts)
            for head, lasts in groups.items()
        ]
        parts.append(f"{name} {'; '.join(items)}".strip())
    return " | ".join(parts)


def _changing(ct: ContingentTask) -> set[str]:
    """The predicates some action's effects change."""
    return {
        lit.atom.predicate
        for action in ct.domain.actions.values()
        for lit in effect_literals(action.effects)
    }


def _worlds(source, ct: ContingentTask, limits: Limits) -> tuple[tuple[Atom, ...], ...]:
    """The hidden worlds ``source`` gives for ``ct``: a parsed problem's, or those
    :func:`~planloop.pddl.hidden.read_hidden` reads."""
    if isinstance(source, Problem):
        return source.hidden
    return read_hidden(source, ct.domain, ct.problem, limits)


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
