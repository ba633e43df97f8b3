"""planloop on PDDL written by real language models, against what the authors' solver said.

The corpus (``../shared/corpora/real-model-pddl`` from the repository, or a folder given as
argument with the same files; see its README) holds the domain and problem files (DF, PF)
of the PDDLego+ authors' runs and the outcome their solver (LAPKT BFWS with the FF
parser) recorded for each model call. Each unique (DF, PF) is checked once with
``planloop.formalizer.check`` and weighted by its number of calls. Printed:

1. agreement of check()'s verdict with the recorded outcome, by recorded class (``plan``
   and ``plan_unmapped`` together: a plan that fails only at mapping counts as a plan),
   and the two headline figures: (a) agreement on calls recorded as plan, no_plan or
   goal_true; (b) the share of calls recorded as plan that planloop rejects;
2. the rejection classes: the first diagnostic's message, quoted names replaced by X;
3. the reader's warnings, by class and by recorded outcome;
4. Fast Downward (translator and lama-first search) on the untouched texts of a seeded
   sample of pairs, against the recorded outcome, side by side with planloop;
5. extraction of the raw replies the logs keep (``extract_files``);
6. mapping: the first step of planloop's plan mapped with ``CommandMapper`` (taught the
   call's valid commands) for calls recorded as plan;
7. exceptions escaping check() / extract_files() / the mapper, hangs (past the timeout
   plus a minute) and the calls where the planner timed out.

Verdicts: ``plan`` (Checked: check() runs with a mapper taking any step for a command, as
each call has its own valid commands; the mapping is measured per call in 6, so a plan
that fails only at mapping counts as a plan), ``goal_true`` (the goal empty or
already true), ``no_plan`` (the planner proved it unsolvable), ``rejected`` (a syntax
failure), ``timeout`` and ``error`` (the planner's), ``crash`` and ``hang``.

    nice -n 10 python benchmarks/real_model_pddl.py --limit 2000 --json /tmp/real_model_pddl.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import multiprocessing
import os
import platform
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from pathlib import Path

from planloop.formalizer import (
    CheckFailure,
    CommandMapper,
    ExtractionError,
    Files,
    check,
    extract_files,
)
from planloop.pddl import Domain, PDDLError, solve
from planloop.pddl.fd_planner import classify, fast_downward_paths, search_options

DEFAULT_CORPUS = (
    Path(__file__).resolve().parents[1] / ".." / "shared" / "corpora" / "real-model-pddl"
)
ROWS = ("plan", "no_plan", "goal_true", "error", "solver_crash", "none_silent")
VERDICTS = ("plan", "goal_true", "no_plan", "rejected", "timeout", "error", "crash", "hang")
AGREES = {"plan": "plan", "no_plan": "no_plan", "goal_true": "goal_true", "error": "rejected"}
SCORED = ("plan", "no_plan", "goal_true")
FD_MEMORY_MB = 2048


def recorded(call: dict) -> str:
    """The call's recorded class: ``plan_unmapped`` counts as ``plan``."""
    outcome = call["recorded"]["outcome"]
    return "plan" if outcome == "plan_unmapped" else outcome


class Hang(BaseException):
    """A call past its wall-clock budget (BaseException: no ``except Exception`` eats it)."""


def _alarm(signum, frame):
    raise Hang()


def bounded(seconds: float, fn, *args):
    """``fn(*args)``, raising Hang after ``seconds`` of wall-clock time."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn(*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def shape(message: str) -> str:
    """A message's class: quoted names replaced by X, first line only."""
    return re.sub(r"'[^']*'", "X", message.splitlines()[0] if message else "")


def crash_text() -> str:
    """The escaping exception and where it was raised, in one line."""
    lines = traceback.format_exc().strip().splitlines()
    return " | ".join(lines[-3:])


# -- the corpus -------------------------------------------------------------------------


def read_jsonl(path: Path) -> list[dict]:
    with gzip.open(path, "rt") as lines:
        return [json.loads(line) for line in lines]


