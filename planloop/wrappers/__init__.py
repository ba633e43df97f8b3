"""Wrappers that change what an agent sees of a planloop environment or may do in it."""

from .auto_take_coin import AutoTakeCoin
from .hide_admissible_actions import HideAdmissibleActions
from .index_actions import IndexActions
from .obfuscate_names import ObfuscateNames
from .progress_feedback import ProgressFeedback
from .record_episode import RecordEpisode
from .rename_words import RenameWords

__all__ = [
    "AutoTakeCoin",
    "HideAdmissibleActions",
    "IndexActions",
    "ObfuscateNames",
    "ProgressFeedback",
    "RecordEpisode",
    "RenameWords",
]
