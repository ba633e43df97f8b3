"""PDDLegoPolicy(rollback=True), PDDLego+'s own code: a refused step of a plan whose
earlier steps moved the world restarts the game and replays the plans that ran through."""

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.formalizer import Draft, Files, ground_truth_writer
from planloop.policies import PDDLegoPolicy, run_episode


class GhostFirst:
    """The ground truth, except that its first answer invents a room north of the
    corridor (behind a closed door) and sets it as the goal: the plan moves west, then
    the game refuses ``move north``."""

    name = prompt_version = "ghost-first"

    def __init__(self, env):
        self.truth = ground_truth_writer(env, "coin")
        self.requests = []

    def write(self, request):
        self.requests.append(request)
        files = self.truth.write(request).files
        if len(self.requests) > 1:
            return Draft(files)
        pf = files.pf.replace("- room", "ghost - room", 1)
        pf = pf.replace("(:init", "(:init\n    (connected corridor ghost north)", 1)
        pf = pf.split("(:goal")[0] + "(:goal (and (player-at ghost)))\n)\n"
        return Draft(Files(files.df, pf))


@pytest.mark.parametrize("rollback", [True, False])
def test_a_refused_plan_is_rolled_back_only_when_asked(rollback):
    env = gym.make("CoinCollector-v0", num_locations=5)
    writer = GhostFirst(env)
    episode = run_episode(env, PDDLegoPolicy(writer, rollback=rollback), options={"instance": 0})
    assert episode.won and list(episode.actions[:2]) == ["move west", "move north"]
    assert episode.details["rounds"][1]["trigger"] == "simulation_error"
    assert episode.details["simulation_errors"] == episode.details["simulation_fixed"] == 1
    second = writer.requests[1]
    if rollback:
        assert episode.restarts == 1
        assert episode.observations[3] == episode.observations[0]  # back in the kitchen
        assert second.history[-1] == (
            "(The game was restarted and your completed plans "
            "replayed: move west no longer happened.)"
        )
        assert second.succeeded == () and episode.actions[2] == "move west"
    else:
        assert episode.restarts == 0
        assert second.history[-1].startswith("> move north\n")
        assert second.succeeded == ("move west",)


class GhostSecond(GhostFirst):
    """The truth, except that its second answer (in the corridor, after ``move west``
    ran through) invents a room east of the kitchen, behind the kitchen's closed door."""

    def write(self, request):
        self.requests.append(request)
        files = self.truth.write(request).files
        if len(self.requests) != 2:
            return Draft(files)
        pf = files.pf.replace("- room", "ghost - room", 1)
        pf = pf.replace("(:init", "(:init\n    (connected kitchen ghost east)", 1)
        pf = pf.split("(:goal")[0] + "(:goal (and (player-at ghost)))\n)\n"
        return Draft(Files(files.df, pf))


def test_the_plans_that_ran_through_are_replayed():
    env = gym.make("CoinCollector-v0", num_locations=5)
    writer = GhostSecond(env)
    episode = run_episode(env, PDDLegoPolicy(writer, rollback=True), options={"instance": 0})
    assert episode.won and episode.restarts == 1
    # west (ran through), east (ok), east (refused), restart, west (replayed), ...
    assert list(episode.actions[:4]) == ["move west", "move east", "move east", "move west"]
    assert episode.observations[5] == episode.observations[1]  # the corridor again
    third = writer.requests[2]
    assert third.history[:2] == writer.requests[1].history[:2]
    assert third.history[-1].endswith("move east no longer happened.)")
    assert [r["trigger"] for r in episode.details["rounds"][:3]] == [
        "start",
        "growth",
        "simulation_error",
    ]
