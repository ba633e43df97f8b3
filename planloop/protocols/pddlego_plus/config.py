"""Every setting of the PDDLego+ study, with its one default: the flags of
``experiments/pddlego.py``, the protocol's settings and the condition each run is keyed
by all come from :class:`PDDLegoConfig`; the settings the policy owns take their default
from the policy (:data:`planloop.policies.pddlego.DEFAULT`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal, get_args

from ...formalizer.prompts import NAMES
from ...pddl import PLANNER_NAMES
from ...policies.pddlego import DEFAULT, Unmapped
from ...study.config import StudyConfig, setting
from ...study.flags import non_negative_int, positive_int

Coin = Literal["planned", "in-view", "shown"]
# --coin: the value a condition records (in-view keeps the "auto" of the runs made before
# the authors' rule had a name of its own)
COIN_RECORDED: dict[str, str] = {"planned": "planned", "in-view": "auto", "shown": "shown"}
STEP_LIMITS = {"CoinCollector-v0": 20, "ALFWorld-v0": 50}
PLANGEN_STEP_LIMIT = 20
PDDLEGO_ONLY = ("prompt", "error_fixing", "strict_pddl")  # settings PlanGen has not


def step_count(text: str) -> int | str | None:
    """``--max-steps``: a count of at least 1, ``none`` or ``paper``."""
    if text.strip().lower() in ("none", "paper"):
        return None if text.strip().lower() == "none" else "paper"
    return positive_int(text)


def step_limit(policy: str, env_id: str) -> int | None:
    """The authors' step limit of ``policy`` on ``env_id`` (None where they had none)."""
    return PLANGEN_STEP_LIMIT if policy == "plangen" else STEP_LIMITS.get(env_id)


