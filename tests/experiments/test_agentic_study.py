"""experiments/agentic.py: the agentic step-wise paper's four approaches on the shipped
IPC-2000 Blocksworld files, Table II's rows and columns beside the paper's figures,
every scheduled instance in n (model errors too), with a scripted model that knows each
instance's plan."""

import importlib.util
import json

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.llm import LLMError, ScriptedModel, ToolCall
from planloop.pddl import solve

from conftest import IPC, load_experiment

HEADER = "| Approach | n | Solved | Timeout | Early exit | success [95% Wilson] | model errors |"


@pytest.fixture(scope="module")
def plans():
    """Problem name -> a plan, for the first three shipped instances."""
    env, found = (
        gym.make("PDDL-v0", domain=str(IPC / "domain.pddl"), problem=str(IPC / "instances")),
        {},
    )
    for instance in range(3):
        _, info = env.reset(options={"instance": instance})
        result = solve(info["domain_pddl"], info["problem_pddl"], planner="bfs", timeout=30)
        found[f"BLOCKS-4-{instance}"] = "\n".join(result.plan)
    return found


def scripted(plans):
    """Solves BLOCKS-4-0; fails every call on BLOCKS-4-1; on BLOCKS-4-2 the direct
    baseline answers the plan and the agentic model gives up as unsolvable."""

    def answer(messages):
        name = next(n for n in plans if n.lower() in messages[1]["content"].lower())
        agentic = "calling tools" in messages[0]["content"]
        if name == "BLOCKS-4-1":
            raise LLMError("server", "503 after retries")
        if agentic and name == "BLOCKS-4-2":
            return "No tower can be built: UNSOLVABLE."
        if agentic:
            return ToolCall("v", "validate_plan", json.dumps({"plan": plans[name]}))
        return plans[name]

    return ScriptedModel(answer)


def records_of(out):
    return [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]


def row(text, name):
    return next(line for line in text.splitlines() if line.startswith(f"| {name} |"))


def test_paper_table_ii_counts_every_instance_and_its_model_errors(tmp_path, plans, capsys):
    study = load_experiment("agentic")
    out = tmp_path / "paper"
    assert (
        study.main(["--paper", "--instances", "0:3", "--out", str(out)], model=scripted(plans)) == 0
    )
    text = (out / "results.md").read_text()
    printed = capsys.readouterr().out  # Table II once, the cost only in the file
    assert printed.startswith(text.split("\n\n### Cost")[0] + "\n\nevery table: ")
    assert "### Cost" in text and "### Cost" not in printed
    assert HEADER in text
    assert "### Table II: success and failure modes\n\nthis run: " in text
    assert "; paper: Claude Haiku 4.5 (the LLM approaches)\n" in text
    if importlib.util.find_spec("matplotlib"):  # the plot extra
        assert (out / "success.png").stat().st_size > 0
    assert row(text, "lama-first") == (
        "| lama-first | 3 | 3 (100.0%) (paper: 87 (85.3%)) | "
        "0 (paper: 15) | 0 (paper: 0) | 3/3 [44%, 100%] | 0 |"
    )
    assert row(text, "seq-sat-lama-2011").startswith("| seq-sat-lama-2011 | 3 | 3 (100.0%) ")
    assert row(text, "Direct LLM") == (
        "| Direct LLM | 3 | 2 (66.7%) (paper: 65 (63.7%)) | "
        "0 (paper: 37) | 0 (paper: 0) | 2/3 [21%, 94%] | 1 |"
    )
    assert row(text, "Agentic LLM") == (
        "| Agentic LLM | 3 | 1 (33.3%) (paper: 68 (66.7%)) | "
        "0 (paper: 28) | 1 (paper: 6) | 1/3 [6%, 79%] | 1 |"
    )
    assert "Protocol: Agentic LLM Planning via Step-Wise PDDL Simulation" in text
    assert "overridden" not in text
    records = records_of(out)
    assert len(records) == 12
    settings = records[0]["provenance"]["settings"]
    assert settings == {
        "seconds": 180.0,
        "temperature": 0.2,
        "max_attempts": None,
        "max_model_calls": None,
        "max_tool_calls": None,
        "feedback": "outcome",
        "protocol": "agentic",
        "overrides": {},
    }
    agentic = {r["instance"]: r for r in records if r["condition"] == "agentic"}
    assert [agentic[i]["stop"] for i in range(3)] == ["validated", "model_error", "unsolvable"]
    assert (
        agentic[0]["prompt_version"] == "agentic-v1+seconds=180+end_on_valid_plan+feedback=outcome"
    )


def test_a_budget_spent_before_any_reply_is_a_timeout(tmp_path, plans, capsys):
    study = load_experiment("agentic")
    out = tmp_path / "no-time"
    model = scripted(plans)
    assert (
        study.main(
            [
                "--paper",
                "--seconds",
                "0",
                "--conditions",
                "direct,agentic",
                "--instances",
                "0:2",
                "--out",
                str(out),
            ],
            model=model,
        )
        == 0
    )
    text = (out / "results.md").read_text()
    assert model.calls == 0
    assert "| Direct LLM | 2 | 0 (0.0%) (paper: 65 (63.7%)) | 2 (paper: 37) |" in text
    assert "| Agentic LLM | 2 | 0 (0.0%) (paper: 68 (66.7%)) | 2 (paper: 28) |" in text
    assert "lama-first" not in text.split("### Cost")[0].split("|---")[1]
    assert text.split("### Cost")[0].rstrip().endswith("under model errors.")
    assert "overridden: seconds=0.0" in text


def test_an_env_without_the_task_pddl_is_one_line(tmp_path, capsys):
    study = load_experiment("agentic")
    assert (
        study.main(
            ["--env", "CoinCollector-v0", "--conditions", "lama-first", "--out", str(tmp_path)]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "agentic.py: error: CoinCollector-v0 is not fully observable" in err
    assert "Traceback" not in err
