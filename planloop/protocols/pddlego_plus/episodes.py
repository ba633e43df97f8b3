"""One PDDLego+ episode: the policy a config makes, the trial that plays it (again after
a failed model call, as the authors' harness does) and the record it leaves, its rounds
judged against the hidden world."""

from __future__ import annotations

from collections.abc import Callable

from ...envs.catalog import CONTINGENT_ENVIRONMENTS
from ...formalizer import (
    ModelWriter,
    Prompt,
    PromptTemplate,
    Request,
    ground_truth_writer,
    judge_episode,
)
from ...pddl import PlanCache, solve
from ...policies import PDDLegoPolicy, PlanGenPolicy, PlanGenStepsPolicy, run_episode
from ...study import StudyError
from ...wrappers import AutoTakeCoin
from .config import PDDLegoConfig
from .feedback import authors_feedback, plangen_feedback
from .protocol import first_time_success, loop_counts
from .tables import GROUND_TRUTH

FAMILIES = {
    "CoinCollector-v0": "coin",
    "ALFWorld-v0": "alfworld",
    **dict.fromkeys(CONTINGENT_ENVIRONMENTS, "contingent"),
}
JUDGED = ("coin", "alfworld")  # the families with a ground truth and judging rules
TAKE_RULES = {"in-view": "in_view", "shown": "shown"}  # --coin: AutoTakeCoin's rule
PLAN_CACHE = PlanCache()  # identical (DF, PF) pairs are planned once per run


def family_of(env_id: str) -> str:
    if env_id not in FAMILIES:
        raise StudyError(f"no PDDLego+ prompts for {env_id}: use one of {', '.join(FAMILIES)}")
    return FAMILIES[env_id]


def true_problem(env, family: str, planner: str):
    """For the record only (the policy never reads it): a function returning the
    ground-truth formalizer's PF of what has been observed when it is called; None for a
    game that does not show its hidden world (TextWorld Express itself)."""
    if not hasattr(env.unwrapped, "world_pddl") or family not in JUDGED:
        return None
    writer = ground_truth_writer(env, family, planner=planner)

    def truth() -> str | None:
        try:
            files = writer.write(Request("", "start", (), ())).files
        except RuntimeError:  # TextWorld Express's game left planloop's engine behind
            return None
        return None if files is None else files.pf

    return truth


def make_policy(
    env,
    model,
    config: PDDLegoConfig,
    frozen_df: str | None,
    template: PromptTemplate | None = None,
):
    """The policy of ``config`` (made by :meth:`PDDLegoConfig.for_env`) for one episode;
    ``template`` is ``--prompt-file``'s (the formalizer's, or PlanGen's), sent in place
    of planloop's prompt."""
    family = family_of(env.spec.id)
    if config.policy == "plangen":
        if config.simulation_retries is None:  # planloop's PlanGen, not its authors'
            return PlanGenPolicy(model)
        return PlanGenStepsPolicy(
            model,
            max_simulation_retries=config.simulation_retries,
            max_steps=config.step_cap,
            rollback=config.rollback,
            explain_refusal=(lambda command, text: plangen_feedback(family, command, text))
            if config.feedback == "authors"
            else None,
            replies=config.replies,
            template=template,
        )
    coin_taken = config.coin in TAKE_RULES
    writer = (
        ground_truth_writer(env, family, planner=config.planner, coin_taken=coin_taken)
        if model is None
        else ModelWriter(
            model,
            template or Prompt(family, str(config.prompt), coin_taken),
            replies=config.replies,
        )
    )
    return policy_of(
        writer,
        config,
        frozen_df=frozen_df,
        solver=PLAN_CACHE.solve,
        explain_refusal=(lambda command, text: authors_feedback(family, command, text))
        if config.feedback == "authors"
        else None,
        truth=None if model is None else true_problem(env, family, config.planner),
    )


def policy_of(
    writer,
    config: PDDLegoConfig,
    *,
    frozen_df: str | None = None,
    solver=solve,
    truth: Callable[[], str | None] | None = None,
    explain_refusal: Callable[[str, str], str | None] | None = None,
) -> PDDLegoPolicy:
    """The policy of a study's ``config`` (one :meth:`PDDLegoConfig.for_env` made:
    ``max_steps`` a count or None)."""
    return PDDLegoPolicy(
        writer,
        max_solver_retries=config.retries,
        max_simulation_retries=config.simulation_retries
        if config.simulation_retries is not None
        else config.retries,
        error_fixing=config.error_fixing,
        planner=config.planner,
        frozen_df=frozen_df,
        solver=solver,
        truth=truth,
        rollback=config.rollback,
        strict_pddl=config.strict_pddl,
        max_steps=config.step_cap,
        unmapped=config.unmapped,
        explain_refusal=explain_refusal,
    )


def play_trial(env, make, config: PDDLegoConfig, instance: int):
    """One trial: the episode, started again from scratch (up to ``trial_attempts``)
    while it ends on a failed model call, as the authors' harness restarts a trial that
    raised; returns the last episode and how many were played. planloop's PlanGen has
    its commands capped by ``max_steps`` (it names one per call)."""
    if config.coin in TAKE_RULES:
        env = AutoTakeCoin(env, when=TAKE_RULES[config.coin])
    planloops = config.policy == "plangen" and not config.authors_plangen
    commands = config.step_cap if planloops else None
    for attempt in range(1, config.trial_attempts + 1):
        episode = run_episode(env, make(), options={"instance": instance}, max_steps=commands)
        if episode.error is None:
            return episode, attempt
    return episode, attempt


def episode_fields(env, episode, retries: int) -> dict:
    """The record: the episode, its loop counts (``retries``: the solver retries a try
    had), each round judged against the hidden
    world (``judgement`` in the round, the totals in the record), and what labels its
    world."""
    record = episode.to_json()
    details = record["details"]
    record["warnings"] = details.get("warnings", 0)
    if "tries" in details:  # counted as the authors' results script counts
        record.update(
            loop_counts(details["tries"], episode.won, retries, episode.policy),
            first_time=first_time_success(details["tries"], episode.won),
        )
    rounds = details.get("rounds", [])
    record["rounds"] = len(rounds)
    record["stop"] = details.get("stop")
    record["judgement"] = None
    if family_of(env.spec.id) not in JUDGED:
        rounds = []  # no judging rules: the record keeps the rounds, unjudged
    if rounds:  # the ground truth's own files are the truth of its rounds
        judged = (
            [r if r.get("truth") else {**r, "truth": r["pf"]} for r in rounds]
            if episode.model == GROUND_TRUTH
            else rounds
        )
        record["judgement"] = judge_episode(judged, family_of(env.spec.id))
        for round_, judgement in zip(rounds, record["judgement"].pop("per_round"), strict=True):
            round_["judgement"] = judgement
    game = getattr(env.unwrapped, "game", None)
    record["task_type"] = getattr(game, "task_type", None)
    return record
