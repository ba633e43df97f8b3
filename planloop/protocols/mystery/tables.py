"""The Mystery study's tables, records in and markdown out: success with Wilson
intervals, Table 1 beside the paper's figures, z-tests against the full pipeline, the
retry curve, the hazard by step, the failure composition, NPMI between failing actions
and their unmet predicates, the distributions of the failing steps and the pipeline's
checks (Table 2, the runtime and Figures 10-11: :mod:`.paper_figures`)."""

from __future__ import annotations

import statistics
from collections import Counter
from pathlib import Path

from ...policies.repair.consistency import CHECKS
from ...results import Record
from ...stats import npmi_table, percentile, trimmed_mean, two_proportion_z_test, wilson_interval
from ...study import (
    markdown_table,
    model_errors,
    model_failures,
    plots,
    success_cell,
    tally,
    with_published,
)
from ...study.runs import single_run
from ..base import paper_heading
from . import ROWS, TABLE_1

KINDS = {
    "precondition": "missing precondition",
    "goal": "goal not satisfied",
    "parse": "parse or translation error",
}
TRIM = 0.1  # the trimmed mean cuts 10% of the runtimes from each end
CATCHES = (*CHECKS, "stepwise", "validation")  # the signal log's checks, in the pipeline's order


def by_condition(records: list[Record], conditions: list[str]) -> dict[str, list[Record]]:
    """The records of each condition, in the given order (those that ended on a model
    error too: they are failures in n)."""
    return {c: [r for r in records if r["condition"] == c] for c in conditions}


def _seconds(values: list[float]) -> list[str]:
    if not values:
        return ["-"] * 4
    return [
        f"{v:.2f}"
        for v in (
            percentile(values, 50),
            percentile(values, 90),
            statistics.mean(values),
            trimmed_mean(values, TRIM),
        )
    ]


def success_table(groups: dict[str, list[Record]], failed: Counter) -> str:
    rows = [
        [
            c,
            success_cell(*tally(g)),
            f"{statistics.mean(r['attempts'] for r in g):.2f}" if g else "-",
            *_seconds([r["seconds"] for r in g]),
            f"{statistics.mean(r['usage']['calls'] for r in g):.1f}" if g else "-",
            failed[c],
        ]
        for c, g in groups.items()
    ]
    return markdown_table(
        [
            "condition",
            "success [95% Wilson]",
            "attempts per instance",
            "seconds p50",
            "p90",
            "mean",
            f"trimmed mean ({TRIM:.0%})",
            "model calls",
            "model errors",
        ],
        rows,
    )


def paper_table(records: list[Record]) -> str:
    """Table 1's rows (direct one-shot, direct zero-shot, pipeline) over the records of
    one run, headed by its model and the paper's: success beside the paper's figure,
    its Wilson interval, n and the model errors."""
    layout = TABLE_1
    records, rows = single_run(records), []
    for condition, row in ROWS.items():
        group = [r for r in records if r["condition"] == condition]
        wins, n = tally(group)
        low, high = wilson_interval(wins, n)
        rate = f"{wins}/{n} ({wins / n:.1%})" if n else "0/0"
        rows.append(
            [
                row,
                with_published(rate, layout.published.get((row, "success"))),
                f"[{low:.1%}, {high:.1%}]",
                n,
                model_errors(group),
            ]
        )
    return f"{paper_heading(layout, records)}\n\n" + markdown_table(
        ["", "success", "95% Wilson", "n", "model errors"], rows
    )


def tests_table(groups: dict[str, list[Record]]) -> str:
    """Each condition against the full pipeline (the first condition without one)."""
    reference = "pipeline" if "pipeline" in groups else next(iter(groups))
    base_wins, base_n = tally(groups[reference])
    rows = []
    for condition, group in groups.items():
        wins, n = tally(group)
        if condition == reference or not n or not base_n:
            continue
        test = two_proportion_z_test(wins, n, base_wins, base_n)
        rows.append(
            [
                condition,
                reference,
                f"{wins / n - base_wins / base_n:+.1%}",
                f"{test.z:.2f}",
                f"{test.p:.3g}",
                f"{test.h:+.2f}",
            ]
        )
    return (
        markdown_table(
            ["condition", "against", "difference", "z", "p (two-sided)", "Cohen's h"], rows
        )
        if rows
        else "(one condition: nothing to test)"
    )


