"""The leaderboard written out: ``leaderboard.json`` (the :class:`~.records.Leaderboard`),
``leaderboard.md``, ``leaderboard.html`` (one file, no network: a sortable table, success
against cost, every episode linked to its transcript), ``leaderboard.png`` and
``cost.png`` (when matplotlib is installed), and the board for the terminal."""

from __future__ import annotations

import html
import json
from pathlib import Path

from .records import BenchRecord, Leaderboard, ModelRow
from .scores import separated

TERMINAL_MODELS = 12  # models the terminal board shows; the files hold them all
TERMINAL_PAIRS = 12  # pairs the terminal board shows
SHORT = {  # family names in the terminal's narrow columns
    "-obfuscated": "-o",
    "coincollector": "coin",
    "blocksworld": "bw",
    "contingent": "cont",
    "alfworld": "alf",
    "mystery": "myst",
    "nl-pddl": "nl",
}


def percent(rate: float) -> str:
    return f"{100 * rate:.0f}"


def interval(low_high: list[float]) -> str:
    return f"[{percent(low_high[0])}, {percent(low_high[1])}]"


def cost(row: ModelRow) -> str:
    return "unknown" if row["cost_usd"] is None else f"${row['cost_usd']:.4f}"


def short(family: str) -> str:
    """A family's name in a narrow column: ``coin-obf``."""
    for long, brief in SHORT.items():
        family = family.replace(long, brief)
    return family


def write_reports(out: Path, board: Leaderboard, records: list[BenchRecord]) -> list[Path]:
    """Every report into ``out``; the paths written (no PNG without matplotlib)."""
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "leaderboard.json", out / "leaderboard.md", out / "leaderboard.html"]
    written[0].write_text(json.dumps(board, indent=1) + "\n")
    written[1].write_text(markdown(board))
    written[2].write_text(page(board, records))
    return written + pictures(out, board)


def markdown(board: Leaderboard) -> str:
    families = board["suite"]["families"]
    lines = [
        f"# Leaderboard: suite {board['suite']['name']} ({board['suite']['sha256'][:12]})",
        "",
        "Rates in percent with Wilson 95% intervals; the score is the mean of the family "
        "rates, with a stratified bootstrap 95% interval.",
        "",
        "| rank | model | score | " + " | ".join(families) + " | calls | tokens | cost |",
        "|---:|---|---|" + "---|" * len(families) + "---:|---:|---:|",
    ]
    for rank, row in enumerate(board["models"], 1):
        cells = []
        for family in families:
            found = row["families"].get(family)
            cells.append(
                "—" if found is None else f"{percent(found['rate'])} {interval(found['ci95'])}"
            )
        tokens = sum(row["tokens"][k] for k in ("prompt", "completion"))  # type: ignore[literal-required]
        lines.append(
            f"| {rank} | {_cell(row['model'])} | {percent(row['score']['rate'])} "
            f"{interval(row['score']['ci95'])} | "
            + " | ".join(cells)
            + f" | {row['calls']:,} | {tokens:,} | {cost(row)} |"
        )
    lines += [
        "",
        "## Pairs",
        "",
        "The difference of rates (a - b, points) on the episodes both played, with a "
        "paired bootstrap 95% interval; **separated** when it excludes 0.",
        "",
        "| a | b | family | n | diff | 95% | |",
        "|---|---|---|---:|---:|---|---|",
    ]
    for pair in board["pairs"]:
        lines.append(
            f"| {_cell(pair['a'])} | {_cell(pair['b'])} | {pair['family']} | {pair['n']} | "
            f"{100 * pair['diff']:+.0f} | {interval(pair['ci95'])} | "
            f"{'**separated**' if separated(pair) else ''} |"
        )
    lines += ["", "## Failures", "", "| model | family | failures |", "|---|---|---|"]
    for row in board["models"]:
        for family, score in row["families"].items():
            if score["failures"]:
                kinds = ", ".join(f"{kind} {count}" for kind, count in score["failures"].items())
                lines.append(f"| {_cell(row['model'])} | {family} | {kinds} |")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def terminal_board(board: Leaderboard) -> str:
    """The board in under 60 lines: the top :data:`TERMINAL_MODELS` models by score with
    every family's rate, then the separated pairs first."""
    families = board["suite"]["families"]
    rows = board["models"]
    widths = [min(6, max(4, len(short(f)))) for f in families]
    name_width = min(28, max([5] + [len(r["model"]) for r in rows[:TERMINAL_MODELS]]))
    head = f"{'#':>2} {'model':<{name_width}} {'score':>13} " + " ".join(
        f"{short(f)[:w]:>{w}}" for f, w in zip(families, widths, strict=True)
    )
    lines = [
        f"suite {board['suite']['name']}: rates in percent (score: mean of families, 95% "
        "interval; -o: obfuscated)",
        head + "   cost",
    ]
    for rank, row in enumerate(rows[:TERMINAL_MODELS], 1):
        name = (
            row["model"]
            if len(row["model"]) <= name_width
            else "..." + row["model"][-name_width + 3 :]
        )
        score = f"{percent(row['score']['rate'])} {interval(row['score']['ci95'])}"
        cells = " ".join(
            f"{percent(row['families'][f]['rate']) if f in row['families'] else '-':>{w}}"
            for f, w in zip(families, widths, strict=True)
        )
        lines.append(f"{rank:>2} {name:<{name_width}} {score:>13} {cells}   {cost(row)}")
    if len(rows) > TERMINAL_MODELS:
        lines.append(f"   ... and {len(rows) - TERMINAL_MODELS} more models (leaderboard.md)")
    pairs = sorted(board["pairs"], key=lambda p: (not separated(p), -abs(p["diff"])))
    shown = [p for p in pairs if separated(p)][:TERMINAL_PAIRS]
    lines.append(
        f"pairs separated by their 95% interval: {sum(map(separated, pairs))} of {len(pairs)}"
    )
    for pair in shown:
        lines.append(
            f"  {pair['a'][:30]} - {pair['b'][:30]} on {pair['family']}: "
            f"{100 * pair['diff']:+.0f} {interval(pair['ci95'])} (n {pair['n']})"
        )
    return "\n".join(lines)


