"""The paper, declared once (see :mod:`planloop.protocols.registry`)."""

from ..registry import Paper
from . import AGENTIC
from .config import AgenticConfig
from .study import main, reproduction

PAPER = Paper(
    protocol=AGENTIC,
    config=AgenticConfig,
    main=main,
    reproduction=reproduction,
    summary=(
        "Tables I, II and III, the token cost, Fig. 2, the direct baseline's samples and the "
        "hard cases; the 6 shipped IPC-2000 instances unless `--"
        " -o domain=FOLDER/domain.pddl -o problem=FOLDER/instances` names the paper's 102, "
        "see planloop/envs/data/ipc2000_blocks/README.md"
    ),
)
