"""Mystery Blocksworld: direct generation (zero- and one-shot, PlanBench's prompt), the
repair pipeline and its ablations, the closed-loop and agentic policies and Fast
Downward, with the symbol-agnostic pipeline paper's statistics.

    python experiments/mystery.py --llm openai:gpt-4o --instances 0:600 --workers 8
    python experiments/mystery.py --conditions planner \\
        -o instances=tests/data/planbench/blocksworld/generated_basic
    python experiments/mystery.py --env PDDL-v0 --conditions planner \\
        -o domain=tests/data/planbench/mystery/generated_domain.pddl \\
        -o problem=tests/data/planbench/mystery/generated_basic

``Mystery-BW-v0`` has 600 generated instances (500 of 4-5 blocks, 100 of 3);
``-o instances=FOLDER`` plays PlanBench's Blocksworld files under Mystery names, and
``PDDL-v0`` plays PlanBench's Mystery files themselves. ``--conditions`` takes a comma
list of: direct-zero-shot, direct-one-shot (the next instance, solved, as the example),
pipeline, pipeline-no-repair, pipeline-no-constraints, pipeline-no-stepwise,
closed-loop, agentic, planner. Every LLM condition has a budget of ``--attempts K``
plans (closed loop: K - 1 restarts); ``--direct-attempts`` sets the direct conditions'
apart. ``--paper`` is the pipeline paper's protocol (``planloop.protocols.mystery``): one
generation per instance in the direct conditions and ``--attempts 2``, the authors' K
for the pipeline; a flag given beside it overrides one setting, named in the caption.
Every scheduled instance is in n: an episode that ended on a failed model call is a
failure, also counted under "model errors".

``--progress-feedback ff`` (or ``add``) tells the closed-loop policy (in its
observations) and the agentic one (in ``execute_action``'s answers) whether each action
brought the goal closer by a relaxed-plan distance (``planloop.wrappers.ProgressFeedback``);
it enters the results key when on.

Each episode is judged from what it played: every attempted plan (the sampled plans a
policy records per attempt, else the actions between restarts) is replayed by the
core's validator in the names the agent sees, giving its failure kind (``parse``: no
action read, or a step naming no action of the task; ``precondition``; ``goal``), the
first failing step, its action and the unmet predicates.

``--out DIR`` receives ``episodes.jsonl`` (one record per condition and instance;
rerunning resumes), ``results.md`` (success with Wilson 95% intervals, z-tests against
the full pipeline with Cohen's h, runtimes, attempts, success against budget K, hazard
by step, failure composition, top-K NPMI between failing actions and their unmet
predicates, distributions of the failing step, action and predicate) and
``success.png``, ``retry.png``, ``hazard.png``.
"""

from __future__ import annotations

import sys

from planloop.llm import ChatModel
from planloop.protocols.mystery.study import SPEC
from planloop.study import study_main
from planloop.study.spec import run_spec


@study_main
def main(argv: list[str] | None = None, model: ChatModel | None = None, show: bool = True) -> int:
    """The study (:data:`planloop.protocols.mystery.study.SPEC`) with this help."""
    return run_spec(SPEC, argv, model, show, description=__doc__)


if __name__ == "__main__":
    sys.exit(main())
