"""The leaderboard written out, into the run folder:

* ``leaderboard.json``: the :class:`~.records.Leaderboard`, as it is;
* ``leaderboard.md``: the models ranked (score, every family's rate with its interval,
  calls, tokens, cost), the pairs (separated ones marked), the failures by kind;
* ``leaderboard.html``: one file that fetches nothing: the sortable table (click a
  header), the pairs and failures, success against cost (an inline SVG), and every
  episode linked to its transcript. Every text from the records is escaped (a model's
  name is the user's ``--llm``; an episode's detail quotes what the model wrote);
* ``leaderboard.png`` (each family's rate per model, with its interval) and
  ``cost.png`` (score against cost): drawn only when matplotlib (the ``plot`` extra)
  is installed, imported by :func:`pictures` alone; without it the PNGs are skipped,
  a warning logged and the paths returned name none.

:func:`terminal_board` is the board for the terminal: under 60 lines, 100 columns.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import logging
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from .records import BenchRecord, FamilyScore, Interval, Leaderboard, ModelRow, Pair
from .scores import latest, separated

if TYPE_CHECKING:  # matplotlib is imported by pictures() alone
    from matplotlib.axes import Axes

log = logging.getLogger(__name__)
Colour = tuple[float, float, float, float]  # RGBA

TERMINAL_MODELS = 12  # models the terminal board and the PNGs show; the files hold them all
TERMINAL_PAIRS = 12  # separated pairs the terminal board shows
WIDTH = 100  # the terminal board's columns
SHORT = {  # the parts of family names shortened in the terminal's narrow columns
    "-obfuscated": "-o",
    "coincollector": "coin",
    "blocksworld": "bw",
    "contingent": "cont",
    "alfworld": "alf",
    "mystery": "myst",
    "nl-pddl": "nl",
}
LONGEST = 7  # characters of a family's column heading in the terminal


def percent(rate: float) -> str:
    return f"{100 * rate:.0f}"


def interval(low_high: Sequence[float]) -> str:
    """``[lo, hi]`` in percent."""
    return f"[{percent(low_high[0])}, {percent(low_high[1])}]"


def rated(score: FamilyScore | Interval) -> str:
    """``rate [lo, hi]`` in percent."""
    return f"{percent(score['rate'])} {interval(score['ci95'])}"


def dollars(usd: float | None) -> str:
    """A cost to read: ``$0.0123``, ``$12.35``, ``$1,235``; ``unknown`` for None."""
    if usd is None:
        return "unknown"
    if usd < 1:
        return f"${usd:.4f}"
    return f"${usd:,.2f}" if usd < 100 else f"${usd:,.0f}"


def tokens(row: ModelRow) -> int:
    """The tokens a model was billed (reasoning ones are among the completion's)."""
    return row["tokens"]["prompt"] + row["tokens"]["completion"]


def write_reports(out: Path, board: Leaderboard, records: list[BenchRecord]) -> list[Path]:
    """Every report of ``board`` into ``out``, the episodes listed from ``records``
    (their latest by key); the paths written (no PNG without matplotlib)."""
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "leaderboard.json", out / "leaderboard.md", out / "leaderboard.html"]
    written[0].write_text(json.dumps(board, indent=1, allow_nan=False) + "\n")
    written[1].write_text(markdown(board))
    written[2].write_text(page(board, records))
    return written + pictures(out, board)


# The markdown board.


def _cell(text: str) -> str:
    """Text from the records in a markdown table cell: no cell break, no line break, no
    HTML a renderer would run."""
    return html.escape(text, quote=False).replace("|", "\\|").replace("\n", " ").replace("\r", " ")


