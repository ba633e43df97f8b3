"""Where ALFWorld-v0's games come from: one file, a folder, ALFWorld's released data
(``$ALFWORLD_DATA/json_2.1.1/<split>``) or the offline generator.

Games are listed in sorted path order. A game that ALFWorld's own text environment
skips (a sliced object, or a movable receptacle: its ``'Sliced' in root or 'movable'
in root`` rule) is kept and flagged, unless ``skip_flagged`` asks to drop it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from ...pddl.source import source_path
from .. import arguments
from .game import check_task_types, task_type_of

Split = Literal["train", "valid_seen", "valid_unseen", "valid_train"]
SPLITS: tuple[Split, ...] = get_args(Split)
RELEASE = "json_2.1.1"


@dataclass(frozen=True)
class GameEntry:
    """One game of the list: a ``game.tw-pddl`` path, or a generated game's seed."""

    task_type: str | None
    path: Path | None = None
    seed: int | None = None
    flags: tuple[str, ...] = ()  # why ALFWorld's text environment would skip it


def flags_of(path: Path) -> tuple[str, ...]:
    """``sliced`` and ``movable`` when the game's task or trial folder says so."""
    text = f"{path.parent.parent.name}/{path.parent.name}"
    return tuple(
        flag for flag, mark in (("sliced", "Sliced"), ("movable", "movable")) if mark in text
    )


def file_entry(path: str | os.PathLike) -> GameEntry:
    arguments.instance_of("game_file", path, (str, os.PathLike), "the path of a game file")
    found = source_path(path)
    if found is None or not found.is_file():
        raise arguments.MissingPath(f"no game file {path}")  # the words planloop play prints
    return GameEntry(task_type_of(found), found, flags=flags_of(found))


def folder_entries(folder: Path, task_types=None, skip_flagged: bool = False) -> list[GameEntry]:
    """Every ``game.tw-pddl`` under ``folder``, sorted, filtered by task type."""
    wanted = check_task_types(task_types) if task_types is not None else None
    entries = []
    for path in sorted(folder.rglob("game.tw-pddl")):
        entry = GameEntry(task_type_of(path), path, flags=flags_of(path))
        if wanted is not None and entry.task_type not in wanted:
            continue
        if skip_flagged and entry.flags:
            continue
        entries.append(entry)
    if not entries:
        raise ValueError(
            f"no game.tw-pddl under {folder}"
            + (f" of task types {', '.join(wanted)}" if wanted else "")
        )
    return entries


def split_folder(data_dir: str | os.PathLike, split: str | None) -> Path:
    """The folder of ``split`` in ALFWorld's released data at ``data_dir`` (the folder
    holding ``json_2.1.1``, or ``json_2.1.1`` itself); ``data_dir`` itself when no split
    is asked for and it is not the released layout."""
    arguments.instance_of("data_dir", data_dir, (str, os.PathLike), "the path of a folder")
    root = Path(arguments.path("data_dir", Path(data_dir).expanduser(), folder=True))
    release = root / RELEASE if (root / RELEASE).is_dir() else root
    if split is None:
        return release / "train" if release.name == RELEASE else root
    arguments.choice("split", split, SPLITS)
    folder = release / split
    if not folder.is_dir():
        raise FileNotFoundError(
            f"no {split} split at {folder}: point ALFWORLD_DATA or "
            f"data_dir= at the folder holding {RELEASE}/"
        )
    return folder


def generated_entries(task_types, count: int) -> list[GameEntry]:
    """``count`` generated games, cycling through the task types; game ``i`` has seed ``i``."""
    chosen = check_task_types(task_types)
    return [GameEntry(chosen[i % len(chosen)], seed=i) for i in range(count)]
