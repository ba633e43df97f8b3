"""planloop.study.flags: the shared flags, their defaults and their errors."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from planloop import cli
from planloop.study import parse_option, study_parser

ROOT = Path(__file__).parents[2]


def parse(*argv, **options):
    options = {"env": "Mystery-BW-v0", "out": "results/x", **options}
    return study_parser("A study.", **options).parse_args(list(argv))


def test_defaults():
    args = parse()
    assert (
        args.env,
        args.option,
        args.instances,
        args.trials,
        args.llm,
        args.workers,
        args.out,
    ) == ("Mystery-BW-v0", [], None, 1, None, 1, Path("results/x"))
    args = parse(instances="0:100", trials=5)
    assert args.instances == range(100) and args.trials == 5


def test_every_shared_flag():
    args = parse(
        "--env",
        "CoinCollector-v0",
        "-o",
        "num_locations=7",
        "-o",
        "include_doors=false",
        "-o",
        "layout=/a b/c.json",
        "--option",
        "sizes=[1, 2]",
        "--instances",
        "3:5",
        "--trials",
        "4",
        "--llm",
        "openai:m",
        "--workers",
        "8",
        "--out",
        "elsewhere",
    )
    assert args.env == "CoinCollector-v0"
    assert dict(args.option) == {
        "num_locations": 7,
        "include_doors": False,
        "layout": "/a b/c.json",
        "sizes": [1, 2],
    }
    assert (args.instances, args.trials, args.llm, args.workers, args.out) == (
        range(3, 5),
        4,
        "openai:m",
        8,
        Path("elsewhere"),
    )
    assert parse("--instances", "7").instances == range(7, 8)


@pytest.mark.parametrize(
    "flag, value, message",
    [
        ("--instances", "5:2", "instances are A:B with 0 <= A < B"),
        ("--instances", "3:3", "instances are A:B with 0 <= A < B"),
        ("--instances", "x", "not 'x'"),
        ("--instances", "-1", "not '-1'"),
        ("--instances", "1:y", "not '1:y'"),
        ("--trials", "0", "expected an integer of at least 1, not '0'"),
        ("--trials", "two", "expected an integer of at least 1, not 'two'"),
        ("--workers", "0", "expected an integer of at least 1, not '0'"),
        ("--workers", "1025", "at most 1024 workers (planloop.study.flags.MAX_WORKERS)"),
        ("--instances", "0:100001", "more than a run's 100,000 episodes"),
        ("--trials", "100001", "more than a run's 100,000 episodes"),
        ("--trials", "1" * 5000, "not '11111"),  # past int()'s digits: refused, not raised
        ("-o", "oops", "an option is KEY=VALUE, not 'oops'"),
        ("-o", "1x=2", "an option is KEY=VALUE, not '1x=2'"),
    ],
)
def test_bad_values_are_argparse_errors(capsys, flag, value, message):
    with pytest.raises(SystemExit) as stop:
        parse(flag, value)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert f"error: argument {'-o/--option' if flag == '-o' else flag}: " in err
    assert message in err
    assert "Traceback" not in err


def test_llm_flag_required_optional_or_absent(capsys):
    assert "(required)" in study_parser("", env="e", out="o").format_help()
    assert "(optional)" in study_parser("", env="e", out="o", llm_required=False).format_help()
    with pytest.raises(SystemExit):
        parse("--llm", "openai:m", llm_required=None)
    assert "unrecognized arguments: --llm" in capsys.readouterr().err


def test_scripts_add_their_own_flags():
    parser = study_parser("", env="e", out="o")
    parser.add_argument("--horizons", default="1")
    assert parser.parse_args(["--horizons", "5", "--trials", "2"]).horizons == "5"


def test_the_cli_reads_options_with_the_same_function():
    assert cli.parse_option is parse_option
    play = cli.build_parser().parse_args(["play", "CoinCollector-v0", "-o", "num_locations=2"])
    assert play.option == [("num_locations", 2)]


def test_run_options_carry_the_shared_flags_to_run_study(tmp_path):
    from planloop.study import run_options, study_parser

    with_model = study_parser(None, env="Baking-v0", out="x").parse_args(
        ["--out", str(tmp_path), "--workers", "3", "--max-unreachable", "5"]
    )
    assert run_options(with_model) == {
        "out": tmp_path,
        "workers": 3,
        "backend": "local",
        "max_failed_in_a_row": 5,
    }
    without = study_parser(None, env="Baking-v0", out="x", llm_required=None).parse_args([])
    assert "max_failed_in_a_row" not in run_options(without)


def paper_flags(protocol, temperature=None):
    """PaperFlags of ``protocol``'s requests, its settings those given here."""
    import dataclasses

    from planloop.study import PaperFlags

    parser = study_parser(None, env="E-v0", out="o")
    protocol = dataclasses.replace(
        protocol,
        settings={
            k: v for k, v in protocol.settings.items() if k in ("retries", "trials", "retires")
        },
    )
    flags = PaperFlags(parser, protocol, temperature=temperature)
    flags.add("--retries", type=int, default=5)
    return parser, flags