def markdown(board: Leaderboard) -> str:
    """``leaderboard.md``: the ranked models, the pairs, the failures."""
    families = board["suite"]["families"]
    lines = [
        f"# Leaderboard: suite {_cell(board['suite']['name'])} ({board['suite']['sha256'][:12]})",
        "",
        "Rates in percent with Wilson 95% intervals; the score is the mean of the rates of "
        "the families a model played, with a stratified bootstrap 95% interval; tokens are "
        "prompt and completion (reasoning included); a cost is unknown when a price is.",
        "",
        "| rank | model | score | "
        + " | ".join(map(_cell, families))
        + " | calls | tokens | cost |",
        "|---:|---|---|" + "---|" * len(families) + "---:|---:|---:|",
    ]
    for rank, row in enumerate(board["models"], 1):
        cells = [rated(row["families"][f]) if f in row["families"] else "—" for f in families]
        lines.append(
            f"| {rank} | {_cell(row['model'])} | {rated(row['score'])} | "
            + " | ".join(cells)
            + f" | {row['calls']:,} | {tokens(row):,} | {dollars(row['cost_usd'])} |"
        )
    lines += [
        "",
        "## Pairs",
        "",
        "The difference of rates, a - b in points, on the (instance, seed) units both "
        "played, with a paired bootstrap 95% interval; **separated** when the interval "
        f"excludes 0 ({sum(map(separated, board['pairs']))} of {len(board['pairs'])}).",
        "",
        "| a | b | family | n | diff | 95% | |",
        "|---|---|---|---:|---:|---|---|",
    ]
    for pair in board["pairs"]:
        lines.append(
            f"| {_cell(pair['a'])} | {_cell(pair['b'])} | {_cell(pair['family'])} | "
            f"{pair['n']} | {100 * pair['diff']:+.0f} | {interval(pair['ci95'])} | "
            f"{'**separated**' if separated(pair) else ''} |"
        )
    lines += [
        "",
        "## Failures",
        "",
        "The lost episodes by kind.",
        "",
        "| model | family | lost | kinds |",
        "|---|---|---:|---|",
    ]
    for row in board["models"]:
        for family in families:
            score = row["families"].get(family)
            if score and score["failures"]:
                kinds = ", ".join(f"{kind} {count}" for kind, count in score["failures"].items())
                lines.append(
                    f"| {_cell(row['model'])} | {_cell(family)} | {score['n'] - score['won']} "
                    f"| {_cell(kinds)} |"
                )
    return "\n".join(lines) + "\n"


# The terminal board.


def _printable(text: str) -> str:
    """``text`` with no control character (a newline, a terminal escape): each one ``?``."""
    return "".join(c if c.isprintable() else "?" for c in text)


def _clipped(text: str, width: int) -> str:
    """``text`` in ``width`` characters, its end kept (a model's name ends with what
    tells it apart: ``...//host/v1@model-7b``)."""
    text = _printable(text)
    return text if len(text) <= width else "..." + text[len(text) - width + 3 :]


def abbreviations(families: Iterable[str]) -> dict[str, str]:
    """Each family's column heading: at most :data:`LONGEST` characters, the known parts
    shortened (:data:`SHORT`: ``coincollector-obfuscated`` is ``coin-o``), distinct."""
    short: dict[str, str] = {}
    for family in families:
        brief = _known(_printable(family))[:LONGEST]
        taken, number = set(short.values()), 2
        while brief in taken:  # two families cut to the same heading
            brief = f"{brief[: LONGEST - len(str(number))]}{number}"
            number += 1
        short[family] = brief
    return short


def _legend(short: dict[str, str]) -> list[str]:
    """The lines saying what the shortened headings stand for (at most 3)."""
    told: dict[str, str] = {}
    for family, brief in short.items():
        if brief == family:
            continue
        if brief != _known(family):  # cut or numbered: told whole
            told[brief] = _printable(family)
            continue
        for long, part in SHORT.items():
            if long in family:
                told[part] = long.lstrip("-")
    if not told:
        return []
    lines = ["columns:"]
    for brief, long in told.items():
        entry = f" {brief} {long},"
        if len(lines[-1]) + len(entry) > WIDTH:
            if len(lines) == 3:
                lines[-1] = lines[-1][: WIDTH - 4] + " ..."
                break
            lines.append(" ")
        lines[-1] += entry
    lines[-1] = lines[-1].rstrip(",")
    return lines


