"""The harness every study script uses: shared flags, the model and its check,
resumable parallel episodes, a progress display, tables and plots.

A script in ``experiments/`` then holds its conditions, its record fields and its table::

    @study_main
    def main(argv=None, model=None) -> int:
        parser = study_parser(__doc__, env="Baking-v0", out="results/my_study")
        args = parser.parse_args(argv)
        built = None if model else open_model(args.llm)
        model = model or built
        study = Study("my_study", args.env, dict(args.option), model.name, args.llm)
        jobs = study.jobs([{"horizon": 1}, {"horizon": 5}], args.instances or range(3),
                          args.trials)
        records = run_study(study, jobs, play, out=args.out, workers=args.workers,
                            check=built)
        ...  # the table, from tally() and success_cell()
"""

from .errors import Ended, StudyError, one_line, study_main
from .flags import (
    PaperFlags,
    RequestSettings,
    Settings,
    non_negative_float,
    non_negative_int,
    parse_instances,
    parse_option,
    positive_float,
    positive_int,
    run_options,
    study_parser,
)
from .jobs import Job, Study
from .models import check_model, open_model, study_model, with_request
from .plots import save_success_plot, show_success_plot
from .progress import Progress
from .runner import every_instance, latest_records, make_env, run_study
from .tables import (
    markdown_table,
    model_errors,
    model_failures,
    success_cell,
    tally,
    with_published,
)

__all__ = [
    "Ended",
    "Job",
    "PaperFlags",
    "Progress",
    "RequestSettings",
    "Settings",
    "Study",
    "StudyError",
    "check_model",
    "every_instance",
    "latest_records",
    "make_env",
    "markdown_table",
    "model_errors",
    "model_failures",
    "non_negative_float",
    "non_negative_int",
    "one_line",
    "open_model",
    "parse_instances",
    "parse_option",
    "positive_float",
    "positive_int",
    "run_options",
    "run_study",
    "save_success_plot",
    "show_success_plot",
    "study_main",
    "study_model",
    "study_parser",
    "success_cell",
    "tally",
    "with_published",
    "with_request",
]
