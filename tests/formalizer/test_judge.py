"""PDDLego+'s four error categories, computed from the hidden world: the truth judged
against itself is clean; each hand-made defect is found, and only it; real runs with a
flawed DF and with a hallucinated passage are blamed on the right file."""

import pytest
from judging import MODEL_DF, MODEL_FACTS, MODEL_ROOMS, model_pf, model_round, play, true_rounds

from planloop.formalizer import (
    CheckFailure,
    CommandMapper,
    Files,
    check,
    judge_episode,
    judge_round,
)

CATEGORIES = ("hallucinated", "forgotten", "bad_goal", "action_semantics")


def judged(round_, family="coin", previous=None):
    result = judge_round(round_, family, previous)
    assert result["judged"]
    return result


def errors(result):
    return {c: result[c] for c in CATEGORIES if result[c]}


@pytest.mark.slow
@pytest.mark.parametrize("family, rounds", [("coin", 3), ("alfworld", 6)])
def test_the_truth_judged_against_itself_is_clean(family, rounds):
    episode = judge_episode(list(true_rounds(family)), family)
    assert episode["rounds"] == episode["judged"] == rounds
    for category in CATEGORIES:
        assert episode[category] == episode[f"rounds_{category}"] == 0
    assert episode["regenerated"] == 0
    assert episode["facts_jaccard_truth"] == 1.0
    for result in episode["per_round"]:
        assert result["facts"] > 0 and not result["invented"] and not result["failed_steps"]
        assert result["stability"]["facts_jaccard_truth"] == 1.0


def test_renamed_predicates_and_names_are_no_error():
    """The true files with every predicate renamed, and the doors and the rooms behind
    them named by the model: facts match by their arguments, the names are bound."""
    truth = true_rounds("coin")[1]
    renames = {
        "player-at": "at",
        "connected": "link",
        "blocked": "door-shut",
        "closed": "is-closed",
        "door-between": "door-on",
        "free": "empty-slot",
        "visited": "been-in",
        "unknown-north-of-corridor": "room_n",
        "unknown-south-of-corridor": "room_s",
        "unknown-east-of-kitchen": "room_e",
        "sliding_patio_door_backyard_corridor": "patio_door",
        "wood_door_bedroom_corridor": "wood_door",
        "plain_door_kitchen_pantry": "door_3",
    }

    def rename(text):
        for old, new in renames.items():
            text = (
                text.replace(f"({old} ", f"({new} ")
                .replace(f" {old} ", f" {new} ")
                .replace(f" {old})", f" {new})")
            )
        return text

    pf = rename(truth["pf"])
    assert "(link corridor room_n north)" in pf and "(door-on patio_door corridor room_n)" in pf
    result = judged(dict(truth, df=rename(truth["df"]), pf=pf))
    assert errors(result) == {} and result["facts"] == 19
    assert result["stability"]["facts_jaccard_truth"] == 1.0


def test_a_model_in_the_prompts_vocabulary_is_clean():
    """(at corridor) for (player-at corridor), (closed-door corridor room_north) for
    (blocked corridor unknown-north-of-corridor); no doors or slots: 11 of the 19 true
    facts are covered, all 11 model facts supported, Jaccard 11 / 19."""
    result = judged(model_round())
    assert errors(result) == {} and result["facts"] == 11
    assert result["stability"]["facts_jaccard_truth"] == pytest.approx(11 / 19)


def test_an_invented_object_and_its_fact_are_hallucinated():
    pf = model_pf(
        MODEL_FACTS + ("(located sofa kitchen)",), objects=MODEL_ROOMS + " - location sofa - item"
    )
    result = judged(model_round(pf))
    assert errors(result) == {"hallucinated": ["(located sofa kitchen)"]}
    assert result["invented"] == ["sofa"]
    assert result["stability"]["facts_jaccard_truth"] == pytest.approx(11 / 20)


def test_a_false_fact_about_observed_things_is_hallucinated():
    """A passage the kitchen does not have, between two rooms the truth knows."""
    result = judged(model_round(model_pf(MODEL_FACTS + ("(connected kitchen corridor north)",))))
    assert errors(result) == {"hallucinated": ["(connected kitchen corridor north)"]}
    assert result["invented"] == []


