"""Natural language to PDDL problems with planner-in-the-loop repair, judged exactly.

Each problem is generated (by size and seed; by seed alone for CoinCollector's hidden
worlds) or read, described in words, and written back in PDDL by
the model: one shot, then up to ``--max-iterations`` repairs, each asked with the
diagnostics of the check that failed (the reader's line and column; Fast Downward's
status, exit code, runtime and log, with the reasons the relaxation proves for an
unsolvable task; the validator's verdict on the plan), until a plan validates.

    python experiments/formalize.py --llm openai:gpt-4o-mini --per-cell 5
    python experiments/formalize.py --llm groundtruth --domains blocksworld,gripper \\
        --sizes 10,20,30,40 --per-cell 2
    python experiments/formalize.py --llm scripted-defects --sizes 10 --per-cell 1
    python experiments/formalize.py --paper --llm URL@MODEL
    python experiments/formalize.py --llm URL@MODEL --domain my/domain.pddl \\
        --problems my/problems/

``--llm groundtruth`` writes the reference problem (every metric 1);
``scripted-defects`` writes it with one known defect first (``--defects``: syntax,
undeclared_object, wrong_arity, missing_fact, swapped_goal, renamed_objects), then
without it once the loop has said what is wrong. Metrics per problem, for the final
candidate and the candidate kept after each iteration (the repair curve), as the
NL-PDDL-Bench paper defines them (eq. 6-18): SVR (it parses), PSR (solved, over those
that parse), TSR (Jaccard of the initial and goal atoms as written), CR (planner
outcomes agree; when the reference is solvable, plan lengths within max(1, ceil(0.05 c))
and max(edit, multiset) similarity of the grounded action strings as written >= 0.8).
Names count: a renamed object loses every atom and plan step that names it. Beside
them, TSR and CR (names matched), the same after renaming the candidate's objects to
the reference's (a renaming alone scores 1 there), EQ (the reference problem up to a
renaming of objects) and goal EQ (the same goal states). Every scheduled problem is in
n: one whose episode ended on a model error fails every rate and is counted under
"model errors".

The candidate kept is the best verified one (the paper's 3.4): the furthest through
the checks, a later one replacing it only when it passes more of them (``--keep
latest``: planloop's rule before, the latest among equals). ``--direct DOMAINS`` also
gives those domains' problems to the model to plan directly (one reply, from the same
words and the domain's PDDL); its plans and the loop's kept plans are validated on the
reference problems. ``--domains planbench``: PlanBench's Blocksworld (the 600
instances Blocksworld-v0 ships).

``--paper`` runs the paper's protocol (planloop.protocols.nl_pddl: 5 repairs, sizes
10-40, 63 problems per domain and size, PlanBench's Blocksworld, direct plans on
Logistics and PlanBench) and adds its Table 3 (Baseline = the one-shot candidate,
Planner-in-the-loop = the kept one), Table 2 (direct plans against the loop's) and
Table 5 (Table 3 on PlanBench) with the published figures beside; a flag given with it
overrides one setting, named in the caption.

``--out DIR`` receives ``episodes.jsonl`` (one record per problem, appended as each
ends; a rerun resumes), ``results.md`` (every table, one section per run; the final
candidates, or Table 3 under ``--paper``, are printed at the end) and ``repair.png`` (the
repair curves).
"""

from __future__ import annotations

import sys

from planloop.llm import ChatModel
from planloop.protocols.nl_pddl.study import SPEC
from planloop.study import study_main
from planloop.study.spec import run_spec


@study_main
def main(argv: list[str] | None = None, model: ChatModel | None = None, show: bool = True) -> int:
    """The study (:data:`planloop.protocols.nl_pddl.study.SPEC`) with this help."""
    return run_spec(SPEC, argv, model, show, description=__doc__)


if __name__ == "__main__":
    sys.exit(main())
