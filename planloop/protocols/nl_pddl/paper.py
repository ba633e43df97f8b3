"""The paper, declared once (see :mod:`planloop.protocols.registry`)."""

from ..registry import Paper
from . import NL_PDDL
from .config import FormalizeConfig
from .study import main, reproduction

PAPER = Paper(
    protocol=NL_PDDL,
    config=FormalizeConfig,
    main=main,
    reproduction=reproduction,
    summary="Tables 3, 2 and 5",
    ground_truth=True,
)
