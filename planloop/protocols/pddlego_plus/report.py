"""The run's HTML report: one self-contained page (inline CSS and a little inline script
under a Content-Security-Policy that lets nothing else run or load) with a table of the
episodes and, per episode, each round of the formalize-plan-play loop: why it ran, the
error it answered, its check and the reader's warnings, planner, plan and steps (each
command with why it was chosen, on hover), its DF and PF as a diff against
the files before, and the true PF beside the model's when the record carries it.
Records without rounds show their actions and observations. Everything taken from a
record is escaped: model text is shown, never run."""

from __future__ import annotations

import base64
import difflib
import hashlib
from collections import Counter
from collections.abc import Iterable
from html import escape
from pathlib import Path

_SCRIPT = """
const details = () => document.querySelectorAll("details");
document.getElementById("expand").addEventListener("click", () => {
  for (const d of details()) d.open = true;
});
document.getElementById("collapse").addEventListener("click", () => {
  for (const d of details()) d.open = false;
});
document.getElementById("show").addEventListener("change", (event) => {
  for (const el of document.querySelectorAll("[data-outcome]")) {
    el.hidden = event.target.value !== "all" && el.dataset.outcome !== event.target.value;
  }
});
"""
_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-"
    + base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()
    + "'; img-src data:; base-uri 'none'; form-action 'none'"
)
_CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
figure img { max-width: 100%; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: left; vertical-align: top; }
table.summary td { max-width: 16em; overflow: hidden; text-overflow: ellipsis;
                   white-space: nowrap; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f6f6; padding: 4px 6px;
      margin: .2em 0; font: 12px/1.35 ui-monospace, monospace; }
