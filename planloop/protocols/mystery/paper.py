"""The paper, declared once (see :mod:`planloop.protocols.registry`)."""

from ..registry import Paper
from . import MYSTERY
from .config import MysteryConfig
from .study import main, reproduction

PAPER = Paper(
    protocol=MYSTERY,
    config=MysteryConfig,
    main=main,
    reproduction=reproduction,
    summary=(
        "600 instances; direct one-shot, direct zero-shot, pipeline at K = 2 attempts and "
        "its ablations (Tables 1 and 2), Figs. 10 and 11, the runtime by subset"
    ),
)
