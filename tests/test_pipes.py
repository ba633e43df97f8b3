"""``script | head -1``: the reader goes away after one line; the script finishes its
work and files and exits 0 with no traceback."""

import subprocess
import sys

import pytest

from conftest import EXPERIMENTS


def first_line_then_close(argv, tmp_path):
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, text=True
    )
    first = proc.stdout.readline()
    proc.stdout.close()  # as head -1 does
    err = proc.stderr.read()
    return first, proc.wait(timeout=300), err


@pytest.mark.parametrize(
    "script, flags",
    [
        ("planner_baseline.py", ["--instances", "0:3"]),
        ("formalize.py", ["--llm", "groundtruth", "--domains", "gripper", "--sizes", "5"]),
    ],
)
def test_a_study_piped_into_head_exits_quietly_with_its_files(tmp_path, script, flags):
    out = tmp_path / "out"
    argv = [sys.executable, str(EXPERIMENTS / script), *flags, "--out", str(out)]
    first, code, err = first_line_then_close(argv, tmp_path)
    assert first.strip() and code == 0, err
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err
    assert (out / "results.md").exists()


def test_the_cli_piped_into_head_exits_quietly(tmp_path):
    argv = [sys.executable, "-m", "planloop", "envs"]
    first, code, err = first_line_then_close(argv, tmp_path)
    assert first.strip() and code == 0 and err == ""