section.episode { border-top: 2px solid #888; margin-top: 1.5em; }
details.round { margin: .4em 0 .4em 1em; border-left: 3px solid #ccc; padding-left: .6em; }
summary { cursor: pointer; }
.won { color: #176b1a; } .lost, .failed, .stop { color: #a4161a; }
tr.failed td { background: #fdecea; }
pre.lines > span { display: block; min-height: 1.35em; }
.add { background: #e6ffec; } .del { background: #ffebe9; } .hunk { color: #0550ae; }
.head { color: #666; } .only { background: #fff3b0; }
.beside { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; }
.note { color: #666; font-style: italic; }
"""
_CONTROLS = (
    '<p><button id="expand" type="button">expand all</button> '
    '<button id="collapse" type="button">collapse all</button> '
    '<label>show <select id="show"><option value="all">all episodes</option>'
    '<option value="won">won</option><option value="lost">lost</option>'
    "</select></label></p>"
)


def write_report(
    records: Iterable[dict], path: Path | str, title: str, plots: Iterable[tuple[Path, str]] = ()
) -> Path:
    """Write the report of ``records`` (episode records as in ``episodes.jsonl``, e.g.
    :func:`latest_records`' values) to ``path``, with ``plots`` (PNG path, caption; a
    missing file is left out) embedded in the page; returns the path."""
    records = list(records)
    won = sum(bool(r.get("won")) for r in records)
    body = [
        f"<h1>{_e(title)}</h1>",
        f"<p>{len(records)} episodes, {won} won.</p>",
        *(_figure(png, caption) for png, caption in plots if Path(png).is_file()),
        _CONTROLS,
        _summary(records),
        *(_episode(i, r) for i, r in enumerate(records)),
    ]
    page = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head>\n<body>\n"
        + "\n".join(body)
        + f"\n<script>{_SCRIPT}</script>\n</body></html>\n"
    )
    path = Path(path)
    path.write_text(page, encoding="utf-8", errors="backslashreplace")  # lone surrogates
    return path


def _figure(png: Path, caption: str) -> str:
    """A PNG embedded in the page (no file to carry beside it) with its caption."""
    data = base64.b64encode(Path(png).read_bytes()).decode()
    return (
        f'<figure><img alt="{_e(caption)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{_e(caption)}</figcaption></figure>"
    )


def _e(value: object) -> str:
    return escape("" if value is None else str(value))


def _condition(record: dict) -> dict:
    """The condition's fields: those the harness puts between ``study`` and ``instance``."""
    keys = list(record)
    if "study" not in keys or "instance" not in keys:
        return {}
    return {k: record[k] for k in keys[keys.index("study") + 1 : keys.index("instance")]}


def _outcome(record: dict) -> str:
    return "won" if record.get("won") else "lost"


def _stop(record: dict) -> str:
    return record.get("details", {}).get("stop") or record.get("error") or ""


def _met_fixed(details: dict, kind: str) -> str:
    met, fixed = details.get(f"{kind}_errors"), details.get(f"{kind}_fixed")
    return "-" if met is None else f"{met} / {fixed}"


def _summary(records: list[dict]) -> str:
    conditions = list(dict.fromkeys(k for r in records for k in _condition(r)))
    header = [
        "episode",
        "env",
        "model",
        "instance",
        "trial",
        *conditions,
        "won",
        "steps",
        "rounds",
        "stop",
        "solver errors met / fixed",
        "simulation errors met / fixed",
    ]
    rows = []
    for i, record in enumerate(records):
        details = record.get("details", {})
        rounds = details.get("rounds")
        cells = [
            record.get("env_id"),
            record.get("model"),
            record.get("instance"),
            record.get("trial"),
            *(_condition(record).get(k, "") for k in conditions),
            _outcome(record),
            len(record.get("actions") or ()),
            "-" if rounds is None else len(rounds),
            _stop(record),
            _met_fixed(details, "solver"),
            _met_fixed(details, "simulation"),
        ]
        rows.append(
            f'<tr data-outcome="{_outcome(record)}"><td><a href="#ep-{i}">{i}</a></td>'
            + "".join(f'<td title="{_e(c)}">{_e(c)}</td>' for c in cells)
            + "</tr>"
        )
    return (
        '<table class="summary"><thead><tr>'
        + "".join(f"<th>{_e(h)}</th>" for h in header)
        + "</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
    )


def _episode(i: int, record: dict) -> str:
    rounds = record.get("details", {}).get("rounds") or []
    condition = ", ".join(f"{k}={v}" for k, v in _condition(record).items() if v is not None)
    parts = [
        f'<section class="episode" id="ep-{i}" data-outcome="{_outcome(record)}">',
        f"<h2>Episode {i}: instance {_e(record.get('instance'))} trial "
        f'{_e(record.get("trial"))} {_e(condition)} <span class="{_outcome(record)}">'
        f"{_outcome(record)}</span></h2>",
    ]
    if _stop(record):
        parts.append(f'<p class="stop">stopped: {_e(_stop(record))}</p>')
    previous: dict[str, tuple[int, str]] = {}  # the last file of each kind, and its round
    for number, round_ in enumerate(rounds):
        parts.append(_round(number, round_, previous))
        previous.update({k: (number, round_[k]) for k in ("df", "pf") if round_.get(k)})
    parts += [_transcript(record, opened=not rounds), "</section>"]
    return "\n".join(parts)


def _round(number: int, round_: dict, previous: dict[str, tuple[int, str]]) -> str:
    steps, check, planner = round_.get("steps") or [], round_.get("check"), round_.get("planner")
    refused = sum(s.get("ok") is False for s in steps)
    label = [
        f"round {number}",
        round_.get("trigger") or "",
        f"check failed ({check.get('stage')})" if check else "",
        f"plan of {len(round_.get('plan') or [])} steps" if planner else "",
        f"{len(steps)} played" if steps else "",
        f"{refused} refused" if refused else "",
    ]
    parts = [
        f'<details class="round" data-round="{number}"><summary>'
        f"{_e(' · '.join(p for p in label if p))}</summary>"
    ]
    if round_.get("answers"):
        parts.append(f'<p>answers:</p><pre class="answers">{_e(round_["answers"])}</pre>')
    parts.append(
        f'<p>check: <span class="failed">{_e(check.get("stage"))}: '
        + _e(check.get("message")).replace("\n", "<br>")  # one diagnostic a line
        + "</span></p>"
        if check
        else "<p>check: passed</p>"
    )
    if round_.get("warnings"):
        parts.append(_warnings(round_["warnings"]))
    if planner:
        parts.append(
            f"<p>planner: {_e(planner.get('planner'))} {_e(planner.get('status'))} "
            f"in {_e(planner.get('seconds'))} s</p>"
        )
        parts.append(
            '<ol class="plan">'
            + "".join(f"<li>{_e(s)}</li>" for s in round_.get("plan") or [])
            + "</ol>"
        )
    if steps:
        parts.append(_steps(steps))
    parts += [
        f"<h4>DF</h4>{_diff(round_.get('df'), previous.get('df'), number)}",
        f"<h4>PF</h4>{_diff(round_.get('pf'), previous.get('pf'), number)}",
    ]
    if round_.get("truth") is not None:
        parts.append(_beside(round_.get("pf") or "", round_["truth"]))
    if round_.get("reply"):
        parts.append(
            f'<details class="reply"><summary>the reply</summary>'
            f"<pre>{_e(round_['reply'])}</pre></details>"
        )
    return "\n".join(parts) + "</details>"


def _title(text: str | None) -> str:
    return f' title="{_e(text)}"' if text else ""


def _warnings(warnings: list[dict]) -> str:
    """The reader's warnings: forms planners accept, each with where it is."""
    items = "".join(
        f"<li>{_e(w.get('stage'))} line {_e(w.get('line'))}, col {_e(w.get('col'))}"
        f": {_e(w.get('message'))}</li>"
        for w in warnings
    )
    return f'<p>{len(warnings)} dialect warning(s):</p><ul class="warnings">{items}</ul>'


def _steps(steps: list[dict]) -> str:
    status = {True: "ok", False: "refused", None: "-"}
    rows = "".join(
        f'<tr class="step{" failed" if s.get("ok") is False else ""}"><td>{_e(s.get("step"))}</td>'
        f"<td{_title(s.get('why'))}>{_e(s.get('command'))}</td><td>{status[s.get('ok')]}</td>"
        f"<td><pre>{_e(s.get('observation'))}</pre></td></tr>"
        for s in steps
    )
    return (
        '<table class="steps"><thead><tr><th>plan step</th><th>command</th><th></th>'
        f"<th>the game's answer</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _diff(text: str | None, previous: tuple[int, str] | None, number: int) -> str:
    """``text`` as a unified diff against ``previous`` (round, text); whole without one."""
    if not text:
        return '<p class="note">no file read from the reply</p>'
    if previous is None:
        return f'<p class="note">whole file</p><pre class="file">{_e(text)}</pre>'
    lines = list(
        difflib.unified_diff(
            previous[1].splitlines(),
            text.splitlines(),
            f"round {previous[0]}",
            f"round {number}",
            lineterm="",
        )
    )
    if not lines:
        return f'<p class="note unchanged">unchanged since round {previous[0]}</p>'
    kinds = {"+": "add", "-": "del", "@": "hunk"}
    return f'<p class="note">diff against round {previous[0]}</p>' + _lines(
        ("head" if i < 2 else kinds.get(line[:1], ""), line)  # 2: ---/+++
        for i, line in enumerate(lines)
    )


def _beside(model: str, truth: str) -> str:
    """The model's PF and the true PF in two columns, each line the other lacks marked."""

    def column(text: str, other: str, heading: str) -> str:
        others = {" ".join(line.split()) for line in other.splitlines()}
        return (
            f"<div><h4>{heading}</h4>"
            + _lines(
                ("" if " ".join(line.split()) in others else "only", line)
                for line in text.splitlines()
            )
            + "</div>"
        )

    return (
        '<div class="beside">'
        + column(model, truth, "the model's PF")
        + column(truth, model, "the true PF (what has been observed)")
        + "</div>"
    )


def _lines(lines: Iterable[tuple[str, str]]) -> str:
    """A ``<pre>`` of (css class, text) lines."""
    return (
        '<pre class="lines">'
        + "".join(f'<span class="{kind}">{_e(text)}</span>' for kind, text in lines)
        + "</pre>"
    )


def _played(record: dict) -> list[tuple[str | None, str, bool]]:
    """(action, the observation after it, whether the game took it) per action, and
    (None, the observation it starts from, True) per restart, in the order played: a
    restart adds an observation and no action (``restarted_after``)."""
    actions, observations = record.get("actions") or [], record.get("observations") or []
    errors = record.get("errors") or [None] * len(actions)
    restarts = Counter(record.get("restarted_after") or ())
    after = iter(observations[1:])
    played: list[tuple[str | None, str, bool]] = []
    for taken in range(len(actions) + 1):
        played += [(None, next(after, ""), True) for _ in range(restarts[taken])]
        if taken < len(actions):
            played.append((actions[taken], next(after, ""), errors[taken] is None))
    return played


def _transcript(record: dict, opened: bool) -> str:
    observations, played = record.get("observations") or [], _played(record)
    items = [f"<li><pre>{_e(observations[0])}</pre></li>"] if observations else []
    items += [
        f'<li class="restart"><b>restart</b><pre>{_e(observation)}</pre></li>'
        if action is None
        else f'<li class="action{"" if ok else " failed"}"><b>&gt; {_e(action)}</b>'
        f"{'' if ok else ' (refused)'}<pre>{_e(observation)}</pre></li>"
        for action, observation, ok in played
    ]
    steps = sum(action is not None for action, _, _ in played)
    return (
        f'<details class="transcript"{" open" if opened else ""}><summary>actions and '
        f"observations ({steps} actions)</summary><ol>{''.join(items)}</ol></details>"
    )