def test_a_dropped_observed_passage_is_forgotten():
    facts = tuple(f for f in MODEL_FACTS if f != "(connected corridor kitchen east)")
    result = judged(model_round(model_pf(facts)))
    assert errors(result) == {"forgotten": ["(connected corridor kitchen east)"]}
    assert result["stability"]["facts_jaccard_truth"] == pytest.approx(10 / 19)


def test_a_second_name_for_a_room_behind_a_door_is_bound_too():
    pf = model_pf(
        MODEL_FACTS + ("(connected corridor behind_door north)",),
        objects=MODEL_ROOMS + " behind_door - location",
    )
    result = judged(model_round(pf))
    assert errors(result) == {} and result["assumed"] == [] and result["facts"] == 12


def test_a_placeholder_for_a_room_the_truth_names_is_an_assumption():
    """East of the corridor the game shows the kitchen. A model that calls the room
    there room_x has assumed a room behind a real passage (not a hallucination), and
    lost the observed passage to the kitchen."""
    facts = [f for f in MODEL_FACTS if f != "(connected corridor kitchen east)"]
    pf = model_pf(
        facts + ["(connected corridor room_x east)"], objects=MODEL_ROOMS + " room_x - location"
    )
    result = judged(model_round(pf))
    assert result["assumed"] == ["roomx"] and result["invented"] == []
    assert errors(result) == {"forgotten": ["(connected corridor kitchen east)"]}
    assert result["facts"] == 10  # the assumed passage is not judged


def goal_check(pf):
    """The check record the policy writes for these files."""
    try:
        check(Files(MODEL_DF, pf), CommandMapper(), [], planner="auto")
    except CheckFailure as failure:
        return {"stage": failure.stage, "message": failure.message}
    return None


@pytest.mark.parametrize(
    "goal, reason",
    [
        ("(and)", "the goal is empty"),
        ("(at corridor)", "the goal is already true in the initial state"),
    ],
)
def test_an_empty_or_already_true_goal_is_bad(goal, reason):
    pf = model_pf(goal=goal)
    result = judged(model_round(pf, check=goal_check(pf)))
    assert errors(result) == {"bad_goal": [reason]}


def test_a_goal_naming_an_unobserved_room_is_bad():
    pf = model_pf(objects=MODEL_ROOMS + " bedroom - location", goal="(at bedroom)")
    result = judged(model_round(pf))
    assert errors(result) == {"bad_goal": ["unobserved: bedroom"]}


def test_the_goal_check_needs_no_truth():
    pf = model_pf(goal="(and)")
    result = judge_round(model_round(pf, check=goal_check(pf), truth=None), "coin", None)
    assert not result["judged"] and result["bad_goal"] == ["the goal is empty"]


MOVE_WITHOUT_DOOR = "(:precondition (and (at ?from) (connected ?from ?to ?dir)))"
REFUSED = {
    "step": "(move corridor room_north north)",
    "command": "move north",
    "observation": "You can't move there, the door is closed. ",
    "ok": False,
}


def test_a_move_without_the_door_precondition_is_an_action_semantics_error():
    df = MODEL_DF.replace(
        ":precondition (and (at ?from) (connected ?from ?to ?dir) (not (closed-door ?from ?to)))",
        MOVE_WITHOUT_DOOR[1:-1],
    )
    assert df != MODEL_DF
    result = judged(model_round(df=df, plan=[REFUSED["step"]], steps=[REFUSED]))
    assert errors(result) == {"action_semantics": ["(move corridor room_north north)"]}
    assert result["failed_steps"] == [
        {
            "step": "(move corridor room_north north)",
            "command": "move north",
            "cause": "action_semantics",
            "facts": [],
        }
    ]


