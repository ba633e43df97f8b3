"""Bad input to the symbolic core (issue 9): text vs path, plans of every type, size
limits, line ends, echoed text, and the files and processes of an interrupted solve."""

import os
import signal
import string
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.envs.blocksworld import generate_problem
from planloop.pddl import (
    ActionLookupError,
    Limits,
    PDDLError,
    load,
    parse,
    parse_command,
    parse_plan,
    quote,
    solve,
    validate,
)

from conftest import IPC, PLANBENCH

BW_DOMAIN = PLANBENCH / "blocksworld" / "generated_domain.pddl"
BW_PROBLEM = PLANBENCH / "blocksworld" / "generated_basic" / "instance-1.pddl"
DOMAIN, PROBLEM = BW_DOMAIN.read_text(), BW_PROBLEM.read_text()
HEAD = "(define (problem p) (:domain blocksworld-4ops) (:objects a b)\n"


def error_of(call, *args, **kwargs) -> str:
    with pytest.raises(PDDLError) as caught:
        call(*args, **kwargs)
    return str(caught.value)


def printable(message: str) -> bool:
    return set(message) <= set(string.printable)


@pytest.fixture(scope="module")
def task():
    return load(DOMAIN, PROBLEM)


# -- text or path -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    ["x" * 300, "x" * 5000, "I cannot write that.", "no/such.pddl", "a\x00b"],
    ids=["300", "5000", "prose", "path", "nul"],
)
def test_one_line_that_names_no_file_is_text_that_is_not_pddl(text):
    message = error_of(load, DOMAIN, text)
    assert "not PDDL" in message and quote(text) in message and "no such file" not in message


def test_empty_problem_is_refused_even_from_a_folder_of_pddl_files(tmp_path, monkeypatch):
    (tmp_path / "p1.pddl").write_text(PROBLEM)
    monkeypatch.chdir(tmp_path)  # "" is not the current folder
    for problem in ("", "   "):
        with pytest.raises(ValueError, match="problem is empty: give a path or PDDL text"):
            gym.make("PDDL-v0", domain=DOMAIN, problem=problem)


def test_text_too_long_for_a_path_is_refused_at_make():
    with pytest.raises(ValueError, match="problem: no such file or folder 'xxxx"):
        gym.make("PDDL-v0", domain=DOMAIN, problem="x" * 300)


def test_a_missing_path_object_says_no_such_file(tmp_path):
    assert "no such file" in error_of(load, DOMAIN, tmp_path / "missing.pddl")
    assert "no such file" in error_of(load, DOMAIN, Path("x" * 5000))


def test_devices_pipes_and_folders_are_refused_without_reading(tmp_path):
    fifo = tmp_path / "domain.pddl"
    os.mkfifo(fifo)  # reading it would wait forever; /dev/zero would fill the memory
    devices = [d for d in ("/dev/zero", "/dev/full") if Path(d).exists()]
    for source in (fifo, str(fifo), tmp_path, *devices):
        assert "not a regular file" in error_of(load, source, PROBLEM)


@pytest.mark.parametrize(
    "bad", [None, 42, b"(define", ["(define"]], ids=["none", "int", "bytes", "list"]
)
def test_load_refuses_what_is_neither_text_nor_a_path(bad):
    message = error_of(load, bad, PROBLEM)
    assert "domain error: expected PDDL text or a path" in message
    assert type(bad).__name__ in message


def test_solve_never_raises_on_bad_arguments():
    cases = [
        ((None, None), {}, "NoneType"),
        ((DOMAIN, "no/such/file.pddl"), {}, "not PDDL: no '(define ...)' form in 'no/such"),
        ((DOMAIN, PROBLEM), {"timeout": -1}, "timeout"),
        ((DOMAIN, PROBLEM), {"timeout": "soon"}, "timeout"),
        ((DOMAIN, PROBLEM), {"planner": None}, "unknown planner"),
        ((DOMAIN, PROBLEM), {"memory_limit_mb": 0}, "memory_limit_mb"),
        ((DOMAIN, PROBLEM), {"limits": {}}, "limits"),
    ]
    for args, kwargs, words in cases:
        result = solve(*args, **kwargs)
        assert result.status == "invalid_input" and words in result.message, (args, kwargs)
        assert "syntax error" not in result.message


