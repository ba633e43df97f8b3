"""The paper, declared once (see :mod:`planloop.protocols.registry`)."""

from ..registry import Paper
from . import PDDLEGO_PLUS
from .config import PDDLegoConfig
from .reproduction import reproduction
from .study import main

PAPER = Paper(
    protocol=PDDLEGO_PLUS,
    config=PDDLegoConfig,
    main=main,
    reproduction=reproduction,
    summary=(
        "PDDLego+ and PlanGen; CoinCollector: TextWorld Express's games, 5 sizes x 4 seeds x "
        "5 trials, needing java; ALFWorld: 5 task types x 20 games (Fig. 6); Figs. 10 and 12, "
        "the steps of won episodes, the models side by side"
    ),
    ground_truth=True,
)
