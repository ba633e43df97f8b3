"""The agentic study's instances: by default the IPC-2000 Blocksworld files this checkout
ships in ``tests/data/ipc2000-blocks`` (6 of the paper's 102), and each problem file's
place in the paper's order, found by its SHA-256 among those planloop ships
(``planloop/envs/data/ipc2000_blocks/SHA256SUMS``)."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any

import gymnasium as gym

from ...envs import FULLY_OBSERVABLE
from ...pddl.source import source_path
from ...study import StudyError

IPC_BLOCKS = Path(__file__).resolve().parents[3] / "tests" / "data" / "ipc2000-blocks"
MAX_EPISODE_STEPS = 10_000


def env_kwargs(env_id: str, options: Iterable[tuple[str, object]]) -> dict[str, object]:
    """The environment's arguments: the shipped IPC files for ``PDDL-v0`` and the step
    limit, unless ``-o`` gives them."""
    if env_id not in FULLY_OBSERVABLE:
        raise StudyError(
            f"{env_id} is not fully observable: the planners and the LLM "
            f"approaches need the task's PDDL; use one of "
            f"{', '.join(FULLY_OBSERVABLE)}"
        )
    defaults = (
        {"domain": str(IPC_BLOCKS / "domain.pddl"), "problem": str(IPC_BLOCKS / "instances")}
        if env_id == "PDDL-v0"
        else {}
    )
    return {**defaults, "max_episode_steps": MAX_EPISODE_STEPS, **dict(options)}


@functools.cache
def paper_checksums() -> dict[str, int]:
    """The SHA-256 of each of the paper's 102 problem files -> its place (0-based) in the
    paper's order (``planloop/envs/data/ipc2000_blocks/SHA256SUMS``)."""
    sums = resources.files("planloop.envs") / "data" / "ipc2000_blocks" / "SHA256SUMS"
    digests = [line.split()[0] for line in sums.read_text().splitlines() if "instances/" in line]
    return {digest: place for place, digest in enumerate(digests)}


def paper_place(env: gym.Env, instance: int) -> int | None:
    """The place in the paper's order of the problem file ``instance`` plays, found by
    its SHA-256; None when it is no file or not one of the paper's 102."""
    game: Any = env.unwrapped
    problems = getattr(game, "problems", None)
    path = source_path(problems[instance]) if problems else None
    if path is None or not path.is_file():
        return None
    return paper_checksums().get(hashlib.sha256(path.read_bytes()).hexdigest())


def objects(env: gym.Env) -> int | None:
    """The objects of the problem ``env`` last reset to (Blocksworld: its blocks); None
    when it holds no task."""
    task: Any = getattr(env.unwrapped, "task", None)
    return None if task is None else len(task.problem.objects)
