"""The symbol-agnostic repair pipeline on Mystery-BW-v0, with scripted models that make
each failure its strategies target."""

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.llm import LLMError, ScriptedModel
from planloop.pddl import Step, load, parse_command, solve
from planloop.policies import RepairPipelinePolicy, run_episode
from planloop.policies.repair.consistency import check_consistency
from planloop.policies.repair.constraints import extract_constraints, render_constraints
from planloop.policies.repair.translate import translate

# Instance 4 as the agent sees it: goal (craves b d) (craves d c); the initial state has
# (craves b a), (province b c d), (planet a c d) and (harmony).
INSTANCE = 4
OPTIMAL = ["(attack d)", "(overcome d c)", "(feast b a)", "(overcome b d)"]
SLOPPY_OPTIMAL = (
    "Here is the plan:\n1. Attack D\n2. overcome(d, c)\n3) FEAST b, a\n- (overcome b d)."
)


def _info(instance: int = INSTANCE) -> dict:
    return gym.make("Mystery-BW-v0").reset(options={"instance": instance})[1]


def _run(replies, **options):
    model = ScriptedModel(replies)
    episode = run_episode(
        gym.make("Mystery-BW-v0"),
        RepairPipelinePolicy(model, **options),
        options={"instance": INSTANCE},
    )
    return episode, model


def _repaired(first_reply: str):
    """A wrong first reply, then the optimal plan in a sloppy format."""
    episode, model = _run([first_reply, SLOPPY_OPTIMAL])
    assert episode.won and episode.details["outcome"] == "model"
    assert episode.details["stop"] == "valid" and model.calls == 2
    assert list(episode.actions) == OPTIMAL
    first, second = episode.details["attempts"]
    assert second["validation"]["valid"] and second["strategy"] is None
    assert model.prompts[1][-1]["content"].startswith(first["feedback"])
    assert model.prompts[1][-2] == {"role": "assistant", "content": first_reply}
    return first


def test_the_optimal_plan_is_the_one_bfs_finds():
    info = _info()
    assert list(solve(info["domain_pddl"], info["problem_pddl"], planner="bfs").plan) == OPTIMAL


def test_a_wrong_first_step_gets_the_first_step_constraint():
    first = _repaired("(overcome d c)\n(feast b a)\n(overcome b d)")
    assert first["stepwise"] == {
        "executed": 0,
        "failed_step": 1,
        "action": "(overcome d c)",
        "unmet": ["(pain d)"],
    }
    assert first["strategy"] == "first_step"
    task = load(_info()["domain_pddl"], _info()["problem_pddl"])
    applicable = [a.text for a in task.applicable(task.init)]
    assert sorted(applicable) == ["(attack c)", "(attack d)", "(feast b a)"]
    assert all(action in first["feedback"] for action in applicable)
    assert "(pain d)" in first["feedback"]


def test_a_missing_precondition_mid_plan_gets_precondition_probing():
    first = _repaired("(attack d)\n(overcome d c)\n(overcome b d)")
    assert first["stepwise"]["failed_step"] == 3 and first["stepwise"]["unmet"] == ["(pain b)"]
    assert first["strategy"] == "precondition_probing"
    achievers = first["feedback"].split("- (pain b): ")[1].split("\n")[0].split(", ")
    assert achievers[0] == "(feast b a)"  # the one that applies there comes first
    assert "(attack b)" in achievers and "(succumb b)" not in achievers


def test_swapped_arguments_get_the_swapped_step_proposed_and_landmarks():
    first = _repaired(
        "1. attack d\n2. overcome c d\n3. feast b a\n4. overcome b d\n5. overcome d c"
    )
    assert first["stepwise"]["failed_step"] == 2
    assert first["strategy"] == "parameter_swap_landmarks"
    assert first["proposal"] == "(overcome d c)" and "(overcome d c) applies" in first["feedback"]
    assert "(pain b), (pain d)" in first["feedback"]  # landmarks every plan achieves