_STYLE = """body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{cursor:pointer;background:#eee}
td.name{text-align:left}small{color:#666}details{margin:.5em 0}"""
_SORT = """document.querySelectorAll('table.sortable th').forEach((th,i)=>th.onclick=()=>{
const body=th.closest('table').tBodies[0],rows=[...body.rows],up=th.dataset.up!=='1';
rows.sort((a,b)=>{const x=a.cells[i].dataset.v??a.cells[i].textContent,
y=b.cells[i].dataset.v??b.cells[i].textContent,nx=parseFloat(x),ny=parseFloat(y);
const c=isNaN(nx)||isNaN(ny)?x.localeCompare(y):nx-ny;return up?c:-c});
th.dataset.up=up?'1':'0';rows.forEach(r=>body.appendChild(r))});"""


def page(board: Leaderboard, records: list[BenchRecord]) -> str:
    """The HTML board; every text from the records escaped."""
    e = html.escape
    families = board["suite"]["families"]
    head = "".join(f"<th>{e(f)}</th>" for f in families)
    rows = []
    for rank, row in enumerate(board["models"], 1):
        cells = []
        for family in families:
            found = row["families"].get(family)
            cells.append(
                '<td data-v="-1">—</td>'
                if found is None
                else f'<td data-v="{found["rate"]}">{percent(found["rate"])} '
                f"<small>{interval(found['ci95'])}</small></td>"
            )
        usd = row["cost_usd"]
        rows.append(
            f'<tr><td>{rank}</td><td class="name">{e(row["model"])}</td>'
            f'<td data-v="{row["score"]["rate"]}">{percent(row["score"]["rate"])} '
            f"<small>{interval(row['score']['ci95'])}</small></td>{''.join(cells)}"
            f"<td>{row['calls']}</td><td>{row['tokens']['prompt'] + row['tokens']['completion']}</td>"
            f'<td data-v="{-1 if usd is None else usd}">{e(cost(row))}</td></tr>'
        )
    episodes = []
    for row in board["models"]:
        for family in row["families"]:
            mine = [r for r in records if r["model"] == row["model"] and r["family"] == family]
            items = "".join(
                f'<li><a href="{e(r["transcript"])}">{e(r["instance"])} seed {r["seed"]}</a>: '
                f"{'won' if r['won'] else e(str(r['failure']))}"
                f"{'' if r['won'] else ' <small>' + e(r['detail']) + '</small>'}</li>"
                for r in mine
            )
            episodes.append(
                f"<details><summary>{e(row['model'])} on {e(family)} ({len(mine)} episodes)"
                f"</summary><ul>{items}</ul></details>"
            )
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>Leaderboard: "
        f"{e(board['suite']['name'])}</title><style>{_STYLE}</style></head><body>"
        f"<h1>Leaderboard: suite {e(board['suite']['name'])}</h1>"
        f"<p><small>suite sha256 {e(board['suite']['sha256'])}; rates in percent with Wilson "
        f"95% intervals; click a column to sort</small></p>"
        f'<table class="sortable" id="board"><thead><tr><th>#</th><th>model</th><th>score</th>'
        f"{head}<th>calls</th><th>tokens</th><th>cost</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
        f"<h2>Success against cost</h2>{_scatter(board)}"
        f"<h2>Episodes</h2>{''.join(episodes)}<script>{_SORT}</script></body></html>\n"
    )


