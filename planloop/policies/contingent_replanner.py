"""An optimistic replanner for contingent PDDL environments (``ContingentPDDL-v0``).

It reads only the step interface: the domain and problem in ``info`` (for the actions,
objects and goal), what the agent knows (``known_facts``, ``unknown_facts``) and the
admissible commands. Each step it senses an unknown fact when an admissible sensing
command observes one; else it follows its plan while the next step is admissible, and
otherwise plans again with Fast Downward on a classical task written from what it
knows, assuming every unknown fact true (then, if that plan fails at once, random
assumptions; last, a random admissible command).
"""

from __future__ import annotations

import random
from dataclasses import replace

from ..pddl import Atom, Domain, Problem, parse_command, parse_domain, parse_problem, solve
from ..pddl.writer import write_domain, write_problem
from .base import GIVE_UP

RANDOM_ASSUMPTIONS = 3  # tries with unknown facts drawn at random, after the optimistic one


class ContingentReplanner:
    """Sense what is unknown, plan an optimistic world, execute while admissible, replan."""

    def __init__(self, planner: str = "lama-first", timeout: float = 60.0, seed: int = 0):
        self.planner, self.timeout = planner, timeout
        self.name = f"contingent-replanner:{planner}"
        self._rng = random.Random(seed)
        self._plan: list[str] = []
        self.planner_calls = 0
        self._domain: Domain | None = None
        self._classical = ""
        self._problem: Problem | None = None

    def reset(self, obs: str, info: dict) -> None:
        if "unknown_facts" not in info:
            raise ValueError(
                "ContingentReplanner needs a contingent environment "
                "(info['known_facts'] and info['unknown_facts'])"
            )
        self._domain = parse_domain(info["domain_pddl"], contingent=True)
        self._problem = parse_problem(info["problem_pddl"], self._domain, contingent=True)
        self._classical = write_domain(
            replace(
                self._domain,
                actions={n: a for n, a in self._domain.actions.items() if not a.observe},
                requirements=tuple(r for r in self._domain.requirements if r != ":contingent"),
            )
        )
        self._plan, self.planner_calls = [], 0

    def _started(self) -> tuple[Domain, Problem]:
        """The domain and problem :meth:`reset` read."""
        if self._domain is None or self._problem is None:
            raise RuntimeError("call reset() first")
        return self._domain, self._problem

    def act(self, obs: str, info: dict) -> str:
        admissible = info["admissible_actions"]
        sensing = self._useful_sensing(admissible, set(info["unknown_facts"]))
        if sensing is not None:
            return sensing
        if self._plan and self._plan[0] in admissible:
            return self._plan.pop(0)
        unknown = info["unknown_facts"]
        assumptions = [list(unknown)] + [
            [f for f in unknown if self._rng.random() < 0.5] for _ in range(RANDOM_ASSUMPTIONS)
        ]
        for assumed in assumptions:
            plan = self._planned(info["known_facts"] + assumed)
            if plan and plan[0] in admissible:
                self._plan = plan[1:]
                return plan[0]
        self._plan = []
        return self._rng.choice(admissible) if admissible else GIVE_UP

    def _useful_sensing(self, admissible: list[str], unknown: set[str]) -> str | None:
        """The first admissible sensing command that observes an unknown fact."""
        for command in admissible:
            name, args = parse_command(command)
            schema = self._started()[0].actions.get(name)
            if schema is None or not schema.observe:
                continue
            binding = dict(zip((p.name for p in schema.params), args, strict=True))
            if any(
                str(Atom(a.predicate, tuple(binding.get(t, t) for t in a.args))) in unknown
                for a in schema.observe
            ):
                return command
        return None

    def _planned(self, facts: list[str]) -> list[str] | None:
        """A plan from the state of ``facts`` (PDDL atoms) to the goal, or None."""
        init = tuple(dict.fromkeys(_atom(f) for f in facts))
        domain, started = self._started()
        problem = replace(started, domain_name=domain.name, init=init, unknown=(), clauses=())
        self.planner_calls += 1
        result = solve(
            self._classical, write_problem(problem), planner=self.planner, timeout=self.timeout
        )
        if not result.solved:
            return None
        assert result.plan is not None  # a solved result holds its plan
        return list(result.plan)


def _atom(text: str) -> Atom:
    name, *args = text.strip("()").split()
    return Atom(name, tuple(args))
