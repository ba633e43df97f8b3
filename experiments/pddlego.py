"""PDDLego+ and PlanGen on CoinCollector, ALFWorld and the contingent PDDL environments:
the command line of :mod:`planloop.protocols.pddlego_plus.study` (``--help`` says it all).

    python experiments/pddlego.py --env CoinCollector-v0 -o num_locations=5 \\
        --llm openai:o3-mini --prompt detailed --instances 0:20 --workers 8 \\
        --out results/pddlego-coin
    python experiments/pddlego.py --env ALFWorld-v0 --llm groundtruth --instances 0:12
"""

from __future__ import annotations

import sys

from planloop.llm import ChatModel
from planloop.protocols.pddlego_plus.study import GROUND_TRUTH, SPEC, paper_tables, twx_missing
from planloop.study import study_main
from planloop.study.spec import run_spec

__all__ = ["GROUND_TRUTH", "main", "paper_tables", "twx_missing"]  # what reproduce.py reads


@study_main
def main(argv: list[str] | None = None, model: ChatModel | None = None, show: bool = True) -> int:
    """The study; ``model`` replaces the one ``--llm`` names, ``show=False`` prints no
    table or path (the files are written all the same)."""
    return run_spec(SPEC, argv, model, show)


if __name__ == "__main__":
    sys.exit(main())