def test_a_plan_that_runs_but_misses_the_goal_gets_goal_facts_and_landmarks():
    first = _repaired("(attack d)\n(overcome d c)\n(feast b a)\n(overcome b d)\n(feast b d)")
    assert first["consistency"] == []  # every goal fact is added by a step: simulated
    assert first["stepwise"] == {"executed": 5, "failed_step": None, "action": None, "unmet": []}
    assert first["validation"] == {
        "valid": False,
        "failure": "goal",
        "missing_goal": ["(craves b d)"],
    }
    assert first["caught_by"] == ["validation"]
    assert first["strategy"] == "parameter_swap_landmarks" and first["proposal"] is None
    assert "Goal facts still missing: (craves b d)." in first["feedback"]
    assert "(pain b)" in first["feedback"].split("Every plan must")[1]


def test_a_goal_fact_no_step_adds_is_caught_by_the_reachability_check():
    first = _repaired("(attack d)\n(overcome d c)")
    assert [(i["step"], i["kind"], i["check"]) for i in first["consistency"]] == [
        (0, "goal_unreachable", "reachability")
    ]
    assert "(craves b d)" in first["consistency"][0]["message"]
    assert first["stepwise"] is None and first["validation"] is None  # never simulated
    assert first["caught_by"] == ["reachability"]
    assert first["strategy"] == "parameter_swap_landmarks"
    assert "(pain b)" in first["feedback"].split("Every plan must")[1]


def test_an_inconsistent_plan_is_screened_before_simulation_and_retried():
    first = _repaired("(pickup d)\n(attack d c)\n(attack z)")
    assert [i["kind"] for i in first["consistency"]] == [
        "unknown_action",
        "arity",
        "unknown_object",
    ]
    assert first["stepwise"] is None and first["validation"] is None
    assert first["caught_by"] == ["names"]
    assert first["strategy"] == "budget_retry" and "'pickup'" in first["feedback"]


def test_translation_tolerates_numbering_case_parentheses_and_commas():
    text = (
        "Plan:\n```\n1. Attack A\n2) (FEAST c, b)\nStep 3: overcome(a, c)\n- succumb a.\n"
        "(attack b) (overcome b a) ; two on a line\nattack c\n```\nThis reaches the goal."
    )
    found = translate(text, ["attack", "succumb", "overcome", "feast"])
    assert found.commands == [
        "(attack a)",
        "(feast c b)",
        "(overcome a c)",
        "(succumb a)",
        "(attack b)",
        "(overcome b a)",
        "(attack c)",
    ]
    assert found.skipped == ("Plan:", "This reaches the goal")


def test_consistency_reports_every_problem_with_its_kind():
    typed = load(
        """(define (domain t) (:requirements :typing) (:types box room)
      (:predicates (in ?b - box ?r - room))
      (:action move :parameters (?b - box ?r - room) :precondition (and) :effect (in ?b ?r)))""",
        "(define (problem p) (:domain t) (:objects b1 - box r1 - room) (:init) (:goal (in b1 r1)))",
    )
    issues = check_consistency(
        typed,
        (
            Step("jump", ("b1",)),
            Step("move", ("b1",)),
            Step("move", ("r1", "b9")),
            Step("move", ("b1", "r1")),
        ),
    )
    assert [(i.step, i.kind) for i in issues] == [
        (1, "unknown_action"),
        (2, "arity"),
        (3, "type"),
        (3, "unknown_object"),
    ]
    assert "must be box" in issues[2].message
    assert [i.kind for i in check_consistency(typed, ())] == ["empty"]


def test_without_repair_fresh_samples_get_no_feedback():
    episode, model = _run(["(attack d)\n(overcome d c)", SLOPPY_OPTIMAL], repair=False)
    assert model.calls == 2 and episode.won and episode.details["outcome"] == "model"
    assert model.prompts[1] == model.prompts[0]  # the same prompt, resampled
    assert episode.details["attempts"][0]["strategy"] == "resample"
    assert episode.details["attempts"][0]["feedback"] is None


