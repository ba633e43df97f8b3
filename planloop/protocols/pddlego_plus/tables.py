"""The PDDLego+ study's tables, records in and markdown out: a row per configuration
(:func:`results_table`), the formalizations judged against the hidden world
(:func:`judgement_table`), the paper's tables of one ``--paper`` run
(:func:`paper_tables`) and the success plot's series (:func:`success_series`)."""

from __future__ import annotations

import re
import statistics

from ...study import markdown_table, model_errors, success_cell, tally, with_published
from ...study.runs import dropped, run_caption, run_key, single_run
from ..base import paper_heading
from .protocol import PDDLEGO_PLUS

GROUND_TRUTH = "groundtruth"  # the model name of the ground-truth formalizer's runs


def prompt_caption(records: list[dict]) -> str:
    """A paragraph for under a table: ``Prompt: planloop's pddlego/coin/detailed/v1`` (or
    a template's ``file:NAME@sha256:HASH``), each prompt the models' PDDLego+ records
    used, and a template PlanGen's did (``file:NAME@sha256:HASH (PlanGen)``); "" when
    none did."""
    used = dict.fromkeys(
        str(r.get("prompt_version")) + (" (PlanGen)" if r.get("policy") == "plangen" else "")
        for r in records
        if r.get("model") != GROUND_TRUTH
        and (r.get("policy") == "pddlego" or str(r.get("prompt_version")).startswith("file:"))
    )
    shown = [name if name.startswith("file:") else f"planloop's {name}" for name in used]
    return f"\n\nPrompt{'s' * (len(shown) > 1)}: {'; '.join(shown)}" if shown else ""


def _mean(values) -> str:
    values = list(values)
    return f"{statistics.mean(values):.1f}" if values else "-"


def _fixed(records, met: str, fixed: str) -> str:
    """``12 / 9 (75%)``: errors met, fixed, and the fix rate."""
    total, done = (sum(r.get(key, 0) for r in records) for key in (met, fixed))
    return f"{total} / {done}" + (f" ({done / total:.0%})" if total else "")


def natural(value) -> list:
    """A sort key that orders the numbers inside text by value (3 before 11)."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", str(value))]


LOOP_LABELS = {
    "simulation_retries": "simulation retries {}",
    "max_steps": "{} steps",
    "coin": "coin taken {}",  # see COIN_LABELS
    "unmapped": "unmapped steps {}",
    "replies": "{} replies",
    "trial_attempts": "{} trial attempts",
}


COIN_LABELS = {"auto": "in view (at reset too)", "shown": "when a step shows it"}


def condition_label(record: dict) -> str:
    """``pddlego, detailed prompt, no error fixing, rollback, reused domain, detailed
    feedback``, then the authors' rules that are on and the protocol."""
    parts = [str(record.get("policy"))]
    if record.get("policy") == "pddlego":
        prompt = record.get("prompt")
        parts.append(
            f"prompt {record.get('prompt_version')}" if prompt == "file" else f"{prompt} prompt"
        )
        parts += [] if record.get("error_fixing") else ["no error fixing"]
        parts += ["rollback"] if record.get("rollback") else []
        parts += ["strict PDDL"] if record.get("strict_pddl") else []
        parts += [f"{str(record['domain']).split(':')[0]} domain"] if record.get("domain") else []
    elif record.get("rollback"):  # PlanGen as its authors ran it
        parts.append("rollback")
    parts += [f"{record['feedback']} feedback"] if record.get("feedback", "game") != "game" else []
    parts += [
        label.format(COIN_LABELS.get(record[key], record[key]) if key == "coin" else record[key])
        for key, label in LOOP_LABELS.items()
        if key in record
    ]
    return ", ".join(parts)


CONFIGURATION = ("env", "options", "model", "condition", "settings")  # its columns


