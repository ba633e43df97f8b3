"""Natural language to PDDL problems: the prompt, the checks (reader, Fast Downward,
validator), the planner-in-the-loop repair, built-in writers and exact metrics."""

from .loop import KEEPS, MAX_ITERATIONS, Formalization, Keep, best_so_far, formalize_problem
from .metrics import METRICS, MODEL_ERROR, Reference, match_objects, plan_similarity, score
from .prompts import PROMPT_VERSION, domain_summary
from .verify import Verdict, feedback, verify
from .writers import DEFECTS, defect_writer, inject, reference_writer

__all__ = [
    "DEFECTS",
    "Formalization",
    "KEEPS",
    "Keep",
    "MAX_ITERATIONS",
    "METRICS",
    "MODEL_ERROR",
    "PROMPT_VERSION",
    "Reference",
    "Verdict",
    "best_so_far",
    "defect_writer",
    "domain_summary",
    "feedback",
    "formalize_problem",
    "inject",
    "match_objects",
    "plan_similarity",
    "reference_writer",
    "score",
    "verify",
]
