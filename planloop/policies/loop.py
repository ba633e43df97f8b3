"""Open-loop and closed-loop planning with a language model.

The model first names the next actions (names only), then grounds each one's arguments
from the task's objects. Closed loop with horizon H executes up to H actions, looks at
the new state and asks again; when an action fails, the model explains the failure and
the episode starts over (``RESTART``) with the explanation in context. Open loop asks
once for the whole sequence and executes it with no feedback.
"""

from __future__ import annotations

import re

from ..llm import Usage, call_model
from ..pddl import parse
from .base import GIVE_UP, RESTART
from .extract import extract_plan

PROMPT_VERSION = "loop-v1"
SYSTEM = ("You control an agent that acts in a world described below. You choose actions "
          "to reach a goal.\n\n{intro}")
TASK = "Objects: {objects}\n\nGoal: {goal}"
LESSONS = "What went wrong in earlier attempts:\n{lessons}"
PROGRESS = "Actions executed so far in this attempt:\n{trace}"
ASK_NEXT = ("Current situation:\n{situation}\n\nWhat are the next {count} actions to take? "
            "Answer with action names only, one per line, in order. If the goal already "
            "holds, answer DONE.")
ASK_ALL = ("Current situation:\n{situation}\n\nWrite the whole sequence of actions that "
           "reaches the goal. Answer with action names only, one per line, in order.")
ASK_ARGS = ("The next action is {name}, with parameters {params}.\nActions chosen before it "
            "in this step: {before}\nSituation when the step began:\n{situation}\n\n"
            "Which objects are its arguments? Answer with the action only, as "
            "({name} {placeholders}).")
ASK_WHY = ("The action {action} failed.\nThe situation when it was tried:\n{situation}\n"
           "The environment said: {feedback}\n\nExplain in one or two sentences why it "
           "failed and what must hold before it can succeed.")

_ITEM = re.compile(r"^\s*(?:[-*]|\d+[.):])?\s*\(?\s*([A-Za-z][\w-]*)")


