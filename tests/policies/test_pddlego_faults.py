"""Fault injection into the PDDLego+ loop on CoinCollector.

The scripted model answers with the ground-truth files of the current state, with one
known defect written into its first answer(s). Each defect must reach the right loop
(a solver error: the round's ``check``; a simulation error: a ``simulation_error``
round), reach the model's next prompt with a message that names it, be recovered (the
game is won) and be counted. A model that never fixes it ends within its budget.
"""

import json
import re

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.formalizer import ModelWriter, Prompt, Request, ground_truth_writer
from planloop.llm import LLMError, ScriptedModel
from planloop.pddl import PlanResult, solve
from planloop.policies import PDDLegoPolicy, run_episode

# CoinCollector houses: two rooms, the coin behind the kitchen's one (closed) door to the
# north, so the first plan must open it; three rooms, the first plan goes south to the
# corridor (no door), the second back north and through the closed door to the east.
DOOR_FIRST = dict(num_locations=2, seed=1)
DOOR_SECOND = dict(num_locations=3, seed=7)


def goal_room(pf: str) -> str:
    return re.search(r"\(:goal \(and \(player-at (\S+)\)\)\)", pf).group(1)


def add_room(pf: str, room: str, facts: str = "") -> str:
    """``pf`` with one more room, ``facts`` about it, and the goal to go there."""
    pf = pf.replace("(:objects", f"(:objects {room} - room", 1)
    pf = pf.replace("(:init", f"(:init\n    {facts}", 1)
    return re.sub(r"\(:goal .*\)\n\)", f"(:goal (and (player-at {room})))\n)", pf)


DEFECTS = {  # name: (df, pf) -> (df, pf) with that one defect, or a whole reply
    "syntax": lambda df, pf: (df, re.sub(r"\(visited (\S+)\)", r"(visited \1", pf, count=1)),
    "undefined_predicate": lambda df, pf: (
        df.replace("(not (blocked ?from ?to))", "(not (door-closed ?from ?to))", 1),
        pf,
    ),
    "missing_connection": lambda df, pf: (
        df,
        re.sub(rf"\n *\(connected \S+ {goal_room(pf)} \w+\)", "", pf),
    ),
    "missing_precondition": lambda df, pf: (df.replace(" (not (blocked ?from ?to))", "", 1), pf),
    "unreachable_goal": lambda df, pf: (df, add_room(pf, "attic")),
    "hallucinated_fact": lambda df, pf: (
        df,
        add_room(pf, "garden", "(connected kitchen garden south)"),
    ),
    "forgotten_door": lambda df, pf: (
        df,
        re.sub(r"\n *\((closed|blocked|door-between) [^)]*\)", "", pf),
    ),
    # more solver errors, and a later step the game's commands cannot express
    "empty_goal": lambda df, pf: (df, re.sub(r"\(:goal .*\)\n\)", "(:goal (and))\n)", pf)),
    "true_goal": lambda df, pf: (
        df,
        re.sub(r"\(:goal .*\)\n\)", "(:goal (player-at kitchen))\n)", pf),
    ),
    "unmapped_first": lambda df, pf: (df.replace("(:action open-door", "(:action unlatch"), pf),
    "unmapped_later": lambda df, pf: (df.replace("(:action move", "(:action fly-through"), pf),
    "no_pddl": lambda df, pf: "I would open the door and go north.",
    "own_subtype": lambda df, pf: (df.replace("(:types room", "(:types room - room", 1), pf),
    "coin_elsewhere": lambda df, pf: (
        df,
        pf.replace("(in-room coin pantry)", "(in-room coin kitchen)"),
    ),
}


def true_reply(env) -> str:
    """The ground-truth files of ``env``'s current state, as the model's JSON."""
    files = (
        ground_truth_writer(env, "coin")
        .write(Request(task="", trigger="start", history=(), valid_commands=()))
        .files
    )
    return json.dumps({"df": files.df, "pf": files.pf})


def scripted(env, defect=None, calls=(0,)):
    """A model answering with the true files, with ``defect`` on the calls (0-based) in
    ``calls``."""

    def reply(messages):
        files = json.loads(true_reply(env))
        if defect is None or model.calls - 1 not in calls:
            return json.dumps(files)
        edited = DEFECTS[defect](files["df"], files["pf"])
        if isinstance(edited, str):
            return edited
        assert edited != (files["df"], files["pf"]), f"{defect} changed nothing"
        return json.dumps(dict(zip(("df", "pf"), edited, strict=True)))

    model = ScriptedModel(reply)
    return model