def test_without_repair_the_budget_ends_it():
    episode, model = _run(["(attack d)\n(overcome d c)"] * 3, repair=False, max_attempts=3)
    assert model.calls == 3 and not episode.won
    assert episode.details["stop"] == "budget" and episode.details["outcome"] == "failed"
    assert list(episode.actions) == ["(attack d)", "(overcome d c)"]  # played, env judges


def test_without_stepwise_validation_the_repair_sees_only_a_verdict():
    wrong = "(attack b)\n(overcome b d)\n(attack d)\n(overcome d c)"  # step 1 fails
    episode, model = _run([wrong, SLOPPY_OPTIMAL], stepwise=False)
    assert episode.won and model.calls == 2
    first = episode.details["attempts"][0]
    assert first["stepwise"] is None and first["validation"] == {"valid": False}
    assert first["strategy"] == "budget_retry" and first["caught_by"] == ["validation"]
    assert "(planet b)" not in first["feedback"] and "step 1" not in first["feedback"].lower()
    assert episode.details["catches"] == {
        "names": 0,
        "invariants": 0,
        "reachability": 0,
        "stepwise": 0,
        "validation": 1,
    }


def test_shallow_constraints_give_only_the_action_signatures():
    prompts = {}
    for deep in (True, False):
        _, model = _run([SLOPPY_OPTIMAL], deep_constraints=deep)
        prompts[deep] = model.prompts[0][-1]["content"]
    for prompt in prompts.values():
        assert "(overcome ?1 - object ?2 - object)" in prompt
    assert "- overcome: requires (province ?2) (pain ?1); adds" in prompts[True]
    deep = [
        "overcome requires (pain ?1): after (attack ?1) or (feast ?1 ?*)",  # a dependency
        "attack deletes (harmony): then (attack ?*), (feast ?* ?*) cannot apply",  # a mutex
        "- level 1: (pain b) (pain d)\n- level 2: (craves b d) (craves d c)",  # landmarks
    ]
    for text in deep:
        assert text in prompts[True] and text not in prompts[False]
    assert "requires" not in prompts[False] and "Landmarks" not in prompts[False]


@pytest.mark.parametrize("min_gain, calls, stop", [(0.05, 3, "no_gain"), (0.0, 5, "budget")])
def test_budget_adaptive_retry_stops_when_attempts_stop_gaining(min_gain, calls, stop):
    model = ScriptedModel(lambda messages: "(overcome d c)")
    episode = run_episode(
        gym.make("Mystery-BW-v0"),
        RepairPipelinePolicy(model, max_attempts=5, min_gain=min_gain),
        options={"instance": INSTANCE},
    )
    assert model.calls == calls and episode.details["stop"] == stop
    assert [a["progress"] for a in episode.details["attempts"]] == [0.0] * calls
    assert episode.details["outcome"] == "failed" and not episode.won


def test_progress_that_keeps_growing_keeps_the_retries_going():
    replies = [  # each adds every goal fact somewhere: simulated, never screened
        "(attack b)\n(overcome b d)\n(attack d)\n(overcome d c)",
        "(attack d)\n(overcome d c)\n(overcome b d)",
        "(attack d)\n(overcome d c)\n(feast b a)\n(overcome b c)\n(overcome b d)",
        SLOPPY_OPTIMAL,
    ]
    episode, model = _run(replies, min_gain=0.05)
    progress = [a["progress"] for a in episode.details["attempts"]]
    assert model.calls == 4 and episode.won
    assert progress[0] == 0.0 and progress[1] < progress[2] < progress[3] == 1.0


