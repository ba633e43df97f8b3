"""experiments/pddlego.py on a contingent PDDL environment: the model writes the files,
the plan's steps are the game's own commands (a sensing step too), the loop grows the
files with what was sensed, and the hidden world judges the episode."""

import json

from planloop.llm import ScriptedModel

from conftest import load_experiment

SENSE_DF = """(define (domain kb) (:requirements :strips) (:predicates (checked ?a ?b))
 (:action senseon :parameters (?a ?b) :precondition (and) :effect (checked ?a ?b)))"""
SENSE_PF = "(define (problem p) (:domain kb) (:objects b1 b2) (:init) (:goal (checked b2 b1)))"
MOVE_DF = """(define (domain bw) (:requirements :strips)
 (:predicates (clear ?x) (on-table ?x) (on ?x ?y))
 (:action move-t-to-b :parameters (?bm ?bt)
  :precondition (and (clear ?bm) (clear ?bt) (on-table ?bm))
  :effect (and (not (clear ?bt)) (not (on-table ?bm)) (on ?bm ?bt))))"""
MOVE_PF = """(define (problem p) (:domain bw) (:objects b1 b2)
 (:init (clear b1) (clear b2) (on-table b1) (on-table b2)) (:goal (on b1 b2)))"""


def test_the_loop_senses_then_plans_and_wins_a_contingent_world(tmp_path):
    replies = iter(
        json.dumps({"df": df, "pf": pf}) for df, pf in ((SENSE_DF, SENSE_PF), (MOVE_DF, MOVE_PF))
    )
    model = ScriptedModel(lambda messages: next(replies))
    study = load_experiment("pddlego")
    args = [
        "--env",
        "Contingent-Blocks-v0",
        "--instances",
        "0",
        "--llm",
        "x",
        "--out",
        str(tmp_path),
    ]
    assert study.main(args, model=model) == 0
    (record,) = [json.loads(line) for line in (tmp_path / "episodes.jsonl").open()]
    # instance 0's hidden world has b2 on the table: sensing (on b2 b1) makes the move known
    assert record["won"] and record["actions"] == ["(senseon b2 b1)", "(move-t-to-b b1 b2)"]
    assert record["prompt_version"] == "pddlego/any/generic/v1"
    rounds = record["details"]["rounds"]
    assert rounds[1]["trigger"] == "growth" and "Sensed" in rounds[0]["steps"][0]["observation"]
    assert record["judgement"] is None  # no judging rules for contingent worlds


def test_a_contingent_world_has_the_generic_prompt_and_no_ground_truth(tmp_path, capsys):
    study = load_experiment("pddlego")
    base = ["--env", "Contingent-Blocks-v0", "--instances", "0", "--out", str(tmp_path)]
    assert study.main([*base, "--llm", "x", "--prompt", "detailed"], model=ScriptedModel([])) == 2
    assert "generic prompt only: --prompt generic" in capsys.readouterr().err
    assert study.main([*base, "--llm", "groundtruth"]) == 2
    assert "no ground-truth formalizer for Contingent-Blocks-v0" in capsys.readouterr().err
