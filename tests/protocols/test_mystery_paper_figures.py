"""The Mystery paper's Table 2, runtime by subset, Figures 10 and 11 and the pipeline's
checks, built from fixed records shaped as the study writes them."""

from planloop.protocols.mystery.paper_figures import (
    attempts,
    figure_table,
    runtime_table,
    save_figures,
    table_2,
)
from planloop.protocols.mystery.tables import by_condition, checks_table, save_hazard_plot
from planloop.study import markdown_table
from planloop.study.plots import overflowing_labels, success_figure

PROVENANCE = {"model": "m", "model_spec": "openai:m", "settings": {"protocol": "mystery"}}
CATCHES = {"names": 0, "invariants": 0, "reachability": 1, "stepwise": 1, "validation": 0}


def plan(kind=None, actions=("attack", "overcome"), predicates=("province", "pain")):
    return {
        "kind": kind,
        "step": None,
        "action": None,
        "unmet": [],
        "length": len(actions),
        "actions": list(actions),
        "predicates": list(predicates),
    }


def record(condition, won, plans, instance=0, seconds=10.0, error=None):
    return {
        "condition": condition,
        "won": won,
        "error": error,
        "instance": instance,
        "seconds": seconds,
        "plans": plans,
        "attempts": len(plans),
        "details": (
            {"catches": CATCHES, "attempts": plans, "constraints": {"landmarks": 4}}
            if condition.startswith("pipeline")
            else {}
        ),
        "provenance": PROVENANCE,
    }


FAILED = plan("precondition", ("feast",), ("craves", "province", "harmony"))
RECORDS = [
    *(record("pipeline", True, [plan()], instance=i, seconds=10.0 + i) for i in range(3)),
    record("pipeline", False, [FAILED, FAILED], instance=500, seconds=40.0),
    record("pipeline-no-repair", True, [plan()]),
    *(record("pipeline-no-repair", False, [FAILED], instance=i) for i in (1, 2, 500)),
    *(record("pipeline-no-stepwise", True, [plan()], instance=i) for i in (0, 1)),
    record("pipeline-no-stepwise", False, [FAILED], instance=2, error="server: 503"),
    record("direct-one-shot", True, [plan()]),
]


def test_table_2_sets_each_ablation_against_the_full_pipeline_beside_the_paper():
    table = table_2(RECORDS)
    assert table.startswith("### Table 2: ablations\n\nthis run: openai:m; paper: GPT-4\n\n")
    assert "From the same runs as Table 1" in table
    header = ["", "success", "95% Wilson", "difference", "z", "p (two-sided)", "n"]
    rows = [
        ["full pipeline", "3/4 (75.0%) (paper: 46.2%)", "[30.1%, 95.4%]", "-", "-", "-", 4, 0],
        [
            "w/o Repair",
            "1/4 (25.0%)",
            "[4.6%, 69.9%]",
            "-50.0 points (paper: -10.4 points)",
            "-1.41",
            "0.157",
            4,
            0,
        ],
        [
            "w/o Step-wise Validation",
            "2/3 (66.7%)",
            "[20.8%, 93.9%]",
            "-8.3 points (paper: -3.2 to -4.5 points over its 3 models)",
            "-0.24",
            "0.809",
            3,
            1,
        ],
        [
            "w/o Deep Constraints",
            "not run",
            "-",
            "- (paper: -4.8 to -6.7 points over its 3 models)",
            "-",
            "-",
            0,
            0,
        ],
    ]
    assert table.endswith(markdown_table([*header, "model errors"], rows))


def test_the_runtime_splits_the_pipeline_by_the_papers_subsets():
    table = runtime_table(RECORDS)
    rows = [
        ["PlanBench's 500 (instances 0-499)", 3, "3/3 (100.0%)", "11.00 (paper: 37.49)"],
        ["3-block 100 (instances 500-599)", 1, "0/1 (0.0%)", "40.00 (paper: 26.84)"],
        ["all 600", 4, "3/4 (75.0%)", "11.50 (paper: 36.25)"],
    ]
    for row in rows:
        assert "| " + " | ".join(map(str, row)) + " |" in table, row
    assert "| 40.00 | 40.00 |" in table  # one instance: p90 and mean are it
    assert "| 31.60 (paper: 49.21) | 18.25 (paper: 36.05) |" in table  # 10, 11, 12, 40 s


def test_figures_10_and_11_count_successful_against_failed_attempts():
    pipeline = [r for r in RECORDS if r["condition"] == "pipeline"]
    actions = attempts(pipeline, "actions")
    assert actions["successful"] == ({"attack": 3, "overcome": 3}, 3, 6)
    assert actions["failed"] == ({"feast": 2}, 2, 2)
    table = figure_table(RECORDS, 11)
    assert table.startswith("### Figure 11: Predicate distribution in simulation\n\n")
    header = (
        "| predicate | successful attempts (3 plans, 6 facts) "
        "| failed attempts (2 plans, 6 facts) |"
    )
    assert header in table
    assert "| craves | 0 (0.0%) | 2 (33.3%) |" in table
    assert "| province | 3 (50.0%) | 2 (33.3%) |" in table


def test_the_figures_are_drawn_titled_with_their_number_and_n(tmp_path):
    paths = save_figures([RECORDS], tmp_path, "mystery")
    assert [p.name for p in paths] == ["mystery-figure-10.png", "mystery-figure-11.png"]
    assert all(p.stat().st_size > 10_000 for p in paths)


def test_the_checks_table_counts_each_checks_catches_from_the_signal_log():
    table = checks_table(by_condition(RECORDS, ["pipeline", "direct-one-shot"]))
    assert "| pipeline | 5 | 0 | 0 | 4 | 4 | 0 | landmarks: 16 |" in table
    assert "direct-one-shot" not in table  # no signal log


def test_the_hazard_plot_counts_its_episodes_and_keeps_its_y_label_on_one_line(tmp_path):
    empty = {**plan("parse", (), ()), "length": 0}  # a reply with no step: reaches none
    groups = {
        "pipeline": [
            record("pipeline", False, [empty, empty]),
            record("pipeline", True, [{**plan(), "length": 2}]),
            record("pipeline", False, [{**plan("goal"), "length": 2}]),
        ]
    }
    path = tmp_path / "hazard.png"
    assert save_hazard_plot(groups, path, "Mystery-BW-v0, m")
    assert path.stat().st_size > 5_000
    figure = success_figure({"pipeline": [("1", 0, 2)]}, "step", title="t", episodes=3)
    figure.axes[0].set_ylabel("hazard (95% Wilson bars)", fontsize="small")
    assert not overflowing_labels(figure)