def _known(family: str) -> str:
    """``family`` with only its known parts shortened (:data:`SHORT`)."""
    for long, part in SHORT.items():
        family = family.replace(long, part)
    return family


def terminal_board(board: Leaderboard) -> str:
    """The board in under 60 lines of at most :data:`WIDTH` characters: the top
    :data:`TERMINAL_MODELS` models with their score and each family's rate (as many
    families as fit: the rest are in the files), then the separated pairs, those of
    models next in rank first (is a rank real?), then in the board's order."""
    families = board["suite"]["families"]
    rows = board["models"]
    short = abbreviations(families)
    shown_rows = rows[:TERMINAL_MODELS]
    fixed = 3 + 1 + 1 + 14 + 1 + 9  # the rank, gaps, the score and its interval, the cost
    wanted = min(28, max([5] + [len(_printable(r["model"])) for r in shown_rows]))
    columns: list[str] = []  # the families that fit beside names of 12 characters or more
    used = fixed + min(12, wanted)
    for family in families:
        if used + max(3, len(short[family])) + 1 > WIDTH:
            break
        columns.append(family)
        used += max(3, len(short[family])) + 1
    widths = [max(3, len(short[f])) for f in columns]
    names = min(wanted, WIDTH - fixed - sum(w + 1 for w in widths))
    lines = [
        f"suite {_clipped(board['suite']['name'], 30)}: rates in percent; score = mean of "
        "family rates [95% interval]",
        *_legend({f: short[f] for f in columns}),
    ]
    if len(columns) < len(families):
        lines.append(f"({len(families) - len(columns)} more families in leaderboard.md)")
    lines.append(
        f"{'#':>3} {'model':<{names}} {'score':>14} "
        + "".join(f"{short[f]:>{w}} " for f, w in zip(columns, widths, strict=True))
        + f"{'cost':>9}"
    )
    for rank, row in enumerate(shown_rows, 1):
        cells = "".join(
            f"{percent(row['families'][f]['rate']) if f in row['families'] else '-':>{w}} "
            for f, w in zip(columns, widths, strict=True)
        )
        lines.append(
            f"{rank:>3} {_clipped(row['model'], names):<{names}} "
            f"{percent(row['score']['rate']) + ' ' + interval(row['score']['ci95']):>14} "
            f"{cells}{dollars(row['cost_usd']):>9}"
        )
    if len(rows) > len(shown_rows):
        lines.append(
            f"    ... and {len(rows) - len(shown_rows)} more models: the whole board is "
            "leaderboard.md (and .html) in the run folder"
        )
    ranks = {row["model"]: i for i, row in enumerate(rows, 1)}
    apart = [p for p in board["pairs"] if separated(p)]
    apart.sort(key=lambda p: ranks.get(p["b"], 0) - ranks.get(p["a"], 0) != 1)
    lines.append(
        f"pairs separated by their paired 95% interval: {len(apart)} of {len(board['pairs'])}"
        + (" (a - b in points; rank neighbours first)" if apart else "")
    )
    for pair in apart[:TERMINAL_PAIRS]:
        lines.append(_pair_line(pair, short.get(pair["family"], pair["family"]), ranks))
    if len(apart) > TERMINAL_PAIRS:
        lines.append(f"  ... and {len(apart) - TERMINAL_PAIRS} more in leaderboard.md")
    return "\n".join(line[:WIDTH] for line in lines)


def _pair_line(pair: Pair, family: str, ranks: dict[str, int]) -> str:
    """A separated pair in at most :data:`WIDTH` characters."""
    a, b = (f"#{ranks.get(name, '?')} {_clipped(name, 24)}" for name in (pair["a"], pair["b"]))
    return (
        f"  {a} - {b} on {_clipped(family, LONGEST)}: {100 * pair['diff']:+.0f} "
        f"{interval(pair['ci95'])} (n {pair['n']})"
    )


# The HTML board.

