"""The layered checks (reader, goal, planner, mapping of the first step), each failing
with a message that names the defect; and the prompts the formalizer renders."""

import pytest

import planloop  # noqa: F401
from planloop.envs.coin.symbolic import DOMAIN
from planloop.formalizer import (
    NAMES,
    STAGES,
    Checked,
    CheckFailure,
    CommandMapper,
    Files,
    ModelWriter,
    Prompt,
    Request,
    check,
    prompts,
    render,
)
from planloop.llm import ScriptedModel
from planloop.pddl import PlanResult

from conftest import IPC

# The kitchen of a two-room CoinCollector house, a closed door to the north.
PF = """(define (problem coin-game)
  (:domain coin-collector)
  (:objects kitchen hall - room slot1 slot2 - slot door1 - door)
  (:init
    (blocked kitchen hall)
    (closed door1)
    (connected kitchen hall north)
    (door-between door1 kitchen hall)
    (free slot1)
    (free slot2)
    (player-at kitchen)
    (visited kitchen)
  )
  (:goal (and (player-at hall)))
)
"""
VALID = ["close door to north", "move north", "inventory", "open door to north", "look around"]


def run_check(df=DOMAIN, pf=PF, valid=VALID, **options):
    mapper = CommandMapper()
    mapper.learn(valid)
    return check(Files(df, pf), mapper, valid, **{"planner": "bfs", **options})


def failure(**files_and_options) -> CheckFailure:
    with pytest.raises(CheckFailure) as error:
        run_check(**files_and_options)
    assert error.value.stage in STAGES and error.value.message
    assert str(error.value) == f"{error.value.stage}: {error.value.message}"
    return error.value


def test_a_dialect_planners_accept_passes_with_its_warnings():
    """PDDLego+ models often list a type among its own subtypes (FF and Fast Downward
    accept it): the check passes, with a warning at its place; strict checks refuse it."""
    df = DOMAIN.replace(
        "(:types room door item slot direction)",
        "(:types room door item slot direction - direction)",
    )
    checked = run_check(df=df)
    [warning] = checked.warnings
    assert (warning.stage, warning.line, warning.severity) == ("domain", 3, "warning")
    assert "type 'direction' is listed among its own subtypes" in warning.message
    assert checked.plan == run_check().plan and checked.domain.types["direction"] == "object"
    refused = failure(df=df, strict=True)
    assert refused.stage == "syntax" and "listed among its own subtypes" in refused.message
    empty = failure(df=df, pf=PF.replace("(and (player-at hall))", "(and)"))
    assert empty.stage == "goal" and empty.warnings == checked.warnings


def test_files_that_pass_give_the_plan_and_the_planner_record():
    checked = run_check(planner="lama-first")
    assert isinstance(checked, Checked)
    assert checked.plan == ("(open-door door1 kitchen hall north)", "(move kitchen hall north)")
    assert checked.planner["status"] == "solved" and checked.planner["planner"] == "lama-first"
    assert checked.planner["seconds"] > 0


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda df, pf: (df, pf.replace("    (visited kitchen)\n", "    (visited kitchen\n")),
            "problem error: line 1, col 1: unbalanced parentheses: 1 '(' never closed; the innermost "
            "open one is here\n    (define (problem coin-game)",
        ),
        (
            lambda df, pf: (df, pf.replace("(free slot2)", "(door-open kitchen hall)")),
            "problem error: line 10, col 6: unknown predicate 'door-open'",
        ),
        (
            lambda df, pf: (df, pf.replace("(free slot2)", "(free slot3)")),
            "problem error: line 10, col 11: undeclared object 'slot3'\n    (free slot3)",
        ),
        (
            lambda df, pf: (
                df,
                pf.replace("(connected kitchen hall north)", "(connected kitchen hall)"),
            ),
            "problem error: line 7, col 6: wrong arity: 'connected' takes 3 argument(s), 2 given",
        ),
        (
            lambda df, pf: (
                df.replace("(not (blocked ?from ?to))", "(not (blocked ?from))", 1),
                pf,
            ),
            "domain error: line 17, col 73: wrong arity: 'blocked' takes 2 argument(s), 1 given",
        ),
        (
            lambda df, pf: (df, pf.replace("  (:goal (and (player-at hall)))\n", "")),
            "problem error: line 1, col 1: missing ':goal' section",
        ),
    ],
)
def test_syntax_failures_carry_line_and_column(edit, message):
    df, pf = edit(DOMAIN, PF)
    found = failure(df=df, pf=pf)
    assert found.stage == "syntax" and found.message.startswith(message)


