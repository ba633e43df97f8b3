"""What an agent sees of a PDDL task: names (maybe obfuscated), text or PDDL form.

A :class:`TaskView` turns the true task's facts, actions and step outcomes into the
agent's words and reads the agent's commands back into true actions. Environments
own one; the ``ObfuscateNames`` wrapper brings its own.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Literal, NamedTuple, TypeVar

from ..pddl import (
    ActionLookupError,
    Atom,
    Domain,
    Problem,
    Renaming,
    UnmetFact,
    parse_command,
    quote,
)
from ..pddl.grounding import GroundAction, Task
from ..pddl.model import And
from ..pddl.render import (
    Templates,
    join_phrases,
    render_action,
    render_fact,
    render_facts,
    templates_for,
)
from ..pddl.writer import formula_text, write_domain, write_problem
from .arguments import choice
from .info import FailureKind

OBS_FORMATS = ("text", "pddl")
T = TypeVar("T")


OutcomeKind = Literal["ok", FailureKind]


class Outcome(NamedTuple):
    """What the last step did: ``kind`` is ``ok`` or why the command failed; ``action``
    the true ground action when one was named."""

    kind: OutcomeKind
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
    text_templates: Templates | None = None  # overrides the templates picked by name
    description: str | None = None  # the domain in words, for prompts (info["domain_description"])
    goal_texts: dict = field(default_factory=dict)  # problem name -> its goal in words

    def __post_init__(self):
        choice("obs_format", self.obs_format, OBS_FORMATS)
        self._inverse = self.renaming.inverse()
        self._texts: dict[Task, _TaskTexts] = {}
        self._last: tuple = (None, None)  # the task asked for last, and its texts

    def _cache(self, task: Task) -> "_TaskTexts":
        if task is self._last[0]:
            return self._last[1]
        texts = self._texts.get(task)
        if texts is None:
            if len(self._texts) >= 64:
                self._texts.clear()
            texts = self._texts[task] = _TaskTexts()
        self._last = (task, texts)
        return texts

    def templates(self, domain: Domain) -> Templates:
        if self.text_templates is not None:
            return self.text_templates
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
            raise ActionLookupError("unknown", f"unknown action {quote(name)}")
        for arg in args:
            if self.renaming.objects and arg not in self._inverse.objects:
                raise ActionLookupError("unknown", f"unknown object {quote(arg)}")
        return self._inverse.command(name, args)

    # -- true task -> agent's words --------------------------------------------------
    def command(self, action: GroundAction, task: Task) -> str:
        """The canonical command for ``action``: ``(name args)`` in the agent's names."""
        texts = self._cache(task)
        text = texts.commands.get(action)
        if text is None:
            name, args = self.renaming.command(action.name, action.args)
            text = texts.commands[action] = "(" + " ".join((name,) + args) + ")"
            texts.actions[text] = action
        return text

    def known_command(self, text: str, task: Task) -> GroundAction | None:
        """The action whose canonical command is exactly ``text``, if already shown."""
        return self._cache(task).actions.get(text)

    def fact(self, fact: Atom, domain: Domain) -> str:
        seen = self.renaming.atom(fact)
        return str(seen) if self.obs_format == "pddl" else render_fact(seen, self.templates(domain))

    def unmet(self, unmet: UnmetFact, domain: Domain) -> str:
        text = self.fact(unmet.atom, domain)
        if unmet.wanted:
            return text
        return f"(not {text})" if self.obs_format == "pddl" else f"not {text}"

    def commands(self, actions, task: Task) -> list[str]:
        """:meth:`command` for many actions of one task."""
        known = self._cache(task).commands
        return [known.get(a) or self.command(a, task) for a in actions]

    def action_phrase(self, action: GroundAction, task: Task) -> str:
        phrases = self._cache(task).phrases
        phrase = phrases.get(action)
        if phrase is None:
            if self.obs_format == "pddl":
                phrase = self.command(action, task)
            else:
                name, args = self.renaming.command(action.name, action.args)
                phrase = render_action(name, args, self.templates(task.domain))
            phrases[action] = phrase
        return phrase

    def admissible(self, task: Task, state: int) -> list[str]:
        """The commands of the actions applicable in ``state`` (see :data:`STATE_MEMO_BYTES`
        for what is kept)."""
        kept = self._cache(task).admissible
        found = kept.get(state)
        if found is None:
            commands = tuple(self.commands(task.applicable(state), task))
            found = _keep(kept, state, task, commands)
        return list(found)

    def state(self, task: Task, state: int) -> str:
        """The facts true in ``state`` in the agent's words (see :data:`STATE_MEMO_BYTES`
        for what is kept)."""
        kept = self._cache(task).states
        found = kept.get(state)
        return _keep(kept, state, task, self._render_state(task, state)) if found is None else found

    def _render_state(self, task: Task, state: int) -> str:
        texts, facts = self._cache(task).facts, task.facts
        parts = []
        for fid in task.true_ids(state):
            text = texts.get(fid)
            if text is None:
                text = texts[fid] = self.fact(facts[fid], task.domain)
            parts.append(text)
        if self.obs_format == "pddl":
            return " ".join(parts)
        return join_phrases(parts) or "nothing holds"

    def goal(self, task: Task) -> str:
        texts = self._cache(task)
        if texts.goal is None:
            literals = _goal_literals(task.problem.goal)
            if self.obs_format == "text" and task.problem.name in self.goal_texts:
                texts.goal = self.goal_texts[task.problem.name]
            elif self.obs_format == "pddl" or literals is None:
                texts.goal = formula_text(self.renaming.formula(task.problem.goal))
            else:
                seen = [self.renaming.atom(a) for a in literals]
                texts.goal = render_facts(seen, self.templates(task.domain))
        return texts.goal

    def feedback(self, outcome: Outcome, task: Task) -> str:
        domain = task.domain
        if outcome.kind == "ok":
            assert outcome.action is not None  # an action was read and done
            done = self._cache(task).done
            key = (outcome.action, outcome.won)
            text = done.get(key)
            if text is None:
                text = f"Done: {self.action_phrase(outcome.action, task)}."
                text = done[key] = text + (" The goal is achieved." if outcome.won else "")
            return text
        if outcome.kind == "inapplicable":
            assert outcome.action is not None  # an action was read and refused
            needs = ", ".join(self.unmet(u, domain) for u in outcome.unmet) or "its precondition"
            return f"Cannot {self.action_phrase(outcome.action, task)} now: it requires {needs}."
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

    def observation(self, task: Task, state: int, feedback: str | None) -> str:
        """The text an agent reads: the feedback of its last step (None after a reset,
        which shows the goal instead) and the state."""
        label = "State" if self.obs_format == "pddl" else "Current state"
        state_line = f"{label}: {self.state(task, state)}"
        if feedback is None:
            return f"{state_line}\nGoal: {self.goal(task)}"
        return f"{feedback}\n{state_line}"

    def task_pddl(self, task: Task) -> dict[str, str]:
        """``domain_pddl`` and ``problem_pddl`` as the agent sees them (cached)."""
        texts = self._cache(task)
        if texts.pddl is None:
            texts.pddl = {
                "domain_pddl": self.domain_pddl(task.domain),
                "problem_pddl": self.problem_pddl(task.problem, task.domain),
            }
        return texts.pddl

    def domain_pddl(self, domain: Domain) -> str:
        return write_domain(self.renaming.domain(domain, self.domain_name))

    def problem_pddl(self, problem: Problem, domain: Domain) -> str:
        seen = self.renaming.problem(problem, self.domain_name)
        if self.renaming.predicates:
            seen = replace(seen, name=f"{seen.domain_name}-task")
        return write_problem(seen, domain)


