"""planloop.protocols.pddlego_plus: the authors' counting of fix rates, their step
limits and their answers to refused commands."""

from planloop.protocols.pddlego_plus import (
    authors_feedback,
    first_time_success,
    loop_counts,
    step_limit,
)


def test_fix_rates_are_counted_per_try_and_per_step_as_the_authors_script_does():
    # step 1: right first time; step 2: a try with 2 solver retries, refused, then a try
    # that ran through; step 3: the last try spent its 5 solver retries
    tries = [[[1, 0]], [[1, 2], [2, 0]], [[1, 5]]]
    assert loop_counts(tries, won=False) == {
        "solver_errors": 2,
        "solver_fixed": 1,
        "simulation_errors": 1,
        "simulation_fixed": 1,
    }
    # five refused tries in the last step of a lost episode: one error, not fixed
    assert loop_counts([[[1, 0]] * 5], won=False)["simulation_fixed"] == 0
    assert loop_counts([[[1, 0], [2, 0]]], won=True)["simulation_fixed"] == 1
    # a last try that found its plan after 3 retries was fixed, by its own count
    assert loop_counts([[[1, 3]]], won=False, max_retries=3)["solver_fixed"] == 0
    assert loop_counts([[[1, 3]]], won=False)["solver_fixed"] == 1


def test_no_error_fixing_is_read_from_the_same_runs():
    assert first_time_success([[[1, 0]], [[1, 0]]], won=True)
    assert not first_time_success([[[1, 0]], [[1, 1]]], won=True)
    assert not first_time_success([[[1, 0]], [[1, 0], [2, 0]]], won=True)
    assert not first_time_success([[[1, 0]]], won=False)


def test_step_limits():
    assert step_limit("pddlego", "CoinCollector-v0") == 20
    assert step_limit("pddlego", "ALFWorld-v0") == 50
    assert step_limit("plangen", "ALFWorld-v0") == 20


def test_refused_commands_are_answered_per_kind_of_command():
    closed = authors_feedback("coin", "move north", "You can't move there, the door is closed.")
    assert "open it before you move there" in closed
    assert "no door in that direction" in authors_feedback(
        "coin", "open door to west", "I'm not sure what you mean."
    )
    assert "already open" in authors_feedback("coin", "open door to east", "That is already open.")
    assert authors_feedback("alfworld", "go to cabinet 1", "Nothing happens.") is None
    assert "Go to the receptacle before you open it" in authors_feedback(
        "alfworld", "open drawer 2", "Nothing happens."
    )
    assert "did not accept" in authors_feedback(
        "alfworld", "heat mug 1 with microwave 1", "Nothing happens."
    )
