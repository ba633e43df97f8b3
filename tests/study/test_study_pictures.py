"""Every PNG a study writes reads at a glance: it names its environment and model and
the episodes behind it, and no text overlaps another or runs past its axis."""

import pytest

pytest.importorskip("matplotlib")

import planloop.study.plots as plots  # noqa: E402
from planloop.llm import ScriptedModel  # noqa: E402

from conftest import load_experiment  # noqa: E402

MODEL = "scripted-model"
RUNS = {
    "planner_baseline": (["--instances", "0:2"], None, ["Mystery-BW-v0"]),
    "mystery": (
        ["--conditions", "direct-zero-shot,pipeline", "--instances", "0:2", "--attempts", "2"],
        "(attack a)",
        ["Mystery-BW-v0", MODEL],
    ),
    "pddlego": (
        ["--llm", "groundtruth", "-o", "num_locations=3", "--instances", "0:2"],
        None,
        ["CoinCollector-v0", "groundtruth"],
    ),
    "horizon_sweep": (
        ["--instances", "0:1", "--trials", "1", "--horizons", "1,open"],
        "bake",
        ["Baking-v0", MODEL],
    ),
    "agentic": (
        ["--conditions", "direct", "--instances", "0:1", "--max-attempts", "1"],
        "(pick-up a)",
        ["PDDL-v0", MODEL],
    ),
    "formalize": (
        ["--llm", "groundtruth", "--domains", "gripper", "--sizes", "5", "--per-cell", "2"],
        None,
        ["groundtruth"],
    ),
}


@pytest.mark.parametrize("script", list(RUNS))
def test_every_png_names_what_it_shows_and_no_text_overlaps(tmp_path, monkeypatch, script):
    figures = []
    drawn = plots.success_figure

    def kept(*args, **kwargs):
        figures.append(drawn(*args, **kwargs))
        return figures[-1]

    monkeypatch.setattr(plots, "success_figure", kept)
    flags, reply, named = RUNS[script]
    args = [*flags, "--out", str(tmp_path)]
    model = None
    if reply is not None:
        model = ScriptedModel(lambda messages: reply, name=MODEL)
        args += ["--llm", MODEL]
    assert load_experiment(script).main(args, **({"model": model} if model else {})) == 0
    assert figures and len(figures) == len(list(tmp_path.glob("*.png")))
    for figure in figures:
        title = figure.axes[0].get_title().replace("\n", " ")
        assert all(name in title for name in named), title
        assert "episodes)" in title
        assert plots.overlapping_texts(figure) == [], title
        assert plots.overflowing_labels(figure) == [], title
