"""The classical-planner baseline: a study of no paper (no ``paper`` module, so not in
the papers' registry), declared as a :class:`~planloop.study.spec.StudySpec` in
:mod:`.study`."""

from .study import SPEC, PlannerBaselineConfig

__all__ = ["SPEC", "PlannerBaselineConfig"]
