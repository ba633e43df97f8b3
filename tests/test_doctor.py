"""``planloop doctor``: every item it checks is named, and what is missing comes with the
one line that fixes it; exit 1 only when the core (Fast Downward) is missing."""

import re

import pytest

from planloop import cli
from planloop.cli import main

ITEMS = ["Fast Downward", "Java", "Chromium", "a model server"] + [
    f"extra {extra}" for extra in ("dev", "referees", "llm", "plot", "twx", "mcp", "ray")
]


def _imports_all(module):
    return None


def test_every_item_is_named_and_the_core_decides_the_exit(monkeypatch, capsys):
    monkeypatch.setattr(cli, "_doctor_import", _imports_all)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    assert main(["doctor"]) == 0  # Fast Downward comes with planloop
    out = capsys.readouterr().out
    for item in ITEMS:
        assert item in out, item
    assert "ok       Fast Downward (core): downward " in out
    assert "OPENAI_API_KEY set (7 characters)" in out and "sk-fake" not in out


def test_a_missing_extra_shows_its_fix(monkeypatch, capsys):
    real = cli.importlib.import_module

    def without_openai(name, *args, **kwargs):
        if name == "openai":
            raise ImportError("No module named 'openai'")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(cli.importlib, "import_module", without_openai)
    for module in ("pddlgym", "unified_planning", "matplotlib", "mcp", "ray"):  # kept quick
        monkeypatch.setitem(cli.sys.modules, module, cli.sys)
    assert main(["doctor"]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(lines) if "extra llm" in line)
    assert lines[at].split()[0] == "MISSING" and "No module named 'openai'" in lines[at]
    assert lines[at + 1].strip() == "fix: pip install 'planloop[llm]'"
    assert all("fix:" not in line for line in lines if "extra plot" in line)


def test_everything_missing_shows_every_fix_and_exit_1(monkeypatch, capsys):
    def fails(module):
        return f"ModuleNotFoundError: No module named {module!r}"

    def no_fast_downward():
        raise RuntimeError("Fast Downward is missing: pip install up-fast-downward")

    monkeypatch.setattr(cli, "_doctor_import", fails)
    monkeypatch.setattr(cli.shutil, "which", lambda name: None)
    monkeypatch.setattr("planloop.pddl.fd_planner.fast_downward_paths", no_fast_downward)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    for fix in [
        "pip install --force-reinstall up-fast-downward",
        "apt-get install default-jre-headless",
        "apt-get install chromium",
        "export OPENAI_API_KEY=",
    ] + [f"pip install 'planloop[{extra}]'" for extra in cli.extras()]:
        assert f"fix: {fix}" in out, fix
    assert out.count("MISSING") == len(ITEMS)
    assert "the core is missing" in out.splitlines()[-1]


def test_the_extras_are_read_from_the_installed_metadata():
    """The extras and their distributions are the package's own (what pip installed from
    pyproject.toml), so the doctor cannot drift from it; each has a purpose."""
    found = cli.extras()
    assert {"dev", "referees", "llm", "plot", "twx", "mcp", "ray"} <= set(found)
    assert "pytest" in found["dev"] and found["llm"] == ["openai"]
    assert set(found) <= set(cli.PURPOSES)


@pytest.mark.slow
def test_doctor_here_imports_for_real(capsys):
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    for item in ITEMS:
        assert item in out, item
    assert re.search(r"ok +extra dev \(the tests\): pytest \d", out)
