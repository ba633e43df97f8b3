"""Would an episode of the PDDLego+ authors' runs have gone the same way under planloop?

A seeded sample of the corpus's logged episodes (``../shared/corpora/real-model-pddl`` or a
folder with the same files, such as the kept-apart half) is walked call by call in log
order, assuming the model answers the same prompt the same way: a walk stops at the first
call where planloop's answer to the same files (``check()`` with ``--planner``, its plan
made commands by the authors' rule, :func:`first_command_agreement.authors_commands`)
differs from what the authors' code played. An episode never stopped is whole: the same
trajectory, so the same score. Three rules:

- ``A_plan``: at calls recorded ``plan``, the first command is the recorded one;
- ``A_all``: as ``A_plan``, and where the authors' solver gave no plan planloop gives no
  command;
- ``B_all``: at every call, the whole command list is the recorded one.

Each stop has a class (:func:`stop_class`). Counted over episodes with a recorded plan,
per game. Each unique pair of files is planned once, in ``--workers`` processes.

    python benchmarks/trajectory_walk.py --planner authors --episodes 400 [--json F] [--list-stops A_plan]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import platform
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Literal

from first_command_agreement import DEFAULT_CORPUS, GAMES, authors_commands, pct, read_jsonl

from planloop.formalizer import CheckFailure, Files, check

RULES = ("A_plan", "A_all", "B_all")
StopClass = Literal[
    "tie among equal plans",
    "a longer or shorter plan",
    "planloop refuses what FF read",
    "FF refused what planloop reads",
    "solver crash",
    "other",
]
CLASSES: tuple[StopClass, ...] = StopClass.__args__  # type: ignore[attr-defined]
READ = ("plan", "plan_unmapped", "no_plan", "goal_true")


def plan_pair(job) -> tuple:
    """(pair, {"plan": planloop's steps or None, "stage": the failing check's stage})."""
    key, df, pf, planner, timeout = job
    try:
        checked = check(Files(df, pf), None, (), planner=planner, timeout=timeout)
    except CheckFailure as failure:
        return key, {"plan": None, "stage": failure.stage}
    return key, {"plan": list(checked.plan), "stage": None}


def recorded_commands(call: dict) -> list[str]:
    """What the authors' code played at ``call``: its commands when recorded ``plan``."""
    return (call["recorded"]["actions"] or []) if call["recorded"]["outcome"] == "plan" else []


def agrees(recorded: list[str], mapped: list[str]) -> dict[str, bool]:
    """Each rule's verdict at one call."""
    first = bool(recorded) and bool(mapped) and mapped[0] == recorded[0]
    return {
        "A_plan": not recorded or first,
        "A_all": (not recorded and not mapped) or first,
        "B_all": mapped == recorded,
    }


def stop_class(call: dict, record: dict | None, mapped: list[str]) -> StopClass:
    """Why planloop's answer at ``call`` differs from the authors' (``record``: planloop's
    plan and failing stage, None when the call's texts are missing)."""
    outcome, recorded = call["recorded"]["outcome"], recorded_commands(call)
    stage = record["stage"] if record else None
    if outcome in READ and stage == "syntax":
        return "planloop refuses what FF read"
    if mapped and outcome == "error":
        return "FF refused what planloop reads"
    if mapped and outcome == "solver_crash":
        return "solver crash"
    if recorded and mapped:
        raw = call["recorded"].get("raw_plan")
        theirs = len(raw) if isinstance(raw, list) else len(recorded)
        ours = len(record["plan"]) if isinstance(raw, list) and record else len(mapped)
        return "tie among equal plans" if ours == theirs else "a longer or shorter plan"
    return "other"


def walk(calls: list[dict], records: dict, where: dict | None = None) -> dict[str, StopClass]:
    """{rule: the class of the call its walk stopped at}, for the rules that stopped;
    ``where`` (when given) gets {rule: that call's id}."""
    stopped: dict[str, StopClass] = {}
    for call in calls:
        record = records.get((call["df_sha"], call["pf_sha"]))
        plan = record["plan"] if record else None
        mapped = authors_commands(plan, call["env"]) if plan else []
        for rule, same in agrees(recorded_commands(call), mapped).items():
            if rule not in stopped and not same:
                stopped[rule] = stop_class(call, record, mapped)
                if where is not None:
                    where[rule] = call["id"]
        if len(stopped) == len(RULES):
            break
    return stopped


