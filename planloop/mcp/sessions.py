"""Sessions by id: the engine session's operations on many tasks at once, without MCP.

A session is an :class:`~planloop.envs.session.EngineSession` (PDDL text, or a fully
observable environment's task) or a :class:`~planloop.mcp.text_session.TextSession`
(any other environment). Answers are the sessions' own, trimmed to the keys the tools
publish; a session's ``error`` answer, and any other bad input, is a
:class:`SessionError` whose message says what is wrong and quotes little of the input
(see :mod:`planloop.mcp.sandbox`).

The registry is bounded: at most ``max_sessions`` live at once, a session unused for
``idle_timeout`` seconds is closed (on the next call), and the PDDL tasks of the live
sessions, contingent ones included, may ground ``max_ground_actions`` actions together,
each task counted at its largest possible size (about 0.7 KB of memory an action). Every
environment that takes ``limits`` is given the default :class:`~planloop.pddl.Limits`,
grounding at most the room the budget has left; a client's ``limits`` (or a contingent
``max_belief``) may lower a bound, never raise one. Session ids are random tokens.

Starting a session holds no lock while the environment works, and each session has its
own, so that a slow start or step leaves the other calls answered; no call ever waits
for another session's: a session closed or expired while a call of it runs is gone at
once for every other call, and closed when that call returns. Every file a session
reads is read under its :class:`~planloop.mcp.sandbox.Guard`.
"""

from __future__ import annotations

import inspect
import secrets
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

import gymnasium as gym
from gymnasium.envs.registration import load_env_creator

