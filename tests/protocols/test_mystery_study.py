"""experiments/mystery.py: Fast Downward over PlanBench's own files, the direct and
pipeline conditions end to end with scripted models (tables worked by hand), resuming
without a model call, and a server answering nonsense."""

import importlib.util
import json
import threading
from collections import Counter
from types import SimpleNamespace

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.llm import ScriptedModel
from planloop.pddl import parse_command, render_action, solve, templates_for
from planloop.protocols.mystery import judge

from conftest import PLANBENCH, load_experiment

BW_FILES = str(PLANBENCH / "blocksworld" / "generated_basic")


def records_of(out):
    return [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_fast_downward_solves_every_planbench_mystery_file(tmp_path, capsys):
    study = load_experiment("mystery")
    # PlanBench's Blocksworld files under Mystery names, and PlanBench's Mystery files
    runs = [
        ["-o", f"instances={BW_FILES}"],
        [
            "--env",
            "PDDL-v0",
            "-o",
            f"domain={PLANBENCH / 'mystery' / 'generated_domain.pddl'}",
            "-o",
            f"problem={PLANBENCH / 'mystery' / 'generated_basic'}",
        ],
        [
            "--env",
            "PDDL-v0",
            "-o",
            f"domain={PLANBENCH / 'mystery' / 'generated_domain.pddl'}",
            "-o",
            f"problem={PLANBENCH / 'mystery' / 'generated_basic_3'}",
        ],
    ]
    for i, flags in enumerate(runs):
        out = tmp_path / str(i)
        assert (
            study.main([*flags, "--conditions", "planner", "--workers", "4", "--out", str(out)])
            == 0
        )
        n = 10 if "generated_basic_3" in flags[-1] else 20
        records = records_of(out)
        assert len(records) == n and all(r["won"] and r["failure"] is None for r in records)
        assert all(r["plans"][0]["kind"] is None and r["attempts"] == 1 for r in records)
        assert f"| planner | {n}/{n} [" in capsys.readouterr().out


@pytest.fixture(scope="module")
def plans():
    """Optimal plans of instances 0-3 (PlanBench's instance-1 to -4), as commands."""
    env, found = gym.make("Mystery-BW-v0", instances=BW_FILES), []
    for instance in range(4):
        _, info = env.reset(options={"instance": instance})
        result = solve(info["domain_pddl"], info["problem_pddl"], planner="bfs", timeout=30)
        found.append((info["problem_pddl"], list(result.plan)))
    return found


def words(plan):
    return "\n".join(
        render_action(*parse_command(step), templates_for("mystery-4ops")) for step in plan
    )


def planbench_model(plans):
    """Answers PlanBench prompts by the task's goal line: instance 0 right; instance 1
    without its first step, then right; instance 2 nonsense; instance 3 without its last
    step, except one-shot, which answers it right."""
    goals = {}
    env = gym.make("Mystery-BW-v0", instances=BW_FILES)
    for instance, (_, plan) in enumerate(plans):
        _, info = env.reset(options={"instance": instance})
        goals[f"My goal is to have that {info['task']}."] = (instance, plan)
    asked, lock = Counter(), threading.Lock()

    def reply(messages):
        prompt = messages[-1]["content"]
        instance, plan = goals[prompt.rsplit("\n", 5)[1]]
        one_shot = "[PLAN END]\n\n[STATEMENT]" in prompt
        with lock:
            asked[instance, one_shot] += 1
            first = asked[instance, one_shot] == 1
        answer = {
            0: plan,
            1: plan[1:] if first else plan,
            2: None,
            3: plan if one_shot else plan[:-1],
        }[instance]
        return "I cannot see a plan." if answer is None else words(answer) + "\n[PLAN END]"

    return ScriptedModel(reply)


@pytest.mark.slow
def test_direct_conditions_end_to_end_then_resume_without_a_call(tmp_path, capsys, plans):
    study = load_experiment("mystery")
    args = [
        "-o",
        f"instances={BW_FILES}",
        "--instances",
        "0:4",
        "--attempts",
        "2",
        "--conditions",
        "direct-zero-shot,direct-one-shot",
        "--out",
        str(tmp_path),
    ]
    model = planbench_model(plans)
    assert study.main(args, model=model) == 0
    printed = capsys.readouterr().out  # the success table; every table in the file
    out = (tmp_path / "results.md").read_text()
    # zero-shot: won 0 (1 plan) and 1 (2 plans); 2 unreadable twice; 3 short of the goal
    # twice: 7 plans for 4 instances; one-shot wins 3 with 1 plan: 6 plans
    assert "| direct-zero-shot | 2/4 [15%, 85%] | 1.75 |" in out
    assert "| direct-one-shot | 3/4 [30%, 95%] | 1.50 |" in out
    # 3/4 vs 2/4: pooled 5/8, z = 0.25 / sqrt(5/8 * 3/8 * 2/4) = 0.730, p = 0.465,
    # h = 2 asin(sqrt .75) - 2 asin(sqrt .5) = 0.524
    assert "| direct-one-shot | direct-zero-shot | +25.0% | 0.73 | 0.465 | +0.52 |" in out
    assert "| direct-zero-shot | 1/4 [5%, 70%] | 2/4 [15%, 85%] |" in out  # K = 1, K = 2
    assert "| direct-one-shot | 2/4 [15%, 85%] | 3/4 [30%, 95%] |" in out
    # step 1 reached by every plan (the nonsense is one step naming no action), failed by
    # 1's short plan and the nonsense twice; one-shot has 3's plan once, not twice
    assert "| 1 | 3/7 (43%) | 3/6 (50%) |" in out
    assert "| direct-zero-shot | 2 | 0 | 1 | 1 | - |" in out  # 2 parse, 3 goal
    assert "| direct-one-shot | 1 | 0 | 0 | 1 | - |" in out
    records = {(r["condition"], r["instance"]): r for r in records_of(tmp_path)}
    assert len(records) == 8
    short = records["direct-zero-shot", 1]["plans"][0]
    assert short["kind"] == "precondition" and short["step"] == 1
    assert short["action"] == parse_command(plans[1][1][1])[0] and short["unmet"]
    won_on_resample = records["direct-zero-shot", 1]
    assert won_on_resample["won"] and won_on_resample["failure"] is None
    nonsense = records["direct-zero-shot", 2]
    assert nonsense["failure"] == "parse" and nonsense["failed_step"] == 1
    assert [p["kind"] for p in nonsense["plans"]] == ["parse", "parse"]
    assert records["direct-zero-shot", 3]["failure"] == "goal"
    assert records["direct-zero-shot", 3]["unmet"] == ["craves"]
    # the one failing step with an action: 1's short plan, whose first step needs pain
    assert "| direct-zero-shot | succumb | pain | +1.00 | 1 |" in out
    assert "| direct-zero-shot | 1: 3 | succumb: 1 | pain: 1 |" in out
    success = out.split("\n\n### Tests")[0]
    assert printed.startswith(success) and "### Tests" not in printed
    if importlib.util.find_spec("matplotlib"):
        for name in ("success", "retry", "hazard"):
            assert (tmp_path / f"{name}.png").read_bytes()[:4] == b"\x89PNG"
    calls = model.calls
    assert calls == 7 + 6  # a call per plan
    assert study.main(args, model=model) == 0
    assert model.calls == calls  # the rerun resumes: no model call
    assert len(records_of(tmp_path)) == 8


def test_pipeline_against_its_no_repair_ablation(tmp_path, plans):
    """Instance 0 answered right; instance 1 without its first step until a repair
    prompt asks again: the pipeline wins both (1 and 2 plans); without repair (fresh
    samples, no feedback) instance 1 fails all 3 plans."""
    study = load_experiment("mystery")
    by_problem = {problem: (instance, plan) for instance, (problem, plan) in enumerate(plans)}

    def reply(messages):
        instance, plan = next(v for k, v in by_problem.items() if k in messages[1]["content"])
        repaired = len(messages) > 2
        return "\n".join(plan if instance == 0 or repaired else plan[1:])

    args = [
        "-o",
        f"instances={BW_FILES}",
        "--instances",
        "0:2",
        "--attempts",
        "3",
        "--conditions",
        "pipeline,pipeline-no-repair",
        "--out",
        str(tmp_path),
    ]
    assert study.main(args, model=ScriptedModel(reply)) == 0
    out = (tmp_path / "results.md").read_text()
    assert "| pipeline | 2/2 [34%, 100%] | 1.50 |" in out
    assert "| pipeline-no-repair | 1/2 [9%, 91%] | 2.00 |" in out
    # 1/2 vs 2/2: pooled 3/4, z = -0.5 / sqrt(3/16 * 1) = -1.155, p = 0.248, h = -pi/2
    assert "| pipeline-no-repair | pipeline | -50.0% | -1.15 | 0.248 | -1.57 |" in out
    assert "| pipeline-no-repair | 1 | 1 | 0 | 0 | - |" in out
    records = {(r["condition"], r["instance"]): r for r in records_of(tmp_path)}
    failed = records["pipeline-no-repair", 1]
    assert failed["failure"] == "precondition" and failed["failed_step"] == 1
    assert [p["kind"] for p in failed["plans"]] == ["precondition"] * 3
    assert [p["kind"] for p in records["pipeline", 1]["plans"]] == ["precondition", None]
    assert "| 1 | 1/3 (33%) | 3/4 (75%) |" in out  # hazard: 3 and 4 plans reach step 1


@pytest.mark.slow
def test_a_server_answering_nonsense_ends_every_episode_with_its_failure_kind(
    tmp_path, monkeypatch
):
    pytest.importorskip("openai")
    from planloop.llm.fake_server import FakeChatServer

    monkeypatch.setenv("HOME", str(tmp_path))  # the model cache lives under ~
    study = load_experiment("mystery")
    conditions = "direct-zero-shot,direct-one-shot,pipeline,closed-loop,agentic"
    args = [
        "-o",
        f"instances={BW_FILES}",
        "--instances",
        "0:2",
        "--attempts",
        "2",
        "--conditions",
        conditions,
        "--out",
        str(tmp_path / "out"),
    ]
    with FakeChatServer([("ok", "OK")] + [("ok", "Blue ideas sleep furiously.")] * 60) as server:
        assert study.main([*args, "--llm", f"{server.url}@nonsense"]) == 0
    out = (tmp_path / "out" / "results.md").read_text()
    records = records_of(tmp_path / "out")
    assert len(records) == 10 and not any(r["error"] for r in records)
    assert all(
        not r["won"] and r["failure"] == "parse" and r["failure_kinds"] == ["parse"]
        for r in records
    )
    for condition in conditions.split(","):
        assert f"| {condition} | 2 | 0 | 0 | 2 | - |" in out
    agentic = [r for r in records if r["condition"] == "agentic"]
    assert {r["prompt_version"] for r in agentic} == {  # the agentic paper's settings
        "agentic-v1+seconds=180+end_on_valid_plan+feedback=outcome"
    }
    with FakeChatServer([]) as server:
        assert study.main([*args, "--llm", f"{server.url}@nonsense"]) == 0
    assert server.requests == []  # resumed: not even the model check
    assert len(records_of(tmp_path / "out")) == 10


def test_played_plans_split_at_restarts():
    episode = SimpleNamespace(
        actions=("(attack a)", "(feast b c)", "(attack b)"),
        observations=("start", "Done: attack", "Cannot feast", "start", "Done: attack"),
        details={},
    )
    assert judge.played_plans(episode) == [["(attack a)", "(feast b c)"], ["(attack b)"]]
    assert judge.attempted_plans(episode) == judge.played_plans(episode)
    sampled = SimpleNamespace(
        **{
            **vars(episode),
            "details": {
                "attempts": [{"plan": ["(attack a)"]}, {"translation": {"steps": ["(attack b)"]}}]
            },
        }
    )
    assert judge.attempted_plans(sampled) == [["(attack a)"], ["(attack b)"]]


def test_conditions_are_checked(capsys):
    study = load_experiment("mystery")
    with pytest.raises(SystemExit):
        study.main(["--conditions", "direct,planner"])
    assert "conditions are a comma list of" in capsys.readouterr().err
    assert study.main(["--conditions", "direct-zero-shot", "--instances", "0:1"]) == 2
    assert "--llm is required" in capsys.readouterr().err


def test_paper_gives_the_direct_conditions_one_generation(tmp_path, capsys, plans):
    """--paper: one call per instance in a direct condition, however the plan fares; an
    override beside it is recorded and captioned."""
    study = load_experiment("mystery")
    args = [
        "-o",
        f"instances={BW_FILES}",
        "--instances",
        "0:3",
        "--conditions",
        "direct-zero-shot",
        "--paper",
        "--out",
        str(tmp_path),
    ]
    model = planbench_model(plans)
    assert study.main(args, model=model) == 0
    assert model.calls == 3
    records = records_of(tmp_path)
    assert [r["attempts"] for r in records] == [1, 1, 1]
    assert records[0]["provenance"]["settings"]["protocol"] == "mystery"
    assert "Protocol: Symbol-agnostic closed-loop planning" in capsys.readouterr().out

    assert study.main(args + ["--direct-attempts", "2"], model=model) == 0
    assert "; overridden: direct_attempts=2" in (tmp_path / "results.md").read_text()


def test_a_model_that_always_fails_scores_zero_of_n_with_n_model_errors(tmp_path, capsys):
    from planloop.llm import LLMError

    study = load_experiment("mystery")
    model = ScriptedModel(lambda messages: LLMError("bad_response", "not a completion"))
    assert (
        study.main(
            [
                "-o",
                f"instances={BW_FILES}",
                "--instances",
                "0:3",
                "--conditions",
                "direct-zero-shot",
                "--out",
                str(tmp_path),
            ],
            model=model,
        )
        == 0
    )
    row = next(
        line
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("| direct-zero-shot | ")
    )
    assert row.startswith("| direct-zero-shot | 0/3 [0%, 56%] |") and row.endswith("| 3 |")
