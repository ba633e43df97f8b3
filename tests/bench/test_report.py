"""The board as files: the JSON of the declared shape, the Markdown with every model and
family, the terminal board short and narrow however large the board, hostile names and
details escaped, the PNGs (and none without matplotlib, which only they import), and the
HTML page in headless Chromium: sorting by a click, transcript links, no script error,
nothing fetched."""

import json
import logging
import subprocess
import sys
from urllib.parse import quote

import pytest
from test_scores import record

from planloop.bench.records import BenchRecord, Leaderboard, SuiteInfo
from planloop.bench.report import abbreviations, pictures, terminal_board, write_reports
from planloop.bench.scores import leaderboard
from planloop.schema import schema_problem

HOSTILE = "<script>alert(1)</script>"
DETAIL = '<img src="http://127.0.0.1:9/x.png" onerror="alert(2)"> bad move'
SUITE: SuiteInfo = {
    "name": "report",
    "sha256": "ab" * 32,
    "families": ["blocksworld", "mystery", "coincollector-obfuscated"],
}
FAMILIES = [  # the standard suite's, and its obfuscated variants
    "blocksworld",
    "blocksworld-obfuscated",
    "mystery",
    "coincollector",
    "coincollector-obfuscated",
    "alfworld",
    "alfworld-obfuscated",
    "contingent",
    "contingent-obfuscated",
    "twx",
    "nl-pddl",
]


def episodes() -> list[BenchRecord]:
    """Three models on three families; the hostile one's losses say hostile things."""
    found = []
    for f in SUITE["families"]:
        found += [record("oracle", f, i, True) for i in range(6)]
        found += [record("beta", f, i, i < 3) for i in range(6)]
        found += [record(HOSTILE, f, i, i == 0, detail="" if i == 0 else DETAIL) for i in range(6)]
    found[0] = {**found[0], "transcript": "javascript:alert(3)"}  # never a script link
    return found


def written(tmp_path) -> tuple[Leaderboard, list[BenchRecord]]:
    found = episodes()
    board = leaderboard(found, SUITE, {"oracle": {"sent": {}}})
    write_reports(tmp_path, board, found)
    return board, found


def test_the_json_is_the_board_of_the_declared_shape(tmp_path):
    board, _ = written(tmp_path)
    read = json.loads((tmp_path / "leaderboard.json").read_text())
    assert read == board and schema_problem(read, Leaderboard) is None
    assert [row["model"] for row in read["models"]] == ["oracle", "beta", HOSTILE]


def test_the_markdown_has_every_model_family_pair_and_failure(tmp_path):
    found = episodes() + [record("left|right", "mystery", 0, True)]
    board = leaderboard(found, SUITE, {})
    write_reports(tmp_path, board, found)
    text = (tmp_path / "leaderboard.md").read_text()
    table = [line for line in text.splitlines() if line.startswith("| ")]
    heading = table[0]
    assert all(f" {family} |" in heading for family in SUITE["families"])
    for model in ("oracle", "beta", "&lt;script&gt;alert(1)&lt;/script&gt;", "left\\|right"):
        assert f"| {model} |" in text
    assert HOSTILE not in text  # no HTML a renderer would run
    cells = heading.count(" | ")
    assert all(line.replace("\\|", "").count(" | ") == cells for line in table[1:5])
    assert "| 1 | left\\|right | 100 [100, 100] | — | 100 [21, 100] | — |" in text  # not played
    assert "| 2 | oracle | 100 [100, 100] | 100 [61, 100] |" in text  # rate [lo, hi] in percent
    assert "| oracle | &lt;script&gt;alert(1)&lt;/script&gt; | blocksworld | 6 | +83 |" in text
    assert "**separated**" in text
    assert "| beta | mystery | 3 | goal_not_reached 3 |" in text
    assert "| 36 | 2,160 | $0.0180 |" in text  # 18 episodes' calls, tokens (100 + 20), cost


def test_the_terminal_board_stays_short_and_narrow():
    many = [
        record(f"http://127.0.0.1:8000/v1@model-number-{m}", f, i, (m + i) % 3 == 0)
        for m in range(30)
        for f in FAMILIES
        for i in range(3)
    ]
    many += [record("evil\nname\x1b[31m", f, 0, True) for f in FAMILIES]
    board = leaderboard(many, {**SUITE, "families": FAMILIES}, {})
    text = terminal_board(board)
    lines = text.splitlines()
    assert len(lines) < 60 and max(map(len, lines)) <= 100
    assert "and 19 more models" in text and "leaderboard.md" in text
    assert "\x1b" not in text and "evil?name?[31m" in text  # one line, no escape
    short = abbreviations(FAMILIES)
    assert len(set(short.values())) == len(FAMILIES)
    heading = next(line for line in lines if line.lstrip().startswith("# model"))
    assert heading.split()[3:-1] == [short[f] for f in FAMILIES]  # every family shown
    assert short["coincollector-obfuscated"] == "coin-o" and "-o obfuscated" in text
    assert sum(line.startswith(("  1 ", " 12 ")) for line in lines) == 2  # ranks 1 to 12