# -- plans --------------------------------------------------------------------------------
def test_an_unreadable_step_in_a_list_is_a_pddl_error_like_in_text(task):
    as_list = error_of(validate, task, ["(pick-up a", "(pick-up b)", "(stack a (b"])
    as_text = error_of(validate, task, "(pick-up a\n(pick-up b)\n(stack a (b")
    assert as_list.count("cannot read a plan step") == 2 == as_text.count("cannot read")
    assert "line 3" in as_list and "line 3" in as_text


@pytest.mark.parametrize("plan", [None, 42, 4.5, object()], ids=["none", "int", "float", "object"])
def test_a_plan_that_is_not_text_or_a_list_is_a_pddl_error(task, plan):
    message = error_of(validate, task, plan)
    assert "a plan must be text, bytes or a list" in message and type(plan).__name__ in message


def test_a_list_item_that_is_no_command_is_named(task):
    message = error_of(validate, task, ["(pick-up a)", 3, None])
    assert "line 2" in message and "received int '3'" in message and "NoneType" in message


def test_bytes_are_utf8_text(task):
    assert validate(task, b"(pick-up a)\n").length == 1
    assert "not UTF-8" in error_of(validate, task, b"(pick-up \xff)")


def test_ground_actions_and_steps_are_plan_steps(task):
    action = task.applicable(task.init)[0]
    steps = parse_plan([action, "(stack a b)"])
    assert [str(s) for s in steps] == [action.text, "(stack a b)"] and steps[0].line == 1
    assert parse_plan(steps) == steps


def test_plan_text_ends_lines_with_cr():
    steps = parse_plan("; a comment\r(pick-up a)\r(stack a b)\r\n(pick-up c)")
    assert [(str(s), s.line) for s in steps] == [
        ("(pick-up a)", 2),
        ("(stack a b)", 3),
        ("(pick-up c)", 4),
    ]


# -- size limits --------------------------------------------------------------------------
def refused_by(call, *args, limit: str, **kwargs) -> str:
    message = error_of(call, *args, **kwargs)
    assert f"({limit}); to accept more, pass limits=Limits({limit}=...)" in message
    return message


def test_ten_megabytes_of_duplicate_facts_are_refused_by_size():
    problem = HEAD + "(:init\n" + "(on a b)\n" * 1_048_576 + ") (:goal (on a b)))"
    refused_by(load, DOMAIN, problem, limit="max_bytes")


def test_a_goal_of_a_million_conjuncts_is_refused_by_size():
    problem = HEAD + "(:init (clear a))\n(:goal (and " + "(on a b) " * 1_160_000 + ")))"
    refused_by(load, DOMAIN, problem, limit="max_bytes")


def test_a_million_objects_are_refused_by_size():
    objects = " ".join(f"o{i}" for i in range(1_300_000))
    problem = (
        f"(define (problem p) (:domain blocksworld-4ops) (:objects {objects}) (:init) "
        f"(:goal (on o1 o2)))"
    )
    refused_by(load, DOMAIN, problem, limit="max_bytes")


def test_a_big_file_is_refused_before_it_is_read(tmp_path):
    big = tmp_path / "problem.pddl"
    big.write_text(PROBLEM + " " * 9_000_000)
    assert "bytes in the problem file" in refused_by(load, DOMAIN, big, limit="max_bytes")


def test_deep_nesting_is_refused_while_reading_without_recursion():
    problem = HEAD + "(:init) (:goal " + "(not " * 100_000 + "(on a b)" + ")" * 100_001 + ")"
    message = refused_by(load, DOMAIN, problem, limit="max_depth")
    assert "nested 101 levels deep" in message and "line 2" in message


def test_the_deepest_accepted_goal_loads_validates_and_solves():
    levels = Limits().max_depth - 3  # inside (define and (:goal, around the atom
    goal = "".join("(or " if i % 2 else "(and " for i in range(levels)) + "(on a b)" + ")" * levels
    problem = (
        HEAD + f"(:init (clear a) (clear b) (ontable a) (ontable b) (handempty))\n(:goal {goal}))"
    )
    assert validate(load(DOMAIN, problem), "(pick-up a)\n(stack a b)").valid
    assert solve(DOMAIN, problem, planner="lama-first").status == "solved"
    refused_by(load, DOMAIN, problem.replace("(on a b)", "(and (on a b))"), limit="max_depth")