_STYLE = """body{font:14px system-ui,sans-serif;margin:2em}
.wide{overflow-x:auto}table{border-collapse:collapse;margin:.5em 0}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:right;white-space:nowrap}
th{cursor:pointer;background:#eee;user-select:none;text-align:left}
th[aria-sort=ascending]::after{content:" \\25B2"}th[aria-sort=descending]::after{content:" \\25BC"}
td.name{text-align:left;white-space:normal;min-width:10em;max-width:30em;overflow-wrap:anywhere}
small{color:#666}details{margin:.3em 0}li.lost{color:#933}.sep{font-weight:bold}"""

# Click a header: the rows sorted by that column (its cells' data-v, else their text),
# ascending, then descending on a second click.
_SORT = """for (const table of document.querySelectorAll('table.sortable')) {
  table.querySelectorAll('thead th').forEach((th, column) => {
    th.addEventListener('click', () => {
      const body = table.tBodies[0], rows = Array.from(body.rows);
      const up = th.getAttribute('aria-sort') !== 'ascending';
      const key = row => {
        const cell = row.cells[column], v = cell.dataset.v;
        return v === undefined ? cell.textContent.trim() : parseFloat(v);
      };
      rows.sort((a, b) => {
        const x = key(a), y = key(b);
        const c = typeof x === 'number' && typeof y === 'number'
          ? x - y : String(x).localeCompare(String(y));
        return up ? c : -c;
      });
      table.querySelectorAll('thead th').forEach(h => h.removeAttribute('aria-sort'));
      th.setAttribute('aria-sort', up ? 'ascending' : 'descending');
      for (const row of rows) body.appendChild(row);
    });
  });
}"""


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


# The page runs its own script and style and nothing else, and fetches nothing (links
# to transcripts are followed only when clicked): a second guard behind the escaping.
_POLICY = f"default-src 'none'; style-src {_hash(_STYLE)}; script-src {_hash(_SORT)}"


def _href(path: str) -> str | None:
    """A transcript's link: its path relative to the page, percent-encoded (so no scheme
    such as ``javascript:`` survives); None for a path that is not relative."""
    if not path or path.startswith(("/", "\\")):
        return None
    return html.escape(quote(path, safe="/"))


