"""How often planloop's first command is the one the PDDLego+ authors' code played, for
the same domain and problem files.

The corpus (``../shared/corpora/real-model-pddl`` from the repository, or a folder given
as argument with the same files; see its README) holds each model call's files and, for a
call whose plan reached the game (recorded ``plan``), the commands the authors' code
made of their planner's plan (LAPKT's DUAL-BFWS with the FF parser). planloop checks the
same files as the PDDLego+ policy does (``check()``, ``--planner``, default ``auto``) and
its first command is compared with the authors' first, by calls, in two ways:

- planner: planloop's plan turned into commands by the authors' own rule
  (:func:`authors_commands`), so that only the planners differ;
- policy: the command the PDDLego+ policy plays for the plan's first step (a
  ``CommandMapper`` taught every list of valid commands the game had shown in that trial
  so far, choosing among the call's, given the plan's domain; a step naming no command
  is played as written, as under ``--paper``).

A call for which planloop finds no plan agrees in neither. Each unique pair of files is
planned once, in ``--workers`` processes.

    python benchmarks/first_command_agreement.py --workers 2 [--limit 500] [--json F]
"""

from __future__ import annotations

import argparse
import gzip
import json
import multiprocessing
import platform
import random
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from planloop.formalizer import CheckFailure, CommandMapper, Files, check

DEFAULT_CORPUS = (
    Path(__file__).resolve().parents[1] / ".." / "shared" / "corpora" / "real-model-pddl"
)
GAMES = {"coin": "CoinCollector", "alfworld": "ALFWorld"}
# the authors' ALFWorld rule: (the part of the action name it looks for, the command's
# form, the step's words that fill it; the step is skipped when one is missing)
ALFWORLD_FORMS = (
    ("gotolocation", "go to {}", (-1,)),
    ("openobject", "open {}", (-1,)),
    ("pickupobject", "take {} from {}", (1, 2)),
    ("putobject", "move {} to {}", (1, 2)),
    ("useobject", "use {}", (1,)),
    ("heatobject", "heat {} with {}", (1, 2)),
    ("cleanobject", "clean {} with {}", (1, 2)),
    ("coolobject", "cool {} with {}", (1, 2)),
    ("sliceobject", "slice {} with {}", (2, 3)),
)


def authors_commands(plan, game: str) -> list[str]:
    """The commands the authors' code makes of ``plan`` (steps ``(name args)``), by their
    rule: each step lower-cased and read as words; on CoinCollector a step naming
    "open" and "door" is ``open door to`` its last word, else one naming "move" is
    ``move`` its last word; on ALFWorld the first form of :data:`ALFWORLD_FORMS` whose
    name the step holds, each word split before its number (``cabinet1`` -> ``cabinet
    1``). Any other step is skipped."""
    commands = []
    for step in plan:
        text = step.lower().replace("(", "").replace(")", "")
        words = text.split()
        if not words:
            continue
        if game == "coin":
            if "open" in text and "door" in text:
                commands.append(f"open door to {words[-1]}")
            elif "move" in text:
                commands.append(f"move {words[-1]}")
            continue
        form = next((f for f in ALFWORLD_FORMS if f[0] in text), None)
        if form is not None and all(i < len(words) for i in form[2]):
            commands.append(form[1].format(*(_numbered(words[i]) for i in form[2])))
    return commands


def _numbered(word: str) -> str:
    return re.sub(r"(\D+)(\d+)", r"\1 \2", word)


def policy_command(plan, shown, valid, domain) -> str:
    """The command the PDDLego+ policy plays for ``plan``'s first step when ``valid``
    are the game's commands and ``shown`` the lists of them it has seen: its mapper's,
    else the step as written."""
    mapper = CommandMapper()
    for commands in shown:
        mapper.learn(commands)
    step = plan[0]
    return mapper.command_for(step, valid, domain) or " ".join(step.strip("() ").split())


# -- the corpus -------------------------------------------------------------------------


def read_jsonl(path: Path) -> list[dict]:
    with gzip.open(path, "rt") as lines:
        return [json.loads(line) for line in lines]


def planned_calls(folder: Path) -> tuple[dict[str, str], list[dict]]:
    """(texts by sha, the calls recorded ``plan`` whose texts are both in the corpus),
    each call with ``context``: (the valid-command lists its trial had shown, its own)."""
    texts = {t["sha"]: t["text"] for t in read_jsonl(folder / "texts.jsonl.gz")}
    shown = {log["path"]: log["valid_lists"] for log in read_jsonl(folder / "logs.jsonl.gz")}
    calls = [
        call
        for call in read_jsonl(folder / "pairs.jsonl.gz")
        if call["recorded"]["outcome"] == "plan"
        and call["recorded"]["actions"]
        and call["df_sha"] in texts
        and call["pf_sha"] in texts
    ]
    for call in calls:
        lists = shown.get(call["path"], [])[: call.get("valid_seen") or 0]
        call["context"] = (tuple(map(tuple, lists)), tuple(call["valid"] or ()))
    return texts, calls