def test_request_flags_set_outside_paper_are_recorded_and_always_sent():
    from planloop.protocols.pddlego_plus import PDDLEGO_PLUS

    parser, flags = paper_flags(PDDLEGO_PLUS)
    argv = ["--llm", "openai:o3-mini", "--top-p", "0.5", "--reasoning-effort", "low"]
    args = parser.parse_args(argv)
    settings = flags.resolve(args)
    assert settings.request.set == {"top_p": 0.5, "reasoning_effort": "low"}
    assert settings.request.defaults == {"temperature": 0.0}  # planloop's
    assert settings.recorded() == {"request": {"top_p": 0.5, "reasoning_effort": "low"}}
    assert (args.top_p, args.temperature, args.seed) == (0.5, None, None)


def test_no_request_flag_keeps_the_settings_of_earlier_runs():
    from planloop.protocols.mystery import MYSTERY

    parser, flags = paper_flags(MYSTERY, temperature=0.2)
    args = parser.parse_args(["--llm", "x", "--temperature", "0.5"])
    settings = flags.resolve(args)
    assert args.temperature == 0.5 and settings.request.set == {"temperature": 0.5}
    assert settings.recorded() == {}  # the script records its temperature itself


@pytest.mark.parametrize(
    "model, defaults",
    [
        ("openai:o4-mini-2025-04-16", {"reasoning_effort": "high"}),
        ("http://h/v1@gpt-4o", {"top_p": 1, "frequency_penalty": 0, "presence_penalty": 0}),
    ],
)
def test_paper_sends_the_protocols_request_for_the_model(model, defaults):
    from planloop.protocols.pddlego_plus import PDDLEGO_PLUS

    parser, flags = paper_flags(PDDLEGO_PLUS)
    args = parser.parse_args(["--llm", model, "--paper"])
    settings = flags.resolve(args)
    assert settings.request.defaults == defaults and settings.request.set == {}
    assert settings.overrides == {} and args.temperature is None


def test_a_request_flag_beside_paper_is_an_override_in_the_caption():
    from planloop.protocols.mystery import MYSTERY

    parser, flags = paper_flags(MYSTERY, temperature=0.0)
    args = parser.parse_args(["--llm", "openai:gpt-4", "--paper", "--temperature", "0.3"])
    settings = flags.resolve(args)
    assert args.temperature == 0.3 and settings.overrides == {"temperature": 0.3}
    assert MYSTERY.caption(settings.overrides).endswith("overridden: temperature=0.3")
    args = parser.parse_args(["--llm", "openai:gpt-4", "--paper"])
    assert flags.resolve(args).overrides == {} and args.temperature == 0.2  # the protocol's


def test_a_protocol_setting_no_flag_takes_is_refused():
    from planloop.protocols import Protocol

    parser, flags = paper_flags(Protocol("p", "P", settings={"retires": 3}))
    with pytest.raises(ValueError, match="retires"):
        flags.resolve(parser.parse_args(["--llm", "x"]))


def test_a_protocol_setting_of_a_shared_flag_is_taken_by_paper():
    from planloop.protocols import Protocol

    parser, flags = paper_flags(Protocol("p", "P", settings={"trials": 5}))
    args = parser.parse_args(["--llm", "x", "--paper"])
    assert flags.resolve(args).values["trials"] == 5 and args.trials == 5
    args = parser.parse_args(["--llm", "x"])
    flags.resolve(args)
    assert args.trials == 1


@pytest.mark.parametrize(
    "flag, value", [("--top-p", "1.5"), ("--presence-penalty", "3"), ("--seed", "x")]
)
def test_bad_request_values_are_argparse_errors(capsys, flag, value):
    parser = study_parser(None, env="E-v0", out="o")
    with pytest.raises(SystemExit):
        parser.parse_args(["--llm", "x", flag, value])
    assert flag in capsys.readouterr().err