@dataclass(frozen=True)
class PDDLegoConfig(StudyConfig):
    """The PDDLego+ study's settings (see :mod:`planloop.study.config`); the condition
    of a run is :meth:`condition`, study-wide ones (``retries``, ``planner``) are in the
    study's settings, and the rest change the environment or the prompt."""

    policy: Literal["pddlego", "plangen"] = setting(
        "pddlego",
        "PDDLego+, or PlanGen (the model choosing commands directly)",
        choices=("pddlego", "plangen"),
        keyed="always",
    )
    prompt: str | None = setting(
        None,
        "the formalizer's prompt; none: detailed, or generic (the only one) on the "
        "contingent PDDL environments",
        choices=NAMES,
        keyed="always",
    )
    prompt_file: str | None = setting(
        None,
        "the formalizer's prompt as a template (planloop.formalizer.templates: "
        "{observation}, {df}, {pf}, {error}, {valid_commands}, ...; at most 256 KiB), "
        "sent as one user message in place of planloop's prompt; with --policy plangen "
        "--paper, PlanGen's ({latest}, {memory}, {task}, {commands}, {error})",
        metavar="FILE",
        keyed="never",
    )
    error_fixing: bool = setting(
        DEFAULT.error_fixing,
        "no solver-error and no simulation-error retries (the ablation)",
        flag="--no-error-fixing",
        keyed="always",
    )
    strict_pddl: bool = setting(
        DEFAULT.strict_pddl,
        "refuse the model's PDDL where it departs from the standard in ways Fast "
        "Downward or FF accept (by default read as they read it, each a dialect warning "
        "counted in the table)",
    )
    domain_file: str | None = setting(
        None,
        "a fixed PDDL domain: the model writes only problem files",
        metavar="FILE",
        keyed="never",
    )
    domain_reuse: bool = setting(
        False, "fix the domain of the first won episode recorded in --out", keyed="never"
    )
    planner: str = setting(
        DEFAULT.planner,
        "auto (the core's own search on small tasks, Fast Downward above), authors (the "
        "PDDLego+ authors' dual-bfws-ffparser as planloop reproduces it: --paper's) or a "
        "Fast Downward configuration such as lama-first",
        choices=PLANNER_NAMES,
        keyed="changed",
    )
    retries: int = setting(
        DEFAULT.retries,
        "solver retries per try, and simulation retries per plan cycle unless "
        "--simulation-retries is given",
        type=non_negative_int,
        metavar="N",
        keyed="never",
    )
    simulation_retries: int | None = setting(
        None,
        "simulation retries per plan cycle (none: --retries; the paper's 4 is 5 tries); "
        "given to --policy plangen, PlanGen as its authors ran it (a step per command, a "
        "refused one tried again)",
        type=non_negative_int,
        metavar="N",
    )
    max_steps: int | str | None = setting(
        None,
        "plan cycles per episode (PlanGen: steps, planloop's PlanGen: commands), 'none' "
        "for no cap, or 'paper' for the authors' 20 on CoinCollector, 50 on ALFWorld, 20 "
        "for PlanGen",
        type=step_count,
        metavar="N",
    )
    rollback: bool = setting(
        DEFAULT.rollback,
        "on a refused step, restart the game and replay the plans that ran through, as "
        "PDDLego+'s code does",
        keyed="always",
    )
    coin: Coin = setting(
        "planned",
        "CoinCollector: the model plans taking the coin (planned), or it is taken for the "
        "model, which is offered only moves and doors: in-view, whenever it is in view "
        "(one in view at the start is taken at the first step, in place of the model's "
        "command); shown: after a step whose text mentions it, never at the start",
        choices=tuple(COIN_RECORDED),
        recorded=COIN_RECORDED.__getitem__,
    )
    coin_games: Literal["generated", "twx"] = setting(
        "generated",
        "CoinCollector: planloop's generated houses, or TextWorld Express's own games at "
        "the authors' parameters, game i being its train seed i (twx; needs the twx extra "
        "and java)",
        choices=("generated", "twx"),
        keyed="never",
    )
    unmapped: Unmapped = setting(
        DEFAULT.unmapped,
        "a plan step naming no game command: back to the inner loop (solver_error), or "
        "played as written, a simulation error (play)",
        choices=get_args(Unmapped),
    )
    feedback: Literal["game", "detailed", "authors"] = setting(
        "game",
        "on a refused step: the game's own text (game), the cause in words (detailed), or "
        "a hand-written hint per kind of command (authors)",
        choices=("game", "detailed", "authors"),
        keyed="always",
    )
    replies: Literal["lenient", "json"] = setting(
        "lenient",
        "find the files wherever the reply holds them (lenient), or require one JSON "
        "object, anything else a model error (json)",
        choices=("lenient", "json"),
    )
    trial_attempts: int = setting(
        1,
        "play an episode that ended on a model error again from scratch, up to N times in all",
        type=positive_int,
        metavar="N",
    )

    @property
    def authors_plangen(self) -> bool:
        """Whether this plays PlanGen as its authors ran it (steps of tries: with
        ``simulation_retries``, which the protocol sets) rather than planloop's (one call
        per command, refused ones too)."""
        return self.policy == "plangen" and self.simulation_retries is not None

    @property
    def step_cap(self) -> int | None:
        """``max_steps`` as played (of a config :meth:`for_env` made): a count, or None."""
        if isinstance(self.max_steps, str):
            raise ValueError(f"max_steps {self.max_steps!r} is read by for_env")
        return self.max_steps

    def for_env(self, env_id: str, family: str) -> PDDLegoConfig:
        """The config as played on ``env_id`` of ``family`` (coin, alfworld or
        contingent): ``max_steps="paper"`` read as the authors' limit for the policy and
        environment, the prompt chosen (detailed; generic on the contingent PDDL
        environments), the coin rule kept for CoinCollector only."""
        steps = step_limit(self.policy, env_id) if self.max_steps == "paper" else self.max_steps
        return replace(
            self,
            max_steps=steps,
            prompt=self.prompt or ("generic" if family == "contingent" else "detailed"),
            coin=self.coin if family == "coin" else PDDLegoConfig.coin,  # the default
        )

    def condition(self, domain: str | None) -> dict[str, object]:
        """The run's condition, as keyed since before this config (of a config
        :meth:`for_env` made): :meth:`key`, less PDDLego+'s settings for PlanGen (and
        ``rollback`` for planloop's PlanGen); ``prompt`` is ``file`` for a prompt file,
        ``domain`` the fixed domain's label (None without one)."""
        condition = self.key()
        if self.policy == "plangen":
            for name in PDDLEGO_ONLY:
                condition.pop(name, None)
            if not self.authors_plangen:
                condition.pop("rollback")
        else:
            condition["prompt"] = "file" if self.prompt_file else self.prompt
            condition["domain"] = domain
        return condition
