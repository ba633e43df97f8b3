"""The run's HTML report: write_report's page (escaping, diffs, the true PF beside the
model's, records without rounds), and the report of real PDDLego+ runs opened in
headless Chromium (Debian's ``chromium``) over the DevTools protocol: it renders with
no script or console error, shows every episode and round, shows a hostile model reply
as text without running it, and fetches nothing."""

import importlib.util
import json
import re
from pathlib import Path

import pytest

from planloop.llm import ScriptedModel
from planloop.protocols.pddlego_plus.report import write_report

from conftest import load_experiment

HOSTILE = '</pre><script>alert(1)</script><img src="http://127.0.0.1:9/x.png">'
DF = "(define (domain d)\n  (:predicates (at ?x))\n  (:action go :parameters (?x)))"
PF_A = (
    "(define (problem p)\n  (:domain d)\n  (:objects a b)\n  (:init\n    (at a))\n  (:goal (at b)))"
)
PF_B = PF_A.replace("(at a))", "(at b))").replace("(:goal (at b))", "(:goal (at a))")


def a_round(number: int, **fields) -> dict:
    """A round record as PDDLegoPolicy writes it."""
    return {
        "round": number,
        "trigger": "start",
        "answers": None,
        "df": DF,
        "pf": PF_A,
        "truth": None,
        "reply": "",
        "check": None,
        "planner": {"status": "solved", "planner": "lama-first", "seconds": 0.1},
        "plan": ["(go b)"],
        "steps": [],
        **fields,
    }


def an_episode(rounds: list[dict] | None, **fields) -> dict:
    """An episode record in the harness's field order (the condition between ``study``
    and ``instance``)."""
    details = (
        {}
        if rounds is None
        else {
            "rounds": rounds,
            "solver_errors": 1,
            "solver_fixed": 1,
            "simulation_errors": 2,
            "simulation_fixed": 0,
            "stop": None,
        }
    )
    return {
        "key": "k/0/0",
        "study": "s",
        "policy": "pddlego",
        "prompt": "detailed",
        "instance": 0,
        "trial": 0,
        "env_id": "E-v0",
        "model": "m",
        "won": False,
        "actions": ["go b"],
        "observations": ["start here", "you went"],
        "errors": [None],
        "details": details,
        **fields,
    }


def page(tmp_path, *records, title="run") -> str:
    return write_report(records, tmp_path / "report.html", title).read_text()


def test_record_text_is_escaped(tmp_path):
    rounds = [
        a_round(
            0,
            reply=HOSTILE,
            answers="<b>the error</b>",
            check={"stage": "syntax", "message": "<i>bad</i>"},
            steps=[{"step": "(go b)", "command": "go <b>", "observation": "<hr>", "ok": False}],
        )
    ]
    html = page(tmp_path, an_episode(rounds, actions=["<u>x</u>"]), title="<title>")
    assert HOSTILE not in html and "<img" not in html and html.count("<script") == 1
    for text in (
        HOSTILE,
        "<b>the error</b>",
        "<i>bad</i>",
        "go <b>",
        "<hr>",
        "<u>x</u>",
        "<title>",
    ):
        assert (
            text.replace("&", "&amp;")
            .replace("<", "&lt;")
            .replace(">", "&gt;")
            .replace('"', "&quot;")
            in html
        ), text


def test_files_as_diffs_against_the_round_before(tmp_path):
    rounds = [
        a_round(0),
        a_round(1, trigger="growth", pf=PF_B),
        a_round(2, trigger="solver_error", df=None, pf=None),
        a_round(3, trigger="solver_error", pf=PF_B),
    ]
    html = page(tmp_path, an_episode(rounds))
    parts = re.split(r'<details class="round" data-round="\d">', html)[1:]
    assert len(parts) == 4
    assert parts[0].count('<p class="note">whole file</p>') == 2 and "(:action go" in parts[0]
    assert 'DF</h4><p class="note unchanged">unchanged since round 0' in parts[1]
    assert '<span class="del">-    (at a))</span>' in parts[1]
    assert '<span class="add">+  (:goal (at a)))</span>' in parts[1]
    assert '<span class="">   (:objects a b)</span>' in parts[1]  # context
    assert '<span class="head">--- round 0</span><span class="head">+++ round 1</span>' in parts[1]
    assert parts[2].count("no file read from the reply") == 2
    assert parts[3].count("unchanged since round 1") == 2  # round 2 had no files


