"""A bench run's folder: ``manifest.json`` (what was played, by whom, with which request
settings actually sent), ``suite.json`` (the suite's manifest, byte for byte),
``calls.sqlite`` (every model call, by request), ``<family>/episodes.jsonl`` and the
reports. A rerun into the folder adds to it; ``--replay`` reads it back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypedDict

from .. import __version__
from ..schema import schema_problem
from ..study.errors import StudyError
from .suite import Suite, SuiteError, read_suite

MANIFEST, SUITE_COPY, CALLS = "manifest.json", "suite.json", "calls.sqlite"
MAX_MANIFEST_BYTES = 4 << 20  # a run folder's manifest.json larger than this is refused


class ContestantEntry(TypedDict):
    """A contestant as the manifest records it: ``kind`` model or player; for a model
    its name and server, the request flags set, and what its calls sent (``sent``), the
    defaults it refused (``dropped``) and the model the server said answered."""

    kind: str
    model: str | None
    base_url: str | None
    request: dict[str, object]
    sent: dict[str, object]
    dropped: dict[str, object]
    served_model: str | None
    price: dict[str, float] | None


class SuiteEntry(TypedDict):
    name: str
    version: str
    sha256: str


class Manifest(TypedDict):
    planloop: str
    suite: SuiteEntry
    families: list[str]
    seeds: dict[str, list[int]]
    contestants: dict[str, ContestantEntry]


def read_manifest(folder: Path) -> Manifest | None:
    """The folder's manifest (None when there is none); a StudyError for one that does
    not read or fit :class:`Manifest`."""
    path = folder / MANIFEST
    if not path.exists():
        return None
    if not path.is_file():
        raise StudyError(f"{path} is not a file")
    with path.open("rb") as file:
        data = file.read(MAX_MANIFEST_BYTES + 1)
    if len(data) > MAX_MANIFEST_BYTES:
        raise StudyError(f"{path}: larger than {MAX_MANIFEST_BYTES:,} bytes")
    try:
        manifest = json.loads(data)
    except (ValueError, RecursionError):
        raise StudyError(f"{path}: not JSON") from None
    problem = schema_problem(manifest, Manifest)
    if problem is not None:
        raise StudyError(f"{path}: {problem}")
    return manifest


def stored_suite(folder: Path, manifest: Manifest) -> Suite:
    """The suite the folder's run played (its ``suite.json``, checked against the
    manifest's sha256), its families as played."""
    path = folder / SUITE_COPY
    try:
        suite = read_suite(path.read_bytes(), str(path))
    except OSError as exc:
        raise StudyError(f"{path}: {exc.strerror or exc}") from None
    except SuiteError as exc:
        raise StudyError(str(exc)) from None
    if suite.sha256 != manifest["suite"]["sha256"]:
        raise StudyError(f"{path} is not the suite {MANIFEST} names (its sha256 differs)")
    return suite.only(
        [name for name in manifest["families"] if name in {f.name for f in suite.families}]
    )


def new_manifest(suite: Suite) -> Manifest:
    return {
        "planloop": __version__,
        "suite": {"name": suite.name, "version": suite.version, "sha256": suite.sha256},
        "families": [],
        "seeds": {},
        "contestants": {},
    }


def check_same_suite(folder: Path, manifest: Manifest | None, suite: Suite) -> Manifest:
    """The folder's manifest for a run of ``suite`` (a new one for an empty folder); a
    StudyError when the folder holds a run of another suite."""
    if manifest is None:
        return new_manifest(suite)
    if manifest["suite"]["sha256"] != suite.sha256:
        held = manifest["suite"]
        raise StudyError(
            f"{folder} holds a run of suite {held['name']} version {held['version']} "
            f"(sha256 {held['sha256'][:12]}...), not of {suite.name} "
            f"({suite.sha256[:12]}...): give another --out"
        )
    return manifest


def write_manifest(folder: Path, manifest: Manifest, suite: Suite) -> None:
    """Write ``manifest.json`` (whole, then renamed over the old one) and ``suite.json``."""
    folder.mkdir(parents=True, exist_ok=True)
    copy = folder / SUITE_COPY
    if not copy.exists():
        copy.write_bytes(suite.data)
    manifest["families"] = sorted(set(manifest["families"]) | {f.name for f in suite.families})
    for family in suite.families:
        seeds = set(manifest["seeds"].get(family.name, [])) | {u.seed for u in family.units}
        manifest["seeds"][family.name] = sorted(seeds)
    text = json.dumps(manifest, indent=1, sort_keys=True, default=str)
    temporary = folder / f".{MANIFEST}.tmp"
    temporary.write_text(text)
    temporary.replace(folder / MANIFEST)