def page(board: Leaderboard, records: list[BenchRecord]) -> str:
    """``leaderboard.html``: every text from the records escaped."""
    e = html.escape
    suite = board["suite"]
    families = suite["families"]
    head = "".join(f"<th>{e(f)}</th>" for f in families)
    rows = []
    for rank, row in enumerate(board["models"], 1):
        cells = "".join(
            f'<td data-v="{row["families"][f]["rate"]}">{percent(row["families"][f]["rate"])} '
            f"<small>{interval(row['families'][f]['ci95'])}</small></td>"
            if f in row["families"]
            else '<td data-v="-1">—</td>'
            for f in families
        )
        usd = row["cost_usd"]
        rows.append(
            f'<tr><td data-v="{rank}">{rank}</td><td class="name">{e(row["model"])}</td>'
            f'<td data-v="{row["score"]["rate"]}">{percent(row["score"]["rate"])} '
            f"<small>{interval(row['score']['ci95'])}</small></td>{cells}"
            f'<td data-v="{row["calls"]}">{row["calls"]:,}</td>'
            f'<td data-v="{tokens(row)}">{tokens(row):,}</td>'
            f'<td data-v="{-1 if usd is None else usd}">{dollars(usd)}</td>'
            f'<td data-v="{row["seconds"]}">{row["seconds"]:,.0f}</td></tr>'
        )
    pairs = "".join(
        f'<tr><td class="name">{e(p["a"])}</td><td class="name">{e(p["b"])}</td>'
        f'<td class="name">{e(p["family"])}</td><td>{p["n"]}</td>'
        f'<td data-v="{p["diff"]}">{100 * p["diff"]:+.0f}</td>'
        f'<td data-v="{p["ci95"][0]}">{interval(p["ci95"])}</td>'
        f'<td data-v="{int(separated(p))}" class="sep">{"separated" if separated(p) else ""}'
        "</td></tr>"
        for p in board["pairs"]
    )
    failures = "".join(
        f'<tr><td class="name">{e(row["model"])}</td><td class="name">{e(f)}</td>'
        f"<td>{row['families'][f]['n'] - row['families'][f]['won']}</td>"
        f'<td class="name">{e(kind)}</td><td>{count}</td></tr>'
        for row in board["models"]
        for f in families
        if f in row["families"]
        for kind, count in row["families"][f]["failures"].items()
    )
    separate = sum(map(separated, board["pairs"]))
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">'
        "<meta name='viewport' content='width=device-width'>"
        f"<title>Leaderboard: {e(suite['name'])}</title><style>{_STYLE}</style></head><body>"
        f"<h1>Leaderboard: suite {e(suite['name'])}</h1>"
        f"<p><small>suite sha256 {e(suite['sha256'])}. Rates in percent with Wilson 95% "
        "intervals; the score is the mean of the rates of the families a model played, "
        "with a stratified bootstrap 95% interval; tokens are prompt and completion "
        "(reasoning included); a cost is unknown when a price is. Click a column's "
        "heading to sort.</small></p>"
        '<div class="wide"><table class="sortable" id="board"><thead><tr><th>#</th><th>model</th>'
        f"<th>score</th>{head}<th>calls</th><th>tokens</th><th>cost</th><th>seconds</th>"
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        f"<h2>Success against cost</h2>{scatter(board)}"
        f"<h2>Pairs</h2><p><small>The difference of rates, a - b in points, on the "
        "(instance, seed) units both played, with a paired bootstrap 95% interval; "
        f"separated when it excludes 0: {separate} of {len(board['pairs'])}.</small></p>"
        f"<details{' open' if len(board['pairs']) <= 200 else ''}><summary>"
        f"{len(board['pairs'])} pairs</summary>"
        '<table class="sortable" id="pairs"><thead><tr><th>a</th><th>b</th><th>family</th>'
        "<th>n</th><th>diff</th><th>95%</th><th></th></tr></thead>"
        f"<tbody>{pairs}</tbody></table></details>"
        "<h2>Failures</h2><p><small>The lost episodes by kind.</small></p>"
        '<table class="sortable" id="failures"><thead><tr><th>model</th><th>family</th>'
        "<th>lost</th><th>kind</th><th>episodes</th></tr></thead>"
        f"<tbody>{failures}</tbody></table>"
        f"<h2>Episodes</h2>{episodes(board, records)}"
        f"<script>{_SORT}</script></body></html>\n"
    )


def episodes(board: Leaderboard, records: list[BenchRecord]) -> str:
    """Per model and family, each episode (its latest record) linked to its transcript."""
    e = html.escape
    grouped: dict[tuple[str, str], list[BenchRecord]] = {}
    for record in latest(records):
        grouped.setdefault((record["model"], record["family"]), []).append(record)
    parts = []
    for row in board["models"]:
        for family in board["suite"]["families"]:
            mine = grouped.get((row["model"], family))
            if not mine:
                continue
            items = []
            for r in mine:
                href = _href(r["transcript"])
                name = f"{e(r['instance'])} seed {r['seed']}"
                link = f'<a href="{href}">{name}</a>' if href else name
                outcome = (
                    "won" if r["won"] else f"{e(str(r['failure']))} <small>{e(r['detail'])}</small>"
                )
                items.append(
                    f'<li class="{"won" if r["won"] else "lost"}">{link}: {outcome} '
                    f"<small>({r['steps']} steps, {r['calls']} calls)</small></li>"
                )
            won = sum(r["won"] for r in mine)
            parts.append(
                f'<details class="episodes"><summary>{e(row["model"])} on {e(family)}: '
                f"won {won} of {len(mine)}</summary><ul>{''.join(items)}</ul></details>"
            )
    return "".join(parts)


def _ticks(most: float, count: int = 5) -> list[float]:
    return [most * i / (count - 1) for i in range(count)]


