"""The planloop command: exit codes and output."""

import subprocess
import sys
from pathlib import Path

import pytest

from planloop.cli import main

from conftest import PLANBENCH

DOMAIN = str(PLANBENCH / "blocksworld" / "generated_domain.pddl")
PROBLEM = str(PLANBENCH / "blocksworld" / "generated_basic" / "instance-3.pddl")


def test_envs_lists_registered_ids(capsys):
    assert main(["envs"]) == 0
    out = capsys.readouterr().out
    for env_id in ("PDDL-v0", "Blocksworld-v0", "Mystery-BW-v0", "MysteryRandom-BW-v0"):
        assert env_id in out


def test_solve_then_validate(tmp_path, capsys):
    assert main(["solve", DOMAIN, PROBLEM]) == 0
    plan = capsys.readouterr().out
    (tmp_path / "plan").write_text(plan)
    assert main(["validate", DOMAIN, PROBLEM, str(tmp_path / "plan")]) == 0
    assert "Plan valid" in capsys.readouterr().out
    (tmp_path / "bad").write_text("\n".join(plan.splitlines()[1:]))
    assert main(["validate", DOMAIN, PROBLEM, str(tmp_path / "bad")]) == 1
    assert "unsatisfied precondition at time 1" in capsys.readouterr().out


def test_solve_exit_codes(tmp_path):
    unsolvable = tmp_path / "u.pddl"
    unsolvable.write_text(
        "(define (problem u) (:domain blocksworld-4ops) (:objects a b) "
        "(:init (handempty) (ontable a) (ontable b) (clear a) (clear b)) "
        "(:goal (and (on a b) (on b a))))"
    )
    assert main(["solve", DOMAIN, str(unsolvable)]) == 1
    assert main(["solve", DOMAIN, str(tmp_path / "missing.pddl")]) == 2
    broken = tmp_path / "broken.pddl"
    broken.write_text("(define (problem u) (:domain blocksworld-4ops)")
    assert main(["solve", DOMAIN, str(broken)]) == 2
    from planloop.envs.blocksworld import generate_problem

    hard = tmp_path / "hard.pddl"
    hard.write_text(generate_problem(26, seed=3))
    assert main(["solve", DOMAIN, str(hard), "--planner", "bfs", "--timeout", "0.3"]) == 3


def test_solve_refuses_a_contradictory_init_naming_the_fact(tmp_path, capsys):
    """Fast Downward refuses a fact both listed and denied in ':init'; so does every reading."""
    problem = tmp_path / "p.pddl"
    problem.write_text(
        "(define (problem c) (:domain blocksworld-4ops) (:objects a)\n"
        "  (:init (handempty) (ontable a) (clear a) (not (clear a)))\n"
        "  (:goal (holding a)))"
    )
    for strict in ([], ["--strict"]):
        assert main(["solve", DOMAIN, str(problem), *strict]) == 2
        out = capsys.readouterr()
        assert "line 2, col 44: '(clear a)' is both true and false in ':init'" in out.err


def test_validate_bad_input_exit_code(tmp_path):
    assert main(["validate", DOMAIN, PROBLEM, str(tmp_path / "missing")]) == 2
    (tmp_path / "plan").write_text("(unstack b c\n")
    assert main(["validate", DOMAIN, PROBLEM, str(tmp_path / "plan")]) == 2