def play(house, model, max_steps=40, **options):
    env = gym.make("CoinCollector-v0", num_locations=house["num_locations"])
    if callable(model):
        model = model(env)
    policy = PDDLegoPolicy(ModelWriter(model, Prompt("coin", "detailed")), planner="bfs", **options)
    episode = run_episode(env, policy, seed=house["seed"], max_steps=max_steps)
    return episode, model


def prompt(model, call):
    return model.prompts[call][-1]["content"]


def counters(episode):
    return {
        k: episode.details[k]
        for k in ("solver_errors", "solver_fixed", "simulation_errors", "simulation_fixed")
    }


def test_the_true_files_win_without_errors():
    for house in (DOOR_FIRST, DOOR_SECOND):
        episode, _ = play(house, lambda env: scripted(env))
        assert episode.won and episode.details["stop"] is None
        assert set(counters(episode).values()) == {0}


# -- solver errors: the inner loop ----------------------------------------------------
@pytest.mark.parametrize(
    "defect, stage, named",
    [
        ("syntax", "syntax", r"problem error: line \d+, col \d+: unbalanced parentheses"),
        (
            "undefined_predicate",
            "syntax",
            r"domain error: line 17, col \d+: unknown predicate 'door-closed'",
        ),
        ("missing_connection", "planner", r"no plan reaches the goal .*\(connections"),
        (
            "unreachable_goal",
            "planner",
            r"no plan reaches the goal .*whether the goal is reachable",
        ),
    ],
)
def test_solver_error_is_sent_back_fixed_and_counted(defect, stage, named):
    episode, model = play(DOOR_FIRST, lambda env: scripted(env, defect))
    first, second = episode.details["rounds"][:2]
    assert first["check"]["stage"] == stage and re.search(named, first["check"]["message"])
    assert first["plan"] == [] and first["steps"] == []
    assert second["trigger"] == "solver_error" and second["check"] is None
    sent = prompt(model, 1)
    assert re.search("Your files could not be used: " + stage + ": .*" + named, sent)
    assert first["pf"] in sent and first["df"] in sent  # the files it is to fix
    assert "You are in the kitchen" in sent  # and the trajectory so far
    assert episode.won and episode.details["stop"] is None
    assert counters(episode) == {
        "solver_errors": 1,
        "solver_fixed": 1,
        "simulation_errors": 0,
        "simulation_fixed": 0,
    }


# -- simulation errors: the outer loop -------------------------------------------------
@pytest.mark.parametrize(
    "defect, command, answer",
    [
        ("missing_precondition", "move north", "You can't move there, the door is closed."),
        ("forgotten_door", "move north", "You can't move there, the door is closed."),
        ("hallucinated_fact", "move south", "Unknown action: I'm not sure what you mean."),
    ],
)
def test_simulation_error_is_sent_back_fixed_and_counted(defect, command, answer):
    episode, model = play(DOOR_FIRST, lambda env: scripted(env, defect))
    first, second = episode.details["rounds"][:2]
    assert first["check"] is None and first["steps"][-1]["command"] == command
    assert first["steps"][-1]["ok"] is False
    assert episode.actions[0] == command and episode.errors[0] is not None
    assert second["trigger"] == "simulation_error"
    step = first["steps"][-1]["step"]
    message = f"the step {step} was played as '{command}' and the game answered: {answer}"
    assert second["answers"] == message
    assert f"A step of your plan failed in the game: {message}" in prompt(model, 1)
    if defect == "hallucinated_fact":
        assert step == "(move kitchen garden south)"
    assert episode.won and episode.details["stop"] is None
    assert counters(episode) == {
        "solver_errors": 0,
        "solver_fixed": 0,
        "simulation_errors": 1,
        "simulation_fixed": 1,
    }


