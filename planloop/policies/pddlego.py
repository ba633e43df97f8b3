"""PDDLego+: a formalizer writes PDDL domain and problem files from what has been
observed, a planner plans, the plan is played; solver errors drive the inner loop,
simulation errors the outer loop, and the files grow as the world is discovered."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from ..envs.feedback import action_failure
from ..formalizer import CheckFailure, CommandMapper, Request, Trigger, check
from ..formalizer.checks import warning_records
from ..llm import Usage
from ..pddl import Domain, solve
from .base import GIVE_UP, RESTART, PolicyBase

Unmapped = Literal["solver_error", "play"]  # a plan step naming no command: how it is met


@dataclass(frozen=True)
class PDDLegoDefaults:
    """The policy's settings a study exposes, each with its one default (the PDDLego+
    study's config takes its defaults from :data:`DEFAULT`)."""

    retries: int = 5  # solver retries per try, and simulation retries per plan cycle
    error_fixing: bool = True
    planner: str = "auto"
    rollback: bool = False
    strict_pddl: bool = False
    unmapped: Unmapped = "solver_error"


DEFAULT = PDDLegoDefaults()


class PDDLegoPolicy(PolicyBase):
    """The PDDLego+ loop behind the one step interface.

    ``writer`` answers a :class:`~planloop.formalizer.Request` with files (a
    :class:`~planloop.formalizer.ModelWriter`, or the ground-truth formalizer).
    Inner loop: a failed check (unreadable files, a bad goal, no plan, a step that
    names no command) goes back to the writer with its message, up to
    ``max_solver_retries`` times in a row. Outer loop: a step the game refuses
    (``info["action_error"]``) goes back with the game's answer and the commands that
    succeeded, up to ``max_simulation_retries`` times before a plan runs through.
    ``error_fixing=False`` sets both to 0 (the paper's ablation). Every round's files,
    check, the reader's warnings, plan and steps (each with the command chosen and why)
    are in ``details["rounds"]``; ``details["warnings"]`` counts the warnings of all
    rounds; ``details["stop"]`` says why the policy gave up, if it did. The files are read
    as planners read them (see :mod:`planloop.pddl.reader`); ``strict_pddl=True``
    refuses what planners tolerate. ``truth`` (for evaluators; the loop never reads it) returns
    the true problem file of the moment, recorded as each round's ``truth``.

    ``rollback=True`` is PDDLego+'s own code: a refused step of a plan whose earlier steps
    moved the world restarts the game (``RESTART``) and replays the plans that ran
    through, so the repaired files start from the state before the failed plan; by
    default the loop goes on from where the failed plan left the world.

    The authors' rules, each a switch (``planloop.protocols.pddlego_plus`` sets them all):
    ``max_steps`` caps the plan cycles (a *step*: formalize, plan, play the plan through;
    None: no cap); ``unmapped="play"`` plays a plan step that names no command as written
    (the game's refusal is then a simulation error) where ``"solver_error"`` sends it back
    to the inner loop; ``explain_refusal(command, game_text)`` words the message for a
    refused command (None from it lets the refusal pass, the plan goes on). Every
    episode records the authors' ``trial_record`` in ``details["tries"]``: per step, one
    ``[try, solver retries]`` pair per try. The defaults a study exposes are
    :data:`DEFAULT`'s (``planloop.protocols.pddlego_plus.episodes.policy_of`` builds the
    policy of the study's settings).
    """

    name = "pddlego"

    def __init__(
        self,
        writer,
        max_solver_retries: int = DEFAULT.retries,
        max_simulation_retries: int = DEFAULT.retries,
        error_fixing: bool = DEFAULT.error_fixing,
        planner: str = DEFAULT.planner,
        planner_timeout: float = 30.0,
        frozen_df: str | None = None,
        solver=solve,
        truth: Callable[[], str | None] | None = None,
        rollback: bool = DEFAULT.rollback,
        strict_pddl: bool = DEFAULT.strict_pddl,
        max_steps: int | None = None,
        unmapped: Unmapped = DEFAULT.unmapped,
        explain_refusal: Callable[[str, str], str | None] | None = None,
    ):
        if unmapped not in ("solver_error", "play"):
            raise ValueError(f"unmapped must be 'solver_error' or 'play', not {unmapped!r}")
        self.writer = writer
        self.model_name = writer.name
        self.prompt_version = writer.prompt_version
        self.max_solver = max_solver_retries if error_fixing else 0
        self.max_simulation = max_simulation_retries if error_fixing else 0
        self.planner, self.planner_timeout, self.solver = planner, planner_timeout, solver
        self.frozen_df = frozen_df
        self.truth = truth
        self.rollback = rollback
        self.strict_pddl = strict_pddl
        self.max_steps, self.unmapped, self.explain_refusal = max_steps, unmapped, explain_refusal
        self.usage = Usage()
        self.details: dict = {}

    # -- the step interface -------------------------------------------------------------
    def reset(self, obs: str, info: dict) -> None:
        self.mapper = CommandMapper()
        self.task = str(info.get("task", ""))
        self.history, self.new = [obs], [obs]
        self.files = None
        self.domain: Domain | None = None  # of the files whose plan is being played
        self.queue: list[str] = []
        self.sent: tuple[str, str] | None = None  # (plan step, command) awaiting its outcome
        self.trigger: Trigger = "start"
        self.error: str | None = None
        self.succeeded: list[str] = []
        self.failed_in_a_row = 0
        self.last_failed: str | None = None
        self.repeated: str | None = None
        self.committed: list[str] = []  # the commands of the plans that ran through
        self.committed_history = 1  # how much of the history they account for
        self.replay: list[str] | None = None  # after a rollback's RESTART
        self.rounds: list[dict] = []
        self.tries: list[list[list[int]]] = []  # per step, [try, solver retries] per try
        self.details = {
            "rounds": self.rounds,
            "solver_errors": 0,
            "solver_fixed": 0,
            "simulation_errors": 0,
            "simulation_fixed": 0,
            "warnings": 0,
            "tries": self.tries,
            "stop": None,
        }

    def act(self, obs: str, info: dict) -> str:
        valid = list(info.get("admissible_actions") or ())
        self.mapper.learn(valid)
        if self.sent is not None:
            self._observe(self.sent, obs, info)
            if self.replay is not None:
                return RESTART
        if self.replay:
            return self.replay.pop(0)
        self.replay = None
        command = None
        while command is None:
            while not self.queue:
                if self.details["stop"] is not None or not self._formalize(valid):
                    return GIVE_UP
            step = self.queue.pop(0)
            choice = self.mapper.choose(step, valid, self.domain)
            command = choice.command
            if command is None and self.unmapped == "play":
                command = " ".join(step.strip("() ").split())
            elif command is None:  # a later step the game's commands cannot express
                self._refused(
                    step,
                    f"the step {step} names no command the game accepts "
                    f"now (valid now: {', '.join(valid)})",
                )
                if self.replay is not None:
                    return RESTART
        self.sent = (step, command)
        self.rounds[-1]["steps"].append({"step": step, "command": command, "why": choice.reason})
        return command

    def finish(self, obs: str, info: dict) -> None:
        """The last step's outcome (a winning step is judged like any other)."""
        if self.sent is not None:
            self._observe(self.sent, obs, info)

    # -- the loops ----------------------------------------------------------------------
    def _observe(self, sent: tuple[str, str], obs: str, info: dict) -> None:
        step, command = sent
        self.sent = None
        line = f"> {command}\n{obs}"
        self.history.append(line)
        self.new.append(line)
        error = action_failure(info)
        told = None
        if error is not None and self.explain_refusal is not None:
            told = self.explain_refusal(command, obs)
            error = error if told is not None else None
        self.rounds[-1]["steps"][-1].update(observation=obs, ok=error is None)
        if error is None:
            self.succeeded.append(command)
            if not self.queue or info.get("won"):  # the plan ran through: grow the files
                self.details["simulation_fixed"] += bool(self.failed_in_a_row)
                self.failed_in_a_row, self.trigger, self.error = 0, "growth", None
                self.committed += self.succeeded
                self.committed_history = len(self.history)
            return
        self.repeated = command if command == self.last_failed else None
        self.last_failed = command
        self._refused(
            step,
            told
            or f"the step {step} was played as '{command}' and the game answered: {obs.strip()}",
        )

    def _refused(self, step: str, message: str) -> None:
        """A simulation error: back to the formalizer, unless the retries are spent."""
        self.details["simulation_errors"] += 1
        self.failed_in_a_row += 1
        self.queue.clear()
        self.trigger, self.error = "simulation_error", message
        if self.failed_in_a_row > self.max_simulation:
            self.details["stop"] = (
                f"simulation error not fixed after {self.failed_in_a_row - 1} retries: {self.error}"
            )
        elif self.rollback and self.succeeded:
            note = (
                f"(The game was restarted and your completed plans replayed: "
                f"{', '.join(self.succeeded)} no longer happened.)"
            )
            self.history = self.history[: self.committed_history] + [note]
            self.new, self.succeeded = [note], []
            self.replay = list(self.committed)

    def _formalize(self, valid: list[str]) -> bool:
        """One inner loop: files until they pass the checks (the plan is queued, True)
        or the retries are spent, or the step limit is reached (``details["stop"]`` says
        why, False)."""
        if self.trigger != "simulation_error":  # a new step
            if self.max_steps is not None and len(self.tries) >= self.max_steps:
                self.details["stop"] = f"step limit: {self.max_steps} plan cycles"
                return False
            self.tries.append([])
        self.tries[-1].append([len(self.tries[-1]) + 1, self.max_solver])
        for attempt in range(self.max_solver + 1):
            request = Request(
                task=self.task,
                trigger=self.trigger,
                history=tuple(self.history),
                valid_commands=tuple(valid),
                new_observations=tuple(self.new),
                files=self.files,
                error=self.error,
                succeeded=tuple(self.succeeded),
                repeated=self.repeated,
                frozen_df=self.frozen_df,
            )
            draft = self.writer.write(request)
            self.usage = self.usage + draft.usage
            record = {
                "round": len(self.rounds),
                "trigger": self.trigger,
                "answers": self.error,
                "df": draft.files.df if draft.files else None,
                "pf": draft.files.pf if draft.files else None,
                "truth": self.truth() if self.truth else None,
                "reply": draft.reply,
                "check": None,
                "warnings": [],
                "planner": None,
                "plan": [],
                "steps": [],
            }
            self.rounds.append(record)
            try:
                if draft.files is None:
                    raise CheckFailure("syntax", draft.problem)
                mapper = None if self.unmapped == "play" else self.mapper
                checked = check(
                    draft.files,
                    mapper,
                    valid,
                    planner=self.planner,
                    timeout=self.planner_timeout,
                    solver=self.solver,
                    strict=self.strict_pddl,
                )
            except CheckFailure as failure:
                record["check"] = {"stage": failure.stage, "message": failure.message}
                self._warned(record, failure.warnings)
                self.details["solver_errors"] += 1
                self.files = draft.files or self.files
                self.trigger, self.error = "solver_error", str(failure)
                unfixed = failure.summary()  # one line, the reader's errors capped
                continue
            self.details["solver_fixed"] += attempt
            self.tries[-1][-1][1] = attempt
            record.update(plan=list(checked.plan), planner=checked.planner)
            self._warned(record, checked.warnings)
            self.files, self.queue, self.domain = draft.files, list(checked.plan), checked.domain
            self.new, self.succeeded, self.repeated = [], [], None
            return True
        self.details["stop"] = f"solver error not fixed after {self.max_solver} retries: {unfixed}"
        return False

    def _warned(self, record: dict, warnings) -> None:
        record["warnings"] = warning_records(warnings)
        self.details["warnings"] += len(warnings)
