"""The layered checks a formalization passes before anything is sent to the game:
the reader's diagnostics, the goal (empty; already true, which the planner's empty
plan shows), the planner, then the mapping of the plan's first step to a game command
(later steps are mapped when they are reached, against the commands valid then). The
first that fails is a ``CheckFailure`` whose message is never
empty and names the defect, for the inner (solver-error) loop: each of the reader's errors
with its place, its source line, and the form read as planners read it that led to it."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import PlanloopError
from ..pddl import Diagnostic, Domain, PDDLError, parse, solve
from ..pddl.diagnostics import summary
from ..pddl.ff_reading import read_ff
from ..pddl.model import And
from ..pddl.source import DEFAULT_LIMITS
from .extract import Files
from .mapping import CommandMapper

STAGES = ("syntax", "goal", "planner", "mapping")


class CheckFailure(PlanloopError):
    """A formalization that cannot be acted on; ``stage`` is one of STAGES. ``warnings``
    are the reader's, when the files could be read; ``errors``, the reader's errors when
    they could not."""

    def __init__(
        self,
        stage: str,
        message: str,
        warnings: tuple[Diagnostic, ...] = (),
        errors: tuple[Diagnostic, ...] = (),
    ):
        self.stage, self.message, self.warnings, self.errors = stage, message, warnings, errors
        super().__init__(f"{stage}: {message}")

    def summary(self) -> str:
        """The failure on one line, for a table or a log: the reader's errors numbered
        and capped (see :func:`planloop.pddl.diagnostics.summary`)."""
        text = summary(self.errors) if self.errors else " ".join(self.message.split())
        return f"{self.stage}: {text}"


@dataclass(frozen=True)
class Checked:
    """A formalization that passed: its plan, the planner's record, the reader's warnings
    (forms planners accept, see :mod:`planloop.pddl.reader`) and the domain it read."""

    plan: tuple[str, ...]
    planner: dict
    warnings: tuple[Diagnostic, ...] = ()
    domain: Domain | None = None


def check(
    files: Files,
    mapper: CommandMapper | None,
    valid_commands,
    *,
    planner: str = "auto",
    timeout: float = 30.0,
    solver=solve,
    strict: bool = False,
) -> Checked:
    """Check ``files``, read as planners read them unless ``strict``; raise CheckFailure
    at the first layer that fails. ``mapper=None`` skips the mapping layer (a plan step
    naming no command is then the game's to refuse)."""
    try:
        if planner == "authors":  # as the authors' FF-based parser reads them
            domain, problem = read_ff(files.df, files.pf, DEFAULT_LIMITS)
        else:
            domain, problem = parse(files.df, files.pf, strict=strict)
    except PDDLError as exc:
        raise CheckFailure("syntax", str(exc), errors=exc.diagnostics) from exc
    warnings = domain.warnings + problem.warnings

    def failure(stage: str, message: str) -> CheckFailure:
        return CheckFailure(stage, message, warnings)

    if problem.goal == And(()):
        raise failure("goal", "the goal is empty: set a goal the plan should reach")
    # the texts, not the models: the planner remembers a domain text it has read
    result = solver(files.df, files.pf, planner=planner, timeout=timeout, strict=strict)
    record = {
        "status": result.status,
        "planner": result.planner,
        "seconds": round(result.seconds, 4),
    }
    if not result.solved:
        raise failure("planner", _planner_message(result))
    if not result.plan:
        raise failure(
            "goal",
            "the goal is already true in the initial state: set a goal that is not reached yet",
        )
    if mapper is not None and mapper.command_for(result.plan[0], valid_commands, domain) is None:
        raise failure(
            "mapping",
            f"the plan's first step, {result.plan[0]}, names no command "
            f"of the game; the game's commands look like: "
            f"{', '.join(mapper.examples())}",
        )
    return Checked(tuple(result.plan), record, warnings, domain)


def warning_records(warnings) -> list[dict]:
    """Warnings as an episode record keeps them."""
    return [
        {"stage": w.stage, "line": w.line, "col": w.col, "message": w.message} for w in warnings
    ]


def _planner_message(result) -> str:
    if result.status == "unsolvable":
        return (
            "the planner proved that no plan reaches the goal from the initial state: "
            "check the initial facts (connections, what is open or closed, where things "
            "are), the actions' preconditions and effects, and whether the goal is "
            f"reachable ({result.message})"
        )
    if result.status == "timeout":
        return f"the planner found no plan within its time limit ({result.message})"
    return f"the planner failed: {result.status}: {result.message or 'no message'}"