@pytest.mark.parametrize(
    "sections,limits,limit,count",
    [
        (
            "(:objects "
            + " ".join(f"o{i}" for i in range(20_001))
            + ") (:init) (:goal (clear o1))",
            Limits(),
            "max_objects",
            "20,001 objects",
        ),
        (
            "(:objects a - object b c - object) (:init) (:goal (clear a))",
            Limits(max_objects=2),
            "max_objects",
            "3 objects",
        ),
        (
            "(:objects a) (:init " + "(clear a)" * 1_001 + ") (:goal (clear a))",
            Limits(max_init_facts=1_000),
            "max_init_facts",
            "1,001 facts in ':init'",
        ),
        (
            "(:objects a) (:init) (:goal (and " + "(clear a)" * 1_000 + "))",
            Limits(max_goal_size=1_000),
            "max_goal_size",
            "1,001 conditions in ':goal'",
        ),
    ],
    ids=["objects", "typed-objects", "facts", "goal"],
)
def test_counts_over_a_limit_are_refused_and_the_limit_can_be_raised(
    sections, limits, limit, count
):
    problem = f"(define (problem p) (:domain blocksworld-4ops) {sections})"
    assert count in refused_by(load, DOMAIN, problem, limits=limits, limit=limit)
    parse(DOMAIN, problem, limits=replace(limits, **{limit: 100_000}))


def test_solve_reads_within_its_limits():
    result = solve(DOMAIN, PROBLEM, planner="bfs", limits=Limits(max_objects=1))
    assert result.status == "invalid_input" and "max_objects" in result.message


def test_constants_count_as_objects():
    domain = DOMAIN.replace("(:predicates", "(:constants k1 k2 k3) (:predicates", 1)
    assert "3 constants" in refused_by(
        load, domain, PROBLEM, limits=Limits(max_objects=2), limit="max_objects"
    )


# -- line ends ----------------------------------------------------------------------------
@pytest.mark.parametrize("newline", ["\r", "\r\n"], ids=["cr", "crlf"])
def test_cr_ends_lines_in_pddl(newline):
    commented = "; the four-operator blocksworld\n" + DOMAIN
    task = load(commented.replace("\n", newline), PROBLEM.replace("\n", newline))
    assert len(task.actions) == len(load(DOMAIN, PROBLEM).actions)
    broken = commented.replace("(:action stack", "(:action stack\n  :what", 1)
    expected = error_of(load, broken, PROBLEM)
    assert error_of(load, broken.replace("\n", newline), PROBLEM) == expected
    assert "line " in expected


# -- echoed text --------------------------------------------------------------------------
def test_quote_escapes_and_cuts():
    assert quote("stack a b") == "'stack a b'"
    assert quote("a\n\x00\u200f\U0001f600") == "'a\\n\\x00\\u200f\\U0001f600'"
    long = quote("x" * 1_000_000)
    assert (
        long == "'" + "x" * 60 + "...'" and quote("\U0001f600" * 20, limit=12) == "'\\U0001f600...'"
    )


def test_every_echoing_message_is_short_printable_ascii(task):
    bad = "d\u00e9j\u00e0\U0001f600\u200f\x00\n" * 100_000
    messages = []
    for name, args in ((bad, ()), ("pick-up", (bad,))):
        with pytest.raises(ActionLookupError) as caught:
            task.action(name, args)
        messages.append(str(caught.value))
    with pytest.raises(ValueError) as caught:
        parse_command("(" + bad)
    messages += [
        str(caught.value),
        error_of(parse_plan, ["(" + bad]),
        error_of(parse_plan, "(" + bad.replace("\n", " ")),
        validate(task, [bad]).advice,
    ]
    for message in messages:
        assert printable(message) and len(message) < 300, message[:300]
        assert "\\U0001f600" in message or "\\xe9" in message, message


# -- processes and temporary folders --------------------------------------------------------
def planloop_dirs(folder: Path) -> list[Path]:
    return sorted(folder.glob("planloop-fd-*"))


