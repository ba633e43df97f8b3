"""One bench episode: a unit of a family played by a model or a reference player, judged
by its environment (nl-pddl: by equivalence with the reference problem), with its
record and its transcript."""

from __future__ import annotations

import hashlib
import json
import re
import time
from pathlib import Path

import gymnasium as gym

from ..formalizer.problems import MAX_ITERATIONS
from ..llm import ChatModel
from ..llm.sent import recording
from ..policies import run_episode
from ..protocols.nl_pddl.config import FormalizeConfig
from ..protocols.nl_pddl.problems import run_problem
from .families import ERROR_KINDS, judge, make_env, make_policy
from .metered import EpisodeModel, Spending
from .prices import Price
from .records import BenchRecord, FailureKind
from .suite import Family, Unit

NL_PDDL = FormalizeConfig(max_iterations=MAX_ITERATIONS)  # the formalizer's loop, as shipped
MAX_TRANSCRIPT_TEXT = 20_000  # characters of one observation or reply a transcript keeps


def safe_name(label: str) -> str:
    """``label`` as a file name: its safe characters and a short hash of the whole."""
    kept = re.sub(r"[^A-Za-z0-9._-]+", "_", label).strip("._")[:60] or "model"
    return f"{kept}-{hashlib.sha256(label.encode()).hexdigest()[:8]}"


class Environments:
    """A worker's environments, one per (family, environment, options), made when first
    needed and reset for every episode; :meth:`close` closes them all."""

    def __init__(self) -> None:
        self._made: dict[tuple, gym.Env] = {}

    def get(self, family: Family, unit: Unit) -> gym.Env:
        key = (family.name, unit.env, unit.options)
        if key not in self._made:
            self._made[key] = make_env(family, unit)
        return self._made[key]

    def close(self) -> None:
        made, self._made = self._made, {}
        for env in made.values():
            env.close()


def play(
    family: Family,
    unit: Unit,
    label: str,
    player: ChatModel | str,
    price: Price | None,
    spending: Spending,
    envs: Environments,
    out: Path,
    suite_sha: str,
    key: str,
) -> BenchRecord | None:
    """Play ``unit`` and write its transcript; the record (keyed ``key``, of the suite
    whose sha256 is ``suite_sha``), or None when the run's cost cap stopped a call (the
    episode is played again by a rerun)."""
    model = (
        None if isinstance(player, str) else EpisodeModel(player, family.max_calls, price, spending)
    )
    start = time.monotonic()
    with recording() as sent:  # what this episode's requests carried, read from them
        if family.base == "nl-pddl":
            won, failure, detail, steps, policy, transcript = _formalize(
                family, unit, player, model
            )
        else:
            env = envs.get(family, unit)
            policy_obj, played = make_policy(family, env, model or player, unit.seed)
            episode = run_episode(
                played,
                policy_obj,
                seed=unit.seed,
                options={"instance": unit.instance},
                max_steps=family.max_steps,  # across restarts too
            )
            failure, detail = judge(episode, model is not None and model.exhausted)
            won, steps, policy = episode.won, episode.steps, episode.policy
            transcript = _shortened(episode.to_json())
    if model is not None and model.capped:
        return None
    if model is not None:
        transcript = {"calls": model.per_call, **transcript}
    path = (
        Path("transcripts")
        / safe_name(label)
        / family.name
        / f"{safe_name(unit.id)}-s{unit.seed}.json"
    )
    (out / path).parent.mkdir(parents=True, exist_ok=True)
    (out / path).write_text(json.dumps(transcript, default=str, indent=1))
    record: BenchRecord = {
        "key": key,
        "suite": suite_sha,
        "model": label,
        "family": family.name,
        "instance": unit.id,
        "seed": unit.seed,
        "policy": policy,
        "won": won,
        "failure": failure,
        "detail": detail,
        "steps": steps,
        "calls": model.calls if model else 0,
        "cached_calls": model.cached_calls if model else 0,
        "tokens": dict(model.tokens) if model else {"prompt": 0, "completion": 0, "reasoning": 0},  # type: ignore[typeddict-item]
        "cost_usd": model.cost_usd if model else 0.0,
        "seconds": round(time.monotonic() - start, 3),
        "transcript": path.as_posix(),
        "sent": sent.record()["sent_sets"],
    }
    return record


def _formalize(family: Family, unit: Unit, player: ChatModel | str, model: EpisodeModel | None):
    """An nl-pddl unit: the problem written back (by the model, or the reference by the
    oracle), won when it is equivalent to the reference task."""
    assert unit.domain is not None
    writer = model if model is not None else "groundtruth"
    condition = {"domain": unit.domain, "size": unit.size}
    result = run_problem(writer, condition, unit.instance, NL_PDDL, 0.0)
    won = bool(result.get("metrics", {}).get("eq"))
    failure: FailureKind | None = None
    detail = ""
    if result.get("error"):
        exhausted = model is not None and model.exhausted
        failure = (
            "call_limit"
            if exhausted
            else ERROR_KINDS.get(result.get("error_kind") or "", "model_error")
        )
        detail = str(result["error"])[:300]
    elif not won:
        stages = [c["stage"] for c in result.get("candidates", [])]
        if "ok" in stages:
            failure, detail = "not_equivalent", "the problem written is not the reference task"
        elif "planner" in stages:
            failure, detail = "unsolvable", "the planner found no plan for the problem written"
        else:
            failure, detail = (
                "pddl_error",
                (result.get("candidates") or [{}])[-1].get("message", "")[:300],
            )
    policy = "formalize" if model is not None else "groundtruth"
    return won, failure, detail, int(result.get("iterations", 0)), policy, _shortened(result)


def _shortened(value):
    """``value`` with every string cut to :data:`MAX_TRANSCRIPT_TEXT` characters."""
    if isinstance(value, str):
        return value if len(value) <= MAX_TRANSCRIPT_TEXT else value[:MAX_TRANSCRIPT_TEXT] + "..."
    if isinstance(value, dict):
        return {key: _shortened(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_shortened(item) for item in value]
    return value