from ..envs import ENVIRONMENTS, FULLY_OBSERVABLE, arguments
from ..envs.catalog import CONTINGENT_ENVIRONMENTS
from ..envs.session import EngineSession
from ..errors import PlanloopError
from ..pddl import Limits, PDDLError, parse
from ..pddl.contingent import MAX_BELIEF
from .sandbox import (
    FLAGS,
    Guard,
    Sandbox,
    SandboxError,
    Source,
    excerpt,
    ground_actions,
    over_limit,
    sandboxed,
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


class SessionError(PlanloopError, ValueError):
    """Bad input to a session operation; the message says what is wrong."""


MAX_SESSIONS = 64
IDLE_TIMEOUT = 900.0  # seconds
MAX_GROUND_ACTIONS = 250_000  # about 200 MB of grounded tasks (0.7 KB an action)
LIMITED = (*FULLY_OBSERVABLE, *CONTINGENT_ENVIRONMENTS)  # the environments taking ``limits``
_STAGES = ("domain", "problem")  # what a PDDL error names


@dataclass
class _Live:
    session: EngineSession | TextSession | None  # None: still starting
    ground_actions: int  # its task's largest possible size (0: no PDDL task)
    used: float  # the clock when it was last called
    guard: Guard | None = None  # what its calls may read
    lock: threading.Lock = field(default_factory=threading.Lock)  # one call at a time
    calls: int = 0  # calls begun and not returned (counted under the registry's lock)
    ended: bool = False  # closed or expired: the last call to return closes it


class SessionRegistry:
    """Open sessions by id, within the bounds above, reading PDDL through ``sandbox`` (by
    default: text only). Thread-safe. ``clock`` (seconds) times idleness."""

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
        initial state. Files are read under the sandbox's guard."""
        if env_id is None:
            if domain is None or problem is None:
                raise SessionError("give env_id, or both domain and problem")
            if (instance, seed, options, env_kwargs) != (None,) * 4:
                raise SessionError("instance, seed, options and env_kwargs need an env_id")
        elif domain is not None or problem is not None:
            raise SessionError("give env_id, or domain and problem, not both")
        try:
            guard = self.sandbox.guard(options or {}, env_kwargs or {})
        except SandboxError as exc:
            raise SessionError(str(exc)) from None
        session_id = self._reserve()
        session: EngineSession | TextSession
        try:
            with guard():
                if env_id is None:
                    assert domain is not None and problem is not None  # checked above
                    session, started = self._open_pddl(session_id, domain, problem)
                else:
                    options = {
                        **(options or {}),
                        **({} if instance is None else {"instance": instance}),
                    }
                    session, started = self._open(
                        session_id, env_id, env_kwargs, seed, options, guard
                    )
        except BaseException:
            with self._lock:
                del self._sessions[session_id]
            raise
        with self._lock:
            live = self._sessions[session_id]
            live.session, live.used, live.guard = session, self._clock(), guard
        return {
            "session_id": session_id,
            "env_id": env_id,
            **{key: started[key] for key in _STARTED if key in started},
        }

    def run(self, session_id: str, method: str, **arguments) -> dict:
        """Session ``session_id``'s ``method`` (an EngineSession method name)."""
        live = self._enter(session_id)
        try:
            assert live.guard is not None  # set when it started
            with live.lock, live.guard():
                if live.ended:  # closed or expired while this call waited
                    raise SessionError("no such session")
                try:
                    result = getattr(live.session, method)(**arguments)
                except ValueError as exc:  # a file refused or changed, a limit met...
                    # only a text session raises, and PDDL it read well once is a file changed
                    raise SessionError(_refusal(exc, on_disk=True)) from exc
        finally:
            self._leave(live)
        result = _checked(result)
        return {key: result[key] for key in _KEYS[method] if key in result}

    def close(self, session_id: str) -> dict:
        """Close session ``session_id`` now, or, while a call of it runs, when that
        call returns (it is gone for every other call at once)."""
        with self._lock:
            expired = self._expire()
            live = self._sessions.get(session_id) if isinstance(session_id, str) else None
            started = live is not None and live.session is not None
            closing = self._end(session_id) if started else []
        _close(expired + closing)
        if not started:
            raise SessionError("no such session")
        return {"session_id": session_id, "closed": True}

    def __len__(self) -> int:
        with self._lock:
            expired = self._expire()
            count = len(self._sessions)
        _close(expired)
        return count

    def _reserve(self) -> str:
        """A new session id, its place held among the live sessions until it starts."""
        session_id = secrets.token_urlsafe(16)
        with self._lock:
            expired = self._expire()
            count = len(self._sessions)
            if count < self.max_sessions:
                self._sessions[session_id] = _Live(None, 0, self._clock())
        _close(expired)
        if count >= self.max_sessions:
            raise SessionError(
                f"too many sessions: {count} are open, the most this server "
                f"allows (--max-sessions); close_session frees one, and a session unused "
                f"for {self.idle_timeout:g} s closes by itself (--idle-timeout)"
            )
        return session_id

    def _enter(self, session_id: str) -> _Live:
        """The started session ``session_id``, marked used and in a call (until
        :meth:`_leave`)."""
        with self._lock:
            expired = self._expire()
            live = self._sessions.get(session_id) if isinstance(session_id, str) else None
            if live is not None and live.session is not None:
                live.used = self._clock()
                live.calls += 1
        _close(expired)
        if live is None or live.session is None:
            raise SessionError("no such session")
        return live

    def _leave(self, live: _Live) -> None:
        """A call of ``live`` returned: used now, and closed if it ended meanwhile and
        no other call of it runs."""
        with self._lock:
            live.calls -= 1
            live.used = self._clock()
            last = live.ended and live.calls == 0
        _close([live] if last else [])

    def _expire(self) -> list[_Live]:
        """End every started session unused for longer than the idle timeout (the lock
        held); those no call runs in, for the caller to close once it holds the lock no
        more (the others close as their calls return)."""
        now = self._clock()
        idle = [
            session_id
            for session_id, live in self._sessions.items()
            if live.session is not None and now - live.used > self.idle_timeout
        ]
        return [live for session_id in idle for live in self._end(session_id)]

    def _end(self, session_id: str) -> list[_Live]:
        """Drop session ``session_id`` and mark it ended (the lock held); itself if no
        call of it runs, to be closed by the caller, else nothing."""
        live = self._sessions.pop(session_id)
        live.ended = True
        return [live] if live.calls == 0 else []

    def _hold(self, session_id: str, size: int) -> None:
        """Count ``size`` ground actions for ``session_id``, if the budget has room."""
        with self._lock:
            held = self._held(session_id)
            if held + size > self.max_ground_actions:
                raise SessionError(
                    f"the task is too large: it may ground {size:,} actions, and the live "
                    f"sessions hold {held:,} of the {self.max_ground_actions:,} this server "
                    f"allows (--max-ground-actions); close sessions, or send a smaller task"
                )
            self._sessions[session_id].ground_actions = size

    def _held(self, session_id: str) -> int:
        """The ground actions the live sessions but ``session_id`` hold (the lock held)."""
        return sum(
            live.ground_actions for other, live in self._sessions.items() if other != session_id
        )

    def _open_pddl(self, session_id: str, domain: str, problem: str) -> tuple[EngineSession, dict]:
        """A started session on PDDL from the client, and its start answer."""
        try:
            sources = {
                "domain": self.sandbox.read(domain, "domain"),
                "problem": self.sandbox.read(problem, "problem"),
            }
        except SandboxError as exc:
            raise SessionError(str(exc)) from None
        self._hold(session_id, self._size(sources))
        session = EngineSession()
        result = session.start(sources["domain"].text, sources["problem"].text)
        if "error" in result:  # beyond the reader: grounding refused the task
            on_disk = any(source.path is not None for source in sources.values())
            raise SessionError(
                "cannot ground the task"
                if on_disk
                else f"cannot ground the task: {shorten(result['error'])}"
            )
        return session, result

    def _size(self, sources: dict[str, Source]) -> int:
        """The task's largest possible size."""
        try:
            task = parse(
                sources["domain"].text,
                sources["problem"].text,
                Limits(max_bytes=self.sandbox.max_bytes),
            )
        except PDDLError as exc:
            files = {stage for stage, source in sources.items() if source.path is not None}
            raise SessionError(f"cannot read the task: {unreadable(exc, files)}") from None
        return ground_actions(*task)

    def _open(
        self,
        session_id: str,
        env_id: str,
        env_kwargs: dict | None,
        seed: int | None,
        options: dict,
        guard: Guard,
    ) -> tuple[EngineSession | TextSession, dict]:
        """A started session on ``env_id``, and its start answer (its files read as
        ``guard`` allows)."""
        if env_id not in ENVIRONMENTS:
            raise SessionError(
                f"unknown environment {excerpt(env_id)}; the environments are "
                + ", ".join(ENVIRONMENTS)
            )
        env_kwargs = dict(env_kwargs or {})
        if env_id in LIMITED:
            env_kwargs = self._bounded(session_id, env_id, env_kwargs)
        try:
            if env_id not in FULLY_OBSERVABLE:
                return self._open_text(session_id, env_id, env_kwargs, seed, options)
            env = gym.make(env_id, **env_kwargs)
            _, info = env.reset(seed=seed, options=options)
            env.close()
        except SessionError:
            raise
        except Exception as exc:  # whatever the environment rejects, the caller must read why
            refusal = _refusal(exc, on_disk=bool(guard.located))
            raise SessionError(f"cannot start {env_id}: {refusal}") from exc
        session, started = self._open_pddl(session_id, info["domain_pddl"], info["problem_pddl"])
        return session, {
            **started,
            "instance": info["instance"],
            "domain": info["domain_pddl"],
            "problem": info["problem_pddl"],
        }

    def _open_text(
        self, session_id: str, env_id: str, env_kwargs: dict, seed: int | None, options: dict
    ) -> tuple[TextSession, dict]:
        """A started text session (its task, if any, held in the budget), and its answer."""
        text = TextSession(env_id, env_kwargs, seed, options)
        try:
            started = text.start()
            self._hold(session_id, text.ground_actions())
        except BaseException:
            text.close()
            raise
        return text, started

    def _bounded(self, session_id: str, env_id: str, env_kwargs: dict) -> dict:
        """``env_kwargs`` with the server's ``limits``: the defaults, grounding at most the
        room the budget has left, lowered where the client's ``limits`` ask."""
        with self._lock:
            held = self._held(session_id)
        if held >= self.max_ground_actions:
            raise SessionError(
                f"the live sessions hold all {self.max_ground_actions:,} ground actions this "
                "server allows (--max-ground-actions); close sessions first"
            )
        server = Limits()
        room = min(server.max_ground_actions, self.max_ground_actions - held)
        server = replace(server, max_ground_actions=room)
        asked = env_kwargs.get("limits") or {}
        if not isinstance(asked, Mapping):
            raise SessionError(
                "limits must be a dict of Limits fields, such as {'max_objects': 100}"
            )
        try:
            chosen = arguments.limits(asked)
        except (TypeError, ValueError) as exc:
            raise SessionError(shorten(str(exc))) from None
        for name in asked:
            if getattr(chosen, name) > getattr(server, name):
                flag = f" ({FLAGS[name]})" if name in FLAGS else ""
                raise SessionError(
                    f"limits: {name} may be at most {getattr(server, name):,} on this server{flag}"
                )
        belief = env_kwargs.get("max_belief", MAX_BELIEF)
        if env_id in CONTINGENT_ENVIRONMENTS and isinstance(belief, int) and belief > MAX_BELIEF:
            raise SessionError(f"max_belief may be at most {MAX_BELIEF:,} on this server")
        return {**env_kwargs, "limits": replace(server, **asked)}


def _close(lives: Iterable[_Live]) -> None:
    """Close the sessions of ``lives``: ended, and no call of theirs runs."""
    for live in lives:
        session, live.session = live.session, None
        if session is not None and session.env is not None:
            session.env.close()


def _refusal(exc: Exception, on_disk: bool) -> str:
    """Why an environment failed, in one line: the file the sandbox refused, the limit
    met, or the error (where, not what, when a file was read: ``on_disk``)."""
    refused = sandboxed(exc)
    if refused is not None:
        return str(refused)
    if isinstance(exc, PDDLError):
        return unreadable(exc, _STAGES if on_disk else ())
    over = over_limit(str(exc).partition("\n")[0])
    if over is not None:
        return over
    if on_disk:
        return f"{type(exc).__name__} (not shown: the message may quote a file)"
    return f"{type(exc).__name__}: {shorten(str(exc))}"


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
