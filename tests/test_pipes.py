"""``script | head -1`` and ``script 2>&1 | head -3``: the reader goes away early, on
stdout, stderr or both; the script finishes its work and files and exits 0 with no
traceback and nothing more said."""

import json
import subprocess
import sys

import pytest

from conftest import EXPERIMENTS

STREAMS = ("stdout", "stderr", "both")  # which pipe is closed early (both: 2>&1 | head)


def read_then_close(argv, tmp_path, closed="stdout", lines=1):
    """Run ``argv``; read ``lines`` lines from the ``closed`` stream(s), then close
    that pipe as ``head`` does. Returns (lines read, exit code, what stderr said when
    it stays open)."""
    pipes = {
        "stdout": {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE},
        "stderr": {"stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE},
        "both": {"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT},
    }[closed]
    proc = subprocess.Popen(argv, cwd=tmp_path, text=True, **pipes)
    reader = proc.stderr if closed == "stderr" else proc.stdout
    first = [reader.readline() for _ in range(lines)]
    reader.close()
    err = proc.stderr.read() if closed == "stdout" else ""
    return first, proc.wait(timeout=300), err


@pytest.mark.parametrize("closed", STREAMS)
@pytest.mark.parametrize(
    "script, flags, files",
    [
        ("planner_baseline.py", ["--instances", "0:5"], ["results.md", "success.png"]),
        (
            "formalize.py",
            ["--llm", "groundtruth", "--domains", "gripper", "--sizes", "5"],
            ["results.md"],
        ),
    ],
)
def test_a_study_piped_into_head_exits_quietly_with_its_files(
    tmp_path, script, flags, files, closed
):
    out = tmp_path / "out"
    argv = [sys.executable, str(EXPERIMENTS / script), *flags, "--out", str(out)]
    first, code, err = read_then_close(argv, tmp_path, closed, lines=3 if closed == "both" else 1)
    assert all(line.strip() for line in first) and code == 0, err
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err
    for name in files:
        assert (out / name).stat().st_size > 0, name
    lines = (out / "episodes.jsonl").read_text().splitlines()
    assert lines and all(json.loads(line)["key"] for line in lines)


def test_the_cli_piped_into_head_exits_quietly(tmp_path):
    argv = [sys.executable, "-m", "planloop", "envs"]
    first, code, err = read_then_close(argv, tmp_path)
    assert first[0].strip() and code == 0 and err == ""
