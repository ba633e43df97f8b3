"""experiments/pddlego.py --prompt-file: the file's text is sent with the episode's state
filled in, the prompt is recorded and captioned, runs with different prompts never
share a key or a row, and a bad template is one line (exit 2) before any episode."""

import hashlib
import json

import gymnasium as gym
import pytest

import planloop  # noqa: F401  (registers the environments)
from planloop.formalizer.templates import MAX_BYTES
from planloop.llm import ScriptedModel

from conftest import load_experiment

TEMPLATE = """Answer {"df": "...", "pf": "..."} for: {task}
Seen so far:
{observation}
{if df}Your domain file: {df}
Your problem file: {pf}
{end}{if solver_error}Fix this: {error}
{end}Commands: {valid_commands}"""
BROKEN = json.dumps({"df": "(define (domain", "pf": "(define (problem p))"})


def run(tmp_path, *flags, reply=BROKEN, instances="0"):
    """(exit status, the model, the records) of one study run into ``tmp_path/out``."""
    model = ScriptedModel(lambda messages: reply)
    study = load_experiment("pddlego")
    args = ["-o", "num_locations=3", "--instances", instances, "--llm", "x", *flags]
    status = study.main([*args, "--out", str(tmp_path / "out")], model=model, show=False)
    path = tmp_path / "out" / "episodes.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    return status, model, records


def template_file(tmp_path, text=TEMPLATE, name="mine.txt"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path, f"file:{name}@sha256:{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def test_the_file_is_sent_with_the_observation_filled_in(tmp_path):
    path, version = template_file(tmp_path)
    status, model, records = run(tmp_path, "--prompt-file", str(path))
    assert status == 0 and model.calls == 6  # files that never solve: 1 + 5 retries
    env = gym.make("CoinCollector-v0", num_locations=3)
    obs, info = env.reset(options={"instance": 0})
    first, retry = (messages[0]["content"] for messages in model.prompts[:2])
    assert model.prompts[0] == [{"role": "user", "content": first}]  # no system message
    assert first == (
        f'Answer {{"df": "...", "pf": "..."}} for: {info["task"]}\nSeen so far:\n{obs}\n'
        f"Commands: {', '.join(info['admissible_actions'])}"
    )
    assert "Your domain file: (define (domain\nYour problem file: (define (problem p))" in retry
    assert "Fix this: syntax: domain error: line 1" in retry
    (record,) = records
    assert record["prompt"] == "file" and record["prompt_version"] == version
    assert record["provenance"]["settings"]["prompt_file"] == version
    table = (tmp_path / "out" / "results.md").read_text()
    assert f"pddlego, prompt {version}" in table and f"\n\nPrompt: {version}\n" in table


def test_runs_with_different_prompts_never_share_a_key_or_a_row(tmp_path):
    mine, version = template_file(tmp_path)
    other, other_version = template_file(tmp_path, TEMPLATE + "\nBe brief.", "other.txt")
    for flags in ([], ["--prompt-file", str(mine)], ["--prompt-file", str(other)]):
        assert run(tmp_path, *flags)[0] == 0
    records = run(tmp_path)[2]  # a rerun without the flag resumes: nothing new
    assert len(records) == 3 and len({r["key"].split("/")[0] for r in records}) == 3
    plain = records[0]
    assert plain["prompt"] == "detailed" and "prompt_file" not in plain["provenance"]["settings"]
    results = (tmp_path / "out" / "results.md").read_text()
    main_table = results.split("### The formalizations")[0]
    rows = [line for line in main_table.splitlines() if line.startswith("| CoinCollector")]
    assert len(rows) == 3
    for label in ("pddlego, detailed prompt", f"prompt {version}", f"prompt {other_version}"):
        assert sum(label in row for row in rows) == 1
    assert f"Prompts: planloop's pddlego/coin/detailed/v1; {version}; {other_version}" in results


def test_the_paper_table_names_the_prompt(tmp_path):
    path, version = template_file(tmp_path)
    paper = ["--paper", "--coin-games", "generated"]  # the generated houses: no java needed
    assert run(tmp_path, *paper, "--prompt-file", str(path))[0] == 0
    study = load_experiment("pddlego")
    records = [
        json.loads(line) for line in (tmp_path / "out" / "episodes.jsonl").read_text().splitlines()
    ]
    assert f"\n\nPrompt: {version}\n\n|" in study.paper_tables(records)["success"]


@pytest.mark.parametrize(
    "content, message",
    [
        ("{observation} {obsevation}", "line 1: unknown field {obsevation}"),
        ("{task} and nothing seen", "no {observation} field"),
        ("{observation}\n{if df}\nDF {df}", "line 2: {if} without its {end}"),
        ("{observation}{end}", "{end} closes no {if}"),
        ("{observation}{if visited}x{end}", "{if visited} tests no field or trigger"),
        ("{observation}" + "x" * MAX_BYTES, f"larger than the limit of {MAX_BYTES} bytes"),
        (b"{observation} \xff", "not UTF-8 (byte 14)"),
    ],
)
def test_a_bad_template_is_one_line_before_any_episode(tmp_path, capsys, content, message):
    path = tmp_path / "bad.txt"
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    status, model, records = run(tmp_path, "--prompt-file", str(path))
    err = capsys.readouterr().err
    assert status == 2 and model.calls == 0 and records == []
    assert err.startswith("pddlego.py: error: prompt template ") and err.count("\n") == 1
    assert message in err


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--prompt-file", "nowhere.txt"], "prompt template nowhere.txt: no such file"),
        (["--prompt-file", "{dir}"], "no such file"),
        (["--prompt-file", "{file}", "--prompt", "simple"], "--prompt and --prompt-file exclude"),
        (["--prompt-file", "{file}", "--policy", "plangen"], "give --paper (or --simulation"),
    ],
)
def test_a_prompt_file_that_cannot_be_used_is_one_line(tmp_path, capsys, flags, message):
    path, _ = template_file(tmp_path)
    flags = [f.format(dir=tmp_path, file=path) for f in flags]
    status, model, records = run(tmp_path, *flags)
    err = capsys.readouterr().err
    assert status == 2 and model.calls == 0 and records == [] and err.count("\n") == 1
    assert message in err