def test_the_round_shows_its_trigger_error_check_plan_and_steps(tmp_path):
    rounds = [
        a_round(
            0,
            trigger="simulation_error",
            answers="the door is closed",
            check={"stage": "planner", "message": "no plan"},
            planner=None,
            plan=[],
        ),
        a_round(
            1,
            steps=[
                {"step": "(go b)", "command": "go b", "observation": "ok", "ok": True},
                {"step": "(go c)", "command": "go c", "observation": "no", "ok": False},
            ],
        ),
    ]
    html = page(tmp_path, an_episode(rounds))
    assert "<summary>round 0 · simulation_error · check failed (planner)</summary>" in html
    assert '<pre class="answers">the door is closed</pre>' in html
    assert '<span class="failed">planner: no plan</span>' in html
    assert "<summary>round 1 · start · plan of 1 steps · 2 played · 1 refused</summary>" in html
    assert "<p>check: passed</p>" in html and '<ol class="plan"><li>(go b)</li></ol>' in html
    assert html.count('<tr class="step">') == 1 and html.count('<tr class="step failed">') == 1


def test_the_round_shows_the_readers_warnings_and_why_each_command(tmp_path):
    warning = {
        "stage": "domain",
        "line": 3,
        "col": 11,
        "message": "type 'room' is listed among its own subtypes; read as a type of its own",
    }
    steps = [
        {
            "step": "(go a b)",
            "command": "go b",
            "why": "go b: destination ?to",
            "observation": "ok",
            "ok": True,
        }
    ]
    html = page(tmp_path, an_episode([a_round(0, warnings=[warning], steps=steps)]))
    assert (
        '<p>1 dialect warning(s):</p><ul class="warnings"><li>domain line 3, col 11: '
        "type &#x27;room&#x27; is listed among its own subtypes"
    ) in html
    assert '<td title="go b: destination ?to">go b</td>' in html


def test_a_step_without_an_answer_shows_none(tmp_path):
    """A step the game never answered (a record cut short) is shown without an outcome."""
    rounds = [
        a_round(
            0, steps=[{"step": "(go b)", "command": "go b", "observation": "you went", "ok": True}]
        ),
        a_round(1, steps=[{"step": "(go a)", "command": "go a"}]),
    ]
    html = page(tmp_path, an_episode(rounds))
    steps = re.findall(r'<tr class="step">(.*?)</tr>', html)
    assert steps == [
        "<td>(go b)</td><td>go b</td><td>ok</td><td><pre>you went</pre></td>",
        "<td>(go a)</td><td>go a</td><td>-</td><td><pre></pre></td>",
    ]


def test_the_transcript_pairs_each_action_with_its_observation_across_a_restart(tmp_path):
    record = an_episode(
        None,
        actions=["go b", "go c"],
        observations=["start here", "you went to b", "start here", "you went to c"],
        errors=[None, None],
        restarted_after=[1],
    )
    transcript = page(tmp_path, record).split('class="transcript"')[1]
    assert "(2 actions)" in transcript
    assert re.findall(r"<li[^>]*>(?:<b>(.*?)</b>)?<pre>(.*?)</pre>", transcript) == [
        ("", "start here"),
        ("&gt; go b", "you went to b"),
        ("restart", "start here"),
        ("&gt; go c", "you went to c"),
    ]


def test_the_true_problem_beside_the_models(tmp_path):
    html = page(tmp_path, an_episode([a_round(0, truth=PF_B)]))
    model, truth = html.split('<div class="beside">')[1].split("the true PF")
    assert '<span class="only">    (at a))</span>' in model
    assert '<span class="only">    (at b))</span>' in truth
    assert '<span class="">  (:objects a b)</span>' in truth
    assert 'class="beside"' not in page(tmp_path, an_episode([a_round(0)]))


def test_the_summary_and_records_without_rounds(tmp_path):
    plangen = an_episode(
        None,
        policy="plangen",
        won=True,
        actions=["go b", "fly"],
        observations=["start here", "you went", "you cannot fly"],
        errors=[None, {"kind": "unknown"}],
        key="k/1/0",
        instance=1,
    )
    html = page(tmp_path, an_episode([a_round(0), a_round(1)]), plangen)
    header = re.search(r"<thead>(.*?)</thead>", html)[1]
    assert re.findall(r"<th>(.*?)</th>", header) == [
        "episode",
        "env",
        "model",
        "instance",
        "trial",
        "policy",
        "prompt",
        "won",
        "steps",
        "rounds",
        "stop",
        "solver errors met / fixed",
        "simulation errors met / fixed",
    ]
    rows = re.findall(r"<tr data-outcome=.*?</tr>", html)
    assert [re.findall(r"<td[^>]*>(.*?)</td>", row)[7:] for row in rows] == [
        ["lost", "1", "2", "", "1 / 1", "2 / 0"],
        ["won", "2", "-", "", "-", "-"],
    ]
    episode = html.split('id="ep-1"')[1]
    assert 'class="round"' not in episode and '<details class="transcript" open>' in episode
    assert '<li class="action failed"><b>&gt; fly</b> (refused)<pre>you cannot fly</pre>' in episode
    assert "<li><pre>start here</pre></li>" in episode


