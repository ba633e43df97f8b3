"""PDDLego+ (Zero-Shot Iterative Formalization and Planning in Partially Observable
Environments, arXiv 2505.13126) as its authors' code runs it (zharry29/pddlego-plus,
``interactive_CoinCollector.py``, ``interactive_Alfworld.py``, ``results_parse_final.py``).

A *step* is one plan cycle: formalize, plan, play the whole plan. A step has at most 5
simulation tries; a try after the first re-creates the game and replays the commands of
the steps that ran through; each try is one model call plus at most 5 solver retries,
after which the episode ends. An episode has at most 20 steps on CoinCollector, 50 on
ALFWorld. The record of an episode's loops is the authors' ``trial_record``: one list per
step of ``[try, solver retries]`` pairs, one per try (``details["tries"]``), from which
:func:`loop_counts` and :func:`first_time_success` count as the authors' results script
does. Their PlanGen baseline has the same steps and tries, a step being one model call
naming one command (20 steps on both games); its pairs have 0 solver retries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..base import ModelRequest, PaperTable, Protocol
from .config import PDDLegoConfig

# -- the paper's games and n (100 episodes per cell) -------------------------------------
# CoinCollector: TextWorld Express's own ``coin`` game (ICC l.1400-1425): ``envStepLimit=100``,
# ``numLocations=N, numDistractorItems=0, includeDoors=1, limitInventorySize=0``, the train
# fold, game i being train seed i; sizes 3-11 x seeds 0-3, the whole loop run 5 times.
TWX_COIN = {
    "backend": "twx",
    "include_doors": True,
    "num_distractor_items": 0,
    "limit_inventory_size": False,
    "step_limit": 100,
    "fold": "train",
}
# ALFWorld: 5 task types x 20 games, in an environment with no command cap of its own
# (``max_episode_steps=1000000``, IAW l.2059): the budget is the 50 plan cycles.
ALFWORLD_MAX_EPISODE_STEPS = 1_000_000
ALFWORLD_SPLIT = "train"  # of ALFWorld's released data, when $ALFWORLD_DATA holds it


@dataclass(frozen=True)
class PaperGames:
    """The games of one column of the paper's table: ``env_id`` made with ``kwargs``
    (the ``--paper`` study adds them) and each of ``cells`` (one study run each, by
    ``-o``), instances ``0 .. instances - 1`` of each, ``trials`` times each."""

    env_id: str
    cells: tuple[Mapping[str, object], ...]
    instances: int
    trials: int
    kwargs: Mapping[str, object] = field(default_factory=dict)

    @property
    def episodes(self) -> int:
        """The paper's n for the column."""
        return len(self.cells) * self.instances * self.trials


ENVIRONMENTS = {
    "CoinCollector": PaperGames(
        "CoinCollector-v0",
        tuple({"num_locations": size} for size in (3, 5, 7, 9, 11)),
        instances=4,
        trials=5,
        kwargs=TWX_COIN,
    ),
    "ALFWorld": PaperGames(
        "ALFWorld-v0",
        tuple(
            {"task_types": [task_type]}
            for task_type in (
                "pick_and_place_simple",
                "look_at_obj_in_light",
                "pick_clean_then_place_in_recep",
                "pick_heat_then_place_in_recep",
                "pick_cool_then_place_in_recep",
            )
        ),
        instances=20,
        trials=1,
        kwargs={"max_episode_steps": ALFWORLD_MAX_EPISODE_STEPS},
    ),
}
_COIN, _ALFWORLD = ENVIRONMENTS["CoinCollector"], ENVIRONMENTS["ALFWorld"]
_COIN_N = (
    f"CoinCollector: sizes {', '.join(str(c['num_locations']) for c in _COIN.cells)} x "
    f"TextWorld Express train seeds 0-{_COIN.instances - 1} x {_COIN.trials} trials "
    f"({_COIN.episodes} episodes per cell)"
)
_ALFWORLD_N = (
    f"ALFWorld: {len(_ALFWORLD.cells)} task types x {_ALFWORLD.instances} games "
    f"({_ALFWORLD.episodes} episodes per cell)"
)

