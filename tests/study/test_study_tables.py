"""planloop.study.tables and plots: success cells with Wilson intervals, Markdown, PNGs."""

import sys

import pytest

from planloop.study import markdown_table, model_errors, save_success_plot, success_cell, tally


def test_success_cells():
    assert success_cell(3, 5) == "3/5 [23%, 88%]"
    assert success_cell(2, 2) == "2/2 [34%, 100%]"
    assert success_cell(0, 0) == "0/0 [0%, 100%]"


def test_an_episode_that_ended_on_a_model_error_is_a_failure_in_n():
    records = [
        {"won": True},
        {"won": False, "error": None},
        {"won": True, "error": ""},
        {"won": False, "error": "server: 503"},
        {"won": True, "error": "bad body"},
    ]
    assert tally(records) == (2, 5)
    assert model_errors(records) == 2
    assert tally([]) == (0, 0)


def test_markdown_tables():
    assert markdown_table(["horizon", "all"], [["H = 1", "3/5 [23%, 88%]"], ["open", 4]]) == (
        "| horizon | all |\n|---|---:|\n| H = 1 | 3/5 [23%, 88%] |\n| open | 4 |"
    )
    assert markdown_table(["a", "b", "c"], [], align="rcl") == "| a | b | c |\n|---:|:---:|---|"
    with pytest.raises(ValueError, match="a row of 1 cells under 2 columns"):
        markdown_table(["a", "b"], [["x"]])
    with pytest.raises(ValueError, match="has 1 letters for 2 columns"):
        markdown_table(["a", "b"], [], align="l")


def test_success_plot(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "success.png"
    series = {"closed": [("1", 4, 5), ("5", 2, 5), ("open", 0, 0)], "open": [("open", 1, 5)]}
    assert save_success_plot(series, path, "horizon H (actions)", title="t", ordered=True)
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_a_plot_people_read():
    """A title, axis labels with units, n per point, Wilson bars, and categorical
    conditions as points (no line joining them) unless x is ordered."""
    pytest.importorskip("matplotlib")
    from planloop.study.plots import success_figure

    series = {
        "model a": [("direct", 4, 5), ("pipeline", 2, 5)],
        "model b": [("direct", 0, 3), ("pipeline", 3, 3)],
    }
    axes = success_figure(series, "condition", title="Success per condition").axes[0]
    assert axes.get_title() == "Success per condition (n = 16 episodes)"
    assert axes.get_xlabel() == "condition"
    assert axes.get_ylabel().replace("\n", " ") == "success rate (fraction; bars: 95% Wilson)"
    assert {t.get_text() for t in axes.texts} == {"4/5", "2/5", "0/3", "3/3"}
    drawn = [
        line
        for line in axes.lines
        if len(line.get_xdata()) == 2 and line.get_linestyle() not in ("None", "")
    ]
    assert not drawn  # categorical: no line between conditions
    bars = [c for c in axes.collections if c.get_segments()]
    low, high = bars[0].get_segments()[0][:, 1]  # model a at "direct": 4/5
    assert (round(low, 3), round(high, 3)) == (0.376, 0.964)
    ordered = success_figure(series, "horizon H (actions)", title="t", ordered=True).axes[0]
    assert any(line.get_linestyle() == "-" for line in ordered.lines)


def test_no_plot_without_matplotlib(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    path = tmp_path / "success.png"
    assert save_success_plot({"m": [("1", 1, 2)]}, path, "horizon H", title="t") is False
    assert not path.exists()
