"""Sessions by id: the engine session's operations on many tasks at once, without MCP.

A session is an :class:`~planloop.envs.session.EngineSession` (PDDL text, or a fully
observable environment's task) or a :class:`~planloop.mcp.text_session.TextSession`
(any other environment). Answers are the sessions' own, trimmed to the keys the tools
publish; a session's ``error`` answer, and any other bad input, is a
:class:`SessionError` whose message says what is wrong and quotes little of the input
(see :mod:`planloop.mcp.sandbox`).

The registry is bounded: at most ``max_sessions`` live at once, a session unused for
``idle_timeout`` seconds is closed (on the next call), and the PDDL tasks of the live
sessions may ground ``max_ground_actions`` actions together, each task counted at its
largest possible size before it is grounded (about 0.7 KB of memory an action).
Session ids are random tokens.
"""

from __future__ import annotations

import inspect
import secrets
import threading
import time
from dataclasses import dataclass

import gymnasium as gym
from gymnasium.envs.registration import load_env_creator

from ..envs import ENVIRONMENTS, FULLY_OBSERVABLE
from ..envs.session import EngineSession
from ..pddl import Limits, PDDLError, parse
from .sandbox import (
    Sandbox,
    SandboxError,
    Source,
    excerpt,
    ground_actions,
    shorten,
    unreadable,
)
from .text_session import TextSession

STATE = ("facts", "observation", "goal_reached")
_KEYS = {  # session method -> the keys of its answer
    "state": STATE,
    "execute": STATE,
    "reset": STATE,
    "applicable_actions": ("actions",),
    "history": ("actions",),
    "validate_plan": ("valid", "failure", "failed_step", "advice"),
}
_STARTED = ("goal", "instance", "domain", "problem", *STATE)


class SessionError(ValueError):
    """Bad input to a session operation; the message says what is wrong."""


MAX_SESSIONS = 64
IDLE_TIMEOUT = 900.0  # seconds
MAX_GROUND_ACTIONS = 250_000  # about 200 MB of grounded tasks (0.7 KB an action)


@dataclass
class _Live:
    session: EngineSession | TextSession
    ground_actions: int  # its task's largest possible size (0: a text session)
    used: float  # the clock when it was last called