def retry_points(group: list[Record], budget: int) -> list[tuple[str, int, int]]:
    """Success within k attempts, k = 1..budget: won with at most k plans tried (the LLM
    conditions; the planner has no budget of plans)."""
    return [
        (str(k), sum(r["won"] and r["attempts"] <= k for r in group), len(group))
        for k in range(1, budget + 1)
    ]


def retry_table(groups: dict[str, list[Record]], budget: int) -> str:
    rows = [
        [c, *(success_cell(w, n) for _, w, n in retry_points(g, budget))]
        for c, g in groups.items()
        if c != "planner"
    ]
    return (
        markdown_table(["condition", *(f"K = {k}" for k in range(1, budget + 1))], rows)
        if rows
        else "(no LLM condition)"
    )


def hazard(group: list[Record]) -> dict[int, tuple[int, int]]:
    """Step -> (plans failing first at it, plans reaching it), over every attempted plan:
    a plan reaches step s when it has s steps and none failed before s."""
    reached: Counter[int] = Counter()
    failed: Counter[int] = Counter()
    for plan in (p for r in group for p in r["plans"]):
        failing = plan["step"] if plan["kind"] in ("precondition", "parse") else None
        for step in range(1, min(plan["length"], failing or plan["length"]) + 1):
            reached[step] += 1
        if failing:
            failed[failing] += 1
    return {step: (failed[step], reached[step]) for step in sorted(reached)}


def hazard_table(groups: dict[str, list[Record]]) -> str:
    tables = {c: hazard(g) for c, g in groups.items()}
    steps = sorted({s for t in tables.values() for s in t})
    rows = [
        [
            s,
            *(
                f"{t[s][0]}/{t[s][1]} ({t[s][0] / t[s][1]:.0%})" if s in t else "-"
                for t in tables.values()
            ),
        ]
        for s in steps
    ]
    return markdown_table(["step", *groups], rows) if rows else "(no plan played a step)"


def composition_table(groups: dict[str, list[Record]]) -> str:
    """Failed episodes by the kinds of failure met over their attempts, and overlaps."""
    rows = []
    for condition, group in groups.items():
        failed = [r for r in group if not r["won"]]
        kinds = [tuple(r["failure_kinds"]) for r in failed]
        overlaps = Counter(" + ".join(k) for k in kinds if len(k) > 1)
        rows.append(
            [
                condition,
                len(failed),
                *(sum(kind in k for k in kinds) for kind in KINDS),
                "; ".join(f"{k}: {n}" for k, n in sorted(overlaps.items())) or "-",
            ]
        )
    return markdown_table(
        ["condition", "failed", *KINDS.values(), "overlaps"], rows, align="lrrrrl"
    )


def failing_steps(group: list[Record]) -> list[Record]:
    """Every attempted plan's step that failed on a missing precondition."""
    return [p for r in group for p in r["plans"] if p["kind"] == "precondition"]


def npmi_rows(groups: dict[str, list[Record]], top: int) -> str:
    rows = []
    for condition, group in groups.items():
        steps = failing_steps(group)
        together = Counter((s["action"], u) for s in steps for u in s["unmet"])
        scores = npmi_table((s["action"], s["unmet"]) for s in steps)
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        chosen = ranked[:top] + [p for p in ranked[::-1][:top] if p not in ranked[:top]]
        rows += [
            [condition, action, predicate, f"{score:+.2f}", together[action, predicate]]
            for (action, predicate), score in chosen
        ]
    return (
        markdown_table(
            ["condition", "action", "predicate", "NPMI", "failing steps"], rows, align="lllrr"
        )
        if rows
        else "(no failing step)"
    )


