"""The symbol-agnostic repair pipeline for obfuscated (Mystery) domains, one small
module per component: constraints, translate, consistency, strategies, pipeline."""

from .pipeline import RepairPipelinePolicy

__all__ = ["RepairPipelinePolicy"]