def load_corpus(folder: Path):
    """(texts by sha, calls, raw replies)."""
    texts = {t["sha"]: t["text"] for t in read_jsonl(folder / "texts.jsonl.gz")}
    return texts, read_jsonl(folder / "pairs.jsonl.gz"), read_jsonl(folder / "raw_replies.jsonl.gz")


def pair_key(call: dict, texts: dict) -> tuple[str, str] | None:
    """(df_sha, pf_sha) when both texts are in the corpus, else None."""
    key = call["df_sha"], call["pf_sha"]
    return key if all(sha in texts for sha in key) else None


def sample(keys, limit: int | None, seed: int) -> list:
    """A seeded sample of ``limit`` keys (all when None), sorted by domain so that a
    worker meets one domain's problems in a row."""
    keys = sorted(keys)
    if limit is not None and limit < len(keys):
        keys = random.Random(seed).sample(keys, limit)
    return sorted(keys)


# -- planloop's verdict (in the workers) ------------------------------------------------


def check_pair(job) -> tuple:
    """(key, record) of check() on one pair; an escaping exception is a crash."""
    key, df, pf, planner, timeout, valid_lists = job
    start = time.monotonic()
    try:
        record = bounded(timeout + 60, run_check, Files(df, pf), planner, timeout, valid_lists)
    except Hang:
        record = {"verdict": "hang", "message": f"no answer within {timeout + 60:g} s"}
    except Exception:
        record = {"verdict": "crash", "message": crash_text()}
    return key, record | {"seconds": round(time.monotonic() - start, 3)}


class AnyStep(CommandMapper):
    """A mapper taking every step for a command, so that check() returns the plan: each
    call has its own valid commands, and the plan is mapped per call."""

    def command_for(self, step: str, valid, domain: Domain | None = None) -> str | None:
        return step

    def examples(self, limit: int = 8) -> list[str]:
        return []


def run_check(files: Files, planner: str, timeout: float, valid_lists) -> dict:
    """check(): its verdict, message, warnings and plan, and the plan's first step mapped
    against each of ``valid_lists``."""
    results = []

    def solver(*args, **kwargs):
        results.append(solve(*args, **kwargs))
        return results[-1]

    try:
        checked = check(files, AnyStep(), (), planner=planner, timeout=timeout, solver=solver)
    except CheckFailure as failure:
        record = {
            "verdict": verdict(failure, results),
            "message": first_message(failure),
            "warnings": failure.warnings,
        }
    else:
        record = {
            "verdict": "plan",
            "message": "",
            "warnings": checked.warnings,
            "plan": list(checked.plan),
            "mapped": [map_step(checked.plan[0], v, checked.domain) for v in valid_lists],
        }
    return record | {
        "warnings": [warning(d) for d in record["warnings"]],
        "planner": results[-1].planner if results else "",
    }


def verdict(failure: CheckFailure, results: list) -> str:
    """The verdict class of a failed check (``results``: the planner's answers)."""
    if failure.stage == "syntax":
        return "rejected"
    if failure.stage == "goal":  # an empty goal is true too: FF's empty plan for both
        return "goal_true"
    return {"unsolvable": "no_plan", "timeout": "timeout"}.get(results[-1].status, "error")


def first_message(failure: CheckFailure) -> str:
    """The first error diagnostic's message (the failure's own message if none)."""
    cause = failure.__cause__
    if isinstance(cause, PDDLError):
        errors = [d for d in cause.diagnostics if d.severity == "error"] or cause.diagnostics
        if errors:
            return errors[0].message
    return failure.message


def warning(diagnostic) -> str:
    return f"{diagnostic.stage}: {diagnostic.message}"


def map_step(step: str, valid: list[str], domain) -> str:
    """``valid`` when a mapper taught ``valid`` maps ``step`` to one of them, else
    ``invalid`` (another command), ``none`` or the exception it raised."""
    mapper = CommandMapper()
    try:
        mapper.learn(valid)
        command = mapper.command_for(step, valid, domain)
    except Exception:
        return f"crash: {crash_text()}"
    return "none" if command is None else "valid" if command in valid else "invalid"


