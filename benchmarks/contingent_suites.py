"""Which problems of the public contingent suites planloop reads and tracks.

Give it folders holding the suites' files (fetched copies of up-cpor's ``Tests``,
bonetblai/cp2fsc-and-replanner's ``benchmarks/replanner`` and PO-PRP's
``pond-benchmarks``); it pairs each problem with its domain (the nearest folder's domain
whose name the problem names, else its ``d.pddl`` / ``domain.pddl``), and tries each pair
in a process of its own under ``--timeout``: read (``parse(..., contingent=True)``),
tracked (``ContingentTask`` builds its initial belief with the default limits) and, when
the pair has a hidden-worlds file or ``:hidden`` sections, whether those worlds read and
lie in the initial belief. A JSON line per problem goes to ``--out``, and a table by
suite and domain to stdout, failures grouped by their first line.

    python benchmarks/contingent_suites.py SUITES_DIR --out /tmp/suites.jsonl
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from planloop.pddl.contingent import ContingentTask
from planloop.pddl.hidden import hidden_world, read_hidden
from planloop.pddl.reader import parse

_DEFINE = re.compile(r"\(\s*define\s*\(\s*(domain|problem)\s+([^\s()]+)", re.IGNORECASE)
_DOMAIN_OF = re.compile(r"\(\s*:domain\s+([^\s()]+)", re.IGNORECASE)
_HEAD = 4096  # characters read to classify a file


@dataclass(frozen=True)
class Pair:
    """A problem of a suite, its domain and the hidden-worlds files beside it."""

    suite: str  # the root folder's name (and /CLG under a CLG folder)
    domain_name: str  # the folder naming the domain (e.g. "doors")
    domain: Path
    problem: Path
    hidden: tuple[Path, ...]


def _kind(path: Path) -> tuple[str, str, str]:
    """("domain" | "problem" | "hidden" | "", define name, :domain name) of a file."""
    head = path.read_text(errors="replace")[:_HEAD]
    found = _DEFINE.search(head)
    if found is None:
        return "", "", ""
    kind, name = found.group(1).lower(), found.group(2).lower()
    if kind == "problem" and not re.search(r"\(\s*:(init|goal|objects|domain)", head, re.I):
        kind = "hidden"
    named = _DOMAIN_OF.search(head)
    return kind, name, named.group(1).lower() if named else ""


def suite_pairs(root: Path) -> Iterator[Pair]:
    """Every problem under ``root`` with its domain and hidden-worlds files: a problem's
    domain is in its folder or the nearest folder above; among several, the one the
    problem names, then ``d.pddl`` or ``domain.pddl``, then the first by name. A hidden
    file (only ``:hidden`` sections) goes with the problems of its folder whose name it
    shares (``p5``/``h5``), else with the folder's one problem."""
    files: dict[Path, list[tuple[Path, str, str, str]]] = defaultdict(list)
    for path in sorted(root.rglob("*.pddl")):
        kind, name, of = _kind(path)
        if kind:
            files[path.parent].append((path, kind, name, of))
    for folder, entries in sorted(files.items()):
        problems = [e for e in entries if e[1] == "problem"]
        hidden = [e[0] for e in entries if e[1] == "hidden"]
        for path, _, _, of in problems:
            domain = _domain_for(files, folder, root, path, of)
            if domain is None:
                continue
            rel = path.relative_to(root)
            yield Pair(
                root.name + ("/CLG" if "CLG" in rel.parts else ""),
                _domain_folder(rel),
                domain,
                path,
                _hidden_for(path, hidden, len(problems)),
            )


def _variant(path: Path) -> list[str]:
    """The words of a file's name that are neither its role nor its size (``new-p11`` ->
    ``["new"]``, ``domain-clg`` -> ``["clg"]``, ``p.pddl`` -> ``[]``)."""
    return [w for w in path.stem.lower().split("-") if not _ROLE.match(w)]


_ROLE = re.compile(r"(k?[dp]|domain|problem|[a-z]?\d+)$")


def _domain_for(files, folder: Path, root: Path, problem: Path, named: str) -> Path | None:
    while True:
        domains = [e for e in files.get(folder, ()) if e[1] == "domain"]
        if domains:
            ranked = sorted(
                domains,
                key=lambda e: (
                    e[2] != named,
                    _variant(e[0]) != _variant(problem),
                    e[0].name not in ("d.pddl", "domain.pddl"),
                    e[0],
                ),
            )
            return ranked[0][0]
        if folder == root:
            return None
        folder = folder.parent


def _hidden_for(problem: Path, hidden: list[Path], problems: int) -> tuple[Path, ...]:
    digits = re.sub(r"\D", "", problem.stem)
    same = [h for h in hidden if digits and re.sub(r"\D", "", h.stem.split("-")[0]) == digits]
    return tuple(same or (hidden if problems == 1 else []))