def wait_for(condition, seconds: float = 60.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def start_hard_solve(tmp_path: Path, timeout: float) -> subprocess.Popen:
    """A process solving a 40-block task (for minutes) with TMPDIR set to ``tmp_path``."""
    problem = tmp_path / "hard.pddl"
    problem.write_text(generate_problem(40, seed=3, style="ipc"))
    code = (
        f"from planloop.pddl import solve; print(solve({str(IPC / 'domain.pddl')!r}, "
        f"{str(problem)!r}, planner='astar(lmcut())', timeout={timeout}))"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], env=dict(os.environ, TMPDIR=str(tmp_path))
    )
    assert wait_for(lambda: planloop_dirs(tmp_path)), "the solve never started"
    return proc


def cwd_of(pid: int) -> str | None:
    """The working folder of a running process (None once it ended, even as a zombie)."""
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return None


def searches_in(folder: Path) -> list[int]:
    """The pids of the Fast Downward searches working in ``folder``."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if (proc / "comm").read_text().strip() == "downward" and os.readlink(
                proc / "cwd"
            ) == os.path.realpath(folder):
                found.append(int(proc.name))
        except OSError:  # it ended meanwhile
            continue
    return found


needs_proc = pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="needs /proc")


@needs_proc
def test_sigterm_during_solve_kills_the_planner_and_removes_its_folder(tmp_path):
    proc = start_hard_solve(tmp_path, timeout=120)
    folder = planloop_dirs(tmp_path)[0]
    assert folder.name.startswith(f"planloop-fd-{proc.pid}-")
    assert wait_for(lambda: searches_in(folder))  # the search runs
    planners = searches_in(folder)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 143
    assert planloop_dirs(tmp_path) == []
    assert wait_for(lambda: not any(cwd_of(pid) for pid in planners), 10)


@needs_proc
def test_after_sigkill_the_planner_stops_and_the_next_solve_sweeps_its_folder(
    tmp_path, monkeypatch
):
    proc = start_hard_solve(tmp_path, timeout=120)  # translation alone takes seconds under load
    folder = planloop_dirs(tmp_path)[0]
    assert wait_for(lambda: searches_in(folder))
    proc.kill()
    proc.wait()
    assert planloop_dirs(tmp_path) == [folder]  # nothing could clean up
    assert wait_for(lambda: not searches_in(folder), 30)  # SIGPIPE at its next output
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert solve(BW_DOMAIN, BW_PROBLEM, planner="lama-first").solved
    assert planloop_dirs(tmp_path) == []


def test_stale_folders_of_dead_processes_are_swept_and_live_ones_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    finished = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead = tmp_path / f"planloop-fd-{int(finished.stdout)}-abc123"
    live = tmp_path / f"planloop-fd-{os.getpid()}-def456"
    unowned = tmp_path / "planloop-fd-old_style"
    for folder in (dead, live, unowned):
        folder.mkdir()
        (folder / "output.sas").write_text("begin_version")
    assert solve(BW_DOMAIN, BW_PROBLEM, planner="lama-first").solved
    assert planloop_dirs(tmp_path) == [live, unowned]


def test_grounding_past_its_limit_is_refused_naming_it():
    objects = " ".join(f"b{i}" for i in range(600))  # 360,000 stack actions alone
    problem = (
        f"(define (problem big) (:domain blocksworld-4ops) (:objects {objects}) "
        f"(:init (handempty)) (:goal (on b0 b1)))"
    )
    domain = (PLANBENCH / "blocksworld/generated_domain.pddl").read_text()
    with pytest.raises(PDDLError, match=r"more than the limit of 20,000 \(max_ground_actions"):
        load(domain, problem, Limits(max_ground_actions=20_000))
    three = problem.replace(objects, "b0 b1 b2")  # 3 + 3 + 9 + 9 actions
    task = load(domain, three, Limits(max_ground_actions=24))
    assert task.action("stack", ("b0", "b1")).args == ("b0", "b1")
    with pytest.raises(PDDLError, match=r"more than the limit of 23 \(max_ground_actions\)"):
        load(domain, three, Limits(max_ground_actions=23))
    result = solve(domain, three, planner="bfs", timeout=5, limits=Limits(max_ground_actions=23))
    assert result.status == "invalid_input" and "max_ground_actions" in result.message
    with pytest.raises(PDDLError, match=r"more than the limit of 3 \(max_ground_facts\)"):
        load(domain, three, Limits(max_ground_facts=3))