@pytest.mark.parametrize(
    "goal, message",
    [
        ("(and)", "the goal is empty: set a goal the plan should reach"),
        (
            "(player-at kitchen)",
            "the goal is already true in the initial state: set a goal that is not reached yet",
        ),
        (
            "(and (visited kitchen) (free slot1))",
            "the goal is already true in the initial state: set a goal that is not reached yet",
        ),
    ],
)
def test_goal_failures(goal, message):
    found = failure(pf=PF.replace("(and (player-at hall))", goal))
    assert (found.stage, found.message) == ("goal", message)


@pytest.mark.parametrize(
    "edit",
    [
        lambda pf: pf.replace("    (connected kitchen hall north)\n", ""),  # a missing passage
        lambda pf: pf.replace("(door-between door1 kitchen hall)", ""),  # a door never openable
        lambda pf: pf.replace("(player-at hall)", "(holding coin)").replace(
            "door1 - door", "door1 - door coin - item"
        ),
    ],
)
def test_an_unreachable_goal_is_proved_unsolvable(edit):
    found = failure(pf=edit(PF))
    assert found.stage == "planner"
    assert found.message.startswith(
        "the planner proved that no plan reaches the goal from the initial state: check the "
        "initial facts (connections, what is open or closed, where things are), the actions' "
        "preconditions and effects, and whether the goal is reachable ("
    )


def test_a_hard_task_with_a_tiny_timeout_is_a_timeout():
    blocks = (IPC / "domain.pddl").read_text(), (IPC / "instances" / "instance-35.pddl").read_text()
    found = failure(df=blocks[0], pf=blocks[1], valid=["pick-up a"], timeout=0.05)
    assert (found.stage, found.message) == (
        "planner",
        "the planner found no plan within its time limit (no plan within 0.05 s)",
    )


@pytest.mark.parametrize(
    "result, message",
    [
        (
            PlanResult("timeout", None, "translation did not finish within 3 s", 3.0, "lama-first"),
            "the planner found no plan within its time limit (translation did not finish within 3 s)",
        ),
        (
            PlanResult("out_of_memory", None, "", 1.0, "lama-first"),
            "the planner failed: out_of_memory: no message",
        ),
        (
            PlanResult("error", None, "exit code 37", 1.0, "lama-first"),
            "the planner failed: error: exit code 37",
        ),
    ],
)
def test_planner_statuses_from_a_solver_double(result, message):
    calls = []

    def solver(domain, problem, **options):
        calls.append(options)
        return result

    found = failure(solver=solver, planner="lama-first", timeout=3.0)
    assert (found.stage, found.message) == ("planner", message)
    assert calls == [{"planner": "lama-first", "timeout": 3.0, "strict": False}]


def test_a_first_step_that_names_no_command_is_a_mapping_failure():
    df = DOMAIN.replace("(:action open-door", "(:action unlatch")
    found = failure(df=df)
    assert (found.stage, found.message) == (
        "mapping",
        "the plan's first step, (unlatch door1 kitchen hall north), names no command "
        "of the game; the game's commands look like: close door to north, move north, "
        "inventory, open door to north, look around",
    )
    # only the first step is mapped here: a later one is the loop's business
    assert (
        run_check(df=DOMAIN.replace("(:action move", "(:action fly")).plan[1]
        == "(fly kitchen hall north)"
    )


def test_the_checks_run_in_order():
    # unreadable and with an empty goal: the reader's diagnostic comes first
    assert (
        failure(
            pf=PF.replace("(and (player-at hall))", "(and)").replace("(free slot2)", "(free slot2")
        ).stage
        == "syntax"
    )

    def solver(*args, **kwargs):  # an empty goal is reported before any planner runs
        raise AssertionError("the planner must not run")

    assert failure(pf=PF.replace("(and (player-at hall))", "(and)"), solver=solver).stage == "goal"


# -- prompts ----------------------------------------------------------------------------
REQUEST = Request(
    task="find the coin",
    trigger="start",
    history=("You are in the kitchen.", "> move north\nYou can't move there."),
    valid_commands=("move north", "look around"),
)


def user_text(family, name, request=REQUEST):
    messages = render(Prompt(family, name), request)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == prompts.SYSTEM
    return messages[1]["content"]


@pytest.mark.parametrize("family", ("coin", "alfworld"))
@pytest.mark.parametrize("name", NAMES)
def test_every_prompt_renders_with_its_parts(family, name):
    text = user_text(family, name)
    has = {part: getattr(prompts, part)[family] in text for part in ("ACTIONS", "GOALS", "HINTS")}
    expected = {
        "simple": (True, False, False),
        "detailed": (True, True, True),
        "without_hint": (True, True, False),
        "without_detailed_goal": (True, False, True),
        "generic": (False, False, False),
    }[name]
    assert tuple(has.values()) == expected
    assert (prompts.SIMPLE_GOAL in text) == (name in ("simple", "without_detailed_goal"))
    assert (prompts.GENERIC in text) == (name == "generic")
    assert text.startswith(prompts.ROLE)
    assert prompts.CONTRACT[True] in text and prompts.CONTRACT[False] not in text
    assert "Your task: find the coin" in text
    assert "> move north\nYou can't move there." in text
    assert "Commands the game accepts now: move north, look around" in text
    assert text.endswith("Write the first domain and problem files.")
    assert (
        Prompt(family, name).version
        == f"pddlego/{'any' if name == 'generic' else family}/{name}/v1"
    )


