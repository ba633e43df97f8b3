"""Every code block of README.md and of the pages under docs/ runs here, so a snippet
cannot rot. A test is named by its page and line (``docs/pddl.md:3``).

The rules, in the order they apply:

- A block right after a line ``<!-- not run: REASON -->`` is skipped, and the test says
  REASON (an install from PyPI, the whole test suite).
- A block whose language and text are those of an earlier one (README.md first, then
  docs/ in order of path) is skipped: the earlier one runs.
- A ```text block is output a page shows (a table a study prints), never run; a
  fence with any other language, or none, fails :func:`test_every_block_has_a_rule`.
- A ```python block runs on its own (a fresh namespace) in a temporary folder holding
  the files the snippets name: ``domain.pddl`` and ``problem.pddl`` (PlanBench's
  Blocksworld domain and a problem with c on b under d), ``plan.txt`` (``(unstack c
  b)``, which fails at its first step).
  ``http://localhost:8000/v1`` becomes a local fake OpenAI-compatible server.
- A ```bash block runs line by line (``\\`` continues a line, ``#`` starts a comment);
  each command runs with this interpreter (``python ...`` and ``planloop ...``, the
  latter as ``python -m planloop``), in a temporary folder that links ``experiments``,
  ``benchmarks`` and ``tests`` from the repository (so default outputs stay there), and
  must exit 0. A line starting with a prefix of :data:`SKIPPED` is skipped with its
  reason. Rewrites that keep a command's meaning but bound it (:func:`rewrite`):
  ``--llm openai:MODEL`` and ``--llm URL@MODEL`` answer from the fake server (and
  OPENAI_BASE_URL points there too, with a fake OPENAI_API_KEY); ``--out`` goes to the
  temporary folder; ``--instances A:B`` becomes ``A:A+1``, ``--trials``,
  ``--per-cell`` 1, ``--sizes`` its first, ``--workers`` at most 2, ``--cases`` 20; a
  study given no ``--instances`` plays ``--instances 0:1`` (``formalize.py``, which
  has none, ``--per-cell 1 --sizes 10`` unless it reads ``--problems``), a paper
  (``reproduce.py``) ``--limit 1``; the agentic paper's budget is 2 s an instance
  instead of 180 (``--seconds 2``); ``[...]`` marks optional flags, which run; the
  placeholders DOMAIN and PROBLEM (the files above), PLAN (a valid plan of them), PATH
  (an ALFWorld fixture game), FOLDER (a folder of IPC Blocksworld problems) and
  ``my/domain.pddl``, ``my/problems/`` exist; ``planloop play`` reads ``actions`` then
  the end of its input. A command run against the fake server must have called it.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
DATA = ROOT / "tests" / "data"

pytestmark = pytest.mark.slow  # whole (tiny) studies, a few seconds each

SKIPPED = {  # command prefixes that cannot run here, and why
    "export ": "sets the environment for the commands below; the test sets a fake "
    "OPENAI_API_KEY itself",
    "pip install": "installs from PyPI (network)",
}
REPLY = "I cannot solve this task."  # every model call's answer: plausible, never right
MARKER = re.compile(r"^<!-- not run: (.+?) -->$")


@dataclass
class Block:
    at: str  # the page and its opening fence's line: ``docs/pddl.md:3``
    lang: str
    text: str
    skip: str | None  # the marker's reason, or the earlier block that runs instead


def blocks() -> list[Block]:
    """Every page's blocks; a repeated block skipped in favour of its first."""
    found: list[Block] = []
    first: dict[tuple[str, str], str] = {}  # (lang, text) -> where it first appears
    for page in PAGES:
        for block in page_blocks(page):
            earlier = first.setdefault((block.lang, block.text), block.at)
            if earlier != block.at and block.skip is None:
                block.skip = f"the same block as {earlier}, which runs"
            found.append(block)
    return found