_NOT_DOMAINS = frozenset({"tests", "benchmarks", "replanner", "pond-benchmarks", "clg"})


def _domain_folder(rel: Path) -> str:
    """The domain a problem's path names: its first folder that is not a suite's
    (``CLG/doors/doors15/p.pddl`` -> doors, ``Tests/colorballs2-2`` -> colorballs),
    marked ``(mvv)`` under ``multivalued-variables``."""
    names = [p for p in rel.parts[:-1] if p.lower() not in _NOT_DOMAINS]
    name = re.sub(r"[\d-]+$", "", names[0]) if names else rel.parts[0]
    return name + (" (mvv)" if "multivalued-variables" in rel.parts else "")


def try_pair(pair: Pair) -> dict:
    """The record of one pair: read, tracked, the hidden worlds, seconds, the error."""
    record = {
        "suite": pair.suite,
        "domain": pair.domain_name,
        "problem": str(pair.problem),
        "read": False,
        "tracked": False,
    }
    start = time.perf_counter()
    try:
        domain, problem = parse(pair.domain, pair.problem, contingent=True)
        record["read"] = True
        task = ContingentTask(domain, problem)
        record["tracked"] = True
        record.update(_hidden_record(task, pair))
    except Exception as exc:  # a record of why, whatever it is
        record["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"
    record["seconds"] = round(time.perf_counter() - start, 3)
    return record


def _hidden_record(task, pair: Pair) -> dict:
    """How many hidden worlds the problem and its hidden files hold, and how many lie in
    the initial belief."""
    worlds = list(task.problem.hidden)
    for path in pair.hidden:
        worlds += read_hidden(path, task.domain, task.problem)
    inside = 0
    for world in worlds:
        try:
            hidden_world(task, world)
            inside += 1
        except ValueError:
            pass
    return {"hidden_worlds": len(worlds), "hidden_in_belief": inside}


def _run(pair: Pair, timeout: float) -> dict:
    """:func:`try_pair` in a process of its own; past ``timeout``, the record says so and
    whether the pair reads (tried again, reading only, under the same timeout)."""
    record = _within(try_pair, pair, timeout)
    if record is None:
        record = {
            "suite": pair.suite,
            "domain": pair.domain_name,
            "problem": str(pair.problem),
            "read": bool(_within(_reads, pair, timeout)),
            "tracked": False,
            "error": f"timeout: more than {timeout:g} s",
            "seconds": timeout,
        }
    return record


def _reads(pair: Pair) -> bool:
    try:
        parse(pair.domain, pair.problem, contingent=True)
    except Exception:  # any refusal: the pair does not read
        return False
    return True


def _within(call, pair: Pair, timeout: float):
    """``call(pair)`` in a forked process; None past ``timeout`` seconds."""
    with multiprocessing.get_context("fork").Pool(1) as pool:
        job = pool.apply_async(call, (pair,))
        try:
            return job.get(timeout)
        except multiprocessing.TimeoutError:
            return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("roots", nargs="+", type=Path, help="folders of suites")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per problem")
    parser.add_argument("--out", type=Path, help="a JSON line per problem")
    parser.add_argument("--only", help="a regular expression the problem's path must match")
    args = parser.parse_args()
    records = []
    out = args.out.open("w") if args.out else None
    for root in args.roots:
        for pair in suite_pairs(root.resolve()):
            if args.only and not re.search(args.only, str(pair.problem)):
                continue
            record = _run(pair, args.timeout)
            records.append(record)
            if out:
                out.write(json.dumps(record) + "\n")
                out.flush()
    table: dict[tuple[str, str], Counter] = defaultdict(Counter)
    errors: Counter = Counter()
    for r in records:
        row = table[(r["suite"], r["domain"])]
        row["tried"] += 1
        row["read"] += r["read"]
        row["tracked"] += r["tracked"]
        row["hidden_worlds"] += r.get("hidden_worlds", 0)
        row["hidden_in_belief"] += r.get("hidden_in_belief", 0)
        if "error" in r:
            errors[re.sub(r"'[^']*'|\(.*?\)|\d[\d,]*", "_", r["error"])[:140]] += 1
    print(f"{'suite':<12} {'domain':<32} tried  read tracked hidden(in belief)")
    total: Counter = Counter()
    for (suite, domain), row in sorted(table.items()):
        total.update(row)
        print(
            f"{suite:<12} {domain:<32} {row['tried']:>5} {row['read']:>5} {row['tracked']:>7}"
            f" {row['hidden_worlds']:>7} ({row['hidden_in_belief']})"
        )
    print(
        f"{'all':<45} {total['tried']:>5} {total['read']:>5} {total['tracked']:>7}"
        f" {total['hidden_worlds']:>7} ({total['hidden_in_belief']})"
    )
    for message, count in errors.most_common():
        print(f"{count:>5}  {message}")


if __name__ == "__main__":
    main()
