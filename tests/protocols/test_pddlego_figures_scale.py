"""PDDLego+'s Figures 10 and 12, the average steps of won episodes and the model-scale
comparison, built from fixed records (records in, Markdown and PNG out)."""

import pytest

from planloop.protocols.pddlego_plus.extras import base_run, extras_of, role, won_domain
from planloop.protocols.pddlego_plus.figures import (
    figure_10_points,
    figure_10_table,
    figure_12_points,
    figure_12_table,
    save_figures,
)
from planloop.protocols.pddlego_plus.reproduction import tables_of
from planloop.protocols.pddlego_plus.scale import models_table, steps_table
from planloop.study import success_cell
from planloop.study.runs import split_runs

COIN, ALFWORLD = "CoinCollector-v0", "ALFWorld-v0"


def record(model, env, won, policy="pddlego", steps=3, tries=2, error=None, **extra):
    """One ``--paper`` episode of ``model``; ``extra``: the condition's ``prompt`` or
    ``domain`` and the run's extra ``overrides``."""
    overrides = {"trials": 1, **extra.pop("overrides", {})}
    condition = {"prompt": "detailed", "domain": None} if policy == "pddlego" else {}
    return {
        "policy": policy,
        **condition,
        **extra,
        "won": won,
        "error": error,
        "first_time": won and tries == 1,
        "steps": steps,
        "rounds": tries,
        "details": {
            "tries": [[[1, 0]]] * tries,
            "rounds": [{"df": f"(define (domain {model}))", "plan": ["(move a b)"]}],
        },
        "provenance": {
            "env": env,
            "env_kwargs": {},
            "model": model,
            "model_spec": model,
            "settings": {"protocol": "pddlego-plus", "overrides": overrides, "retries": 5},
        },
    }


def main_run(model):
    return [
        record(model, COIN, True, steps=5, tries=2),
        record(model, COIN, True, steps=7, tries=4),
        record(model, COIN, False, steps=20, tries=20),
        record(model, ALFWORLD, False),
        record(model, ALFWORLD, False, error="HTTP 500"),
        record(model, COIN, False, policy="plangen"),
    ]


def rag(model, env, won):
    return record(model, env, won, domain="given:abcd1234", overrides={"domain_file": "df.pddl"})


def simple(model, won):
    return record(model, ALFWORLD, won, prompt="simple", overrides={"prompt": "simple"})


A, B = main_run("model-a"), main_run("model-b")
EXTRAS = [rag("model-a", COIN, True), rag("model-a", COIN, False), simple("model-a", True)]
EXTRAS += [rag("model-b", COIN, False), simple("model-b", False), simple("model-b", False)]
EVERYTHING = A + B + EXTRAS


def row(table, first):
    return next(line for line in table.splitlines() if line.startswith(f"| {first} |"))


def test_records_feed_the_main_table_or_one_extra_run_of_their_own_model():
    assert [role(r) for r in EXTRAS[:3]] == ["rag_df", "rag_df", "simple_prompt"]
    assert {role(r) for r in A} == {"main"}
    assert base_run(EXTRAS[0]) == base_run(A[0]) != base_run(B[0])
    assert extras_of(A, EVERYTHING, "rag_df") == EXTRAS[:2]  # never model-b's
    assert extras_of(B, EVERYTHING, "simple_prompt") == EXTRAS[4:]
    assert won_domain(A, COIN) == "(define (domain model-a))"
    assert won_domain(A, ALFWORLD) is None  # none won there


def test_figure_10_sets_the_fixed_domain_beside_the_main_runs_and_says_what_was_not_run():
    table = figure_10_table(A, EVERYTHING)
    assert table.startswith("### Figure 10: ")
    assert "\n\nthis run: model-a; paper: o3-mini; overridden: trials=1\n\n" in table
    assert row(table, "CoinCollector") == (
        f"| CoinCollector | {success_cell(2, 3)} | {success_cell(1, 2)} |"
    )
    assert row(table, "ALFWorld") == (
        f"| ALFWorld | {success_cell(0, 2)} | not run: no won PDDLego+ episode to take a DF from |"
    )
    truth = [{**r, "provenance": {**r["provenance"], "model": "groundtruth"}} for r in A[:3]]
    assert "not run: the ground truth writes the true DF" in figure_10_table(truth, truth)