# -- real runs, in the browser ------------------------------------------------------------


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[Path, list[dict]]:
    """Two CoinCollector episodes of the ground-truth formalizer, then one of a model
    whose hostile reply claims that a closed door is open (two simulation errors), all
    in one ``--out``: its report and records."""
    out = tmp_path_factory.mktemp("pddlego")
    pddlego = load_experiment("pddlego")
    common = ["-o", "num_locations=5", "--out", str(out)]
    assert pddlego.main(["--llm", "groundtruth", "--instances", "0:2", *common]) == 0
    first = records_in(out)[0]["details"]["rounds"][0]
    behind = re.search(r"\(blocked \S+ (\S+)\)", first["pf"])[1]  # a closed door
    lie = "\n".join(
        line
        for line in first["pf"].splitlines()
        if "(blocked " not in line and "(closed " not in line
    )
    lie = re.sub(r"\(:goal .*", f"(:goal (player-at {behind})))", lie, flags=re.DOTALL)
    reply = f"{HOSTILE}\n```pddl\n{first['df']}\n```\n```pddl\n{lie}\n```"
    assert (
        pddlego.main(
            ["--instances", "0", "--retries", "1", *common],
            model=ScriptedModel(lambda messages: reply, name="liar"),
        )
        == 0
    )
    return out / "report.html", records_in(out)


def records_in(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]


def test_model_runs_record_the_true_problem(run):
    _, records = run
    truths = [[r["truth"] for r in record["details"]["rounds"]] for record in records]
    assert all(truth is None for truth in truths[0] + truths[1])  # groundtruth is the truth
    liar = records[2]["details"]["rounds"]
    assert [r["trigger"] for r in liar] == ["start", "simulation_error"]
    assert all("(closed " in r["truth"] and "(closed " not in r["pf"] for r in liar)


DOM = """(() => {
  const episodes = [...document.querySelectorAll("section.episode")];
  return {
    episodes: episodes.map(e => e.querySelectorAll("details.round").length),
    rows: document.querySelectorAll("table.summary tbody tr").length,
    refused: episodes.map(e => e.querySelectorAll("tr.step.failed").length),
    unanswered: [...document.querySelectorAll("tr.step")].filter(
      row => row.cells[2].textContent === "-").length,
    replies: [...document.querySelectorAll("details.reply pre")].map(p => p.textContent),
    elements: document.querySelectorAll(
      "script, iframe, link, object, img:not(figure > img)").length,
    plots: [...document.querySelectorAll("figure > img")].map(i => i.naturalWidth > 0),
  };
})()"""


def test_the_report_renders_in_chromium(run, chromium):
    path, records = run
    chromium.open(path.as_uri())
    dom = chromium.evaluate(DOM)
    assert dom["rows"] == len(records) == 3
    assert dom["episodes"] == [len(r["details"]["rounds"]) for r in records]
    assert dom["refused"] == [0, 0, 2] and dom["unanswered"] == 0
    assert dom["replies"] == [r["reply"] for r in records[2]["details"]["rounds"]]
    assert all(reply.startswith(HOSTILE) for reply in dom["replies"])
    assert dom["elements"] == 1  # the report's own script; nothing injected
    plotted = importlib.util.find_spec("matplotlib") is not None
    assert dom["plots"] == ([True] if plotted else [])  # embedded, drawn offline
    opened = "[...document.querySelectorAll('details')].map(d => d.open)"
    chromium.evaluate("document.getElementById('expand').click()")
    assert all(chromium.evaluate(opened))
    chromium.evaluate("document.getElementById('collapse').click()")
    assert not any(chromium.evaluate(opened))
    chromium.evaluate(
        "const show = document.getElementById('show'); show.value = 'won';"
        "show.dispatchEvent(new Event('change'))"
    )
    assert chromium.evaluate(
        "[...document.querySelectorAll('section.episode')].map(e => e.hidden)"
    ) == [False, False, True]
    assert chromium.errors == [] and chromium.dialogs == []
    assert [r for r in chromium.requests if not r.startswith("data:image/png;base64,")] == [
        path.as_uri()
    ]  # nothing but the page itself and its embedded plot


def test_the_report_embeds_its_plots_with_their_captions(tmp_path):
    """Offline: the PNG is in the page as data, under a policy that allows only that."""
    png = tmp_path / "success.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n fake image bytes")
    path = write_report(
        [an_episode(None)],
        tmp_path / "r.html",
        "t",
        plots=[(png, "Success by house size <b>"), (tmp_path / "none.png", "x")],
    )
    html = path.read_text()
    assert html.count("<figure>") == 1  # the missing PNG is left out
    assert 'src="data:image/png;base64,iVBORw0KGgogZmFrZSBpbWFnZSBieXRlcw=="' in html
    assert "<figcaption>Success by house size &lt;b&gt;</figcaption>" in html
    assert "img-src data:;" in html and "default-src 'none'" in html