def test_the_ground_truth_formalizer_takes_no_prompt_file(tmp_path, capsys):
    path, _ = template_file(tmp_path)
    study = load_experiment("pddlego")
    args = ["--llm", "groundtruth", "--prompt-file", str(path), "--out", str(tmp_path)]
    assert study.main(args, show=False) == 2
    assert "a model's prompt: give a model" in capsys.readouterr().err


PLANGEN = """Seen: {latest}
{if error}Refused: {error}
{end}Commands: {commands}
Answer {"actions": ["action1"]}"""


def test_plangen_as_its_authors_ran_it_sends_the_file(tmp_path):
    path, version = template_file(tmp_path, PLANGEN, "plangen.txt")
    paper = ["--paper", "--coin-games", "generated", "--policy", "plangen"]
    reply = json.dumps({"actions": ["move up"]})
    status, model, records = run(tmp_path, *paper, "--prompt-file", str(path), reply=reply)
    assert status == 0 and model.calls == 5  # a command refused on every try
    obs, _ = gym.make("CoinCollector-v0", num_locations=3).reset(options={"instance": 0})
    first, retry = (messages for messages in model.prompts[:2])
    assert first == [{"role": "user", "content": first[0]["content"]}]  # no system message
    seen, commands = first[0]["content"].split("\nCommands: ")
    assert seen == f"Seen: {obs}" and commands.endswith('\nAnswer {"actions": ["action1"]}')
    assert "move" in commands and "look around" not in commands
    assert retry[0]["content"].startswith("Seen: > move up\n")
    assert "\nRefused: You took the action 'move up' and it failed." in retry[0]["content"]
    (record,) = records
    assert record["prompt_version"] == version
    assert record["provenance"]["settings"]["prompt_file"] == version
    table = (tmp_path / "out" / "results.md").read_text()
    assert f"Prompt: {version} (PlanGen)" in table


@pytest.mark.parametrize(
    "content, message",
    [
        ("{latest} {observation}", "line 1: unknown field {observation} (fields: task, memory"),
        ("{memory} only", "no {latest} field"),
        ("{latest}{if solver_error}x{end}", "{if solver_error} tests no field or trigger"),
    ],
)
def test_a_bad_plangen_template_is_one_line(tmp_path, capsys, content, message):
    path, _ = template_file(tmp_path, content)
    paper = ["--paper", "--coin-games", "generated", "--policy", "plangen"]
    status, model, records = run(tmp_path, *paper, "--prompt-file", str(path))
    err = capsys.readouterr().err
    assert status == 2 and model.calls == 0 and records == [] and err.count("\n") == 1
    assert message in err