def test_figure_12_sets_the_simple_prompt_beside_the_detailed_and_the_paper():
    table = figure_12_table(B, EVERYTHING)
    assert "paper: o3-mini" in table
    assert f"(the main table's runs) | {success_cell(0, 2)} (paper: 38%) |" in table
    assert f"| simple prompt (extra runs) | {success_cell(0, 2)} (paper: 7%) |" in table


def test_average_steps_count_won_episodes_only():
    table = steps_table(A)
    assert row(table, "PDDLego+") == (
        "| PDDLego+ | 3.0 steps, 6.0 commands (2 won) | - (0 won) |"
    )  # steps: 2 and 4 plan cycles; commands 5 and 7; the lost 20-step episode not counted
    assert row(table, "PlanGen") == "| PlanGen | - (0 won) | - (0 won) |"
    assert "this run: model-a; paper: o3-mini" in table


def test_the_model_scale_table_has_a_column_per_run_and_the_papers():
    runs = list(split_runs(A + B).values())
    table = models_table(runs)
    header = table.split("\n\n")[2].splitlines()[0]
    assert header == (
        "| success [95% Wilson] | model-a; overridden: trials=1 | "
        "model-b; overridden: trials=1 | paper (o3-mini) |"
    )
    expected = f"| {success_cell(2, 3)} | {success_cell(2, 3)} | 86% |"
    assert row(table, "PDDLego+, CoinCollector").endswith(expected)
    assert row(table, "PlanGen, ALFWorld").endswith("| not run | not run | 5% |")


def test_the_models_table_comes_once_with_the_last_run_of_the_model_just_run():
    tables = tables_of(EVERYTHING, "model-a")
    a, b = (tables(run) for run in split_runs(A + B).values())
    assert "models" in a and "models" not in b
    assert {"success", "errors", "steps", "figure 10", "figure 12"} <= set(b)
    assert "model-b; overridden" in a["models"]  # every run, not only the last model's


def test_the_figures_name_both_series_n_and_the_runs_with_no_extra_run(tmp_path):
    plots = pytest.importorskip("planloop.study.plots")
    runs = list(split_runs(A + B).values())
    ten = figure_10_points(runs, EVERYTHING)
    assert ten[next(iter(ten))] == [
        ("CoinCollector\nmodel-a", 2, 3),
        ("ALFWorld\nmodel-a", 0, 2),
        ("CoinCollector\nmodel-b", 2, 3),
        ("ALFWorld\nmodel-b", 0, 2),
    ]
    assert list(ten.values())[1] == [
        ("CoinCollector\nmodel-a", 1, 2),
        ("CoinCollector\nmodel-b", 0, 1),
    ]
    twelve = figure_12_points(runs[:1], EVERYTHING)
    assert list(twelve.values()) == [
        [("model-a", 0, 2), ("paper: o3-mini", 38, 100)],
        [("model-a", 1, 1), ("paper: o3-mini", 7, 100)],
    ]
    alone = figure_12_points(runs[:1], A)  # no simple-prompt run: the legend says so
    assert list(alone)[1].endswith("; not run for model-a")
    paths = save_figures(runs, EVERYTHING, tmp_path, "pddlego-plus")
    assert [p.name for p in paths] == ["pddlego-plus-figure-10.png", "pddlego-plus-figure-12.png"]
    figure = plots.success_figure(ten, "game and model", title="Figure 10: x")
    assert "(n = 13 episodes)" in figure.axes[0].get_title()
    assert len(figure.legends[0].get_texts()) == 2
    assert plots.overlapping_texts(figure) == []
