"""PlanBench's Blocksworld and its Mystery variants: domain, instances, environments.

The default instance set is generated, deterministic by index, in PlanBench's
proportions: instances 0-445 have 4 blocks, 446-499 have 5 (PlanBench's 500 have
446 and 55), and 500-599 have 3 (PlanBench's ``generated_basic_3``). A Mystery
instance is the plain instance of the same index with its names replaced.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from itertools import pairwise
from typing import overload

from ..pddl import Domain, Limits, Problem, Renaming, make_renaming, parse_domain, parse_problem
from ..pddl.sexpr import extract_define
from ..pddl.source import DEFAULT_LIMITS, read_source
from . import arguments
from .pddl_env import PDDLEnv, problem_sources
from .view import TaskView

BLOCK_NAMES = "abcdefghijklmnopqrstuvwxyz"
NUM_GENERATED = 600
MYSTERY_DOMAIN = "mystery-4ops"


@lru_cache(maxsize=None)
def _domain(filename: str) -> Domain:
    return parse_domain((resources.files("planloop.envs") / "data" / filename).read_text())


def blocksworld_domain() -> Domain:
    return _domain("blocksworld.pddl")


def blocks_for_instance(index: int) -> int:
    if not 0 <= index < NUM_GENERATED:
        raise IndexError(f"generated instances are 0..{NUM_GENERATED - 1}, not {index}")
    return 4 if index < 446 else 5 if index < 500 else 3


def _random_towers(rng: random.Random, blocks: list[str]) -> list[list[str]]:
    order = blocks[:]
    rng.shuffle(order)
    towers, current = [], []
    for block in order:
        current.append(block)
        if rng.random() < 0.4:
            towers.append(current)
            current = []
    if current:
        towers.append(current)
    return towers


def _on_facts(towers) -> set[tuple[str, str]]:
    return {(upper, lower) for t in towers for lower, upper in pairwise(t)}


def generate_problem(num_blocks: int, seed, style: str = "planbench") -> str:
    """A random Blocksworld problem (towers listed bottom up).

    The goal lists the ``on`` facts of a random arrangement, at least one of them
    false at the start, as PlanBench's goals do. ``style="planbench"`` writes
    PlanBench's layout (blocks ``a``, ``b``, ...); ``"ipc"`` writes IPC-2000's
    (domain ``BLOCKS``, objects typed ``block``, ``B1``... past 26 blocks).
    """
    if num_blocks < 2 or (style == "planbench" and num_blocks > len(BLOCK_NAMES)):
        raise ValueError(
            f"num_blocks must be 2..{len(BLOCK_NAMES)} in PlanBench's style (at "
            f"least 2 in IPC's): a goal stacks one block on another"
        )
    rng = random.Random(seed)
    blocks = (
        list(BLOCK_NAMES[:num_blocks])
        if num_blocks <= len(BLOCK_NAMES)
        else [f"b{i}" for i in range(1, num_blocks + 1)]
    )
    init = _random_towers(rng, blocks)
    while True:
        goal = _on_facts(_random_towers(rng, blocks))
        if goal and not goal <= _on_facts(init):
            break
    if style == "ipc":
        header = [
            f"(define (problem BLOCKS-{num_blocks}-0)",
            "(:domain BLOCKS)",
            f"(:objects {' '.join(b.upper() for b in blocks)} - block)",
        ]
    else:
        header = [
            f"(define (problem BW-rand-{num_blocks})",
            "(:domain blocksworld-4ops)",
            f"(:objects {' '.join(blocks)} )",
        ]
    lines = header + ["(:init", "(handempty)"]
    lines += [f"(ontable {t[0]})" for t in init]
    lines += [f"(on {upper} {lower})" for upper, lower in sorted(_on_facts(init))]
    lines += [f"(clear {t[-1]})" for t in init]
    lines += [")", "(:goal", "(and"]
    lines += [f"(on {upper} {lower})" for upper, lower in sorted(goal)]
    lines += [")", ")", ")"]
    return "\n".join(lines) + "\n"


class GeneratedInstances(Sequence):
    """The default instance set: problem ``i`` is generated from seed ``i``."""

    def __len__(self) -> int:
        return NUM_GENERATED

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):  # the Sequence contract: a slice is a list of them
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += NUM_GENERATED
        return generate_problem(blocks_for_instance(index), f"planloop-blocksworld-{index}")


class ProblemFiles(Sequence):
    """Blocksworld problem files: plain (PlanBench), PlanBench's Mystery ones, or typed
    upper-case IPC ones.

    A Mystery file (domain ``mystery-4ops``) is read in Mystery names and renamed back
    to the plain problem, so ``Mystery-BW-v0`` shows it as written. IPC-2000 problems
    name the domain ``BLOCKS`` and type their objects ``block``; they are read against
    that domain and given to the 4-operator one. Each is read within ``limits``.
    """

    def __init__(self, path, limits: Limits = DEFAULT_LIMITS):
        self.sources = problem_sources(path, "instances")
        self.limits = limits

    def __len__(self) -> int:
        return len(self.sources)

    @overload
    def __getitem__(self, index: int) -> Problem: ...
    @overload
    def __getitem__(self, index: slice) -> list[Problem]: ...
    def __getitem__(self, index: int | slice) -> Problem | list[Problem]:
        if isinstance(index, slice):  # the Sequence contract: a slice is a list of them
            return [self[i] for i in range(*index.indices(len(self)))]
        source = self.sources[index]
        if isinstance(source, Problem):
            return source
        text = read_source(source, "problem", self.limits)
        form, _ = extract_define(text, "problem")
        declared = next(
            (s[1] for s in form[2:] if isinstance(s, list) and len(s) == 2 and s[0] == ":domain"),
            None,
        )
        if declared == MYSTERY_DOMAIN:
            renaming = _mystery_renaming()
            mystery = parse_problem(
                text, renaming.domain(blocksworld_domain(), MYSTERY_DOMAIN), self.limits
            )
            return renaming.inverse().problem(mystery, blocksworld_domain().name)
        if declared == "blocks":
            typed = parse_problem(text, _domain("blocks_typed.pddl"), self.limits)
            return Problem(
                typed.name,
                "blocksworld-4ops",
                {o: "object" for o in typed.objects},
                typed.init,
                typed.goal,
                typed.warnings,
            )
        return parse_problem(text, blocksworld_domain(), self.limits)


def _instances(instances, limits):
    return (
        GeneratedInstances()
        if instances is None
        else ProblemFiles(instances, arguments.limits(limits))
    )


def blocksworld_env(instances=None, obs_format: str = "text", limits=None, **kwargs) -> PDDLEnv:
    """``Blocksworld-v0``: PlanBench's 4-operator Blocksworld; ``instances`` are a path,
    a folder or a list of problems (default: the generated set)."""
    return PDDLEnv(
        blocksworld_domain(),
        _instances(instances, limits),
        view=TaskView(obs_format=obs_format),
        limits=limits,
        **kwargs,
    )


@lru_cache(maxsize=None)
def _mystery_renaming() -> Renaming:
    return make_renaming(blocksworld_domain(), "planbench")


def mystery_env(instances=None, obs_format: str = "text", limits=None, **kwargs) -> PDDLEnv:
    """``Mystery-BW-v0``: Blocksworld under PlanBench's deceptive Mystery names;
    ``instances`` may hold plain or Mystery PlanBench files."""
    view = TaskView(_mystery_renaming(), obs_format, domain_name=MYSTERY_DOMAIN)
    return PDDLEnv(
        blocksworld_domain(), _instances(instances, limits), view=view, limits=limits, **kwargs
    )


def mystery_random_env(
    instances=None, obs_format: str = "text", names_seed: int = 0, limits=None, **kwargs
) -> PDDLEnv:
    """``MysteryRandom-BW-v0``: Blocksworld under random-string names (PlanBench's
    randomized variant); ``names_seed`` (0 to :data:`~.arguments.MAX_SEED`) picks the
    names."""
    arguments.integer("names_seed", names_seed, 0, arguments.MAX_SEED)
    renaming = make_renaming(blocksworld_domain(), "random", seed=names_seed)
    view = TaskView(renaming, obs_format, domain_name="obfuscated_randomized_blocksworld")
    return PDDLEnv(
        blocksworld_domain(), _instances(instances, limits), view=view, limits=limits, **kwargs
    )
