"""planloop.study.flags: the shared flags, their defaults and their errors."""

from pathlib import Path

import pytest

from planloop import cli
from planloop.study import parse_option, study_parser


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