def distribution_table(groups: dict[str, list[Record]]) -> str:
    def shown(counts: Counter) -> str:
        return ", ".join(f"{k}: {n}" for k, n in sorted(counts.items())) or "-"

    rows = []
    for condition, group in groups.items():
        steps = [p for r in group for p in r["plans"] if p["step"]]
        rows.append(
            [
                condition,
                shown(Counter(p["step"] for p in steps)),
                shown(Counter(p["action"] for p in failing_steps(group))),
                shown(Counter(u for p in failing_steps(group) for u in p["unmet"])),
            ]
        )
    return markdown_table(
        ["condition", "failing step", "failing action", "unmet predicate"], rows, align="llll"
    )


def save_hazard_plot(groups: dict[str, list[Record]], path: Path, about: str) -> bool:
    """Hazard by step, a series per condition, each point failed/reached with its
    Wilson interval, its y label on one line; n in the title: the episodes of the
    conditions drawn (their plans are the points' n). False (and no file) without
    matplotlib."""
    tables = {c: hazard(g) for c, g in groups.items()}
    series = {
        c: [(str(step), failed, reached) for step, (failed, reached) in table.items()]
        for c, table in tables.items()
        if table
    }
    steps = sorted({step for table in tables.values() for step in table})
    plans = sum(len(r["plans"]) for c in series for r in groups[c])
    try:
        figure = plots.success_figure(
            series,
            "step of the plan (1-based)",
            title=f"Where plans fail: P(first failure at a step | reached), {plans} plans, {about}",
            ordered=True,
            order=[str(step) for step in steps],
            episodes=sum(len(groups[c]) for c in series),
        )
    except ImportError:
        return False
    save_figure(figure, path, "hazard (95% Wilson bars)")
    return True


def checks_table(groups: dict[str, list[Record]]) -> str:
    """The plans each check of the repair pipeline rejected (its signal log), and the
    deep constraints given, per pipeline condition."""
    rows = []
    for condition, group in groups.items():
        logs = [r["details"] for r in group if (r.get("details") or {}).get("catches")]
        if not logs:
            continue
        caught: Counter[str] = Counter()
        given: Counter[str] = Counter()
        for log in logs:
            caught.update(log["catches"])
            given.update(log.get("constraints") or {})
        plans = sum(len(log["attempts"]) for log in logs)
        rows.append(
            [
                condition,
                plans,
                *(caught[check] for check in CATCHES),
                ", ".join(f"{k.replace('_', ' ')}: {n}" for k, n in sorted(given.items())) or "-",
            ]
        )
    return (
        markdown_table(
            ["condition", "plans", *CATCHES, "deep constraints given"], rows, align="lrrrrrrl"
        )
        if rows
        else "(no repair pipeline condition)"
    )


def save_figure(figure, path: Path, ylabel: str) -> None:
    """``figure`` saved with ``ylabel`` on one line (and closed)."""
    import matplotlib.pyplot as plt

    figure.axes[0].set_ylabel(ylabel, fontsize="small")
    figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(figure)


def report(
    records: list[Record], conditions: list[str], budget: int, top: int, full: bool = True
) -> str:
    """The tables of one run's records: success, then (``full``) the tests, the retry
    curve, the hazard, the failure composition, NPMI and the distributions."""
    groups = by_condition(records, conditions)
    failed = Counter(r["condition"] for r in records if r.get("error"))
    sections = [("Success", success_table(groups, failed))]
    if full:
        sections += [
            ("Tests against the full pipeline (pooled two-proportion z-test)", tests_table(groups)),
            ("Success against budget K (the retry-benefit curve)", retry_table(groups, budget)),
            (
                "Hazard by step: plans failing first at a step / plans reaching it",
                hazard_table(groups),
            ),
            (
                "Failure composition (failed episodes, kinds met over their attempts)",
                composition_table(groups),
            ),
            (
                f"Top-{top} NPMI between failing actions and their unmet predicates",
                npmi_rows(groups, top),
            ),
            ("Distributions over the failing steps of every attempt", distribution_table(groups)),
            ("The pipeline's checks: plans each rejected (the signal log)", checks_table(groups)),
        ]
    return "\n\n".join(f"### {title}\n\n{body}" for title, body in sections) + model_failures(
        records
    )