def test_a_refused_step_over_a_hallucinated_fact_is_blamed_on_the_fact():
    """The model claims a passage west of the corridor, which has none: the refused
    step is blamed on that fact, and the goal names a room behind no passage the truth
    knows."""
    step = {
        "step": "(move corridor garden west)",
        "command": "move west",
        "observation": "Unknown action: I'm not sure what you mean.",
        "ok": False,
    }
    pf = model_pf(
        MODEL_FACTS + ("(connected corridor garden west)",),
        objects=MODEL_ROOMS + " garden - location",
        goal="(at garden)",
    )
    result = judged(model_round(pf, steps=[step]))
    assert errors(result) == {
        "hallucinated": ["(connected corridor garden west)"],
        "bad_goal": ["unreachable: garden"],
    }
    assert result["invented"] == ["garden"]
    assert result["failed_steps"] == [
        dict(
            step="(move corridor garden west)",
            command="move west",
            cause="hallucinated",
            facts=["(connected corridor garden west)"],
        )
    ]


def test_a_real_run_with_a_flawed_move_is_blamed_on_the_domain():
    """The true files, but move does not need the door open: the planner walks into the
    closed door north of the corridor; the game refuses, five retries, same files."""
    door = "(and (player-at ?from) (connected ?from ?to ?d) (not (blocked ?from ?to)))"
    rounds = play(
        "coin",
        df=lambda text: text.replace(door, "(and (player-at ?from) (connected ?from ?to ?d))"),
    )
    assert [r["trigger"] for r in rounds] == ["start", "growth"] + ["simulation_error"] * 5
    episode = judge_episode(rounds, "coin")
    assert episode["action_semantics"] == episode["rounds_action_semantics"] == 6
    assert {k: episode[k] for k in ("hallucinated", "forgotten", "bad_goal")} == {
        "hallucinated": 0,
        "forgotten": 0,
        "bad_goal": 0,
    }
    assert episode["per_round"][1]["action_semantics"] == [
        "(move corridor unknown-north-of-corridor north)"
    ]
    assert episode["facts_jaccard_truth"] == 1.0


def test_a_real_run_with_a_hallucinated_passage_is_blamed_on_the_fact():
    """The true files plus a room north of the kitchen, which has no way north."""

    def secret(pf):
        head = pf.split("(:goal")[0].replace("(:objects ", "(:objects secret_room - room ")
        head = head.replace("(:init", "(:init\n    (connected kitchen secret_room north)")
        return head + "(:goal (and (player-at secret_room)))\n)\n"

    rounds = play("coin", pf=secret)
    assert [s["ok"] for r in rounds for s in r["steps"]] == [False] * 6
    episode = judge_episode(rounds, "coin")
    assert (episode["hallucinated"], episode["bad_goal"], episode["action_semantics"]) == (6, 6, 0)
    first = episode["per_round"][0]
    assert errors(first) == {
        "hallucinated": ["(connected kitchen secret_room north)"],
        "bad_goal": ["unreachable: secretroom"],
    }
    assert first["failed_steps"][0]["cause"] == "hallucinated"
    # 9 true facts, 10 model facts of which 9 supported: 9 / (10 + 9 - 9)
    assert first["stability"]["facts_jaccard_truth"] == pytest.approx(0.9)


ALFWORLD_DF = """(define (domain room)
  (:requirements :strips :typing :negative-preconditions)
  (:types receptacle item)
  (:predicates (at ?r - receptacle) (openable ?r - receptacle) (opened ?r - receptacle)
    (inReceptacle ?o - item ?r - receptacle) (holding ?o - item) (handempty))
  (:action GotoLocation
    :parameters (?from - receptacle ?to - receptacle)
    :precondition (at ?from)
    :effect (and (not (at ?from)) (at ?to)))
  (:action OpenObject
    :parameters (?r - receptacle)
    :precondition (and (at ?r) (openable ?r) (not (opened ?r)))
    :effect (opened ?r)))
"""
# ALFWorld instance 0, third round: at cabinet 2, cabinets 1 and 2 opened, a spray
# bottle in cabinet 2.
ALFWORLD_FACTS = (
    "(at cabinet_2)",
    "(openable cabinet_1)",
    "(openable cabinet_2)",
    "(openable cabinet_3)",
    "(openable cabinet_4)",
    "(opened cabinet_1)",
    "(opened cabinet_2)",
    "(inReceptacle spraybottle_1 cabinet_2)",
    "(handempty)",
)