class ClosedLoopPolicy:
    """Horizon-``H`` closed-loop planning (``horizon=None`` asks for the whole plan).

    ``max_actions`` caps the actions executed over the whole episode (restarts
    included), ``max_restarts`` the explained restarts. ``details`` records the
    explanations, the number of proposals and why the policy stopped.
    """

    prompt_version = PROMPT_VERSION
    replans = True

    def __init__(self, model, horizon: int | None = 1, max_actions: int = 50,
                 max_restarts: int = 5, temperature: float = 0.0, seed: int | None = None):
        if horizon is not None and horizon < 1:
            raise ValueError(f"horizon must be at least 1 (or None for open loop), not {horizon}")
        self.model, self.model_name = model, model.name
        self.horizon, self.max_actions, self.max_restarts = horizon, max_actions, max_restarts
        self.sampling = {"temperature": temperature, **({"seed": seed} if seed is not None else {})}
        self.name = "open-loop" if not self.replans else \
            f"closed-loop-h{'inf' if horizon is None else horizon}"
        self.usage = Usage()
        self.details: dict = {}

    # -- the step interface ----------------------------------------------------------
    def reset(self, obs: str, info: dict) -> None:
        if "domain_pddl" not in info:
            raise ValueError(f"{type(self).__name__} needs the task's PDDL in info "
                             f"(a fully observable environment)")
        self.domain, problem = parse(info["domain_pddl"], info["problem_pddl"])
        intro = info.get("domain_description") or "The domain in PDDL:\n" + info["domain_pddl"]
        objects = ", ".join(f"{name} ({obj_type})" for name, obj_type in
                            {**self.domain.constants, **problem.objects}.items())
        self.context = [{"role": "system", "content": SYSTEM.format(intro=intro)},
                        {"role": "user", "content": TASK.format(objects=objects,
                                                                goal=info.get("task", ""))}]
        self.lessons: list[str] = []
        self.details = {"explanations": self.lessons, "proposals": 0, "stop": None}
        self.executed = 0
        self._begin_attempt()

    def act(self, obs: str, info: dict) -> str:
        if self._last is not None:
            action, situation = self._last
            self._last = None
            self.executed += 1
            self.trace.append(f"{action}: {info.get('feedback') or obs}")
            if info.get("action_error") and self.replans:
                return self._explain_and_restart(action, situation, info)
        if self.executed >= self.max_actions:
            return self._stop("action_limit")
        if not self.queue:
            if self.proposed and self.horizon is None:
                return self._stop("plan_executed")
            self.queue = self._propose(obs)
            if not self.queue:
                return self._stop("no_actions")
        action = self.queue.pop(0)
        self._last = (action, obs)
        return action

    # -- steps of the loop -----------------------------------------------------------
    def _begin_attempt(self) -> None:
        self.queue: list[str] = []
        self.trace: list[str] = []
        self.proposed = False
        self._last: tuple[str, str] | None = None

    def _stop(self, reason: str) -> str:
        self.details["stop"] = reason
        return GIVE_UP

    def _propose(self, situation: str) -> list[str]:
        """Ask for the next action names, then ground each one."""
        self.proposed = True
        self.details["proposals"] += 1
        ask = ASK_ALL.format(situation=situation) if self.horizon is None else \
            ASK_NEXT.format(situation=situation, count=self.horizon)
        names = self._read_names(self._ask(ask))
        if self.horizon is not None:
            names = names[:self.horizon]
        chosen: list[str] = []
        for name in names:
            chosen.append(self._ground(name, situation, chosen))
        return chosen

    def _ground(self, name: str, situation: str, before: list[str]) -> str:
        action = self.domain.actions[name]
        if not action.params:
            return f"({name})"
        params = ", ".join(f"{p.name} - {' or '.join(p.types)}" for p in action.params)
        placeholders = " ".join(p.name.lstrip("?") for p in action.params)
        reply = self._ask(ASK_ARGS.format(name=name, params=params, situation=situation,
                                          before=", ".join(before) or "none",
                                          placeholders=placeholders))
        steps = [s for s in extract_plan(reply) if s[1:].split(" ", 1)[0] == name]
        if steps:
            return steps[0]
        words = reply.replace("(", " ").replace(")", " ").split()
        return "(" + " ".join([name] + [w.lower() for w in words if w.lower() != name]) + ")"

    def _explain_and_restart(self, action: str, situation: str, info: dict) -> str:
        if len(self.lessons) >= self.max_restarts:
            return self._stop("restart_limit")
        why = self._ask(ASK_WHY.format(action=action, situation=situation,
                                       feedback=info.get("feedback", "")))
        self.lessons.append(f"{action} failed: {why.strip()}")
        self._begin_attempt()
        return RESTART

    def _ask(self, question: str) -> str:
        messages = list(self.context)
        if self.lessons:
            messages.append({"role": "user", "content": LESSONS.format(
                lessons="\n".join(f"- {lesson}" for lesson in self.lessons))})
        if self.trace:
            messages.append({"role": "user", "content": PROGRESS.format(
                trace="\n".join(self.trace))})
        messages.append({"role": "user", "content": question})
        reply = call_model(self.model, messages, **self.sampling)
        self.usage = self.usage + reply.usage
        return reply.text

    def _read_names(self, text: str) -> list[str]:
        """Action names, one per line; lines naming no action are skipped."""
        names = []
        for line in text.splitlines():
            found = _ITEM.match(line)
            if found and found.group(1).lower() in self.domain.actions:
                names.append(found.group(1).lower())
        return names


class OpenLoopPolicy(ClosedLoopPolicy):
    """The whole sequence of action names up front, each grounded, executed with no
    feedback: the infinite-horizon end of the closed-loop study."""

    replans = False

    def __init__(self, model, max_actions: int = 50, temperature: float = 0.0,
                 seed: int | None = None):
        super().__init__(model, horizon=None, max_actions=max_actions, max_restarts=0,
                         temperature=temperature, seed=seed)
