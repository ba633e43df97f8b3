"""What judging one written problem costs: the metrics of ``experiments/formalize.py``
per candidate, in milliseconds, on 40-object problems of every generated domain.

For each domain and seed, the reference is generated and planned once (as the study
does); then three candidates are scored against it with
``planloop.formalizer.problems.score``: the reference itself, the reference with its
objects renamed (EQ must find the renaming), and the reference missing one initial
fact (EQ must say no, and TSR must match the objects without a renaming). Reading the
candidate and planning it are not included: ``score`` gets the checked candidate
(``verify``'s verdict), as the study hands it over. Each score is timed ``--repeat``
times; the best is kept.

    python benchmarks/bench_formalize_metrics.py --json /tmp/bench_formalize_metrics.json
"""

from __future__ import annotations

import argparse
import json
import statistics
from functools import partial

from timing import best

from planloop.envs.problem_sets import DOMAINS
from planloop.formalizer.problems import Reference, inject, score, verify
from planloop.pddl import solve

CANDIDATES = ("reference", "renamed_objects", "missing_fact")


def measure(size: int, seeds: int, repeat: int) -> list[dict]:
    rows = []
    for name, problems in DOMAINS.items():
        if not problems.sized:
            continue
        domain = problems.domain()
        timings: dict[str, list[float]] = {c: [] for c in CANDIDATES}
        for seed in range(seeds):
            text = problems.generate(size, seed)
            problem = problems.parse(text)
            planned = solve(domain, problem, planner="lama-first", timeout=120)
            reference = Reference(problem, planned.solved, tuple(planned.plan or ()))
            for kind in CANDIDATES:
                answer = text if kind == "reference" else inject(kind, domain, problem)
                verdict = verify(domain, answer)
                metrics = score(domain, reference, verdict)
                assert (metrics["eq"] == 1) == (kind != "missing_fact"), (name, seed, kind)
                timings[kind].append(
                    1000 * best(partial(score, domain, reference, verdict), repeat)
                )
        rows.append(
            {
                "domain": name,
                "objects": size,
                "problems": seeds,
                **{
                    f"{kind}_ms": round(statistics.fmean(values), 2)
                    for kind, values in timings.items()
                },
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=40)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = measure(args.size, args.seeds, args.repeat)
    print(
        "| domain | objects | problems | "
        + " | ".join(f"{c} (ms)" for c in CANDIDATES)
        + " |\n|---|---:|---:|"
        + "---:|" * len(CANDIDATES)
    )
    for row in rows:
        print(
            f"| {row['domain']} | {row['objects']} | {row['problems']} | "
            + " | ".join(f"{row[f'{c}_ms']:.2f}" for c in CANDIDATES)
            + " |"
        )
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)


if __name__ == "__main__":
    main()
