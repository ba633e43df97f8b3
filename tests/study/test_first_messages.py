"""The first messages a newcomer meets name the cause: an unknown environment with the
closest registered ids, an unknown option with the options the environment takes, and
a study that fails before its first episode leaves no folder behind."""

import subprocess
import sys

import pytest

from planloop.envs.lookup import env_options, unknown_env

from conftest import load_experiment


def test_an_unknown_id_names_the_closest_registered_ones():
    assert unknown_env("Mystery-BW-v0") is None
    assert "closest: Mystery-BW-v0" in unknown_env("mystery-bw-v0")
    assert unknown_env("Nothing-like-it-v9").endswith("`planloop envs` lists them")


def test_options_include_those_passed_on_to_the_environment_class():
    options = env_options("CoinCollector-v0", "CoinCollectorEnv")
    assert {"backend", "num_locations", "include_doors"} <= set(options)


@pytest.mark.parametrize(
    "argv, said",
    [
        (["--env", "Foo-v0"], "no environment Foo-v0"),
        (["--env", "Mystery-Bw-v0"], "closest: Mystery-BW-v0"),
        (["-o", "nosuchopt=3"], "Mystery-BW-v0 has no option nosuchopt: it takes instances"),
    ],
)
def test_planner_baseline_says_what_is_wrong_and_leaves_no_folder(tmp_path, capsys, argv, said):
    out = tmp_path / "out"
    code = load_experiment("planner_baseline").main([*argv, "--out", str(out)])
    assert code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert said in line and "not fully observable" not in line
    assert not out.exists()


def test_a_folder_that_was_there_stays(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    assert load_experiment("planner_baseline").main(["-o", "x=1", "--out", str(out)]) == 2
    assert out.is_dir()


def test_play_names_the_options(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "planloop", "play", "CoinCollector-v0", "-o", "nosuchopt=3"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert run.returncode == 2
    assert "has no option nosuchopt: it takes backend, num_locations" in run.stderr
    assert "was raised from the environment creator" not in run.stderr


def test_planner_names_on_a_command_line_need_no_shell_quoting(capsys):
    import re

    from planloop.pddl import PLANNER_NAMES

    assert "seq-opt-lmcut" in PLANNER_NAMES and "auto" in PLANNER_NAMES
    assert all(re.fullmatch(r"[\w.-]+", name) for name in PLANNER_NAMES)
    with pytest.raises(SystemExit):
        load_experiment("planner_baseline").main(["--help"])
    shown = capsys.readouterr().out
    assert "seq-opt-lmcut" in shown and "astar(lmcut())" not in shown
