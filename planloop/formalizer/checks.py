"""The layered checks a formalization passes before anything is sent to the game:
the reader's diagnostics, the goal (empty; already true, which the planner's empty
plan shows), the planner, then the mapping of the plan's first step to a game command
(later steps are mapped when they are reached, against the commands valid then). The
first that fails is a ``CheckFailure`` whose message is never
empty and names the defect, for the inner (solver-error) loop."""

from __future__ import annotations

from dataclasses import dataclass

from ..pddl import PDDLError, parse, solve
from ..pddl.model import And
from .extract import Files
from .mapping import CommandMapper

STAGES = ("syntax", "goal", "planner", "mapping")


class CheckFailure(Exception):
    """A formalization that cannot be acted on; ``stage`` is one of STAGES."""

    def __init__(self, stage: str, message: str):
        self.stage, self.message = stage, message
        super().__init__(f"{stage}: {message}")


@dataclass(frozen=True)
class Checked:
    """A formalization that passed: its plan, and the planner's record."""

    plan: tuple[str, ...]
    planner: dict


def check(files: Files, mapper: CommandMapper, valid_commands, planner: str = "auto",
          timeout: float = 30.0, solver=solve) -> Checked:
    """Check ``files``; raise CheckFailure at the first layer that fails."""
    try:
        problem = parse(files.df, files.pf)[1]
    except PDDLError as exc:
        raise CheckFailure("syntax", str(exc)) from exc
    if problem.goal == And(()):
        raise CheckFailure("goal", "the goal is empty: set a goal the plan should reach")
    # the texts, not the models: the planner remembers a domain text it has read
    result = solver(files.df, files.pf, planner=planner, timeout=timeout)
    record = {"status": result.status, "planner": result.planner,
              "seconds": round(result.seconds, 4)}
    if not result.solved:
        raise CheckFailure("planner", _planner_message(result))
    if not result.plan:
        raise CheckFailure("goal", "the goal is already true in the initial state: set a "
                                   "goal that is not reached yet")
    if mapper.command_for(result.plan[0], valid_commands) is None:
        raise CheckFailure("mapping", f"the plan's first step, {result.plan[0]}, names no "
                                      f"command of the game; the game's commands look like: "
                                      f"{', '.join(mapper.examples())}")
    return Checked(tuple(result.plan), record)


def _planner_message(result) -> str:
    if result.status == "unsolvable":
        return ("the planner proved that no plan reaches the goal from the initial state: "
                "check the initial facts (connections, what is open or closed, where things "
                "are), the actions' preconditions and effects, and whether the goal is "
                f"reachable ({result.message})")
    if result.status == "timeout":
        return f"the planner found no plan within its time limit ({result.message})"
    return f"the planner failed: {result.status}: {result.message or 'no message'}"