def test_conditions_keep_the_order_given_or_the_study_s_own():
    import argparse

    from planloop.study.flags import add_conditions

    for given_order, expected in ((True, ["c", "a"]), (False, ["a", "c"])):
        parser = argparse.ArgumentParser()
        add_conditions(parser, ("a", "b", "c"), given_order=given_order)
        assert parser.parse_args(["--conditions", "c, a,c"]).conditions == expected
        assert parser.parse_args([]).conditions == ["a", "b", "c"]
        with pytest.raises(SystemExit):
            parser.parse_args(["--conditions", "a,z"])


# -- every study script, as a command: a bad value is a usage error before any work ----
SCRIPTS_AND_BAD_VALUES = [
    ("formalize.py", ["--llm", "groundtruth", "--sizes", "5"], "logistics (8 objects)"),
    ("formalize.py", ["--llm", "groundtruth", "--sizes", "1001"], "MAX_SIZE"),
    ("formalize.py", ["--llm", "groundtruth", "--per-cell", "1000000000"], "MAX_EPISODES"),
    ("formalize.py", ["--llm", "groundtruth", "--domain", "d.pddl"], "go together"),
    ("formalize.py", ["--llm", "scripted-defects", "--defects", "x"], "unknown defect x"),
    ("mystery.py", ["--conditions", "planner", "--trials", "100001"], "MAX_EPISODES"),
    ("horizon_sweep.py", ["--llm", "openai:m", "--workers", "4096"], "MAX_WORKERS"),
    ("agentic.py", ["--llm", "openai:m", "--seconds", "-1"], "--seconds"),
    ("pddlego.py", ["--llm", "groundtruth", "--instances", "0:100000000"], "MAX_EPISODES"),
    ("planner_baseline.py", ["--timeout", "nan"], "--timeout"),
    ("reproduce.py", ["nl-pddl", "--llm", "groundtruth", "--", "--sizes", "5"], "logistics"),
    ("reproduce.py", ["nl-pddl", "--llm", "groundtruth", "--limit", "100001"], "--limit"),
]


@pytest.mark.parametrize("script, argv, named", SCRIPTS_AND_BAD_VALUES)
def test_a_bad_flag_value_is_one_usage_line_before_any_work(tmp_path, script, argv, named):
    """Run as a command: exit 2, a usage line and the error naming the flag or limit, no
    traceback, no file written (``--out`` is not even made)."""
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=str(tmp_path), TMPDIR=str(tmp_path))
    run = subprocess.run(
        [sys.executable, str(ROOT / "experiments" / script), *argv, "--out", str(out)]
        if script != "reproduce.py" or "--" not in argv
        else [sys.executable, str(ROOT / "experiments" / script), "--out", str(out), *argv],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env,
    )
    lines = run.stderr.splitlines()
    assert run.returncode == 2, run.stderr[-2000:]
    assert len(lines) == 2 and lines[0].startswith("usage: "), run.stderr[-2000:]
    assert ": error: " in lines[1] and named in lines[1]
    assert list(tmp_path.iterdir()) == []  # no --out, nor any other file


def test_a_config_refuses_settings_that_cannot_go_together():
    from planloop.protocols.nl_pddl.config import FormalizeConfig

    with pytest.raises(ValueError, match="--sizes 3 is below the smallest problem of gripper"):
        FormalizeConfig(domains="ferry,gripper", sizes="3,20").check()
    FormalizeConfig(domains="ferry", sizes="3").check()  # ferry's problems start at 3
    with pytest.raises(ValueError, match="logistics"):  # a protocol is checked at import
        FormalizeConfig.protocol(sizes="5")
    with pytest.raises(ValueError, match="per_cell"):  # its values through their flag's type
        FormalizeConfig.protocol(per_cell=0)


def test_a_run_schedules_at_most_max_episodes():
    from planloop.study import Study, StudyError
    from planloop.study.jobs import MAX_EPISODES

    study = Study("s", None)
    assert len(study.jobs([{}], range(MAX_EPISODES), 1)) == MAX_EPISODES
    with pytest.raises(StudyError, match="200,000 episodes, more than a run's 100,000"):
        study.jobs([{"a": 1}, {"a": 2}], range(MAX_EPISODES), 1)