def test_a_board_of_many_families_shows_those_that_fit():
    families = [f"family-number-{i}" for i in range(25)]
    board = leaderboard(
        [record("m", f, 0, True) for f in families], {**SUITE, "families": families}, {}
    )
    lines = terminal_board(board).splitlines()
    assert len(lines) < 60 and max(map(len, lines)) <= 100
    assert any("more families in leaderboard.md" in line for line in lines)
    assert len(set(abbreviations(families).values())) == 25  # cut to 7, still distinct


def test_the_page_escapes_what_the_records_say(tmp_path):
    written(tmp_path)
    page = (tmp_path / "leaderboard.html").read_text()
    assert HOSTILE not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<img" not in page and "&lt;img src=&quot;http://127.0.0.1:9/x.png&quot;" in page
    assert 'href="javascript:' not in page and 'href="javascript%3Aalert%283%29"' in page
    assert page.count("<script>") == 1 and 'http-equiv="Content-Security-Policy"' in page


def test_the_pngs_are_drawn_and_skipped_without_matplotlib(tmp_path, monkeypatch, caplog):
    pytest.importorskip("matplotlib")
    board, found = written(tmp_path)
    for name in ("leaderboard.png", "cost.png"):
        data = (tmp_path / name).read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000
    odd = [
        record(m, "mystery", i, i < 2)
        for m in ("$x_1", "_hidden", "c$\\frac{1}{0}$")
        for i in range(4)
    ]
    assert len(pictures(tmp_path / "odd", leaderboard(odd, SUITE, {}))) == 2  # no mathtext
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed
    with caplog.at_level(logging.WARNING):
        assert pictures(tmp_path / "bare", board) == []
    assert "matplotlib is not installed" in caplog.text
    paths = write_reports(tmp_path / "bare", board, found)
    assert [p.name for p in paths] == ["leaderboard.json", "leaderboard.md", "leaderboard.html"]


def test_only_the_pngs_import_matplotlib(tmp_path):
    code = (
        "import sys, json; from pathlib import Path; from planloop.bench import report, scores\n"
        f"records = json.loads({json.dumps(json.dumps(episodes()))})\n"
        f"board = scores.leaderboard(records, {SUITE!r}, {{}})\n"
        "report.markdown(board); report.page(board, records); report.terminal_board(board)\n"
        "print('matplotlib' in sys.modules)\n"
        f"report.pictures(Path({str(tmp_path)!r}), board); print('matplotlib' in sys.modules)"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    plotted = "True" if (tmp_path / "cost.png").exists() else "False"
    assert shown.stdout.split() == ["False", plotted]


MODELS = "[...document.querySelectorAll('#board tbody tr')].map(r => r.cells[1].textContent)"
LINKS = """[...document.querySelectorAll('details.episodes a')].map(
  a => [a.getAttribute('href'), a.protocol, a.href])"""


def click(chromium, heading: str) -> list[str]:
    """Click the board's column ``heading``; the models in the order shown."""
    chromium.evaluate(
        "[...document.querySelectorAll('#board thead th')]"
        f".find(th => th.textContent.replace(/[\\u25B2\\u25BC]/g, '').trim() === {heading!r})"
        ".click()"
    )
    return chromium.evaluate(MODELS)


def test_the_page_in_chromium_sorts_links_and_runs_nothing_else(tmp_path, chromium):
    board, found = written(tmp_path)
    page = tmp_path / "leaderboard.html"
    chromium.open(page.as_uri())
    ranked = [row["model"] for row in board["models"]]
    assert chromium.evaluate(MODELS) == ranked == ["oracle", "beta", HOSTILE]
    assert click(chromium, "score") == ranked[::-1]  # ascending first
    assert click(chromium, "score") == ranked
    by_name = click(chromium, "model")
    assert [m for m in by_name if m != HOSTILE] == ["beta", "oracle"]
    assert click(chromium, "model") == by_name[::-1]
    assert click(chromium, "#") == ranked
    assert chromium.evaluate("document.querySelector('#board th[aria-sort]').textContent") == "#"
    links = chromium.evaluate(LINKS)
    listed = [
        r for row in board["models"] for f in SUITE["families"] for r in found
        if (r["model"], r["family"]) == (row["model"], f)
    ]  # fmt: skip
    assert len(links) == len(listed) == 54
    for (href, protocol, resolved), r in zip(links, listed, strict=True):
        assert protocol == "file:" and resolved.startswith(tmp_path.as_uri() + "/")
        if r["transcript"].startswith("transcripts/"):
            assert (
                href == quote(r["transcript"]) and resolved == (tmp_path / r["transcript"]).as_uri()
            )
        else:
            assert href == "javascript%3Aalert%283%29"  # a file name, not a script
    shown = chromium.evaluate(
        "({scripts: document.scripts.length, images: document.images.length,"
        " points: document.querySelectorAll('svg#cost circle').length,"
        " details: [...document.querySelectorAll('li.lost small')].map(s => s.textContent)})"
    )
    assert shown["scripts"] == 1 and shown["images"] == 0 and shown["points"] == 3
    assert DETAIL in shown["details"]  # shown as text
    assert chromium.errors == [] and chromium.dialogs == []
    assert chromium.requests == [page.as_uri()]  # nothing fetched