def test_a_solver_fallback_is_a_separate_outcome_never_the_models():
    episode, model = _run(
        lambda messages: "(overcome d c)\n(overcome b d)",
        max_attempts=2,
        solver_fallback="lama-first",
    )
    assert model.calls == 2 and episode.won
    assert episode.details["outcome"] == "fallback"
    assert not any(a["validation"]["valid"] for a in episode.details["attempts"])
    fallback = episode.details["fallback"]
    assert fallback["planner"] == "lama-first" and fallback["status"] == "solved"
    assert list(episode.actions) == fallback["plan"]


def test_a_model_failure_is_recorded_by_the_runner():
    episode, _ = _run([LLMError("server", "down")])
    assert episode.error == "server: down" and not episode.won and episode.steps == 0
    assert episode.details["stop"] == "model_error" and episode.details["attempts"] == []
    assert episode.policy == "repair-pipeline" and episode.prompt_version == "repair-pipeline-v1"


def test_the_pipeline_works_on_random_symbols_alike():
    env = gym.make("MysteryRandom-BW-v0")
    info = env.reset(options={"instance": INSTANCE})[1]
    plan = solve(info["domain_pddl"], info["problem_pddl"], planner="bfs").plan
    model = ScriptedModel(["\n".join(plan[1:]), "\n".join(plan).upper()])  # step 1 missing
    episode = run_episode(env, RepairPipelinePolicy(model), options={"instance": INSTANCE})
    assert episode.won and episode.details["outcome"] == "model"
    first = episode.details["attempts"][0]
    assert first["strategy"] == "first_step" and plan[0] in first["feedback"]


LAMP = load(
    """(define (domain lamp) (:predicates (lit) (dark) (wings) (done))
  (:action on :parameters () :precondition (dark) :effect (and (lit) (not (dark))))
  (:action off :parameters () :precondition (lit) :effect (and (dark) (not (lit))))
  (:action read :parameters () :precondition (and (lit) (dark)) :effect (done))
  (:action fly :parameters () :precondition (wings) :effect (done)))""",
    "(define (problem p) (:domain lamp) (:init (dark)) (:goal (and (done) (lit))))",
)


def test_the_consistency_check_screens_invariants_and_reachability():
    issues = check_consistency(LAMP, (Step("on", ()), Step("read", ()), Step("fly", ())))
    assert [(i.step, i.kind, i.check) for i in issues] == [
        (2, "invariant", "invariants"),  # (lit) and (dark): proved never true together
        (3, "unreachable", "reachability"),  # no action adds (wings)
    ]
    assert "(read) needs (lit) and (dark) together" in issues[0].message
    assert "(fly) can never apply: no sequence of actions makes (wings) true" in issues[1].message
    [goal] = check_consistency(LAMP, (Step("on", ()), Step("off", ())))
    assert (goal.step, goal.kind) == (0, "goal_unreachable") and "(done)" in goal.message
    assert check_consistency(LAMP, (Step("on", ()), Step("off", ()), Step("on", ()))) != []
    assert (
        check_consistency(
            load(_info()["domain_pddl"], _info()["problem_pddl"]),
            tuple(Step(*parse_command(c)) for c in OPTIMAL),
        )
        == []
    )


def test_the_deep_constraints_hold_proved_mutexes_and_landmark_levels():
    constraints = extract_constraints(LAMP)
    assert [(str(a), str(b)) for a, b in constraints.mutexes] == [("(dark)", "(lit)")]
    assert [(level, [str(f) for f in facts]) for level, facts in constraints.landmarks] == [
        (1, ["(lit)"]),
        (2, ["(done)"]),
    ]
    text = render_constraints(constraints)
    assert "Facts that never hold together: (dark) and (lit)" in text
    assert "- on deletes (dark): then (on), (off)" not in text  # off needs (lit), not (dark)
    assert "- on deletes (dark): then (on), (read) cannot apply" in text
    assert constraints.counts() == {"dependency_chains": 5, "mutex_hints": 3, "landmarks": 2}
