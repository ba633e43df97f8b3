"""The ``info`` every environment returns: one TypedDict per family of environments and
the one builder, :func:`step_info`, that makes each of them (at reset, at every step and
after the end of an episode, :func:`episode_over`).

A family's keys and the types of their values are the same on every step of every
episode (vector envs merge infos key by key), from reset on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal, TypedDict, TypeVar, Union, cast, get_args

from .arguments import choice

EPISODE_OVER = "The episode is over: reset the environment to play again."

FailureKind = Literal["unknown", "inapplicable", "malformed"]
"""Why a command failed: no such action or object (``unknown``), an action whose
precondition does not hold now (``inapplicable``), a command that fits no action's form
(``malformed``)."""

FAILURE_KINDS: tuple[FailureKind, ...] = get_args(FailureKind)

ErrorKind = Literal["", FailureKind, "episode_over"]
"""``action_error["kind"]``: ``""`` when the step did not fail, ``episode_over`` for a step
after the episode ended."""


class ActionError(TypedDict):
    """``info["action_error"]`` of the fully observable PDDL environments (``PDDL-v0``,
    ``Blocksworld-v0``, the Mystery variants, ``Baking-v0``): the failure's ``kind``,
    ``message`` (the feedback) and ``unmet`` (the unmet preconditions as the agent sees
    them); ``""``, ``""`` and ``[]`` when the step did not fail."""

    kind: ErrorKind
    message: str
    unmet: list[str]


class CausedError(ActionError):
    """``info["action_error"]`` of every other environment: an :class:`ActionError` with the
    ``cause`` of the failure in words (``""`` when the step did not fail), which
    ``feedback="detailed"`` appends to the observation."""

    cause: str


class StepInfo(TypedDict):
    """The keys of every environment's ``info``: ``admissible_actions`` (the commands valid
    now), ``task`` (the goal in words), ``won``, ``feedback`` (the environment's own text for
    the last step) and, in every family, ``action_error`` (an :class:`ActionError` or a
    :class:`CausedError`, as the family says)."""

    admissible_actions: list[str]
    task: str
    won: bool
    feedback: str


class _Described(TypedDict, total=False):
    domain_description: str
    goal_distance: float


class PDDLInfo(StepInfo, _Described):
    """``info`` of the fully observable PDDL environments: the task as the agent sees it
    (``domain_pddl``, ``problem_pddl``; obfuscated in Mystery) and its ``instance``; with
    ``domain_description`` when the view describes the domain in words (Baking), and
    ``goal_distance`` (the relaxed-plan distance) when the environment is made with
    ``goal_distance=``."""

    action_error: ActionError
    domain_pddl: str
    problem_pddl: str
    instance: int


class GameInfo(StepInfo):
    """The keys of every partially observable environment's ``info``: ``action_error``
    carries its cause (:class:`CausedError`)."""

    action_error: CausedError


class SensedFact(TypedDict):
    """A fact a sensing command observed (PDDL syntax) and its value."""

    fact: str
    value: bool


class ContingentInfo(GameInfo):
    """``info`` of the contingent environments (``ContingentPDDL-v0``, ``Contingent-*``):
    ``domain_pddl`` and ``problem_pddl`` as given, what the agent knows (facts in PDDL
    syntax): ``known_facts`` (true in every world it considers possible), ``known_false``,
    ``unknown_facts``, ``sensed`` by the last command, ``belief_size`` (the worlds still
    possible, -1 while the belief is held as a formula), and the ``instance``."""

    domain_pddl: str
    problem_pddl: str
    known_facts: list[str]
    known_false: list[str]
    unknown_facts: list[str]
    sensed: list[SensedFact]
    belief_size: int
    instance: int


class CoinInfo(GameInfo):
    """``info`` of TextWorld Express's games (``CoinCollector-v0`` on either backend and
    the ``TWX-*`` games): the game's ``score``, ``moves``, ``look`` (the room's text),
    ``inventory`` (its text) and the ``instance`` (the game's seed)."""

    score: float
    moves: int
    look: str
    inventory: str
    instance: int


class ALFWorldInfo(GameInfo):
    """``info`` of ``ALFWorld-v0``: the game's ``task_type`` (None when neither the game's
    folder nor its ``traj_data.json`` names it), its ``flags`` (why ALFWorld's own
    environment would skip it, else empty) and the ``instance``."""

    task_type: str | None
    flags: tuple[str, ...]
    instance: int


Info = Union[PDDLInfo, ContingentInfo, CoinInfo, ALFWorldInfo]
"""The ``info`` of any planloop environment (for code that reads every family's)."""
InfoT = TypeVar("InfoT", PDDLInfo, ContingentInfo, CoinInfo, ALFWorldInfo)


def step_info(
    family: type[InfoT],
    admissible_actions: list[str],
    task: str,
    won: bool,
    feedback: str,
    action_error: ActionError,
    extra: Mapping[str, object],
    /,
) -> InfoT:
    """The ``info`` of one step of an environment of ``family``: the keys of
    :class:`StepInfo` and ``action_error`` first, then the family's ``extra`` keys in their
    order. (Positional, the extras a mapping: keywords would cost about a tenth of a
    microsecond, and a PDDL environment's step takes a few.)"""
    return cast(
        InfoT,
        {
            "admissible_actions": admissible_actions,
            "task": task,
            "won": won,
            "feedback": feedback,
            "action_error": action_error,
            **extra,
        },
    )


def action_error(kind: ErrorKind = "", message: str = "", unmet: Iterable[str] = ()) -> ActionError:
    """An :class:`ActionError`; with no argument, that of a step that did not fail."""
    return {"kind": kind, "message": message, "unmet": [*unmet]}


def caused_error(
    kind: ErrorKind = "", message: str = "", unmet: Iterable[str] = (), cause: str = ""
) -> CausedError:
    """A :class:`CausedError`; with no argument, that of a step that did not fail."""
    return {"kind": kind, "message": message, "unmet": [*unmet], "cause": cause}


def failure_kind(kind: str) -> FailureKind:
    """``kind`` (an :class:`~planloop.pddl.ActionLookupError`'s, ``unknown`` or
    ``malformed``) as a :data:`FailureKind`; a ValueError for any other."""
    return choice("kind", kind, FAILURE_KINDS)


def episode_over(final: InfoT) -> InfoT:
    """The ``info`` of a step after the episode ended: ``final`` (that of the step that
    ended it) with ``feedback`` and an ``action_error`` of kind ``episode_over`` saying so.
    A ``cause`` is empty: the message is the whole story, and detailed feedback adds
    nothing to it."""
    error: ActionError = action_error("episode_over", EPISODE_OVER)
    if "cause" in final["action_error"]:
        error = caused_error("episode_over", EPISODE_OVER)
    return cast(InfoT, {**final, "feedback": EPISODE_OVER, "action_error": error})
