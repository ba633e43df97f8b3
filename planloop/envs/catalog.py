"""Every environment planloop registers, each declared once: its id, entry point, step
limit, family, what the agent observes and the ``info`` it returns (Gymnasium's
``EnvSpec`` plus what a study or a benchmark asks of an environment).
:func:`planloop.envs.register_envs` registers them; the id lists the rest of the package
uses (``FULLY_OBSERVABLE``, ``CONTINGENT_ENVIRONMENTS``, ...) are views of
:data:`CATALOG`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .info import ALFWorldInfo, CoinInfo, ContingentInfo, PDDLInfo
from .twx import GAMES

Family = Literal["pddl", "mystery", "baking", "coin", "alfworld", "contingent", "twx"]
Observability = Literal["full", "partial"]  # full: the task's PDDL is in info


@dataclass(frozen=True)
class EnvEntry:
    """One environment: ``id``, ``entry_point`` and ``max_episode_steps`` (as Gymnasium
    registers them), its ``family``, ``observability``, the TypedDict its ``info``
    follows, and the pip ``extra`` it needs (None: none)."""

    id: str
    entry_point: str
    max_episode_steps: int
    family: Family
    observability: Observability
    info: type
    extra: Literal["twx"] | None = None


CATALOG: tuple[EnvEntry, ...] = (
    EnvEntry("PDDL-v0", "planloop.envs.pddl_env:PDDLEnv", 200, "pddl", "full", PDDLInfo),
    EnvEntry(
        "Blocksworld-v0", "planloop.envs.blocksworld:blocksworld_env", 100, "pddl", "full", PDDLInfo
    ),
    EnvEntry(
        "Mystery-BW-v0", "planloop.envs.blocksworld:mystery_env", 100, "mystery", "full", PDDLInfo
    ),
    EnvEntry(
        "MysteryRandom-BW-v0",
        "planloop.envs.blocksworld:mystery_random_env",
        100,
        "mystery",
        "full",
        PDDLInfo,
    ),
    EnvEntry(
        "CoinCollector-v0", "planloop.envs.coin:coin_collector", 200, "coin", "partial", CoinInfo
    ),
    EnvEntry(
        "ALFWorld-v0", "planloop.envs.alfworld:ALFWorldEnv", 50, "alfworld", "partial", ALFWorldInfo
    ),
    EnvEntry("Baking-v0", "planloop.envs.baking:baking_env", 100, "baking", "full", PDDLInfo),
    *(
        EnvEntry(env_id, f"planloop.envs.contingent:{name}", steps, "contingent", "partial", info)
        for env_id, name, steps, info in (
            ("ContingentPDDL-v0", "ContingentPDDLEnv", 500, ContingentInfo),
            ("Contingent-Doors-v0", "doors_env", 500, ContingentInfo),
            ("Contingent-Blocks-v0", "blocks_env", 50, ContingentInfo),
            ("Contingent-ColorBalls-v0", "colorballs_env", 500, ContingentInfo),
            ("Contingent-Logistics-v0", "logistics_env", 100, ContingentInfo),
        )
    ),
    *(
        EnvEntry(
            f"TWX-{name}-v0",
            f"planloop.envs.twx:{game.__name__}",
            game.max_steps,
            "twx",
            "partial",
            CoinInfo,
            extra="twx",
        )
        for name, game in GAMES.items()
    ),
)


def entries(
    family: Family | None = None, observability: Observability | None = None
) -> tuple[EnvEntry, ...]:
    """The entries of ``family`` and ``observability`` (None: any), in catalog order."""
    return tuple(
        entry
        for entry in CATALOG
        if family in (None, entry.family) and observability in (None, entry.observability)
    )


def entry(env_id: str) -> EnvEntry | None:
    """The entry of ``env_id`` (None: not planloop's)."""
    return next((e for e in CATALOG if e.id == env_id), None)


def _registered(selected: tuple[EnvEntry, ...]) -> dict[str, tuple[str, int]]:
    return {e.id: (e.entry_point, e.max_episode_steps) for e in selected}


# views of the catalog, by id: (entry point, step limit)
ENVIRONMENTS = _registered(tuple(e for e in CATALOG if e.extra is None))  # no extra needed
TWX_ENVIRONMENTS = _registered(entries("twx"))  # TextWorld Express's games: twx extra, java
CONTINGENT_ENVIRONMENTS = _registered(entries("contingent"))
FULLY_OBSERVABLE = tuple(e.id for e in entries(observability="full"))