@dataclass
class _TaskTexts:
    """What a view has rendered for one task, kept because it never changes."""

    facts: dict[int, str] = field(default_factory=dict)  # fact id -> text, once shown
    commands: dict = field(default_factory=dict)  # GroundAction -> command
    actions: dict = field(default_factory=dict)  # command -> GroundAction
    phrases: dict = field(default_factory=dict)  # GroundAction -> words for feedback
    done: dict = field(default_factory=dict)  # (GroundAction, won) -> the feedback on it
    goal: str | None = None
    pddl: dict | None = None
    states: OrderedDict = field(default_factory=OrderedDict)  # state -> its text
    admissible: OrderedDict = field(default_factory=OrderedDict)  # state -> its commands


STATE_MEMO_BYTES = 1 << 20  # a view keeps each task's last states up to about this much
# of state keys (a state is a bitset of the task's facts), at most 1,024 of them: an
# episode that comes back to a state shows it without rendering it again


def _keep(kept: OrderedDict, state: int, task: Task, value: T) -> T:
    """``value``, kept in ``kept`` for ``state`` of ``task`` (the oldest dropped past the
    budget of :data:`STATE_MEMO_BYTES`)."""
    kept[state] = value
    if len(kept) > min(1024, STATE_MEMO_BYTES // (len(task.facts) // 8 + 1)):
        kept.popitem(last=False)
    return value


def _goal_literals(goal) -> list[Atom] | None:
    """The atoms of a conjunctive, positive goal; None for anything richer."""
    if isinstance(goal, Atom):
        return [goal]
    if isinstance(goal, And) and all(isinstance(a, Atom) for a in goal.args):
        return [a for a in goal.args if isinstance(a, Atom)]  # all of them
    return None