def alfworld_round(*facts):
    pf = (
        "(define (problem p) (:domain room)\n (:objects cabinet_1 cabinet_2 cabinet_3 "
        "cabinet_4 - receptacle spraybottle_1 winebottle_1 - item)\n (:init "
        + " ".join(facts)
        + ")\n (:goal (and (at cabinet_3) (opened cabinet_3))))"
    )
    return {"df": ALFWORLD_DF, "pf": pf, "truth": true_rounds("alfworld")[2]["truth"]}


def test_alfworld_receptacles_name_their_places():
    """(at cabinet_2) matches (atlocation agent1 loc_...) at cabinet 2's place;
    (handempty) names nothing and is not judged."""
    result = judged(alfworld_round(*ALFWORLD_FACTS), "alfworld")
    assert errors(result) == {} and result["facts"] == 8


@pytest.mark.parametrize(
    "dropped, added, expected",
    [
        ((), ("(opened cabinet_3)",), {"hallucinated": ["(opened cabinet_3)"]}),
        (
            (),
            ("(inReceptacle winebottle_1 cabinet_1)",),
            {"hallucinated": ["(inreceptacle winebottle_1 cabinet_1)"]},
        ),
        (
            ("(inReceptacle spraybottle_1 cabinet_2)",),
            (),
            {"forgotten": ["(inreceptacle spraybottle_1 cabinet_2)"]},
        ),
        (
            ("(inReceptacle spraybottle_1 cabinet_2)",),
            ("(inReceptacle spraybottle_1 cabinet_1)",),
            {
                "hallucinated": ["(inreceptacle spraybottle_1 cabinet_1)"],
                "forgotten": ["(inreceptacle spraybottle_1 cabinet_2)"],
            },
        ),
    ],
)
def test_alfworld_defects(dropped, added, expected):
    """A closed cabinet said open (opened is the truth's own predicate, so it is held to
    it), the paper's invented wine bottle, a forgotten object, a misplaced one."""
    facts = [f for f in ALFWORLD_FACTS if f not in dropped] + list(added)
    assert errors(judged(alfworld_round(*facts), "alfworld")) == expected


@pytest.mark.parametrize("fact", ["(is-open cabinet_3)", "(at cabinet_3)"])
def test_a_false_property_under_a_renamed_predicate_is_not_detected(fact):
    """The documented blind spot: a predicate the truth lacks is matched by its
    arguments, and the truth's (openable cabinet_3) has the same ones."""
    df = ALFWORLD_DF.replace("(handempty))", "(handempty) (is-open ?r - receptacle))")
    round_ = alfworld_round(*ALFWORLD_FACTS, fact) | {"df": df}
    assert errors(judged(round_, "alfworld")) == {}


def test_unreadable_files_are_not_judged_and_never_raise():
    for pf in (None, "", "(define (problem", "(define (problem p) (:domain house) (:init (at)))"):
        round_ = model_round(check={"stage": "syntax", "message": "bad"}) | {"pf": pf}
        result = judge_round(round_, "coin", None)
        assert not result["judged"] and all(not result[c] for c in CATEGORIES)
        assert result["stability"]["facts"] == 0
    with pytest.raises(ValueError):
        judge_round(model_round(), "blocksworld", None)


def test_a_real_run_with_a_forgotten_door_is_blamed_on_the_missing_fact():
    """The true files without the doors' closed and blocked facts: the planner walks
    into the closed door north of the corridor, and the refused steps are blamed on the
    true fact the PF left out, not on the domain."""

    def doorless(pf):
        return "\n".join(
            line for line in pf.splitlines() if "(closed " not in line and "(blocked " not in line
        )

    rounds = play("coin", pf=doorless)
    refused = [s for r in rounds for s in r["steps"] if s["ok"] is False]
    assert refused and all(s["command"] == "move north" for s in refused)
    episode = judge_episode(rounds, "coin")
    assert episode["action_semantics"] == episode["hallucinated"] == 0
    failed = [f for j in episode["per_round"] for f in j["failed_steps"]]
    assert len(failed) == len(refused) and {f["cause"] for f in failed} == {"forgotten"}
    assert "(blocked corridor unknown-north-of-corridor)" in failed[0]["facts"]
    assert episode["rounds_forgotten"] == len(refused)