def page_blocks(page: Path) -> list[Block]:
    name = page.relative_to(ROOT).as_posix()
    found, lines, i = [], page.read_text().splitlines(), 0
    while i < len(lines):
        if lines[i].startswith("```"):
            start, lang = i, lines[i][3:].strip()
            i += 1
            while not lines[i].startswith("```"):
                i += 1
            before = next((line for line in reversed(lines[:start]) if line.strip()), "")
            marker = MARKER.match(before.strip())
            text = "\n".join(lines[start + 1 : i]) + "\n"
            found.append(
                Block(f"{name}:{start + 1}", lang, text, marker.group(1) if marker else None)
            )
        i += 1
    return found


BLOCKS = blocks()


def test_every_block_has_a_rule():
    assert BLOCKS and all(b.lang in ("python", "bash", "text") for b in BLOCKS), [
        (b.at, b.lang) for b in BLOCKS if b.lang not in ("python", "bash", "text")
    ]


@pytest.fixture(scope="module")
def server():
    """The fake model server; None without the llm extra (its snippets then skip)."""
    try:
        import openai  # noqa: F401
    except ImportError:
        yield None
        return
    from planloop.llm.fake_server import FakeChatServer

    with FakeChatServer([("ok", REPLY)] * 100_000) as fake:
        yield fake


def _needs_model(text: str, server) -> None:
    if server is None and re.search(r"make_model|--llm +(openai:|\S+@)|benchmarks/fuzz\.py", text):
        pytest.skip(
            "needs the llm extra (openai): a fake model server, or the fuzz campaign's model target"
        )


@pytest.fixture
def workdir(tmp_path, monkeypatch, server):
    """The folder the snippets run in, with their files and a fake model server."""
    shutil.copy(
        DATA / "planbench" / "blocksworld" / "generated_domain.pddl", tmp_path / "domain.pddl"
    )
    problem = (
        DATA / "planbench" / "blocksworld" / "generated_basic" / "instance-4.pddl"
    )  # c on b, d on c
    shutil.copy(problem, tmp_path / "problem.pddl")
    (tmp_path / "plan.txt").write_text("(unstack c b)\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))  # the model cache lives under ~
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-readme-test")
    if server is not None:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)  # openai:MODEL never leaves
    return tmp_path


def _ids(kind):
    return [pytest.param(b, id=b.at) for b in BLOCKS if b.lang == kind]


@pytest.mark.parametrize("block", _ids("python"))
def test_python_block(block, workdir, server):
    if block.skip:
        pytest.skip(f"{block.at}: {block.skip}")
    _needs_model(block.text, server)
    code = block.text.replace("http://localhost:8000/v1", server.url) if server else block.text
    exec(compile(code, block.at, "exec"), {"__name__": "__readme__"})


def commands(text: str) -> list[str]:
    """The block's lines, continuations joined; comments and blank lines dropped."""
    joined = re.sub(r"\\\n\s*", " ", text)
    return [line for line in joined.splitlines() if line.strip() and not line.lstrip()[0] == "#"]


SHRINK = {"--instances": None, "--trials": "1", "--per-cell": "1", "--cases": "20"}


