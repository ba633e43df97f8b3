"""The planloop command: exit codes and output."""

import subprocess
import sys
from pathlib import Path

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
    unsolvable.write_text("(define (problem u) (:domain blocksworld-4ops) (:objects a b) "
                          "(:init (handempty) (ontable a) (ontable b) (clear a) (clear b)) "
                          "(:goal (and (on a b) (on b a))))")
    assert main(["solve", DOMAIN, str(unsolvable)]) == 1
    assert main(["solve", DOMAIN, str(tmp_path / "missing.pddl")]) == 2
    broken = tmp_path / "broken.pddl"
    broken.write_text("(define (problem u) (:domain blocksworld-4ops)")
    assert main(["solve", DOMAIN, str(broken)]) == 2
    from planloop.envs.blocksworld import generate_problem
    hard = tmp_path / "hard.pddl"
    hard.write_text(generate_problem(26, seed=3))
    assert main(["solve", DOMAIN, str(hard), "--planner", "bfs", "--timeout", "0.3"]) == 3


def test_validate_bad_input_exit_code(tmp_path):
    assert main(["validate", DOMAIN, PROBLEM, str(tmp_path / "missing")]) == 2
    (tmp_path / "plan").write_text("(unstack b c\n")
    assert main(["validate", DOMAIN, PROBLEM, str(tmp_path / "plan")]) == 2


def test_play_reads_commands_from_a_person():
    out = subprocess.run([sys.executable, "-m", "planloop", "play", "Mystery-BW-v0", "--seed",
                          "0"], input="actions\n(fly)\nquit\n", capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0
    assert "(attack a)" in out.stdout and "Unknown action 'fly'" in out.stdout


def test_play_alfworld_and_coin_collector_with_options():
    game = Path(__file__).parent / "data" / "alfworld" / "games" / \
        "pick_and_place_simple-Mug-CoffeeMachine-18" / "game.tw-pddl"
    out = subprocess.run([sys.executable, "-m", "planloop", "play", "ALFWorld-v0", "-o",
                          f"game_file={game}"], input="actions\ngo to cabinet 2\nhelp\nquit\n",
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "Your task is to: put some mug on coffeemachine." in out.stdout
    assert "You arrive at cabinet 2." in out.stdout
    assert "Available commands:" in out.stdout  # the game's own help
    out = subprocess.run([sys.executable, "-m", "planloop", "play", "CoinCollector-v0", "--seed",
                          "3", "-o", "num_locations=2", "-o", "include_doors=false"],
                         input="look around\nquit\n", capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.count("You are in the") >= 2, out.stderr


def test_play_names_a_bad_environment_argument():
    out = subprocess.run([sys.executable, "-m", "planloop", "play", "ALFWorld-v0", "-o",
                          "game_file=/nowhere/game.tw-pddl"], input="", capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2 and "no game file /nowhere/game.tw-pddl" in out.stderr
    out = subprocess.run([sys.executable, "-m", "planloop", "play", "ALFWorld-v0", "-o", "oops"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "an option is KEY=VALUE" in out.stderr