class SessionRegistry:
    """Open sessions by id, within the bounds above, reading PDDL through ``sandbox`` (by default: text only).
    Thread-safe: one call at a time. ``clock`` (seconds) times idleness."""

    def __init__(
        self,
        sandbox: Sandbox | None = None,
        max_sessions: int = MAX_SESSIONS,
        idle_timeout: float = IDLE_TIMEOUT,
        max_ground_actions: int = MAX_GROUND_ACTIONS,
        clock=time.monotonic,
    ):
        self.sandbox = Sandbox() if sandbox is None else sandbox
        self.max_sessions, self.idle_timeout = max_sessions, idle_timeout
        self.max_ground_actions, self._clock = max_ground_actions, clock
        self._sessions: dict[str, _Live] = {}
        self._lock = threading.Lock()

    @staticmethod
    def environments() -> dict:
        """Every registered environment: its id, whether it is fully observable (a
        session's state is then PDDL facts, else the observation) and what it is."""
        return {
            "environments": [
                {
                    "env_id": env_id,
                    "fully_observable": env_id in FULLY_OBSERVABLE,
                    "description": _summary(load_env_creator(entry)),
                }
                for env_id, (entry, _) in ENVIRONMENTS.items()
            ]
        }

    def start(
        self,
        env_id: str | None = None,
        instance: int | None = None,
        seed: int | None = None,
        options: dict | None = None,
        env_kwargs: dict | None = None,
        domain: str | None = None,
        problem: str | None = None,
    ) -> dict:
        """Open a session on a registered environment or on PDDL text; its id, goal and
        initial state."""
        with self._lock:
            self._expire()
            if len(self._sessions) >= self.max_sessions:
                raise SessionError(
                    f"too many sessions: {len(self._sessions)} are open, the most this server "
                    f"allows (--max-sessions); close_session frees one, and a session unused "
                    f"for {self.idle_timeout:g} s closes by itself (--idle-timeout)"
                )
            session: EngineSession | TextSession
            if env_id is None:
                if domain is None or problem is None:
                    raise SessionError("give env_id, or both domain and problem")
                if (instance, seed, options, env_kwargs) != (None,) * 4:
                    raise SessionError("instance, seed, options and env_kwargs need an env_id")
                session, started, size = self._open_pddl(domain, problem)
            elif domain is not None or problem is not None:
                raise SessionError("give env_id, or domain and problem, not both")
            else:
                options = {
                    **(options or {}),
                    **({} if instance is None else {"instance": instance}),
                }
                session, started, size = self._open(env_id, env_kwargs, seed, options)
            session_id = secrets.token_urlsafe(16)
            self._sessions[session_id] = _Live(session, size, self._clock())
        return {
            "session_id": session_id,
            "env_id": env_id,
            **{key: started[key] for key in _STARTED if key in started},
        }

    def run(self, session_id: str, method: str, **arguments) -> dict:
        """Session ``session_id``'s ``method`` (an EngineSession method name)."""
        with self._lock:
            result = _checked(getattr(self._get(session_id), method)(**arguments))
        return {key: result[key] for key in _KEYS[method] if key in result}

    def close(self, session_id: str) -> dict:
        with self._lock:
            self._get(session_id)
            self._drop(session_id)
        return {"session_id": session_id, "closed": True}

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._sessions)

    def _get(self, session_id: str) -> EngineSession | TextSession:
        self._expire()
        live = self._sessions.get(session_id) if isinstance(session_id, str) else None
        if live is None:
            raise SessionError("no such session")
        live.used = self._clock()
        return live.session

    def _expire(self) -> None:
        """Close every session unused for longer than the idle timeout."""
        now = self._clock()
        for session_id, live in list(self._sessions.items()):
            if now - live.used > self.idle_timeout:
                self._drop(session_id)

    def _drop(self, session_id: str) -> None:
        env = self._sessions.pop(session_id).session.env
        if env is not None:
            env.close()

    def _open_pddl(self, domain: str, problem: str) -> tuple[EngineSession, dict, int]:
        """A started session on PDDL from the client, its start answer and its size."""
        try:
            sources = {
                "domain": self.sandbox.read(domain, "domain"),
                "problem": self.sandbox.read(problem, "problem"),
            }
        except SandboxError as exc:
            raise SessionError(str(exc)) from None
        size = self._fits(sources)
        session = EngineSession()
        result = session.start(sources["domain"].text, sources["problem"].text)
        if "error" in result:  # beyond the reader: grounding refused the task
            on_disk = any(source.path is not None for source in sources.values())
            raise SessionError(
                "cannot ground the task"
                if on_disk
                else f"cannot ground the task: {shorten(result['error'])}"
            )
        return session, result, size

    def _fits(self, sources: dict[str, Source]) -> int:
        """The task's largest possible size, if the ground-action budget has room for it."""
        try:
            task = parse(
                sources["domain"].text,
                sources["problem"].text,
                Limits(max_bytes=self.sandbox.max_bytes),
            )
        except PDDLError as exc:
            raise SessionError(unreadable(exc, sources)) from None
        size = ground_actions(*task)
        held = sum(live.ground_actions for live in self._sessions.values())
        if held + size > self.max_ground_actions:
            raise SessionError(
                f"the task is too large: it may ground {size:,} actions, and the live sessions "
                f"hold {held:,} of the {self.max_ground_actions:,} this server allows "
                f"(--max-ground-actions); close sessions, or send a smaller task"
            )
        return size

    def _open(
        self, env_id: str, env_kwargs: dict | None, seed: int | None, options: dict
    ) -> tuple[EngineSession | TextSession, dict, int]:
        """A started session on ``env_id``, its start answer and its size."""
        if env_id not in ENVIRONMENTS:
            raise SessionError(
                f"unknown environment {excerpt(env_id)}; the environments are "
                + ", ".join(ENVIRONMENTS)
            )
        try:
            env_kwargs, on_disk = self.sandbox.env_kwargs(env_kwargs or {})
        except SandboxError as exc:
            raise SessionError(str(exc)) from None
        try:
            if env_id not in FULLY_OBSERVABLE:
                text = TextSession(env_id, env_kwargs, seed, options)
                return text, text.start(), 0
            env = gym.make(env_id, **env_kwargs)
            _, info = env.reset(seed=seed, options=options)
            env.close()
        except Exception as exc:  # whatever the environment rejects, the caller must read why
            said = "" if on_disk else f": {shorten(str(exc))}"
            raise SessionError(f"cannot start {env_id}: {type(exc).__name__}{said}") from exc
        session, started, size = self._open_pddl(info["domain_pddl"], info["problem_pddl"])
        return (
            session,
            {
                **started,
                "instance": info["instance"],
                "domain": info["domain_pddl"],
                "problem": info["problem_pddl"],
            },
            size,
        )


def _summary(creator) -> str:
    """The first line of an environment's docstring."""
    doc = inspect.getdoc(creator)
    assert doc is not None  # every registered environment has one (the MCP tests list them)
    return doc.splitlines()[0]


def _checked(result: dict) -> dict:
    """``result``, or the SessionError its ``error`` describes (briefly, when it is about
    the caller's input)."""
    if "error" not in result:
        return result
    if "message" not in result:  # anything but a failed action
        head, _, rest = result["error"].partition(": ")
        raise SessionError(f"{head}: {shorten(rest)}" if rest else head)
    text = f"{result['error']}: {shorten(result['message'])}"
    unmet = [fact for fact in result["unmet"] if fact not in text]
    raise SessionError(text + (" Unmet: " + ", ".join(unmet) if unmet else ""))