def configuration(record: dict) -> tuple[str, str, str, str, str]:
    """(environment, its options, model (its run's label), condition, settings: planner,
    retries and the protocol): what a table row shows (see :func:`by_configuration`)."""
    provenance = record.get("provenance", {})
    options = ", ".join(f"{k}={v}" for k, v in sorted((provenance.get("env_kwargs") or {}).items()))
    settings = provenance.get("settings") or {}
    shown = [f"{key} {settings[key]}" for key in ("planner", "retries") if key in settings]
    if settings.get("protocol"):
        overrides = settings.get("overrides") or {}
        shown.append(
            f"--paper {settings['protocol']}"
            + "".join(f", {key}={value}" for key, value in overrides.items())
        )
    return (
        str(provenance.get("env")),
        options or "-",
        run_key(record).label,
        condition_label(record),
        ", ".join(shown) or "-",
    )


def by_configuration(records: list[dict]) -> list[tuple[tuple, list[dict]]]:
    """(configuration, its records), one per configuration and run (two models, or two
    runs differing in a setting the row does not show, are rows of their own), sorted."""
    groups: dict[tuple, list[dict]] = {}
    for record in records:
        groups.setdefault((configuration(record), run_key(record)), []).append(record)
    return sorted(
        ((config, group) for (config, _), group in groups.items()),
        key=lambda item: natural(item[0]),
    )


def results_table(records: list[dict]) -> str:
    """One row per configuration: success with its Wilson interval, errors met / fixed,
    rounds, steps, model calls and tokens, and how many episodes failed on the model
    (the model cell names the request parameters the model refused)."""
    rows = []
    for (env, options, model, *config), group in by_configuration(records):
        played = [r for r in group if not r.get("error")]
        usage = [r.get("usage", {}) for r in played]
        first = [r for r in group if "first_time" in r]
        refused = dropped(group)
        rows.append(
            [
                env,
                options,
                model + (f"; dropped by the model: {', '.join(refused)}" if refused else ""),
                *config,
                success_cell(*tally(group)),
                success_cell(sum(r["first_time"] and not r.get("error") for r in first), len(first))
                if first
                else "-",
                _fixed(played, "solver_errors", "solver_fixed"),
                _fixed(played, "simulation_errors", "simulation_fixed"),
                _mean(r["rounds"] for r in played),
                _mean(r["steps"] for r in played),
                _mean(r.get("warnings", 0) for r in played),
                _mean(u.get("calls", 0) for u in usage),
                _mean(u.get("prompt_tokens", 0) + u.get("completion_tokens", 0) for u in usage),
                model_errors(group),
            ]
        )
    header = [
        *CONFIGURATION,
        "success [95% Wilson]",
        "no error fixing (same runs)",
        "solver errors met / fixed",
        "simulation errors met / fixed",
        "rounds",
        "steps",
        "dialect warnings",
        "model calls",
        "tokens",
        "model errors",
    ]
    return markdown_table(header, rows, align="lllll" + "r" * 10)


PAPER_COLUMNS = {"CoinCollector-v0": "CoinCollector", "ALFWorld-v0": "ALFWorld"}


def paper_rows(records: list[dict]) -> dict[tuple[str, str], tuple[list[dict], int]]:
    """(row, column) of the paper's table -> (the records of the cell, their wins), over
    the records of one ``--paper`` run (a ValueError for records of several runs):
    PDDLego+ and PlanGen as played, PDDLego (no error fixing) read from PDDLego+'s (won
    with every plan cycle right the first time)."""
    cells: dict[tuple[str, str], tuple[list[dict], int]] = {}
    for record in single_run(records):
        provenance = record.get("provenance") or {}
        column = PAPER_COLUMNS.get(str(provenance.get("env")))
        if (
            column is None
            or (provenance.get("settings") or {}).get("protocol") != PDDLEGO_PLUS.name
        ):
            continue
        won = bool(record.get("won")) and not record.get("error")
        rows = (
            [("PlanGen", won)]
            if record.get("policy") == "plangen"
            else [
                ("PDDLego+", won),
                ("PDDLego (no error fixing)", won and bool(record.get("first_time"))),
            ]
        )
        for row, wins in rows:
            group, total = cells.get((row, column), ([], 0))
            cells[row, column] = (group + [record], total + wins)
    return cells