def scatter(board: Leaderboard) -> str:
    """An inline SVG: each model's score (with its interval) against its cost, or its
    tokens when a model's cost is unknown; the top :data:`TERMINAL_MODELS` labelled,
    every point titled with its model."""
    e = html.escape
    rows = board["models"]
    if not rows:
        return "<p>no models</p>"
    by_cost = all(row["cost_usd"] is not None for row in rows)

    def x_of(row: ModelRow) -> float:
        return float(row["cost_usd"] or 0.0) if by_cost else float(tokens(row))

    most = max(x_of(row) for row in rows) or 1.0
    width, height, left, bottom, top, right = 640, 360, 60, 50, 20, 160

    def x(value: float) -> float:
        return left + (width - left - right) * value / most

    def y(rate: float) -> float:
        return height - bottom - (height - bottom - top) * rate

    parts = [
        f'<line x1="{left}" y1="{y(0)}" x2="{width - right}" y2="{y(0)}" stroke="#888"/>',
        f'<line x1="{left}" y1="{y(0)}" x2="{left}" y2="{y(1)}" stroke="#888"/>',
    ]
    for rate in (0, 0.25, 0.5, 0.75, 1):
        parts.append(
            f'<text x="{left - 6}" y="{y(rate) + 4:.1f}" text-anchor="end" font-size="11">'
            f"{percent(rate)}</text>"
        )
    for value in _ticks(most):
        label = dollars(value) if by_cost else f"{value:,.0f}"
        parts.append(
            f'<text x="{x(value):.1f}" y="{y(0) + 16}" text-anchor="middle" font-size="11">'
            f"{label}</text>"
        )
    for rank, row in enumerate(rows):
        cx, score = x(x_of(row)), row["score"]
        low, high = y(score["ci95"][0]), y(score["ci95"][1])
        colour = "#36c" if rank < TERMINAL_MODELS else "#aaa"
        parts.append(
            f"<g><title>{e(row['model'])}: score {rated(score)}, "
            f"{dollars(row['cost_usd'])}, {tokens(row):,} tokens</title>"
            f'<line x1="{cx:.1f}" y1="{low:.1f}" x2="{cx:.1f}" y2="{high:.1f}" '
            f'stroke="{colour}"/><circle cx="{cx:.1f}" cy="{y(score["rate"]):.1f}" r="4" '
            f'fill="{colour}"/></g>'
        )
        if rank < TERMINAL_MODELS:
            parts.append(
                f'<text x="{cx + 6:.1f}" y="{y(score["rate"]) - 6:.1f}" font-size="11">'
                f"{e(_clipped(row['model'], 30))}</text>"
            )
    label = "cost (USD)" if by_cost else "tokens, prompt and completion (a cost is unknown)"
    parts.append(
        f'<text x="{(left + width - right) / 2}" y="{height - 12}" text-anchor="middle">'
        f"{label}</text>"
        f'<text x="16" y="{(top + height - bottom) / 2}" text-anchor="middle" '
        f'transform="rotate(-90 16 {(top + height - bottom) / 2})">score (%), 95% interval'
        "</text>"
    )
    return (
        f'<svg id="cost" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="score against {"cost" if by_cost else "tokens"}" '
        f'xmlns="http://www.w3.org/2000/svg">{"".join(parts)}</svg>'
    )


# The PNGs.


