"""``benchmarks/first_command_agreement.py``: the authors' rule for commands, the
agreement counts on hand-made calls, and a run on a corpus folder (a hand-made one, and
a slice of the real one when it is there)."""

import gzip
import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "first_command_agreement.py"


def bench():
    """The script as a module, registered so that its workers can be sent its functions."""
    spec = importlib.util.spec_from_file_location("first_command_agreement", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_coin_steps_become_commands_by_the_authors_rule():
    plan = ["(open-door kitchen patio south)", "(look kitchen)", "(MOVE KITCHEN PATIO SOUTH)"]
    assert bench().authors_commands(plan, "coin") == ["open door to south", "move south"]


def test_alfworld_steps_become_commands_by_the_authors_rule():
    plan = [
        "(gotolocation agent1 countertop1 fridge1)",
        "(openobject fridge1)",
        "(pickupobject mug1 fridge1)",
        "(examinereceptacle fridge1)",
        "(putobject mug1 sinkbasin_2)",
        "(sliceobject countertop1 apple1 knife1)",
        "(pickupobject mug1)",
    ]
    assert bench().authors_commands(plan, "alfworld") == [
        "go to fridge 1",
        "open fridge 1",
        "take mug 1 from fridge 1",
        "move mug 1 to sinkbasin_ 2",
        "slice apple 1 with knife 1",
    ]


def call(ident: str, pf: str, first: str, valid: list[str]) -> dict:
    return {
        "id": ident,
        "env": "coin",
        "df_sha": "d",
        "pf_sha": pf,
        "valid": valid,
        "recorded": {"actions": [first], "outcome": "plan"},
        "context": ((tuple(valid),), tuple(valid)),
    }


def test_agreement_counts_calls_not_pairs():
    module = bench()
    valid = ["move south", "open door to south"]
    calls = [
        call("a#0", "p1", "move south", valid),
        call("a#1", "p1", "move south", valid),
        call("b#0", "p2", "open door to south", valid),
        call("c#0", "p3", "move south", valid),
        call("d#0", "p4", "move south", valid),  # not planned here: left out
    ]
    records = {
        ("d", "p1"): {"plan": ["(move kitchen patio south)"], "policy": ["move south"]},
        ("d", "p2"): {"plan": ["(move kitchen patio south)"], "policy": ["move south"]},
        ("d", "p3"): {"plan": None},
    }
    found = module.agreement(calls, records, module.contexts(calls))
    assert found == {"coin": Counter(calls=4, planned=3, planner=2, policy=2)}


DOMAIN = """(define (domain rooms) (:requirements :typing)
  (:types location direction)
  (:predicates (at ?l - location) (open ?d - direction))
  (:action open-door :parameters (?from - location ?to - location ?d - direction)
    :precondition (at ?from) :effect (open ?d))
  (:action move :parameters (?from - location ?to - location ?d - direction)
    :precondition (and (at ?from) (open ?d)) :effect (and (at ?to) (not (at ?from)))))"""
PROBLEM = """(define (problem p) (:domain rooms)
  (:objects kitchen patio - location south - direction)
  (:init (at kitchen) (open south)) (:goal (at patio)))"""


def write(folder: Path, name: str, rows: list[dict]) -> None:
    with gzip.open(folder / name, "wt") as out:
        out.writelines(json.dumps(row) + "\n" for row in rows)


def test_a_corpus_folder_gives_the_table(tmp_path, capsys):
    valid = ["move south", "open door to south"]
    rows = [
        {
            "id": f"log#{k}",
            "path": "log",
            "env": "coin",
            "df_sha": "d",
            "pf_sha": "p",
            "valid": valid,
            "valid_seen": 1,
            "recorded": {"actions": [first], "outcome": "plan"},
        }
        for k, first in enumerate(["move south", "open door to south"])
    ]
    write(tmp_path, "pairs.jsonl.gz", rows)
    write(tmp_path, "texts.jsonl.gz", [{"sha": "d", "text": DOMAIN}, {"sha": "p", "text": PROBLEM}])
    write(tmp_path, "logs.jsonl.gz", [{"path": "log", "valid_lists": [valid]}])
    assert bench().main([str(tmp_path), "--workers", "1"]) == 0
    assert "| CoinCollector | 2 | 2 | 50.0% (1) | 50.0% (1) |" in capsys.readouterr().out


CORPUS = bench().DEFAULT_CORPUS.resolve()


@pytest.mark.skipif(not (CORPUS / "pairs.jsonl.gz").exists(), reason="no corpus here")
def test_a_slice_of_the_corpus_runs(capsys):
    assert bench().main(["--limit", "12", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "12 unique pairs" in out and "| game | calls recorded plan |" in out
