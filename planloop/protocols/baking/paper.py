"""The paper, declared once (see :mod:`planloop.protocols.registry`)."""

from ..registry import Paper
from . import BAKING
from .config import HorizonConfig
from .study import main, reproduction

PAPER = Paper(
    protocol=BAKING,
    config=HorizonConfig,
    main=main,
    reproduction=reproduction,
    summary="the horizon table",
)