PDDLEGO_PLUS = Protocol(
    name="pddlego-plus",
    paper="PDDLego+ (arXiv 2505.13126), as the authors' code runs it",
    settings=PDDLegoConfig.protocol(
        planner="authors",
        retries=5,
        simulation_retries=4,
        max_steps="paper",
        rollback=True,
        coin="shown",
        coin_games="twx",
        unmapped="play",
        feedback="authors",
        replies="json",
        trial_attempts=2,
    ),
    rules=(
        "a step is one plan cycle; at most 5 simulation tries per step (1 + 4 retries), "
        "each after the first restarting the game and replaying the steps that ran through",
        "each try is one model call plus at most 5 solver retries; then the episode ends",
        "at most 20 steps on CoinCollector, 50 on ALFWorld (PlanGen: 20)",
        "PlanGen: a step is one model call naming one command; at most 5 tries per step, "
        "each after the first restarting the game and replaying the steps that ran "
        "through; a refused command ends the try with the same answers as PDDLego+'s (on "
        "ALFWorld a refused 'go to' too); its simulation errors counted as the authors' "
        "results script counts them (the last step's never fixed)",
        "CoinCollector: TextWorld Express's own games (backend twx: numLocations N, "
        "numDistractorItems 0, includeDoors 1, limitInventorySize 0, envStepLimit 100; game "
        "i is train seed i); TextWorld Express's step limit ends an episode after 100 "
        "commands since its last restart, where the authors' loop played on",
        "CoinCollector: the coin is taken for the model after a step whose text mentions it, "
        "never at reset (a coin in view at the start is taken once a later step shows it "
        "again); the model plans moves and doors only ('look around' and 'inventory' are "
        "not offered)",
        "ALFWorld: no command cap of the environment's (max_episode_steps 1000000): the "
        "budget is the 50 plan cycles",
        "ALFWorld: 20 games of each of 5 task types, ALFWorld's pick_and_place_simple, "
        "look_at_obj_in_light, pick_clean, pick_heat and pick_cool (its released train "
        "games in sorted order when $ALFWORLD_DATA holds them, else generated ones); the "
        "authors' types are 'basic&use', 'clean', 'heat', 'cool' and 'slice+', their games "
        "positions in an unsorted file listing of their data folder, which no name recovers",
        "a plan step that names no command is played as written and answered as a simulation error",
        "a refused command is answered with a hand-written message per kind of command "
        "(planloop's wording of the authors' hints); on ALFWorld a refused 'go to' is let "
        "pass (the plan goes on), as the authors' harness does",
        "a reply that is not JSON restarts the trial (2 attempts), then counts as a model error",
        "fix rates per try and per step as the authors' results script counts them; "
        "PDDLego (no error fixing) is read from the same runs: won with every step right "
        "the first time",
        "planner: authors, planloop's reproduction of the authors' planning.domains "
        "dual-bfws-ffparser (FF's parser's reading, DUAL-BFWS's search and tie-breaking)",
        "requests as the authors sent them: o4-mini reasoning_effort high and nothing "
        "else; every other model top_p 1 and frequency and presence penalties 0, no "
        "temperature (the provider's default); one user message",
    ),
    requests=(
        ModelRequest(r"o4-mini(-.*)?", {"reasoning_effort": "high"}),
        ModelRequest(".*", {"top_p": 1, "frequency_penalty": 0, "presence_penalty": 0}),
    ),
    tables=(
        PaperTable(
            title="Success",
            paper_model="o3-mini",
            rows=("PDDLego+", "PDDLego (no error fixing)", "PlanGen"),
            columns=("CoinCollector", "ALFWorld"),
            published={
                ("PDDLego+", "CoinCollector"): "86%",
                ("PDDLego+", "ALFWorld"): "38%",
                ("PDDLego (no error fixing)", "CoinCollector"): "49%",
                ("PlanGen", "CoinCollector"): "52%",
                ("PlanGen", "ALFWorld"): "5%",
            },
        ),
    ),
    n=_COIN_N + "; " + _ALFWORLD_N,
)


def loop_counts(
    tries: Sequence[Sequence[Sequence[int]]],
    won: bool,
    max_retries: int = 5,
    policy: str = "pddlego",
) -> dict[str, int]:
    """Solver and simulation errors met and fixed, counted as the authors' results
    script counts them: a solver error per try that needed solver retries, fixed unless
    it is the episode's last try and its ``max_retries`` ran out; a simulation error per
    step with more than one try, fixed unless it is the last step of a lost episode
    (of any episode for ``policy="plangen"``, RPF l.71-80)."""
    counts = dict.fromkeys(
        ("solver_errors", "solver_fixed", "simulation_errors", "simulation_fixed"), 0
    )
    for i, step in enumerate(tries):
        last_step = i == len(tries) - 1
        for j, (_, retries) in enumerate(step):
            if retries:
                counts["solver_errors"] += 1
                last_try = last_step and j == len(step) - 1
                counts["solver_fixed"] += not last_try or retries != max_retries
        if len(step) > 1:
            counts["simulation_errors"] += 1
            counts["simulation_fixed"] += not last_step or (won and policy != "plangen")
    return counts


def first_time_success(tries: Sequence[Sequence[Sequence[int]]], won: bool) -> bool:
    """PDDLego (no error fixing), read from a PDDLego+ run: won, and every step right the
    first time (one try, no solver retry)."""
    return won and all(len(step) == 1 and step[0][1] == 0 for step in tries)
