"""What a bench run writes: one :class:`BenchRecord` per episode (a line of
``DIR/<family>/episodes.jsonl``), each loss with one :data:`FailureKind`, and the
leaderboard's shape (:class:`Leaderboard`, ``DIR/leaderboard.json``)."""

from __future__ import annotations

from typing import Literal, TypedDict, get_args

FailureKind = Literal[
    "unreadable_reply",  # the model's reply held no action, plan or PDDL to read
    "invalid_action",  # the environment refused the command(s) the model chose
    "pddl_error",  # the PDDL the model wrote does not read or does not solve
    "unsolvable",  # the model's PDDL (or a planner on it) proved no plan exists
    "not_equivalent",  # nl-pddl: the problem written is not the reference task
    "goal_not_reached",  # the policy's plan ran to its end without reaching the goal
    "step_limit",  # the environment's or the suite's step limit ended the episode
    "call_limit",  # the suite's cap on model calls ended the episode
    "gave_up",  # the policy stopped without a win and without another reason
    "lost",  # the game ended in a loss (a TWX task failure)
    "model_timeout",  # a model call: no answer in time
    "model_refused",  # a model call: refused (auth, rate limit past its retries)
    "model_bad_request",  # a model call: the server said the request was bad
    "model_unreachable",  # a model call: no server answered
    "model_error",  # a model call failed another way (server error, bad response)
]
FAILURE_KINDS: tuple[FailureKind, ...] = get_args(FailureKind)


class Tokens(TypedDict):
    """Tokens the server reported (``reasoning`` is part of ``completion``, as OpenAI
    counts and bills it)."""

    prompt: int
    completion: int
    reasoning: int


class BenchRecord(TypedDict):
    """One episode of a bench run, judged by its environment."""

    key: str  # suite sha256 (first 16) / model / family / instance / seed
    suite: str  # the suite manifest's sha256
    model: str  # the model's label: its --llm spec, or a reference player's name
    family: str  # e.g. "blocksworld", "coincollector-obfuscated"
    instance: str  # the instance's id within the family (as the manifest names it)
    seed: int
    policy: str  # the policy that played it (its name)
    won: bool
    failure: FailureKind | None  # None when won
    detail: str  # the failure in one line (at most 300 characters), "" when won
    steps: int
    calls: int  # model calls made (answers from the cache included)
    cached_calls: int  # of them, answered from the run's cache
    tokens: Tokens
    cost_usd: float | None  # None: no price known for the model
    seconds: float
    transcript: str  # the episode's transcript, relative to the run folder
    sent: list[dict[str, object]]  # the distinct parameter sets its requests carried


class Expect(TypedDict):
    """What a suite expects an episode of a family to cost: model calls, and prompt and
    completion tokens per call (for the estimate before a run)."""

    calls: float
    prompt_tokens: float
    completion_tokens: float


class Interval(TypedDict):
    rate: float
    ci95: list[float]  # [lo, hi]


class FamilyScore(TypedDict):
    n: int
    won: int
    rate: float
    ci95: list[float]
    failures: dict[str, int]  # FailureKind -> count of lost episodes
    calls: int  # the cell's model calls
    tokens: Tokens  # and their tokens
    cost_usd: float | None  # and dollars (None: no price)


class ModelRow(TypedDict):
    model: str
    settings: dict[str, object]  # the request settings actually sent
    calls: int
    seconds: float
    tokens: Tokens
    cost_usd: float | None
    score: Interval  # the macro score: the mean of the family rates
    families: dict[str, FamilyScore]


class Pair(TypedDict):
    a: str
    b: str
    family: str
    n: int  # paired units: (instance, seed) both models played
    diff: float  # rate(a) - rate(b) on those units
    ci95: list[float]  # seeded paired-bootstrap 95% interval of diff


class SuiteInfo(TypedDict):
    name: str
    sha256: str
    families: list[str]


class Leaderboard(TypedDict):
    suite: SuiteInfo
    models: list[ModelRow]
    pairs: list[Pair]