def episodes_of(folder: Path) -> dict[str, list[dict]]:
    """{log path: its calls in log order}."""
    found: dict[str, list[dict]] = defaultdict(list)
    for call in read_jsonl(folder / "pairs.jsonl.gz"):
        found[call["path"]].append(call)
    for calls in found.values():
        calls.sort(key=lambda c: int(c["id"].rsplit("#", 1)[1]))
    return found


def figures(walks: list[tuple[str, bool, dict]]) -> dict:
    """{game: {"episodes", "whole": {rule: n}, "stops": {rule: Counter of classes}}}
    over the episodes with a recorded plan."""
    found: dict = {}
    for env in GAMES:
        kept = [stopped for e, has_plan, stopped in walks if e == env and has_plan]
        found[env] = {
            "episodes": len(kept),
            "whole": {r: sum(r not in s for s in kept) for r in RULES},
            "stops": {r: Counter(s[r] for s in kept if r in s) for r in RULES},
        }
    return found


def tables(found: dict) -> str:
    lines = [
        "| game | episodes with a recorded plan | "
        + " | ".join(f"whole under {r}" for r in RULES)
        + " |",
        "|---|---:|" + "---:|" * len(RULES),
    ]
    for env, name in GAMES.items():
        f = found[env]
        cells = [f"{pct(f['whole'][r], f['episodes'])} ({f['whole'][r]})" for r in RULES]
        lines.append(f"| {name} | {f['episodes']} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Where walks stop (episodes):",
        "",
        "| class | " + " | ".join(f"{GAMES[e]} {r}" for e in GAMES for r in RULES) + " |",
        "|---|" + "---:|" * (len(GAMES) * len(RULES)),
    ]
    for name in CLASSES:
        cells = [str(found[e]["stops"][r][name]) for e in GAMES for r in RULES]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "corpus",
        type=Path,
        nargs="?",
        default=DEFAULT_CORPUS.resolve(),
        help="folder of pairs/texts .jsonl.gz (default: %(default)s)",
    )
    parser.add_argument("--episodes", type=int, default=200, help="a seeded sample of episodes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--planner", default="auto")
    parser.add_argument("--timeout", type=float, default=20.0, help="planner seconds per pair")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--list-stops",
        metavar="RULE",
        choices=RULES,
        help="also list each episode's call where the walk under RULE stopped, with its class",
    )
    args = parser.parse_args(argv)

    start = time.monotonic()
    texts = {t["sha"]: t["text"] for t in read_jsonl(args.corpus / "texts.jsonl.gz")}
    episodes = episodes_of(args.corpus)
    chosen = sorted(
        random.Random(args.seed).sample(sorted(episodes), min(args.episodes, len(episodes)))
    )
    keys = sorted(
        {
            (c["df_sha"], c["pf_sha"])
            for path in chosen
            for c in episodes[path]
            if c["df_sha"] in texts and c["pf_sha"] in texts
        }
    )
    jobs = [(k, texts[k[0]], texts[k[1]], args.planner, args.timeout) for k in keys]
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        records = dict(pool.imap_unordered(plan_pair, jobs, chunksize=4))
    walks, stops = [], []
    for path in chosen:
        where: dict[str, str] = {}
        has_plan = any(c["recorded"]["outcome"] == "plan" for c in episodes[path])
        stopped = walk(episodes[path], records, where)
        walks.append((episodes[path][0]["env"], has_plan, stopped))
        if has_plan and args.list_stops in stopped:
            stops.append(f"- {where[args.list_stops]}: {stopped[args.list_stops]}")
    found = figures(walks)
    seconds = time.monotonic() - start
    print(
        f"trajectory walk: {args.corpus}; {len(chosen)} of {len(episodes)} episodes "
        f"(seed {args.seed}), {len(keys)} unique pairs; planner {args.planner}, timeout "
        f"{args.timeout:g} s, {args.workers} workers, {seconds:.0f} s; Python "
        f"{platform.python_version()}\n",
        file=sys.stdout,
    )
    print(tables(found))
    if args.list_stops:
        print(f"\nWhere the walks under {args.list_stops} stopped ({len(stops)} episodes):\n")
        print("\n".join(sorted(stops)))
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "args": {
                        k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()
                    },
                    "seconds": seconds,
                    "figures": found,
                },
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
