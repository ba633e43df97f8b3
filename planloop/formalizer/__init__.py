"""Language model -> PDDL: prompts, extraction of the files from a reply, the layered
checks, the mapping of plan steps to game commands, and the ground-truth formalizer.
The PDDLego+ loop that drives them is :class:`planloop.policies.PDDLegoPolicy`."""

from .checks import STAGES, Checked, CheckFailure, check
from .extract import ExtractionError, Files, extract_files
from .groundtruth import ground_truth_writer
from .judge import judge_episode, judge_round
from .mapping import CommandMapper
from .model_writer import ModelWriter, render
from .prompts import FAMILIES, NAMES, Prompt
from .request import TRIGGERS, Draft, Request, Trigger
from .stability import stability
from .templates import PromptTemplate, TemplateError, load_template

__all__ = [
    "CheckFailure",
    "Checked",
    "CommandMapper",
    "Draft",
    "ExtractionError",
    "FAMILIES",
    "Files",
    "ModelWriter",
    "NAMES",
    "Prompt",
    "PromptTemplate",
    "Request",
    "STAGES",
    "TRIGGERS",
    "Trigger",
    "TemplateError",
    "check",
    "extract_files",
    "ground_truth_writer",
    "judge_episode",
    "judge_round",
    "load_template",
    "render",
    "stability",
]
