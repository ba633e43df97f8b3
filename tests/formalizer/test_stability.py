"""How much of a formalization survives a round: facts and actions kept, added and
dropped, Jaccard indices against the last round and the truth, and regeneration, on
real ground-truth rounds and on a model's files (CoinCollector instance 0), with the
counts worked out by hand."""

import pytest
from judging import MODEL_FACTS, model_pf, model_round, true_rounds

from planloop.formalizer import stability
from planloop.formalizer.stability import jaccard


def test_an_incremental_round_of_the_truth():
    """Round 0 (9 facts, in the kitchen) -> round 1 (19, in the corridor): the player's
    place is the one fact dropped; 8 kept, 11 added. Unique PF lines: 15 and 25, 12 of
    them shared (the define, domain, init, ')' lines and the 8 kept facts)."""
    first, second = true_rounds("coin")[:2]
    result = stability(first, second, second["truth"])
    assert result == {
        "facts": 19,
        "facts_kept": 8,
        "facts_added": 11,
        "facts_dropped": 1,
        "actions": 4,
        "actions_kept": 4,
        "actions_added": 0,
        "actions_dropped": 0,
        "facts_jaccard_previous": pytest.approx(8 / 20),
        "actions_jaccard_previous": 1.0,
        "facts_jaccard_truth": 1.0,
        "df_lines_jaccard": 1.0,
        "pf_lines_jaccard": pytest.approx(12 / 28),
        "regenerated": False,
    }


def test_a_round_written_from_scratch_in_another_vocabulary():
    """The truth's round 0, then the model's files for round 1. Facts shared as tuples:
    (visited kitchen) and (connected kitchen corridor west). Actions: only move/3 is
    common to {move/3, open-door/4, close-door/4, take/3} and {move/3, open-door/3,
    take/2}. PF lines: 4 of 15 + 17 - 4 shared ((:init, ')' and the two facts); DF lines:
    5 of 31 + 20 - 5 (requirements, constants and three ':action' lines)."""
    first, second = true_rounds("coin")[:2]
    result = stability(first, model_round(), second["truth"])
    assert (result["facts_kept"], result["facts_added"], result["facts_dropped"]) == (2, 9, 7)
    assert (result["actions_kept"], result["actions_added"], result["actions_dropped"]) == (1, 2, 3)
    assert result["facts_jaccard_previous"] == pytest.approx(2 / 18)
    assert result["actions_jaccard_previous"] == pytest.approx(1 / 6)
    assert result["pf_lines_jaccard"] == pytest.approx(4 / 28)
    assert result["df_lines_jaccard"] == pytest.approx(5 / 46)
    assert result["regenerated"] is True
    assert result["facts_jaccard_truth"] == pytest.approx(11 / 19)


def test_an_incremental_edit_of_the_models_files():
    """The north door opened: one fact dropped, every other line kept (16 of 17)."""
    facts = tuple(f for f in MODEL_FACTS if f != "(closed-door corridor room_north)")
    result = stability(model_round(), model_round(model_pf(facts)))
    assert (result["facts_kept"], result["facts_added"], result["facts_dropped"]) == (10, 0, 1)
    assert result["facts_jaccard_previous"] == pytest.approx(10 / 11)
    assert (result["df_lines_jaccard"], result["regenerated"]) == (1.0, False)
    assert result["pf_lines_jaccard"] == pytest.approx(16 / 17)
    assert result["facts_jaccard_truth"] is None  # no truth given


def test_the_same_facts_rewritten_on_one_line_are_regenerated():
    """Regeneration is a property of the text: every fact kept, no line."""
    one_line = " ".join(model_pf().split())
    result = stability(model_round(), model_round(one_line))
    assert (result["facts_kept"], result["facts_jaccard_previous"]) == (11, 1.0)
    assert (result["pf_lines_jaccard"], result["regenerated"]) == (0.0, True)


def test_the_first_round_adds_everything():
    result = stability(None, model_round())
    assert (result["facts"], result["facts_added"], result["actions_added"]) == (11, 11, 3)
    assert result["facts_kept"] == result["facts_dropped"] == 0
    assert result["facts_jaccard_previous"] is result["regenerated"] is None


@pytest.mark.parametrize("pf", [None, "", "(define (problem", "(define (problem p) (:init))"])
def test_unreadable_files_count_as_no_facts(pf):
    result = stability(model_round(), model_round() | {"pf": pf}, true_rounds("coin")[1]["truth"])
    assert (result["facts"], result["facts_dropped"], result["actions_kept"]) == (0, 11, 3)
    assert result["facts_jaccard_previous"] == 0.0 and result["facts_jaccard_truth"] == 0.0
    assert result["regenerated"] is (None if not pf else True)
    broken = stability(model_round(), {"df": "(define (domain", "pf": None}, "not pddl")
    assert (broken["facts"], broken["actions"], broken["actions_dropped"]) == (0, 0, 3)
    assert broken["facts_jaccard_truth"] is None and broken["regenerated"] is None


def test_jaccard():
    assert jaccard(set(), set()) == 1.0
    assert jaccard({1, 2}, {2, 3}) == pytest.approx(1 / 3)