def pair(call: dict) -> tuple[str, str]:
    return call["df_sha"], call["pf_sha"]


# -- planning (in the workers) ----------------------------------------------------------


def plan_pair(job) -> tuple:
    """(pair, {"plan": steps or None, "policy": the policy's command per context})."""
    key, df, pf, planner, timeout, contexts = job
    try:
        checked = check(Files(df, pf), None, (), planner=planner, timeout=timeout)
    except CheckFailure:
        return key, {"plan": None}
    plan = list(checked.plan)
    return key, {
        "plan": plan,
        "policy": [policy_command(plan, shown, valid, checked.domain) for shown, valid in contexts],
    }


def run_pool(jobs: list, workers: int) -> dict:
    found, start = {}, time.monotonic()
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        for done, (key, record) in enumerate(pool.imap_unordered(plan_pair, jobs, chunksize=4), 1):
            found[key] = record
            if done % 50 == 0 or done == len(jobs):
                print(
                    f"\rplanned {done}/{len(jobs)} pairs, {time.monotonic() - start:.0f} s ",
                    end="",
                    file=sys.stderr,
                    flush=True,
                )
    print(file=sys.stderr)
    return found


# -- the figures ------------------------------------------------------------------------


def contexts(calls: list[dict]) -> dict[tuple, list[tuple]]:
    """{pair: the distinct contexts of its calls}."""
    found: dict[tuple, list[tuple]] = defaultdict(list)
    for call in calls:
        if call["context"] not in found[pair(call)]:
            found[pair(call)].append(call["context"])
    return found


def agreement(calls: list[dict], records: dict, known: dict) -> dict[str, Counter]:
    """{game: Counter of calls, planned (planloop found a plan), planner and policy (its
    first command equals the authors' recorded first)}, over the calls whose pair has a
    record."""
    found: dict[str, Counter] = defaultdict(Counter)
    for call in calls:
        record = records.get(pair(call))
        if record is None:
            continue
        counts = found[call["env"]]
        counts["calls"] += 1
        if record["plan"] is None:
            continue
        theirs = call["recorded"]["actions"][0]
        counts["planned"] += 1
        counts["planner"] += authors_commands(record["plan"], call["env"])[:1] == [theirs]
        played = record["policy"][known[pair(call)].index(call["context"])]
        counts["policy"] += played == theirs
    return found


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def table(found: dict[str, Counter]) -> str:
    lines = [
        "| game | calls recorded plan | planloop plans | same first command: planner "
        "| same first command: policy |",
        "|---|---:|---:|---:|---:|",
    ]
    for env, name in GAMES.items():
        c = found.get(env)
        if c:
            lines.append(
                f"| {name} | {c['calls']:,} | {c['planned']:,} | "
                f"{pct(c['planner'], c['calls'])} ({c['planner']:,}) | "
                f"{pct(c['policy'], c['calls'])} ({c['policy']:,}) |"
            )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "corpus",
        type=Path,
        nargs="?",
        default=DEFAULT_CORPUS.resolve(),
        help="folder of pairs/texts/logs .jsonl.gz (default: %(default)s)",
    )
    parser.add_argument("--limit", type=int, help="plan a seeded sample of this many pairs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--planner", default="auto")
    parser.add_argument("--timeout", type=float, default=20.0, help="planner seconds per pair")
    parser.add_argument("--json", type=Path, help="also write the figures and each call here")
    args = parser.parse_args(argv)

    start = time.monotonic()
    texts, calls = planned_calls(args.corpus)
    keys = sorted({pair(call) for call in calls})
    if args.limit is not None and args.limit < len(keys):
        keys = sorted(random.Random(args.seed).sample(keys, args.limit))
    known = contexts(calls)
    jobs = [(k, texts[k[0]], texts[k[1]], args.planner, args.timeout, known[k]) for k in keys]
    records = run_pool(jobs, args.workers)
    found = agreement(calls, records, known)
    seconds = time.monotonic() - start
    print(
        f"first-command agreement: {args.corpus}; {len(keys):,} unique pairs of "
        f"{len({pair(call) for call in calls}):,} recorded plan; planner {args.planner}, "
        f"timeout {args.timeout:g} s, {args.workers} workers, {seconds:.0f} s; Python "
        f"{platform.python_version()}\n"
    )
    print(table(found))
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "args": {
                        k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()
                    },
                    "seconds": seconds,
                    "agreement": found,
                    "calls": [
                        {
                            "id": call["id"],
                            "env": call["env"],
                            "authors": call["recorded"]["actions"][0],
                            "plan": records[pair(call)]["plan"],
                        }
                        for call in calls
                        if pair(call) in records
                    ],
                },
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