# -- Fast Downward's verdict on the untouched texts (in the workers) --------------------


def fd_pair(job) -> tuple:
    """(key, Fast Downward's verdict) on one pair's texts as the model wrote them."""
    key, df, pf, timeout = job
    try:
        with tempfile.TemporaryDirectory(prefix="real-model-pddl-") as tmp:
            return key, fd_verdict(Path(tmp), df, pf, timeout)
    except Exception:
        return key, "crash"


def fd_verdict(folder: Path, df: str, pf: str, timeout: float) -> str:
    """Translate and search in ``folder``; a translator exit other than 0, out of memory
    or time (an input error, a traceback) is ``rejected``."""
    bin_dir, downward = fast_downward_paths()
    env = dict(os.environ, PYTHONPATH=str(bin_dir))
    (folder / "domain.pddl").write_text(df)
    (folder / "problem.pddl").write_text(pf)
    deadline = time.monotonic() + timeout
    code = run_fd(
        [
            sys.executable,
            "-S",
            "-m",
            "fast_downward.translate",
            "domain.pddl",
            "problem.pddl",
            "--sas-file",
            "output.sas",
        ],
        folder,
        env,
        None,
        deadline,
    )
    if code != 0:
        return {None: "timeout", 20: "error", 22: "error"}.get(code, "rejected")
    with open(folder / "output.sas") as sas:
        code = run_fd([str(downward), *search_options("lama-first")], folder, env, sas, deadline)
    status = "timeout" if code is None else classify(code)
    if status != "solved":
        return {"unsolvable": "no_plan", "timeout": "timeout"}.get(status, "error")
    plans = sorted(folder.glob("sas_plan*"))
    if not plans:
        return "error"
    steps = [
        line
        for line in plans[-1].read_text().splitlines()
        if line.strip() and not line.startswith(";")
    ]
    return "plan" if steps else "goal_true"


def run_fd(argv, folder: Path, env: dict, stdin, deadline: float) -> int | None:
    """The exit code of ``argv`` run in ``folder`` (memory capped), None past ``deadline``."""

    def cap_memory():
        size = FD_MEMORY_MB * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    try:
        return subprocess.run(
            argv,
            cwd=folder,
            env=env,
            stdin=stdin or subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=cap_memory,
            timeout=max(0.01, deadline - time.monotonic()),
        ).returncode
    except subprocess.TimeoutExpired:
        return None


# -- running ----------------------------------------------------------------------------


def run_pool(fn, jobs: list, workers: int, label: str) -> dict:
    """{key: value} of ``fn`` over ``jobs`` in ``workers`` processes, progress on stderr."""
    found, start = {}, time.monotonic()
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        for done, (key, value) in enumerate(pool.imap_unordered(fn, jobs, chunksize=4), 1):
            found[key] = value
            if done % 20 == 0 or done == len(jobs):
                elapsed = time.monotonic() - start
                eta = elapsed / done * (len(jobs) - done)
                print(
                    f"\r{label}: {done}/{len(jobs)} pairs, {elapsed:.0f} s, {eta:.0f} s left ",
                    end="",
                    file=sys.stderr,
                    flush=True,
                )
    print(file=sys.stderr)
    return found


def extraction(replies: list[dict]) -> dict:
    """Every raw reply through extract_files: extracted, refused by message, crashed."""
    refused: Counter[str] = Counter()
    crashes: list[dict] = []
    extracted = 0
    for reply in replies:
        try:
            bounded(60, extract_files, reply["reply"])
            extracted += 1
        except ExtractionError as exc:
            refused[str(exc)] += 1
        except (Exception, Hang):
            crashes.append({"id": reply["id"], "error": crash_text()})
    return {
        "replies": len(replies),
        "extracted": extracted,
        "refused": dict(refused.most_common()),
        "crashes": crashes,
    }