def test_the_generic_prompt_is_one_text_for_every_family_without_the_games_actions():
    coin, alfworld = user_text("coin", "generic"), user_text("alfworld", "generic")
    assert coin == alfworld == user_text("contingent", "generic")
    assert "(move ?from" not in coin and "GotoLocation" not in coin
    for family in prompts.ACTIONS:
        assert prompts.ACTIONS[family] not in coin
    assert user_text("coin", "simple") != user_text("alfworld", "simple")


@pytest.mark.parametrize(
    "family, name, message",
    [
        (
            "coin",
            "detailled",
            "unknown prompt 'detailled': one of simple, detailed, without_hint, "
            "without_detailed_goal, generic",
        ),
        ("coin", "", "unknown prompt '': one of simple"),
        (
            "blocksworld",
            "simple",
            "unknown prompt family 'blocksworld': one of ('coin', 'alfworld', 'contingent')",
        ),
    ],
)
def test_a_prompt_with_an_unknown_name_is_refused(family, name, message):
    with pytest.raises(ValueError) as error:
        Prompt(family, name)
    assert str(error.value).startswith(message)


def test_each_trigger_says_why_files_are_asked_for():
    files = Files("(define (domain d))", "(define (problem p))")
    growth = user_text(
        "coin",
        "detailed",
        Request(
            "t",
            "growth",
            ("obs",),
            (),
            new_observations=("> move north\nYou are in the hall.",),
            files=files,
        ),
    )
    assert "Your last plan ran. New observations:\n> move north\nYou are in the hall." in growth
    assert "Your domain file so far:\n(define (domain d))" in growth
    assert "Your problem file so far:\n(define (problem p))" in growth
    solver = user_text(
        "coin",
        "simple",
        Request("t", "solver_error", ("obs",), (), files=files, error="planner: no plan"),
    )
    assert "Your files could not be used: planner: no plan\n" in solver
    simulation = user_text(
        "coin",
        "simple",
        Request(
            "t",
            "simulation_error",
            ("obs",),
            (),
            files=files,
            error="the door is closed",
            succeeded=("open door to east", "move east"),
        ),
    )
    assert "A step of your plan failed in the game: the door is closed\n" in simulation
    assert "succeeded since your last files: open door to east, move east." in simulation
    assert "failed twice" not in simulation
    nothing = user_text(
        "coin",
        "simple",
        Request("t", "simulation_error", ("obs",), (), error="x", repeated="move north"),
    )
    assert "succeeded since your last files: none." in nothing
    assert nothing.endswith(
        "Note: 'move north' has now failed twice in a row. Do not plan it "
        "again unless your files change what makes it fail."
    )


def test_a_frozen_domain_is_shown_and_only_the_problem_asked_for():
    request = Request(
        "t",
        "solver_error",
        ("obs",),
        (),
        files=Files(DOMAIN, "(old pf)"),
        error="e",
        frozen_df=DOMAIN,
    )
    text = user_text("alfworld", "detailed", request)
    assert prompts.CONTRACT[False] in text and prompts.CONTRACT[True] not in text
    assert f"The domain file (fixed):\n{DOMAIN}" in text
    assert "Your domain file so far" not in text and "Your problem file so far:\n(old pf)" in text


def test_the_model_writer_reads_files_or_says_why_not():
    model = ScriptedModel(
        [
            '{"df": "(define (domain d))", "pf": "(define (problem p))"}',
            "No PDDL today.",
            "(define (problem p2))",
        ]
    )
    writer = ModelWriter(model, Prompt("coin", "simple"), temperature=0)
    assert (writer.name, writer.prompt_version) == ("scripted", "pddlego/coin/simple/v1")
    draft = writer.write(REQUEST)
    assert draft.files == Files("(define (domain d))", "(define (problem p))")
    assert draft.problem is None and draft.usage.calls == 1
    assert model.prompts[0] == render(Prompt("coin", "simple"), REQUEST)
    draft = writer.write(REQUEST)
    assert draft.files is None and draft.reply == "No PDDL today."
    assert draft.problem.startswith("the reply holds no domain file and no problem file")
    frozen = Request("t", "start", ("obs",), (), frozen_df="(define (domain fixed))")
    assert writer.write(frozen).files == Files("(define (domain fixed))", "(define (problem p2))")


def test_contingent_worlds_have_the_generic_prompt_only():
    assert prompts.GENERIC in user_text("contingent", "generic")
    with pytest.raises(ValueError, match="generic prompt only"):
        prompts.Prompt("contingent", "detailed")
