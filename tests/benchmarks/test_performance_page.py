"""docs/performance.md is generated: it equals the rendering of the measurement it is
made from (``benchmarks/results/performance.json``), so the page is never edited by
hand; and a measurement's runs become each figure's span."""

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def page_module():
    """``benchmarks/performance_page.py`` (benchmarks are scripts, not a package)."""
    if "performance_page" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "performance_page", ROOT / "benchmarks" / "performance_page.py"
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules["performance_page"] = module
        spec.loader.exec_module(module)
    return sys.modules["performance_page"]


def test_the_page_is_the_rendering_of_its_measurement():
    page = page_module()
    measurement = json.loads((ROOT / "benchmarks" / "results" / "performance.json").read_text())
    expected = page.render(measurement)
    assert (ROOT / "docs" / "performance.md").read_text() == expected, (
        "docs/performance.md differs from its measurement: run "
        "`python benchmarks/readme_figures.py --write docs/performance.md`"
    )


def test_runs_become_spans_and_spans_render_what_is_known():
    page = page_module()
    runs = {
        "coin": [{"ratio": 30.0, "x": 1.0}, {"ratio": 20.0}, {"ratio": 40.0, "x": float("nan")}]
    }
    figures = page.summarize(runs)
    assert figures == {
        "coin": {
            "ratio": {"min": 20.0, "median": 30.0, "max": 40.0},
            "x": {"min": 1.0, "median": 1.0, "max": 1.0},
        }
    }
    assert page.ratio(figures, "coin", "ratio") == "**20.0-40.0x** (median 30.0x)"
    assert page.met(figures, "coin", "ratio", 25) == "**met in some runs only**"
    assert page.met(figures, "coin", "ratio", 50) == "**not met**"
    assert page.met(figures, "coin", "ratio", 45, at_most=True) == "met"
    stated = {"scale": {"reload": {"max": 0.01}, "speedup": {"min": 80.2, "max": 92.6}}}
    assert page.rng(stated, "scale", "reload", "x", 2) == "at most 0.01x"
    assert page.ratio(stated, "scale", "speedup") == "**80.2-92.6x**"
    assert page.rng(stated, "scale", "missing") == "-"