def plan_calls(calls: list[dict], keys: dict) -> dict[tuple, list[list[str]]]:
    """{pair: its distinct valid-command lists} over calls recorded plan with a list."""
    found: defaultdict[tuple, list[list[str]]] = defaultdict(list)
    for call in calls:
        key = keys[call["id"]]
        if key and recorded(call) == "plan" and call["valid"] and call["valid"] not in found[key]:
            found[key].append(call["valid"])
    return found


def mapping(calls: list[dict], keys: dict, records: dict, valid_lists: dict) -> dict:
    """For calls recorded plan with valid commands and a plan from planloop: what the
    plan's first step maps to (valid, invalid, none), by environment; and the crashes."""
    found: defaultdict[str, Counter[str]] = defaultdict(Counter)
    crashes: list[dict] = []
    for call in calls:
        record = records.get(keys[call["id"]]) or {}
        if recorded(call) != "plan" or not call["valid"] or not record.get("mapped"):
            continue
        outcome = record["mapped"][valid_lists[keys[call["id"]]].index(call["valid"])]
        if outcome.startswith("crash"):
            crashes.append({"id": call["id"], "error": outcome})
            outcome = "crash"
        found[call["env"]][outcome] += 1
    return {"by_env": dict(sorted(found.items())), "crashes": crashes}


# -- figures ----------------------------------------------------------------------------


def confusion(calls: list[dict], keys: dict, verdicts: dict) -> dict[str, Counter]:
    """{recorded class: Counter of verdicts}, counted by calls."""
    table: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for call in calls:
        key = keys.get(call["id"])
        if key in verdicts:
            table[recorded(call)][verdicts[key]] += 1
    return table


def headline(table: dict[str, Counter]) -> dict:
    """(a) agreement on calls recorded plan / no_plan / goal_true; (b) share of calls
    recorded plan that are rejected."""
    scored = sum(table[c].total() for c in SCORED)
    agree = sum(table[c][c] for c in SCORED)
    plans = table["plan"].total()
    return {
        "agree": agree,
        "scored": scored,
        "agreement": agree / scored if scored else None,
        "plan_rejected": table["plan"]["rejected"],
        "plan_calls": plans,
        "plan_rejected_share": table["plan"]["rejected"] / plans if plans else None,
    }


def by_calls(calls: list[dict], keys: dict, records: dict, classes_of) -> dict:
    """{class: Counter of recorded classes}, counted by calls; ``classes_of(record)`` is
    the set of a pair's classes."""
    found: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for call in calls:
        record = records.get(keys.get(call["id"]))
        for name in classes_of(record) if record else ():
            found[name][recorded(call)] += 1
    return found


def group_crashes(crashes: list[dict]) -> dict[str, list[str]]:
    """{error: the pairs or replies it escaped on}, most frequent first."""
    found = defaultdict(list)
    for crash in crashes:
        found[crash["error"]].append(crash.get("id") or f"{crash['df_sha']}/{crash['pf_sha']}")
    return dict(sorted(found.items(), key=lambda item: -len(item[1])))


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def confusion_table(table: dict[str, Counter]) -> str:
    columns = [v for v in VERDICTS if any(table[r][v] for r in ROWS)]
    lines = [
        "| recorded | calls | " + " | ".join(columns) + " | agree |",
        "|---" * (len(columns) + 3) + "|",
    ]
    for row in ROWS:
        total = table[row].total()
        if total:
            agree = pct(table[row][AGREES[row]], total) if row in AGREES else "-"
            lines.append(
                f"| {row} | {total} | "
                + " | ".join(str(table[row][v]) for v in columns)
                + f" | {agree} |"
            )
    return "\n".join(lines)


