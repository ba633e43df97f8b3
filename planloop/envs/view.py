"""What an agent sees of a PDDL task: names (maybe obfuscated), text or PDDL form.

A :class:`TaskView` turns the true task's facts, actions and step outcomes into the
agent's words and reads the agent's commands back into true actions. Environments
own one; the ``ObfuscateNames`` wrapper brings its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..pddl import ActionLookupError, Atom, Domain, Problem, Renaming, UnmetFact, parse_command
from ..pddl.grounding import GroundAction, Task
from ..pddl.model import And
from ..pddl.render import Templates, render_action, render_fact, render_facts, templates_for
from ..pddl.writer import formula_text, write_domain, write_problem

OBS_FORMATS = ("text", "pddl")


@dataclass(frozen=True)
class Outcome:
    """What the last step did: ``kind`` is ``ok``, ``unknown``, ``inapplicable`` or
    ``malformed``; ``action`` the true ground action when one was named."""

    kind: str
    command: str
    action: GroundAction | None = None
    message: str = ""
    unmet: tuple[UnmetFact, ...] = ()
    won: bool = False


@dataclass
class TaskView:
    renaming: Renaming = field(default_factory=Renaming)
    obs_format: str = "text"
    domain_name: str | None = None  # the name the agent sees; picks the text templates

    def __post_init__(self):
        if self.obs_format not in OBS_FORMATS:
            raise ValueError(f"obs_format must be one of {OBS_FORMATS}, not {self.obs_format!r}")
        self._inverse = self.renaming.inverse()
        self._fact_cache: dict[Atom, str] = {}
        self._action_cache: dict[GroundAction, str] = {}
        self._pddl_cache: dict[Task, dict[str, str]] = {}

    def templates(self, domain: Domain) -> Templates:
        return templates_for(self.domain_name or domain.name)

    # -- agent's words -> true task --------------------------------------------------
    def read_command(self, text: str) -> tuple[str, tuple[str, ...]]:
        """The true action name and arguments named by ``text``.

        Raises ValueError if ``text`` is unreadable, and ActionLookupError (kind
        ``unknown``) for a name outside the agent's vocabulary: under renaming, the
        true names are unknown words.
        """
        name, args = parse_command(text)
        if self.renaming.actions and name not in self._inverse.actions:
            raise ActionLookupError("unknown", f"unknown action '{name}'")
        for arg in args:
            if self.renaming.objects and arg not in self._inverse.objects:
                raise ActionLookupError("unknown", f"unknown object '{arg}'")
        return self._inverse.command(name, args)

    # -- true task -> agent's words --------------------------------------------------
    def command(self, action: GroundAction) -> str:
        """The canonical command for ``action``: ``(name args)`` in the agent's names."""
        text = self._action_cache.get(action)
        if text is None:
            name, args = self.renaming.command(action.name, action.args)
            text = self._action_cache[action] = "(" + " ".join((name,) + args) + ")"
        return text

    def fact(self, fact: Atom, domain: Domain) -> str:
        text = self._fact_cache.get(fact)
        if text is None:
            seen = self.renaming.atom(fact)
            text = str(seen) if self.obs_format == "pddl" else render_fact(seen,
                                                                          self.templates(domain))
            self._fact_cache[fact] = text
        return text

    def unmet(self, unmet: UnmetFact, domain: Domain) -> str:
        text = self.fact(unmet.atom, domain)
        if unmet.wanted:
            return text
        return f"(not {text})" if self.obs_format == "pddl" else f"not {text}"

    def action_phrase(self, action: GroundAction, domain: Domain) -> str:
        if self.obs_format == "pddl":
            return self.command(action)
        name, args = self.renaming.command(action.name, action.args)
        return render_action(name, args, self.templates(domain))

    def state(self, task: Task, state: int) -> str:
        facts = [self.fact(f, task.domain) for f in task.atoms(state)]
        if self.obs_format == "pddl":
            return " ".join(facts)
        return (", ".join(facts[:-1]) + " and " + facts[-1]) if len(facts) > 1 else \
            (facts[0] if facts else "nothing holds")

    def goal(self, task: Task) -> str:
        literals = _goal_literals(task.problem.goal)
        if self.obs_format == "pddl" or literals is None:
            return formula_text(self.renaming.formula(task.problem.goal))
        seen = [self.renaming.atom(a) for a in literals]
        return render_facts(seen, self.templates(task.domain))

    def feedback(self, outcome: Outcome, task: Task) -> str:
        domain = task.domain
        if outcome.kind == "ok":
            text = f"Done: {self.action_phrase(outcome.action, domain)}."
            return text + (" The goal is achieved." if outcome.won else "")
        if outcome.kind == "inapplicable":
            needs = ", ".join(self.unmet(u, domain) for u in outcome.unmet) or \
                "its precondition"
            return f"Cannot {self.action_phrase(outcome.action, domain)} now: it requires {needs}."
        if outcome.kind == "unknown":
            return outcome.message[:1].upper() + outcome.message[1:] + "."
        return f"Malformed action: {outcome.message}."

    def rename_message(self, message: str) -> str:
        """The task's error messages name true actions and objects in quotes; show the
        agent's names instead."""
        for mapping in (self.renaming.actions, self.renaming.objects):
            for true, seen in mapping.items():
                message = message.replace(f"'{true}'", f"'{seen}'")
        return message

    def observation(self, task: Task, state: int, outcome: Outcome | None) -> str:
        label = "State" if self.obs_format == "pddl" else "Current state"
        lines = [] if outcome is None else [self.feedback(outcome, task)]
        lines.append(f"{label}: {self.state(task, state)}")
        if outcome is None:
            lines.append(f"Goal: {self.goal(task)}")
        return "\n".join(lines)

    def task_pddl(self, task: Task) -> dict[str, str]:
        """``domain_pddl`` and ``problem_pddl`` as the agent sees them (cached)."""
        texts = self._pddl_cache.get(task)
        if texts is None:
            if len(self._pddl_cache) > 64:
                self._pddl_cache.clear()
            texts = self._pddl_cache[task] = {
                "domain_pddl": self.domain_pddl(task.domain),
                "problem_pddl": self.problem_pddl(task.problem, task.domain)}
        return texts

    def domain_pddl(self, domain: Domain) -> str:
        return write_domain(self.renaming.domain(domain, self.domain_name))

    def problem_pddl(self, problem: Problem, domain: Domain) -> str:
        seen = self.renaming.problem(problem, self.domain_name)
        if self.renaming.predicates:
            seen = replace(seen, name=f"{seen.domain_name}-task")
        return write_problem(seen, domain)


def _goal_literals(goal) -> list[Atom] | None:
    """The atoms of a conjunctive, positive goal; None for anything richer."""
    if isinstance(goal, Atom):
        return [goal]
    if isinstance(goal, And) and all(isinstance(a, Atom) for a in goal.args):
        return list(goal.args)
    return None
