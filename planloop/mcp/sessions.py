"""Sessions by id: the engine session's operations on many tasks at once, without MCP.

A session is an :class:`~planloop.envs.session.EngineSession` (PDDL text, or a fully
observable environment's task) or a :class:`~planloop.mcp.text_session.TextSession`
(any other environment). Answers are the sessions' own, trimmed to the keys the tools
publish; a session's ``error`` answer, and any other bad input, is a
:class:`SessionError` whose message says what is wrong.
"""

from __future__ import annotations

import inspect
import itertools
import threading

import gymnasium as gym
from gymnasium.envs.registration import load_env_creator

from ..envs import ENVIRONMENTS, FULLY_OBSERVABLE
from ..envs.session import EngineSession
from .text_session import TextSession

STATE = ("facts", "observation", "goal_reached")
_KEYS = {  # session method -> the keys of its answer
    "state": STATE, "execute": STATE, "reset": STATE,
    "applicable_actions": ("actions",), "history": ("actions",),
    "validate_plan": ("valid", "failure", "failed_step", "advice"),
}
_STARTED = ("goal", "instance", "domain", "problem", *STATE)


class SessionError(ValueError):
    """Bad input to a session operation; the message says what is wrong."""


class SessionRegistry:
    """Open sessions by id. Thread-safe: one call at a time."""

    def __init__(self):
        self._sessions: dict[str, EngineSession | TextSession] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    @staticmethod
    def environments() -> dict:
        """Every registered environment: its id, whether it is fully observable (a
        session's state is then PDDL facts, else the observation) and what it is."""
        return {"environments": [
            {"env_id": env_id, "fully_observable": env_id in FULLY_OBSERVABLE,
             "description": inspect.getdoc(load_env_creator(entry)).splitlines()[0]}
            for env_id, (entry, _) in ENVIRONMENTS.items()]}

    def start(self, env_id: str | None = None, instance: int | None = None,
              seed: int | None = None, options: dict | None = None,
              env_kwargs: dict | None = None, domain: str | None = None,
              problem: str | None = None) -> dict:
        """Open a session on a registered environment or on PDDL text; its id, goal and
        initial state."""
        if env_id is None:
            if domain is None or problem is None:
                raise SessionError("give env_id, or both domain and problem")
            if (instance, seed, options, env_kwargs) != (None,) * 4:
                raise SessionError("instance, seed, options and env_kwargs need an env_id")
            session = EngineSession()
            started = _checked(session.start(domain, problem))
        elif domain is not None or problem is not None:
            raise SessionError("give env_id, or domain and problem, not both")
        else:
            options = {**(options or {}), **({} if instance is None else {"instance": instance})}
            session, started = _open(env_id, env_kwargs, seed, options)
        with self._lock:
            session_id = f"s{next(self._ids)}"
            self._sessions[session_id] = session
        return {"session_id": session_id, "env_id": env_id,
                **{key: started[key] for key in _STARTED if key in started}}

    def run(self, session_id: str, method: str, **arguments) -> dict:
        """Session ``session_id``'s ``method`` (an EngineSession method name)."""
        with self._lock:
            result = _checked(getattr(self._get(session_id), method)(**arguments))
        return {key: result[key] for key in _KEYS[method] if key in result}

    def close(self, session_id: str) -> dict:
        with self._lock:
            self._get(session_id).env.close()
            del self._sessions[session_id]
        return {"session_id": session_id, "closed": True}

    def _get(self, session_id: str) -> EngineSession | TextSession:
        try:
            return self._sessions[session_id]
        except KeyError:
            known = ", ".join(self._sessions) or "none"
            raise SessionError(f"unknown session {session_id!r} (open sessions: {known})") from None


def _open(env_id: str, env_kwargs: dict | None, seed: int | None,
          options: dict) -> tuple[EngineSession | TextSession, dict]:
    """A started session on ``env_id`` and its start answer."""
    if env_id not in ENVIRONMENTS:
        raise SessionError(f"unknown environment {env_id!r}; the environments are "
                           + ", ".join(ENVIRONMENTS))
    try:
        if env_id not in FULLY_OBSERVABLE:
            session = TextSession(env_id, env_kwargs, seed, options)
            return session, session.start()
        env = gym.make(env_id, **(env_kwargs or {}))
        _, info = env.reset(seed=seed, options=options)
        env.close()
    except Exception as exc:  # whatever the environment rejects, the caller must read why
        raise SessionError(f"cannot start {env_id}: {type(exc).__name__}: {exc}") from exc
    session = EngineSession()
    started = _checked(session.start(info["domain_pddl"], info["problem_pddl"]))
    return session, {**started, "instance": info["instance"],
                     "domain": info["domain_pddl"], "problem": info["problem_pddl"]}


def _checked(result: dict) -> dict:
    """``result``, or the SessionError its ``error`` describes."""
    if "error" not in result:
        return result
    if "message" not in result:  # anything but a failed action
        raise SessionError(result["error"])
    text = f"{result['error']}: {result['message']}"
    unmet = [fact for fact in result["unmet"] if fact not in text]
    raise SessionError(text + (" Unmet: " + ", ".join(unmet) if unmet else ""))
