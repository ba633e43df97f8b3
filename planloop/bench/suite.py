"""Suites: versioned manifests of what a bench run plays, shipped in the package
(``smoke``, ``standard``) or a user's JSON file of the same form.

A manifest is one JSON object::

    {"name": "smoke", "version": "1", "description": "...",
     "families": [
       {"family": "blocksworld", "policy": "closed-loop", "max_steps": 40, "max_calls": 20,
        "expect": {"calls": 4, "prompt_tokens": 1500, "completion_tokens": 200},
        "sets": [{"env": "Blocksworld-v0", "options": {}, "instances": [0, 1], "seeds": [0]}]},
       {"family": "nl-pddl", "policy": "formalize", "max_steps": 1, "max_calls": 4,
        "expect": {...}, "sets": [{"domain": "blocksworld", "size": 4, "instances": [0, 1],
                                   "seeds": [0]}]}]}

A family is one of :data:`BASE_FAMILIES`, or ``FAMILY-obfuscated`` for those of
:data:`OBFUSCATED` (the same worlds under made-up names); ``policy`` is the one its
models play (one of the family's :data:`POLICIES`); ``max_steps`` caps the environment's
steps and ``max_calls`` the model calls of an episode; ``expect`` is what an episode is
expected to cost (model calls, and tokens per call), for the estimate before a run. Each
set plays ``instances`` x ``seeds``: an environment's instances (``reset(seed=seed,
options={"instance": i})``) or, for ``nl-pddl``, the generated problems of a domain and
size. The manifest's sha256 (of its bytes) is in every record of the run.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Literal, TypedDict, get_args

from ..envs.catalog import entry
from ..envs.problem_sets import DOMAINS, MAX_SIZE
from ..errors import PlanloopError
from ..results import MAX_RECORD_DEPTH, too_deep
from ..schema import schema_problem
from .records import Expect

BaseFamily = Literal[
    "blocksworld", "mystery", "coincollector", "alfworld", "contingent", "twx", "nl-pddl"
]
BASE_FAMILIES: tuple[BaseFamily, ...] = get_args(BaseFamily)
OBFUSCATED: tuple[BaseFamily, ...] = ("blocksworld", "coincollector", "alfworld", "contingent")
CATALOG_FAMILY = {  # the catalog family each bench family's environments belong to
    "blocksworld": "pddl",
    "mystery": "mystery",
    "coincollector": "coin",
    "alfworld": "alfworld",
    "contingent": "contingent",
    "twx": "twx",
}
POLICIES: dict[BaseFamily, tuple[str, ...]] = {
    "blocksworld": ("closed-loop", "plangen"),
    "mystery": ("closed-loop", "plangen"),
    "coincollector": ("pddlego", "plangen"),
    "alfworld": ("pddlego", "plangen"),
    "contingent": ("plangen",),
    "twx": ("plangen",),
    "nl-pddl": ("formalize",),
}
SUITES = ("smoke", "standard")  # shipped in planloop/bench/suites/
MAX_MANIFEST_BYTES = 1 << 20  # a manifest file larger than this is refused
MAX_SUITE_EPISODES = 20_000  # episodes of one model a suite may hold
MAX_STEPS, MAX_CALLS = 10_000, 1_000  # an episode's caps a manifest may set


class SuiteError(PlanloopError, ValueError):
    """A suite that cannot be read or played, said in one line."""


class _Set(TypedDict, total=False):
    env: str
    options: dict[str, object]
    domain: str
    size: int
    instances: list[int]
    seeds: list[int]


class _Family(TypedDict):
    family: str
    policy: str
    max_steps: int
    max_calls: int
    expect: Expect
    sets: list[_Set]


class _Manifest(TypedDict):
    name: str
    version: str
    families: list[_Family]


@dataclass(frozen=True)
class Unit:
    """One episode of a family, the same for every model: where (an environment and its
    options, or an nl-pddl domain and size), which instance and which seed. ``id`` names
    the instance in records (``Blocksworld-v0/3``, ``blocksworld/4/0``)."""

    id: str
    instance: int
    seed: int
    env: str | None = None
    options: tuple[tuple[str, object], ...] = ()
    domain: str | None = None
    size: int | None = None


@dataclass(frozen=True)
class Family:
    """A family as the suite plays it."""

    name: str
    base: BaseFamily
    obfuscated: bool
    policy: str
    max_steps: int
    max_calls: int
    expect: Expect
    units: tuple[Unit, ...]


@dataclass(frozen=True)
class Suite:
    """A suite as read: its manifest's ``data`` (bytes, kept in the run folder for
    ``--replay``), their ``sha256``, and its families."""

    name: str
    version: str
    sha256: str
    families: tuple[Family, ...]
    data: bytes = field(default=b"", repr=False, compare=False)

    def family(self, name: str) -> Family:
        return next(f for f in self.families if f.name == name)

    def only(self, names: list[str]) -> Suite:
        """The suite with the families ``names`` alone (a SuiteError for one it lacks)."""
        known = [f.name for f in self.families]
        unknown = [name for name in names if name not in known]
        if unknown:
            raise SuiteError(
                f"suite {self.name} has no family {', '.join(map(repr, unknown))}: "
                f"its families are {', '.join(known)}"
            )
        chosen = tuple(f for f in self.families if f.name in names)
        return Suite(self.name, self.version, self.sha256, chosen, self.data)


def load_suite(name_or_path: str) -> Suite:
    """The shipped suite ``name`` (:data:`SUITES`) or the manifest file at a path; a
    SuiteError in one line for anything else, naming the file and what is wrong."""
    if name_or_path in SUITES:
        data = (resources.files(__package__) / "suites" / f"{name_or_path}.json").read_bytes()
        return read_suite(data, name_or_path)
    path = Path(name_or_path)
    if not path.is_file():
        raise SuiteError(
            f"no suite {name_or_path!r}: give {' or '.join(SUITES)}, or a manifest file"
        )
    with path.open("rb") as file:
        data = file.read(MAX_MANIFEST_BYTES + 1)
    if len(data) > MAX_MANIFEST_BYTES:
        raise SuiteError(f"{path}: larger than a manifest's {MAX_MANIFEST_BYTES:,} bytes")
    return read_suite(data, str(path))


def read_suite(data: bytes, where: str) -> Suite:
    """The suite a manifest's bytes declare (``where`` names it in errors)."""
    if too_deep(data):
        raise SuiteError(f"{where}: nested more than {MAX_RECORD_DEPTH} levels deep")
    try:
        manifest = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise SuiteError(f"{where}: not JSON ({str(exc)[:80]})") from None
    problem = schema_problem(manifest, _Manifest)
    if problem is not None:
        raise SuiteError(f"{where}: {problem}")
    families = tuple(_family(f, where) for f in manifest["families"])
    names = [f.name for f in families]
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise SuiteError(f"{where}: family {twice!r} is declared twice")
    if not families:
        raise SuiteError(f"{where}: no families")
    episodes = sum(len(f.units) for f in families)
    if episodes > MAX_SUITE_EPISODES:
        raise SuiteError(
            f"{where}: {episodes:,} episodes a model, more than a suite's {MAX_SUITE_EPISODES:,}"
        )
    sha = hashlib.sha256(data).hexdigest()
    return Suite(str(manifest["name"]), str(manifest["version"]), sha, families, data)