def headline_lines(name: str, figures: dict) -> str:
    return (
        f"{name}: (a) agreement on calls recorded plan/no_plan/goal_true: "
        f"{pct(figures['agree'], figures['scored'])} ({figures['agree']}/{figures['scored']}; "
        f"target >= 95%)\n{name}: (b) calls recorded plan that it rejects: "
        f"{pct(figures['plan_rejected'], figures['plan_calls'])} "
        f"({figures['plan_rejected']}/{figures['plan_calls']}; target <= 3%)"
    )


def classes_table(found: dict[str, Counter], top: int, title: str) -> str:
    ranked = sorted(found.items(), key=lambda item: (-item[1].total(), item[0]))[:top]
    lines = [f"| {title} | calls | " + " | ".join(ROWS) + " |", "|---" * (len(ROWS) + 2) + "|"]
    for message, counts in ranked:
        lines.append(
            f"| {message.replace('|', '/')} | {counts.total()} | "
            + " | ".join(str(counts[r]) for r in ROWS)
            + " |"
        )
    return "\n".join(lines)


def side_by_side(ours: dict[str, Counter], fd: dict[str, Counter]) -> str:
    lines = ["| recorded | calls | planloop agrees | Fast Downward agrees |", "|---|---|---|---|"]
    for row in ROWS:
        total = ours[row].total()
        if total and row in AGREES:
            lines.append(
                f"| {row} | {total} | {pct(ours[row][AGREES[row]], total)} | "
                f"{pct(fd[row][AGREES[row]], total)} |"
            )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "corpus",
        type=Path,
        nargs="?",
        default=DEFAULT_CORPUS.resolve(),
        help="folder of pairs/texts/raw_replies .jsonl.gz (default: %(default)s)",
    )
    parser.add_argument("--limit", type=int, help="check a seeded sample of this many unique pairs")
    parser.add_argument(
        "--fd-sample", type=int, default=300, help="unique pairs Fast Downward runs on (0: none)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--planner", default="auto")
    parser.add_argument("--timeout", type=float, default=20.0, help="planner seconds per check")
    parser.add_argument("--json", type=Path, help="also write every figure as JSON here")
    args = parser.parse_args(argv)

    start = time.monotonic()
    texts, calls, replies = load_corpus(args.corpus)
    keys = {call["id"]: pair_key(call, texts) for call in calls}
    chosen = sample({k for k in keys.values() if k}, args.limit, args.seed)
    valid_lists = plan_calls(calls, keys)
    records = run_pool(
        check_pair,
        [
            (k, texts[k[0]], texts[k[1]], args.planner, args.timeout, valid_lists.get(k, []))
            for k in chosen
        ],
        args.workers,
        "check",
    )
    check_seconds = time.monotonic() - start
    fd_keys = sample(chosen, min(args.fd_sample, len(chosen)), args.seed) if args.fd_sample else []
    fd = (
        run_pool(
            fd_pair,
            [(k, texts[k[0]], texts[k[1]], args.timeout) for k in fd_keys],
            args.workers,
            "Fast Downward",
        )
        if fd_keys
        else {}
    )

    verdicts = {k: r["verdict"] for k, r in records.items()}
    ours = confusion(calls, keys, verdicts)
    ours_on_fd = confusion(calls, keys, {k: verdicts[k] for k in fd})
    theirs = confusion(calls, keys, fd)
    rejections = by_calls(
        calls,
        keys,
        records,
        lambda r: {shape(r["message"])} if r["verdict"] == "rejected" else set(),
    )
    warnings = by_calls(calls, keys, records, lambda r: {shape(w) for w in r.get("warnings", ())})
    extracted = extraction(replies)
    mapped = mapping(calls, keys, records, valid_lists)
    crashes = [
        {"df_sha": k[0], "pf_sha": k[1], "verdict": r["verdict"], "error": r["message"]}
        for k, r in records.items()
        if r["verdict"] in ("crash", "hang")
    ]
    weights = Counter(keys.values())
    timeouts = [
        {"df_sha": k[0], "pf_sha": k[1], "seconds": r["seconds"], "calls": weights[k]}
        for k, r in records.items()
        if r["verdict"] == "timeout"
    ]
    seconds = time.monotonic() - start

    checked_calls = sum(weights[k] for k in records)
    print(
        f"real-model PDDL: {args.corpus}; {len(chosen)} unique pairs checked "
        f"({checked_calls} of {len(calls)} calls; "
        f"{weights[None]} calls lack a text); planner "
        f"{args.planner}, timeout {args.timeout:g} s, {args.workers} workers; check took "
        f"{check_seconds:.0f} s ({check_seconds * args.workers / max(1, len(chosen)):.3f} "
        f"worker-s per pair), all {seconds:.0f} s; Python {platform.python_version()}\n"
    )
    print("## 1. planloop check() against the recorded outcome (calls)\n")
    print(confusion_table(ours) + "\n")
    print(headline_lines("planloop", headline(ours)) + "\n")
    print("## 2. rejection classes (first diagnostic, by calls, top 20)\n")
    print(classes_table(rejections, 20, "message") + "\n")
    print(f"## 3. warnings (by calls, top 20; {len(warnings)} classes)\n")
    print(classes_table(warnings, 20, "warning") + "\n")
    print(
        f"## 4. Fast Downward (translator + lama-first, untouched texts) on {len(fd)} "
        f"sampled pairs\n"
    )
    print(confusion_table(theirs) + "\n")
    print(side_by_side(ours_on_fd, theirs) + "\n")
    print(headline_lines("planloop on the sample", headline(ours_on_fd)))
    print(headline_lines("Fast Downward on the sample", headline(theirs)) + "\n")
    print("## 5. extraction of the raw replies\n")
    print(
        f"{extracted['replies']} replies: {extracted['extracted']} extracted, "
        f"{sum(extracted['refused'].values())} refused, {len(extracted['crashes'])} crashed"
    )
    for message, count in extracted["refused"].items():
        print(f"- refused {count}: {message}")
    print("\n## 6. mapping the first step of planloop's plan (calls recorded plan)\n")
    for env, counts in mapped["by_env"].items():
        total = counts.total()
        print(
            f"- {env}: {counts['valid']}/{total} map to a valid command "
            f"({pct(counts['valid'], total)}), {counts['invalid']} to another, "
            f"{counts['none']} to none, {counts['crash']} crashed"
        )
    print("\n## 7. crashes, hangs and timeouts\n")
    all_crashes = crashes + extracted["crashes"] + mapped["crashes"]
    print(f"exceptions escaping check()/extract_files()/the mapper, and hangs: {len(all_crashes)}")
    for error, found in group_crashes(all_crashes).items():
        print(f"- {len(found)} x {error} (first: {found[0]})")
    print(f"planner timeouts: {len(timeouts)} pairs, {sum(t['calls'] for t in timeouts)} calls")
    for timeout in timeouts[:20]:
        print(f"- {timeout['df_sha']}/{timeout['pf_sha']}: {timeout['calls']} calls")

    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "args": {
                        k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()
                    },
                    "python": platform.python_version(),
                    "seconds": seconds,
                    "check_seconds": check_seconds,
                    "pairs": len(chosen),
                    "calls": checked_calls,
                    "planloop": {"confusion": ours, "headline": headline(ours)},
                    "rejections": rejections,
                    "warnings": warnings,
                    "fast_downward": {
                        "pairs": len(fd),
                        "confusion": theirs,
                        "headline": headline(theirs),
                        "planloop_confusion": ours_on_fd,
                        "planloop_headline": headline(ours_on_fd),
                    },
                    "extraction": extracted,
                    "mapping": mapped,
                    "crashes": all_crashes,
                    "timeouts": timeouts,
                    "records": [
                        {"df_sha": k[0], "pf_sha": k[1], "fd": fd.get(k)} | r
                        for k, r in sorted(records.items())
                    ],
                },
                indent=1,
            )
        )
    return 1 if all_crashes else 0


if __name__ == "__main__":
    raise SystemExit(main())
