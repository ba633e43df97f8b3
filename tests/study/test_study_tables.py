"""planloop.study.tables and plots: success cells with Wilson intervals, Markdown, PNGs."""

import sys

import pytest

from planloop.study import markdown_table, model_errors, save_success_plot, success_cell, tally


def test_success_cells():
    assert success_cell(3, 5) == "3/5 [23%, 88%]"
    assert success_cell(2, 2) == "2/2 [34%, 100%]"
    assert success_cell(0, 0) == "0/0 [0%, 100%]"


def test_an_episode_that_ended_on_a_model_error_is_a_failure_in_n():
    records = [{"won": True}, {"won": False, "error": None}, {"won": True, "error": ""},
               {"won": False, "error": "server: 503"}, {"won": True, "error": "bad body"}]
    assert tally(records) == (2, 5)
    assert model_errors(records) == 2
    assert tally([]) == (0, 0)


def test_markdown_tables():
    assert markdown_table(["horizon", "all"], [["H = 1", "3/5 [23%, 88%]"], ["open", 4]]) == (
        "| horizon | all |\n|---|---:|\n| H = 1 | 3/5 [23%, 88%] |\n| open | 4 |")
    assert markdown_table(["a", "b", "c"], [], align="rcl") == "| a | b | c |\n|---:|:---:|---|"
    with pytest.raises(ValueError, match="a row of 1 cells under 2 columns"):
        markdown_table(["a", "b"], [["x"]])
    with pytest.raises(ValueError, match="has 1 letters for 2 columns"):
        markdown_table(["a", "b"], [], align="l")


def test_success_plot(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "success.png"
    series = {"closed": [("1", 4, 5), ("5", 2, 5), ("open", 0, 0)], "open": [("open", 1, 5)]}
    assert save_success_plot(series, path, "horizon H")
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_no_plot_without_matplotlib(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    path = tmp_path / "success.png"
    assert save_success_plot({"m": [("1", 1, 2)]}, path, "horizon H") is False
    assert not path.exists()
