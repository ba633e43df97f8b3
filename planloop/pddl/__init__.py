"""The symbolic core: read, ground, simulate, validate, write, rename, render and solve
PDDL. Knows nothing of gym, language models or policies."""

from .diagnostics import Diagnostic, PDDLError, quote
from .equivalent import Equivalence, equivalent
from .grounding import ActionLookupError, GroundAction, Task, UnmetFact, ground
from .heuristics import RelaxedTask
from .model import Atom, Domain, Problem
from .obfuscate import PLANBENCH_MYSTERY, Renaming, make_renaming
from .plan_result import PlanResult, PlanStatus
from .plancache import PlanCache
from .planners import PLANNER_NAMES, PLANNERS, solve
from .plans import Step, parse_command, parse_plan
from .reader import parse, parse_domain, parse_problem
from .render import (
    Templates,
    describe_domain,
    describe_problem,
    render_action,
    render_fact,
    render_facts,
    templates_for,
)
from .source import DEFAULT_LIMITS, Limits
from .validate import PlanReport, validate
from .writer import write_domain, write_problem


def load(domain, problem, limits: Limits = DEFAULT_LIMITS, strict: bool = False) -> Task:
    """Read a domain and a problem (paths or PDDL text) within ``limits`` and ground them;
    ``strict`` refuses what planners tolerate (see :mod:`planloop.pddl.reader`)."""
    return ground(*parse(domain, problem, limits, strict), limits)


__all__ = [
    "ActionLookupError",
    "Atom",
    "Diagnostic",
    "Domain",
    "Equivalence",
    "GroundAction",
    "Limits",
    "PDDLError",
    "PLANBENCH_MYSTERY",
    "PLANNER_NAMES",
    "PLANNERS",
    "PlanCache",
    "PlanReport",
    "PlanResult",
    "PlanStatus",
    "Problem",
    "RelaxedTask",
    "Renaming",
    "Step",
    "Task",
    "Templates",
    "UnmetFact",
    "describe_domain",
    "describe_problem",
    "equivalent",
    "ground",
    "load",
    "make_renaming",
    "parse",
    "parse_command",
    "parse_domain",
    "parse_plan",
    "parse_problem",
    "quote",
    "render_action",
    "render_fact",
    "render_facts",
    "solve",
    "templates_for",
    "validate",
    "write_domain",
    "write_problem",
]