def test_simulation_error_after_steps_that_succeeded_names_them():
    # Second files (in the corridor) without the door precondition: back north works, east
    # walks into the closed door.
    episode, model = play(
        DOOR_SECOND, lambda env: scripted(env, "missing_precondition", calls=(1,))
    )
    rounds = episode.details["rounds"]
    assert [r["trigger"] for r in rounds[:3]] == ["start", "growth", "simulation_error"]
    assert [(s["command"], s["ok"]) for s in rounds[1]["steps"]] == [
        ("move north", True),
        ("move east", False),
    ]
    sent = prompt(model, 2)
    assert "'move east' and the game answered: You can't move there, the door is closed." in sent
    assert "The commands that succeeded since your last files: move north." in sent
    assert "> move east\nYou can't move there, the door is closed." in sent
    assert episode.won
    assert counters(episode) == {
        "solver_errors": 0,
        "solver_fixed": 0,
        "simulation_errors": 1,
        "simulation_fixed": 1,
    }


def test_a_later_step_that_names_no_command_is_a_simulation_error():
    episode, model = play(DOOR_FIRST, lambda env: scripted(env, "unmapped_later"))
    first = episode.details["rounds"][0]
    assert first["check"] is None and episode.actions[0] == "open door to north"
    assert [s["command"] for s in first["steps"]] == ["open door to north"]
    assert re.search(
        r"A step of your plan failed in the game: the step \(fly-through kitchen "
        r"\S+ north\) names no command the game accepts now \(valid now: .*move "
        r"north",
        prompt(model, 1),
    )
    assert "The commands that succeeded since your last files: open door to north." in prompt(
        model, 1
    )
    assert episode.won
    assert counters(episode) == {
        "solver_errors": 0,
        "solver_fixed": 0,
        "simulation_errors": 1,
        "simulation_fixed": 1,
    }


def test_a_simulation_error_fixed_by_the_winning_plan_is_counted():
    # In the pantry the second files put the coin back in the kitchen: 'take coin' fails
    # there, and the fixed plan (north, take coin) wins.
    episode, _ = play(DOOR_FIRST, lambda env: scripted(env, "coin_elsewhere", calls=(1,)))
    assert episode.won and episode.details["rounds"][2]["trigger"] == "simulation_error"
    assert counters(episode)["simulation_fixed"] == 1


@pytest.mark.parametrize(
    "defect, stage, named",
    [
        ("empty_goal", "goal", "the goal is empty: set a goal the plan should reach"),
        ("true_goal", "goal", "the goal is already true in the initial state"),
        (
            "unmapped_first",
            "mapping",
            r"the plan's first step, \(unlatch .*\), names no command "
            r"of the game; the game's commands look like: .*move north",
        ),
        (
            "no_pddl",
            "syntax",
            re.escape(
                "the reply holds no domain file and no problem file: write each as a complete "
                '(define ...) form, or answer with JSON {"df": ..., "pf": ...}'
            ),
        ),
    ],
)
def test_other_solver_errors_reach_the_inner_loop(defect, stage, named):
    episode, model = play(DOOR_FIRST, lambda env: scripted(env, defect))
    first = episode.details["rounds"][0]
    assert first["check"]["stage"] == stage and re.search(named, first["check"]["message"])
    assert re.search(f"Your files could not be used: {stage}: {named}", prompt(model, 1))
    if defect == "no_pddl":  # not a crash: the reply is kept, there are no files
        assert first["reply"] == "I would open the door and go north." and first["pf"] is None
    assert episode.won and counters(episode) == {
        "solver_errors": 1,
        "solver_fixed": 1,
        "simulation_errors": 0,
        "simulation_fixed": 0,
    }


def test_planner_timeout_is_a_solver_error():
    calls = []

    def solver(domain, problem, **options):  # the first search runs out of time
        calls.append(options)
        result = solve(domain, problem, **options)
        if len(calls) == 1:
            return PlanResult("timeout", None, "no plan within 0.01 s", 0.01, "bfs")
        return result

    episode, model = play(DOOR_FIRST, lambda env: scripted(env), solver=solver, planner_timeout=7.0)
    assert calls[0] == {"planner": "bfs", "timeout": 7.0, "strict": False}
    assert episode.details["rounds"][0]["check"] == {
        "stage": "planner",
        "message": "the planner found no plan within its time limit (no plan within 0.01 s)",
    }
    assert "the planner found no plan within its time limit" in prompt(model, 1)
    assert episode.won and counters(episode)["solver_fixed"] == 1