def rewrite(line: str, work: Path, url: str) -> tuple[list[str], str]:
    """The command to run for a page's line, and its standard input."""
    argv = [a.strip("[]") for a in shlex.split(line, comments=True) if a.strip("[]")]
    operators = {"&&", "||", "|", ";", ">", ">>", "<", "&"} & set(argv)
    assert not operators, f"no rule for the shell's {operators} in {line!r}: mark the block"
    if argv[0] == "planloop":
        argv = [sys.executable, "-m", "planloop", *argv[1:]]
    elif argv[0] == "python":
        argv = [sys.executable, *argv[1:]]
    else:
        raise AssertionError(f"no rule for {line!r}: run it, or add a reason to SKIPPED")
    fixtures = {
        "DOMAIN": "domain.pddl",
        "PROBLEM": "problem.pddl",
        "PLAN": "valid-plan.txt",
        "game_file=PATH": "game_file="
        + str(DATA / "alfworld/games/pick_and_place_simple-Mug-CoffeeMachine-18/game.tw-pddl"),
        "problem=FOLDER": f"problem={work / 'FOLDER'}",
    }
    argv = [fixtures.get(a, a) for a in argv]
    out, i = [], 0
    while i < len(argv):
        flag, value = argv[i], argv[i + 1] if i + 1 < len(argv) else None
        if flag == "--llm" and value and (value.startswith("openai:") or "@" in value):
            model = (
                value.split(":", 1)[1] if value.startswith("openai:") else value.split("@", 1)[1]
            )
            out += [flag, f"{url}@{model}"]
            i += 2
            continue
        if flag == "--out":
            out += [flag, str(work / "out")]
            i += 2
            continue
        if flag == "--instances" and value:
            start = int(value.split(":")[0])
            out += [flag, f"{start}:{start + 1}"]
            i += 2
            continue
        if flag in SHRINK and value:
            out += [flag, SHRINK[flag]]
            i += 2
            continue
        if flag == "--sizes" and value:
            out += [flag, value.split(",")[0]]
            i += 2
            continue
        if flag == "--workers" and value:
            out += [flag, str(min(int(value), 2))]
            i += 2
            continue
        out.append(flag)
        i += 1
    script = out[1] if len(out) > 1 else ""
    extra = []
    if script.startswith("experiments/") and script != "experiments/reproduce.py":
        if "--instances" not in out and script != "experiments/formalize.py":
            extra += ["--instances", "0:1"]
        if script == "experiments/formalize.py" and not {"--per-cell", "--problems"} & set(out):
            extra += ["--per-cell", "1", "--sizes", "10"]
    if script == "experiments/agentic.py":
        extra += ["--seconds", "2"]
    if script == "experiments/reproduce.py":
        extra += ["--limit", "1"]
        if out[2] == "agentic":
            out += ["--seconds", "2"] if "--" in out else ["--", "--seconds", "2"]
    if extra:
        at = out.index("--") if "--" in out else len(out)
        out[at:at] = extra
    stdin = "actions\n" if out[1:4] == ["-m", "planloop", "play"] else ""
    return out, stdin


def _bash_lines():
    params = []
    for b in BLOCKS:
        if b.lang != "bash":
            continue
        lines = [b.skip] if b.skip else commands(b.text)
        assert lines, f"{b.at}: a bash block without a command"
        for k, line in enumerate(lines):
            reason = b.skip or next((w for p, w in SKIPPED.items() if line.startswith(p)), None)
            params.append(pytest.param(b.at, line, reason, id=f"{b.at}:{k + 1}"))
    return params


@pytest.mark.parametrize("at, line, reason", _bash_lines())
def test_bash_line(at, line, reason, workdir, server):
    if reason:
        pytest.skip(f"{at}: {line if line != reason else 'the block'}: {reason}")
    _needs_model(line, server)
    for name in ("experiments", "benchmarks", "tests"):
        (workdir / name).symlink_to(ROOT / name)
    folder = workdir / "FOLDER"
    folder.mkdir()
    shutil.copy(DATA / "ipc2000-blocks" / "instances" / "instance-1.pddl", folder)
    (workdir / "my" / "problems").mkdir(parents=True)
    shutil.copy("domain.pddl", workdir / "my" / "domain.pddl")
    shutil.copy("problem.pddl", workdir / "my" / "problems" / "p1.pddl")
    from planloop.pddl import solve

    plan = solve("domain.pddl", "problem.pddl", planner="bfs", timeout=60).plan
    (workdir / "valid-plan.txt").write_text("\n".join(plan) + "\n")
    argv, stdin = rewrite(line, workdir, server.url if server else "")
    calls = len(server.requests) if server else 0
    done = subprocess.run(
        argv, input=stdin, capture_output=True, text=True, timeout=300, env=dict(os.environ)
    )
    assert done.returncode == 0, (
        f"{at} {line}\nran {shlex.join(argv)}\n"
        f"exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    if server is not None and any(a.startswith(server.url + "@") for a in argv):
        assert len(server.requests) > calls, "the model was never asked"