def paper_tables(records: list[dict]) -> dict[str, str]:
    """The paper's tables over the records of one run, by name, each headed by the run's
    model and the paper's: ``success`` (rows PDDLego+, PDDLego (no error fixing),
    PlanGen; columns CoinCollector, ALFWorld; the published figure beside each cell) and
    ``errors`` (solver, simulation and model errors of each cell)."""
    [layout] = PDDLEGO_PLUS.tables
    cells = paper_rows(records)
    success, errors = [], []
    for row in layout.rows:
        line = [row]
        for column in layout.columns:
            group, wins = cells.get((row, column), ([], 0))
            line.append(
                with_published(
                    success_cell(wins, len(group)) if group else "not run",
                    layout.published.get((row, column)),
                )
            )
            if group:
                played = [r for r in group if not r.get("error")]
                errors.append(
                    [
                        row,
                        column,
                        len(group),
                        _fixed(played, "solver_errors", "solver_fixed")
                        if row != "PlanGen"
                        else "-",
                        _fixed(played, "simulation_errors", "simulation_fixed")
                        if row != "PlanGen" or any("simulation_errors" in r for r in played)
                        else "-",  # planloop's PlanGen counts none
                        model_errors(group),
                    ]
                )
        success.append(line)
    header = ["", *(f"{column} success [95% Wilson]" for column in layout.columns)]
    return {
        "success": f"{paper_heading(layout, records)}{prompt_caption(records)}\n\n"
        + markdown_table(header, success),
        "errors": "### Errors met / fixed, and model errors\n\n"
        + f"{run_caption(records, layout.paper_model)}\n\n"
        + markdown_table(
            [
                "",
                "env",
                "n",
                "solver errors met / fixed",
                "simulation errors met / fixed",
                "model errors",
            ],
            errors,
            align="llrrrr",
        ),
    }


def judgement_table(records: list[dict]) -> str:
    """One row per configuration: PDDLego+'s four error categories, counted from the
    hidden world (errors, and in how many rounds), and the formalizations' stability."""
    rows = []
    for config, group in by_configuration(
        [r for r in records if r.get("judgement") and not r.get("error")]
    ):
        judged = [r["judgement"] for r in group]
        cells = [
            f"{sum(j[c] for j in judged)} in {sum(j['rounds_' + c] for j in judged)}"
            for c in ("hallucinated", "forgotten", "bad_goal", "action_semantics")
        ]
        means = [_mean_of(judged, key) for key in ("facts_jaccard_truth", "facts_jaccard_previous")]
        rows.append(
            [
                *config,
                f"{sum(j['judged'] for j in judged)} / {sum(j['rounds'] for j in judged)}",
                *cells,
                *means,
                sum(j["regenerated"] for j in judged),
            ]
        )
    header = [
        *CONFIGURATION,
        "rounds judged",
        "hallucinated facts (in rounds)",
        "forgotten facts",
        "bad goals",
        "action-semantics errors",
        "facts Jaccard vs truth",
        "facts Jaccard vs last round",
        "files regenerated",
    ]
    return markdown_table(header, rows, align="lllll" + "r" * 8)


def _mean_of(judged: list[dict], key: str) -> str:
    values = [j[key] for j in judged if j.get(key) is not None]
    return f"{statistics.mean(values):.2f}" if values else "-"


def success_series(records: list[dict]) -> tuple[dict, str]:
    """Success by number of locations (CoinCollector) or by task type (ALFWorld), one
    series per environment, model (its run's label) and condition."""
    series: dict[str, dict] = {}
    for record in records:
        provenance = record.get("provenance", {})
        name = f"{provenance.get('env')} {run_key(record).label}: {condition_label(record)}"
        x = (
            record.get("task_type")
            or f"{(provenance.get('env_kwargs') or {}).get('num_locations', '-')} locations"
        )
        series.setdefault(name, {}).setdefault(x, []).append(record)
    points = {
        name: [(x, *tally(group)) for x, group in sorted(xs.items(), key=natural)]
        for name, xs in series.items()
    }
    kinds = {"task type" if r.get("task_type") else "locations" for r in records}
    return points, " / ".join(sorted(kinds))