# -- budgets ----------------------------------------------------------------------------
@pytest.mark.parametrize("retries", [2, 5])
def test_a_solver_error_never_fixed_ends_within_the_budget(retries):
    episode, model = play(
        DOOR_FIRST, lambda env: scripted(env, "syntax", calls=range(99)), max_solver_retries=retries
    )
    assert model.calls == retries + 1 and episode.steps == 0
    assert episode.gave_up and not episode.won and episode.error is None
    assert episode.details["stop"].startswith(
        f"solver error not fixed after {retries} retries: syntax: problem error: line "
    )
    assert "unbalanced parentheses" in episode.details["stop"]
    assert counters(episode) == {
        "solver_errors": retries + 1,
        "solver_fixed": 0,
        "simulation_errors": 0,
        "simulation_fixed": 0,
    }


def test_a_simulation_error_never_fixed_ends_within_the_budget_and_repeats_are_named():
    episode, model = play(
        DOOR_FIRST,
        lambda env: scripted(env, "forgotten_door", calls=range(99)),
        max_simulation_retries=2,
    )
    assert model.calls == 3 and episode.actions == ("move north",) * 3
    assert episode.gave_up and not episode.won
    assert episode.details["stop"].startswith(
        "simulation error not fixed after 2 retries: the step (move kitchen "
    )
    assert episode.details["stop"].endswith("You can't move there, the door is closed.")
    assert counters(episode) == {
        "solver_errors": 0,
        "solver_fixed": 0,
        "simulation_errors": 3,
        "simulation_fixed": 0,
    }
    twice = "'move north' has now failed twice in a row"
    assert twice not in prompt(model, 1) and twice in prompt(model, 2)


def test_a_repeated_failure_is_named_then_fixed():
    episode, model = play(
        DOOR_FIRST, lambda env: scripted(env, "missing_precondition", calls=(0, 1))
    )
    assert "failed twice in a row" in prompt(model, 2)
    assert "failed twice" not in prompt(model, 3)  # the next plan ran: forgotten
    assert episode.won
    assert counters(episode) == {
        "solver_errors": 0,
        "solver_fixed": 0,
        "simulation_errors": 2,
        "simulation_fixed": 1,
    }


@pytest.mark.parametrize(
    "defect, retries",
    [("syntax", "max_solver_retries"), ("forgotten_door", "max_simulation_retries")],
)
def test_without_error_fixing_the_first_error_ends_the_episode(defect, retries):
    episode, model = play(
        DOOR_FIRST,
        lambda env: scripted(env, defect, calls=range(99)),
        error_fixing=False,
        **{retries: 5},
    )
    assert model.calls == 1 and episode.gave_up and not episode.won
    assert episode.details["stop"].startswith(
        ("solver" if defect == "syntax" else "simulation") + " error not fixed after 0 retries"
    )
    assert episode.steps == (defect != "syntax")


def test_a_failing_model_call_is_the_episodes_error():
    episode, model = play(DOOR_FIRST, ScriptedModel([LLMError("server", "503 overloaded")]))
    assert episode.error == "server: 503 overloaded" and not episode.won
    assert episode.steps == 0 and not episode.gave_up and model.calls == 1

    def once(env):  # right once, then the model fails: the steps played are kept
        model = ScriptedModel(
            lambda messages: true_reply(env) if model.calls == 1 else RuntimeError("quota exceeded")
        )
        return model

    episode, _ = play(DOOR_FIRST, once)
    assert episode.error == "client: RuntimeError: quota exceeded"
    assert episode.actions == ("open door to north", "move north") and not episode.won


def test_a_dialect_planners_accept_plays_with_its_warnings_recorded():
    episode, _ = play(DOOR_FIRST, lambda env: scripted(env, "own_subtype", calls=range(99)))
    assert episode.won and counters(episode)["solver_errors"] == 0
    rounds = episode.details["rounds"]
    assert episode.details["warnings"] == sum(len(r["warnings"]) for r in rounds) >= 1
    [warning] = rounds[0]["warnings"]
    assert warning["stage"] == "domain" and warning["line"] and warning["col"]
    assert "type 'room' is listed among its own subtypes" in warning["message"]
    assert all(step["why"] for r in rounds for step in r["steps"])
    strict, _ = play(
        DOOR_FIRST, lambda env: scripted(env, "own_subtype", calls=range(99)), strict_pddl=True
    )
    assert not strict.won and strict.details["rounds"][0]["check"]["stage"] == "syntax"