def _family(data: _Family, where: str) -> Family:
    name = data["family"]
    obfuscated = name.endswith("-obfuscated")
    base = name.removesuffix("-obfuscated")
    if base not in BASE_FAMILIES or (obfuscated and base not in OBFUSCATED):
        known = [*BASE_FAMILIES, *(f"{f}-obfuscated" for f in OBFUSCATED)]
        raise SuiteError(f"{where}: unknown family {name!r}: the families are {', '.join(known)}")
    family: BaseFamily = base  # type: ignore[assignment]  # checked against BASE_FAMILIES
    if data["policy"] not in POLICIES[family]:
        raise SuiteError(
            f"{where}: {name}: policy {data['policy']!r} is not one of "
            f"{', '.join(POLICIES[family])}"
        )
    for cap, most in (("max_steps", MAX_STEPS), ("max_calls", MAX_CALLS)):
        value: int = data[cap]  # type: ignore[literal-required]
        if not 1 <= value <= most:
            raise SuiteError(f"{where}: {name}: {cap} must be from 1 to {most:,}")
    expect = data["expect"]
    if min(expect["calls"], expect["prompt_tokens"], expect["completion_tokens"]) < 0:
        raise SuiteError(f"{where}: {name}: expect's numbers must be non-negative")
    units = tuple(u for s in data["sets"] for u in _units(s, family, name, where))
    if not units:
        raise SuiteError(f"{where}: {name}: no episodes")
    ids = [(u.id, u.seed) for u in units]
    if len(set(ids)) != len(ids):
        raise SuiteError(f"{where}: {name}: an instance and seed is listed twice")
    return Family(
        name, family, obfuscated, data["policy"], data["max_steps"], data["max_calls"],
        data["expect"], units,
    )  # fmt: skip


def _units(data: _Set, family: BaseFamily, name: str, where: str) -> list[Unit]:
    instances, seeds = data.get("instances"), data.get("seeds")
    if not instances or not seeds:
        raise SuiteError(f"{where}: {name}: every set lists its instances and seeds")
    if min(instances) < 0 or min(seeds) < 0:
        raise SuiteError(f"{where}: {name}: instances and seeds are non-negative")
    if family == "nl-pddl":
        domain, size = data.get("domain"), data.get("size")
        if domain not in DOMAINS or not DOMAINS[domain].sized:
            sized = [d for d, problems in DOMAINS.items() if problems.sized]
            raise SuiteError(f"{where}: {name}: domain must be one of {', '.join(sized)}")
        if not isinstance(size, int) or not DOMAINS[domain].min_size <= size <= MAX_SIZE:
            raise SuiteError(
                f"{where}: {name}: {domain}'s size must be from {DOMAINS[domain].min_size} "
                f"to {MAX_SIZE}"
            )
        return [
            Unit(f"{domain}/{size}/{i}", i, seed, domain=domain, size=size)
            for i in instances
            for seed in seeds
        ]
    env_id = data.get("env")
    found = entry(env_id) if isinstance(env_id, str) else None
    if found is None or found.family != CATALOG_FAMILY[family]:
        raise SuiteError(
            f"{where}: {name}: env {env_id!r} is not an environment of the "
            f"{CATALOG_FAMILY[family]} family (planloop envs lists them)"
        )
    options = tuple(sorted((data.get("options") or {}).items()))
    return [
        Unit(f"{env_id}/{i}", i, seed, env=env_id, options=options)
        for i in instances
        for seed in seeds
    ]
