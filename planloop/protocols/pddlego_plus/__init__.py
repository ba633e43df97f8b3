"""PDDLego+ (arXiv 2505.13126), the paper in one package: its settings
(:mod:`.config`, one default each), its protocol and n as data (:mod:`.protocol`), the
authors' answers to refused commands (:mod:`.feedback`), its tables (:mod:`.tables`,
records in, markdown out), one episode (:mod:`.episodes`) and the study (:mod:`.study`: ``main``, ``paper_tables``,
``twx_missing``, what ``experiments/pddlego.py`` and ``reproduce.py`` call)."""

from .config import PDDLegoConfig, step_limit
from .feedback import authors_feedback, plangen_feedback
from .protocol import (
    ALFWORLD_MAX_EPISODE_STEPS,
    ALFWORLD_SPLIT,
    ENVIRONMENTS,
    PDDLEGO_PLUS,
    TWX_COIN,
    PaperGames,
    first_time_success,
    loop_counts,
)

__all__ = [
    "ALFWORLD_MAX_EPISODE_STEPS",
    "ALFWORLD_SPLIT",
    "ENVIRONMENTS",
    "PDDLEGO_PLUS",
    "PDDLegoConfig",
    "PaperGames",
    "TWX_COIN",
    "authors_feedback",
    "first_time_success",
    "loop_counts",
    "plangen_feedback",
    "step_limit",
]
