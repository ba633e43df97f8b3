"""The board as files: JSON of the declared shape, Markdown with every model and family,
a terminal board under 60 lines however large, hostile names escaped, and the HTML page
in headless Chromium (sorting, transcript links, no script error, no request out)."""

import json

from test_scores import SUITE, record

from planloop.bench.records import Leaderboard
from planloop.bench.report import terminal_board, write_reports
from planloop.bench.scores import leaderboard
from planloop.schema import schema_problem

HOSTILE = "<script>alert(1)</script>"


def records():
    found = [record("oracle", f, i, True) for f in ("a", "b") for i in range(4)]
    found += [record(HOSTILE, f, i, i == 0) for f in ("a", "b") for i in range(4)]
    return found


def test_every_file_is_written_and_fits(tmp_path):
    found = records()
    board = leaderboard(found, SUITE, {})
    written = write_reports(tmp_path, board, found)
    assert {p.name for p in written} == {
        "leaderboard.json", "leaderboard.md", "leaderboard.html", "leaderboard.png", "cost.png",
    }  # fmt: skip
    assert (
        schema_problem(json.loads((tmp_path / "leaderboard.json").read_text()), Leaderboard) is None
    )
    markdown = (tmp_path / "leaderboard.md").read_text()
    assert (
        "oracle" in markdown and HOSTILE in markdown and "| a |" in markdown.replace(" a ", " a ")
    )
    page = (tmp_path / "leaderboard.html").read_text()
    assert HOSTILE not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_the_terminal_board_stays_short():
    families = [f"family-{i}" for i in range(11)]
    many = [record(f"model-{m}", f, 0, m % 2 == 0) for m in range(30) for f in families]
    board = leaderboard(many, {**SUITE, "families": families}, {})
    text = terminal_board(board)
    assert len(text.splitlines()) < 60 and "and 18 more models" in text
    assert max(map(len, text.splitlines())) <= 130


SORTED = """(() => [...document.querySelectorAll('#board tbody tr')].map(r => r.cells[1].textContent))()"""


def test_the_page_sorts_and_links_in_chromium(tmp_path, chromium):
    found = records()
    write_reports(tmp_path, leaderboard(found, SUITE, {}), found)
    chromium.open((tmp_path / "leaderboard.html").as_uri())
    assert chromium.evaluate(SORTED) == ["oracle", HOSTILE]
    chromium.evaluate("document.querySelectorAll('#board th')[1].click()")  # by model name
    first = chromium.evaluate(SORTED)
    chromium.evaluate("document.querySelectorAll('#board th')[1].click()")
    assert chromium.evaluate(SORTED) == list(reversed(first)) and set(first) == {"oracle", HOSTILE}
    links = chromium.evaluate(
        "[...document.querySelectorAll('details a')].map(a => a.getAttribute('href'))"
    )
    assert len(links) == len(found) and set(links) == {"t.json"}
    assert chromium.evaluate("document.querySelectorAll('svg circle').length") == 2
    assert chromium.errors == [] and chromium.dialogs == []
    assert all(url.startswith("file://") for url in chromium.requests)
