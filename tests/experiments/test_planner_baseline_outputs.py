"""experiments/planner_baseline.py writes results.md and success.png, one row per
configuration recorded in --out (runs differing in --planner or --timeout keep their
own rows), and refuses a partially observable environment in one line."""

import importlib.util

from conftest import load_experiment


def rows(text):
    return [line for line in text.splitlines() if line.startswith("| Mystery-BW-v0 |")]


def test_two_planners_into_one_out_give_two_rows_in_results_md_and_a_plot(tmp_path, capsys):
    study = load_experiment("planner_baseline")
    out = tmp_path / "results"
    assert study.main(["--instances", "0:2", "--out", str(out)]) == 0
    assert (
        study.main(["--instances", "0:2", "--planner", "bfs", "--timeout", "30", "--out", str(out)])
        == 0
    )
    text = (out / "results.md").read_text()
    assert text in capsys.readouterr().out
    assert [r.split(" | ")[2:5] for r in rows(text)] == [
        ["lama-first", "60 s", "2"],
        ["bfs", "30 s", "2"],
    ]
    assert all("| 2 | 2 | 100.0% | [34.2%, 100.0%] |" in r for r in rows(text))
    assert "n (episodes) is every scheduled instance" in text
    if importlib.util.find_spec("matplotlib"):  # the plot extra
        assert (out / "success.png").read_bytes().startswith(b"\x89PNG")

    assert study.main(["--instances", "0:2", "--timeout", "30", "--out", str(out)]) == 0
    assert len(rows((out / "results.md").read_text())) == 3  # the timeout makes its own row


def test_a_partially_observable_env_is_one_line(tmp_path, capsys):
    study = load_experiment("planner_baseline")
    assert study.main(["--env", "CoinCollector-v0", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        "planner_baseline.py: error: CoinCollector-v0 is not fully "
        "observable: a planner baseline needs the task's PDDL; use one of "
        "PDDL-v0, Blocksworld-v0, Mystery-BW-v0, MysteryRandom-BW-v0, "
        "Baking-v0"
    )