def pictures(out: Path, board: Leaderboard) -> list[Path]:
    """``leaderboard.png`` (each family's rate per model, the top
    :data:`TERMINAL_MODELS`, with its interval) and ``cost.png`` (every model's score
    against its cost, or tokens), drawn on matplotlib's Agg canvas (no global backend
    set); none for a board of no model, and none, a warning logged, without matplotlib."""
    if not board["models"]:
        return []
    try:
        from matplotlib import colormaps
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        log.warning("bench: no PNGs: matplotlib is not installed (pip install planloop[plot])")
        return []
    out.mkdir(parents=True, exist_ok=True)
    rows = board["models"][:TERMINAL_MODELS]
    palette = colormaps["tab10" if len(rows) <= 10 else "tab20"]
    # tab20's strong colours first, then its pale ones
    order = range(palette.N) if palette.N == 10 else [*range(0, 20, 2), *range(1, 20, 2)]
    colours = [palette(order[i % palette.N]) for i in range(len(rows))]
    suite = _label(board["suite"]["name"])

    figure = Figure(
        figsize=(max(7.0, 0.9 * len(board["suite"]["families"]) + 4), 4.8), layout="constrained"
    )
    FigureCanvasAgg(figure)
    _rates_chart(figure.add_subplot(), board, colours)
    shown = "" if len(board["models"]) <= len(rows) else f" (the top {len(rows)} models)"
    figure.axes[0].set_title(f"Suite {suite}: rate per family{shown}")
    figure.savefig(out / "leaderboard.png", dpi=120)

    figure = Figure(figsize=(7.5, 4.8), layout="constrained")
    FigureCanvasAgg(figure)
    by_cost = _cost_chart(figure.add_subplot(), board, colours)
    figure.axes[0].set_title(f"Suite {suite}: success against {'cost' if by_cost else 'tokens'}")
    figure.savefig(out / "cost.png", dpi=120)
    return [out / "leaderboard.png", out / "cost.png"]


def _label(text: str) -> str:
    """Text from the records as matplotlib shows it as is: no mathtext (``$``), not
    hidden from the legend (a leading ``_``), at most 40 characters."""
    text = _clipped(text, 40).replace("$", r"\$")
    return " " + text if text.startswith("_") else text


def _rates_chart(axes: Axes, board: Leaderboard, colours: list[Colour]) -> None:
    """Grouped bars: for each family, each shown model's rate with its interval."""
    families = board["suite"]["families"]
    rows = board["models"][: len(colours)]
    width = 0.8 / max(1, len(rows))
    for index, row in enumerate(rows):
        xs, ys, below, above = [], [], [], []
        for position, family in enumerate(families):
            found = row["families"].get(family)
            if found is None:
                continue
            xs.append(position - 0.4 + (index + 0.5) * width)
            ys.append(100 * found["rate"])
            below.append(max(0.0, 100 * (found["rate"] - found["ci95"][0])))
            above.append(max(0.0, 100 * (found["ci95"][1] - found["rate"])))
        axes.bar(
            xs,
            ys,
            width,
            yerr=[below, above],
            capsize=2,
            color=colours[index],
            error_kw={"elinewidth": 0.8},
            label=_label(row["model"]),
        )
    axes.set_xticks(range(len(families)), [_label(f) for f in families], rotation=30, ha="right")
    axes.set_xlabel("family")
    axes.set_ylabel("episodes won (%), Wilson 95% interval")
    axes.set_ylim(0, 105)
    axes.grid(axis="y", alpha=0.3)
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8, title="model")


def _cost_chart(axes: Axes, board: Leaderboard, colours: list[Colour]) -> bool:
    """Every model's score (with its interval) against its cost, or its tokens when a
    model's cost is unknown (what it returns: whether by cost); the shown models in
    colour, the others grey."""
    rows = board["models"]
    by_cost = all(row["cost_usd"] is not None for row in rows)
    for index, row in enumerate(rows):
        value = float(row["cost_usd"] or 0.0) if by_cost else float(tokens(row))
        rate, (low, high) = row["score"]["rate"], row["score"]["ci95"]
        named = index < len(colours)
        label = _label(row["model"]) if named else "other models" if index == len(colours) else None
        axes.errorbar(
            [value],
            [100 * rate],
            yerr=[[max(0.0, 100 * (rate - low))], [max(0.0, 100 * (high - rate))]],
            fmt="o",
            capsize=3,
            color=colours[index] if named else "#bbbbbb",
            label=label,
            zorder=3 if named else 2,
        )
    axes.set_xlabel(
        "cost (USD)" if by_cost else "tokens, prompt and completion (a cost is unknown)"
    )
    axes.set_ylabel("score (%): mean of family rates, 95% interval")
    axes.set_ylim(-2, 102)
    axes.set_xlim(left=0)
    axes.grid(alpha=0.3)
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8, title="model")
    return by_cost