def test_play_reads_commands_from_a_person():
    out = subprocess.run(
        [sys.executable, "-m", "planloop", "play", "Mystery-BW-v0", "--seed", "0"],
        input="actions\n(fly)\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0
    assert "(attack a)" in out.stdout and "Unknown action 'fly'" in out.stdout


def test_play_alfworld_and_coin_collector_with_options():
    game = (
        Path(__file__).parent
        / "data"
        / "alfworld"
        / "games"
        / "pick_and_place_simple-Mug-CoffeeMachine-18"
        / "game.tw-pddl"
    )
    out = subprocess.run(
        [sys.executable, "-m", "planloop", "play", "ALFWorld-v0", "-o", f"game_file={game}"],
        input="actions\ngo to cabinet 2\nhelp\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "Your task is to: put some mug on coffeemachine." in out.stdout
    assert "You arrive at cabinet 2." in out.stdout
    assert "Available commands:" in out.stdout  # the game's own help
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "planloop",
            "play",
            "CoinCollector-v0",
            "--seed",
            "3",
            "-o",
            "num_locations=2",
            "-o",
            "include_doors=false",
        ],
        input="look around\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0 and out.stdout.count("You are in the") >= 2, out.stderr


def test_play_names_a_bad_environment_argument():
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "planloop",
            "play",
            "ALFWorld-v0",
            "-o",
            "game_file=/nowhere/game.tw-pddl",
        ],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and "no game file /nowhere/game.tw-pddl" in out.stderr
    out = subprocess.run(
        [sys.executable, "-m", "planloop", "play", "ALFWorld-v0", "-o", "oops"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and "an option is KEY=VALUE" in out.stderr


# -- hostile input and bad flags (issue 22): one line each, exit 2, nothing timed ----------

FORALL5 = """(define (domain q) (:requirements :adl) (:predicates (g) (done))
  (:action a :parameters () :precondition (forall (?a ?b ?c ?d ?e) (or (= ?a ?b) (done)))
   :effect (g))
  (:action b :parameters () :precondition () :effect (done)))"""
FORALL5_PROBLEM = (
    "(define (problem q1) (:domain q) (:objects "
    + " ".join(f"o{i}" for i in range(20))
    + ") (:init) (:goal (g)))"
)


def chain(tmp_path, n=8000):
    types = " ".join(f"t{i + 1} - t{i}" for i in reversed(range(n)))
    domain = tmp_path / "chain-domain.pddl"
    domain.write_text(
        f"(define (domain c) (:requirements :typing) (:types {types}) "
        f"(:predicates (p ?x - t0) (g)) "
        f"(:action a :parameters (?x - t{n}) :precondition (p ?x) :effect (g)))"
    )
    problem = tmp_path / "chain-problem.pddl"
    problem.write_text(
        f"(define (problem c1) (:domain c) (:objects o - t{n}) (:init (p o)) (:goal (g)))"
    )
    return str(domain), str(problem)


def one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    return lines[0]


def test_missing_file_is_one_line(tmp_path, capsys):
    missing = str(tmp_path / "missing.pddl")
    for argv in (
        ["solve", missing, PROBLEM],
        ["solve", DOMAIN, missing],
        ["validate", DOMAIN, PROBLEM, missing],
        ["validate", missing, PROBLEM, missing],
    ):
        assert main(argv) == 2
        assert "no such file: " in one_line(capsys.readouterr().err)
    assert main(["play", "PDDL-v0", "--domain", missing, "--problem", PROBLEM]) == 2
    assert one_line(capsys.readouterr().err) == f"no such file: {missing}"


def test_a_file_that_is_not_pddl_is_one_line(tmp_path, capsys):
    prose = tmp_path / "prose.txt"
    prose.write_text("hello there")
    assert main(["solve", str(prose), PROBLEM]) == 2
    assert "not PDDL" in one_line(capsys.readouterr().err)


def test_dev_zero_and_huge_plans_are_refused_on_one_line(tmp_path, capsys):
    assert main(["validate", DOMAIN, PROBLEM, "/dev/zero"]) == 2
    assert "not a regular file" in one_line(capsys.readouterr().err)
    huge = tmp_path / "plan"
    huge.write_text("(pick-up a)\n" * 1000)
    assert main(["validate", DOMAIN, PROBLEM, str(huge), "--limit", "max_bytes=5000"]) == 2
    assert "max_bytes" in one_line(capsys.readouterr().err)
    binary = tmp_path / "binary"
    binary.write_bytes(bytes(range(256)) * 4)
    assert main(["validate", DOMAIN, PROBLEM, str(binary)]) == 2
    assert "cannot read" in one_line(capsys.readouterr().err)


@pytest.mark.slow
def test_hostile_tasks_are_refused_or_time_out(tmp_path, capsys):
    domain, problem = tmp_path / "d.pddl", tmp_path / "p.pddl"
    domain.write_text(FORALL5)
    problem.write_text(FORALL5_PROBLEM)
    assert main(["solve", str(domain), str(problem), "--planner", "bfs"]) == 2
    assert "limits=Limits(max_expansion=...)" in capsys.readouterr().err
    assert (
        main(
            [
                "solve",
                str(domain),
                str(problem),
                "--planner",
                "auto",
                "--timeout",
                "1",
                "--limit",
                "max_expansion=1000000000000",
            ]
        )
        == 3
    )
    assert main(["solve", *chain(tmp_path), "--planner", "auto", "--timeout", "3"]) == 2
    assert "max_type_depth" in capsys.readouterr().err
    assert (
        main(["solve", *chain(tmp_path), "--planner", "auto", "--limit", "max_type_depth=10000"])
        == 0
    )


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["solve", DOMAIN, PROBLEM, "--timeout", "-1"], "--timeout"),
        (["solve", DOMAIN, PROBLEM, "--timeout", "nan"], "--timeout"),
        (["solve", DOMAIN, PROBLEM, "--limit", "max_oops=3"], "max_expansion"),
        (["solve", DOMAIN, PROBLEM, "--limit", "max_bytes=-5"], "max_bytes"),
        (["validate", DOMAIN, PROBLEM, "p", "--limit", "max_depth"], "max_depth"),
        (["play", "Blocksworld-v0", "--instance", "-1"], "--instance"),
        (["play", "Blocksworld-v0", "--limit", "nope=1"], "max_ground_facts"),
    ],
)
def test_bad_flags_exit_2_at_parse_time(argv, needle, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert needle in capsys.readouterr().err


def test_play_names_the_valid_instances(capsys):
    assert main(["play", "Blocksworld-v0", "--instance", "999"]) == 2
    assert "from 0 to" in one_line(capsys.readouterr().err)


def test_ctrl_c_in_play_exits_130_with_one_line(monkeypatch, capsys):
    def interrupt(prompt=""):
        raise KeyboardInterrupt

    monkeypatch.setattr("builtins.input", interrupt)
    assert main(["play", "Blocksworld-v0", "--seed", "0"]) == 130
    assert one_line(capsys.readouterr().err) == "interrupted"