def _scatter(board: Leaderboard) -> str:
    """An inline SVG: each model's score against its cost (its tokens when a cost is
    unknown)."""
    rows = board["models"]
    if not rows:
        return "<p>no models</p>"
    by_cost = all(row["cost_usd"] is not None for row in rows)

    def x_of(row: ModelRow) -> float:
        if by_cost:
            return float(row["cost_usd"] or 0.0)
        return float(row["tokens"]["prompt"] + row["tokens"]["completion"])

    most = max(x_of(row) for row in rows) or 1.0
    width, height, pad = 520, 300, 50
    points = []
    for row in rows:
        x = pad + (width - 2 * pad) * x_of(row) / most
        y = height - pad - (height - 2 * pad) * row["score"]["rate"]
        points.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="#36c"><title>'
            f"{html.escape(row['model'])}</title></circle>"
            f'<text x="{x + 7:.1f}" y="{y - 7:.1f}" font-size="11">{html.escape(row["model"][:30])}</text>'
        )
    label = "cost (USD)" if by_cost else "tokens (a cost is unknown)"
    return (
        f'<svg width="{width}" height="{height}" role="img"><line x1="{pad}" y1="{height - pad}" '
        f'x2="{width - pad}" y2="{height - pad}" stroke="#888"/><line x1="{pad}" y1="{pad}" '
        f'x2="{pad}" y2="{height - pad}" stroke="#888"/><text x="{width / 2}" y="{height - 10}" '
        f'text-anchor="middle">{label}, 0 to {most:g}</text><text x="12" y="{height / 2}" '
        f'transform="rotate(-90 12 {height / 2})" text-anchor="middle">score</text>'
        f"{''.join(points)}</svg>"
    )


def pictures(out: Path, board: Leaderboard) -> list[Path]:
    """``leaderboard.png`` (each family's rate per model with its interval) and
    ``cost.png`` (score against cost, or tokens); none without matplotlib (the plot
    extra), which is imported here only."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    families, rows = board["suite"]["families"], board["models"][:TERMINAL_MODELS]
    figure, axes = plt.subplots(
        figsize=(max(6, 1.1 * len(families) + 3), 4.5), layout="constrained"
    )
    width = 0.8 / max(1, len(rows))
    for index, row in enumerate(rows):
        xs: list[float] = []
        ys: list[float] = []
        errors: list[list[float]] = [[], []]
        for position, family in enumerate(families):
            found = row["families"].get(family)
            if found is None:
                continue
            xs.append(position + index * width)
            ys.append(100 * found["rate"])
            errors[0].append(max(0.0, 100 * (found["rate"] - found["ci95"][0])))
            errors[1].append(max(0.0, 100 * (found["ci95"][1] - found["rate"])))
        axes.bar(xs, ys, width, yerr=errors, capsize=2, label=row["model"][:40])
    axes.set_xticks(
        [p + 0.4 - width / 2 for p in range(len(families))], families, rotation=30, ha="right"
    )
    axes.set_ylabel("episodes won (%), 95% interval")
    axes.set_ylim(0, 105)
    axes.set_title(f"Suite {board['suite']['name']}: rate per family and model")
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    figure.savefig(out / "leaderboard.png", dpi=120)
    plt.close(figure)
    figure, axes = plt.subplots(figsize=(6, 4.5), layout="constrained")
    by_cost = all(row["cost_usd"] is not None for row in rows)
    for row in rows:
        x = float(
            (row["cost_usd"] or 0.0)
            if by_cost
            else row["tokens"]["prompt"] + row["tokens"]["completion"]
        )
        low, high = row["score"]["ci95"]
        rate = row["score"]["rate"]
        axes.errorbar(
            [x],
            [100 * rate],
            yerr=[[100 * (rate - low)], [100 * (high - rate)]],
            fmt="o",
            capsize=3,
            label=row["model"][:40],
        )
    axes.set_xlabel("cost (USD)" if by_cost else "tokens (a model's cost is unknown)")
    axes.set_ylabel("score (%), 95% interval")
    axes.set_title(f"Suite {board['suite']['name']}: success against cost")
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    figure.savefig(out / "cost.png", dpi=120)
    plt.close(figure)
    return [out / "leaderboard.png", out / "cost.png"]
