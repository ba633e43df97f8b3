"""A prompt template (:mod:`.templates`) built from the PDDLego+ authors' own code, in a
checkout of zharry29/pddlego-plus (MIT licence) that the user names: planloop ships none
of their text, it reads it from the checkout when asked.

What is read: ``llm_to_pddl`` in ``interactive_CoinCollector.py`` (``game="coin"``) or
``interactive_Alfworld.py`` (``"alfworld"``), its ``prompt_*`` strings, through Python's
``ast`` (the code is parsed, never run). They are joined as that function joins them for
their runs (``edit=False``): ``prompt_format``, ``prompt_obs_action_<goal type>``, then,
once there are files, ``prompt_prev_files`` followed by ``prompt_error_parser`` (a solver
error) or ``prompt_new_obs`` (otherwise) and ``prompt_simulation_error`` (after a refused
step), and ``prompt_duplicate_note`` when a command is repeated.

Their variables become fields (:data:`FIELD_OF`); ``prev_err`` is always None in their
runs and stays the text ``None``. Where the template cannot follow them: one ``{error}``
stands for both their solver and simulation messages (after a refused step, their solver
retries show both); their note on repetition is sent on planloop's ``repeated`` (a
command refused twice in a row), theirs on a plan sequence repeated three times; the
observations are planloop's (``> command`` and the game's text), not their summaries;
CoinCollector's valid actions are those of the moment, not one house's fixed list.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from ..errors import PlanloopError
from .templates import PromptTemplate, escape

SOURCES = {"coin": "interactive_CoinCollector.py", "alfworld": "interactive_Alfworld.py"}
FUNCTION = "llm_to_pddl"
MAX_SOURCE_BYTES = 4 * 1024 * 1024
FIELD_OF = {
    "brief_obs": "new_observations",
    "overall_memory": "observation",
    "prev_df": "df",
    "prev_pf": "pf",
    "prev_err_2": "error",
    "large_loop_error_message": "error",
    "valid_actions": "valid_commands",
    "goal": "task",
}
CONSTANT_OF = {"prev_err": "None"}
SLOTS = ("format", "prev_files", "new_obs", "error_parser", "simulation_error", "duplicate_note")
LAYOUT = (  # their pieces in slots, between the template's own {if} and {end}
    "{format}{obs_action}{if df}{prev_files}"
    "{if solver_error}{error_parser}{end}{if not solver_error}{new_obs}{end}"
    "{if simulation_error}{simulation_error}{end}{end}{if repeated}{duplicate_note}{end}"
)


class ConversionError(PlanloopError, ValueError):
    """The checkout does not hold the code this converter reads, said in one line."""


def goal_types(checkout: str | Path, game: str) -> list[str]:
    """The goal types (``detailed``, ``subgoal``, ...) the checkout's prompt offers."""
    prefix = "prompt_obs_action_"
    return [name[len(prefix) :] for name in _pieces(checkout, game) if name.startswith(prefix)]


def authors_template(checkout: str | Path, game: str, goal_type: str = "detailed") -> str:
    """The authors' prompt for ``game`` and ``goal_type`` as a template's text (checked
    by :class:`~.templates.PromptTemplate`); a ConversionError if it cannot be built."""
    pieces = _pieces(checkout, game)
    obs_action = f"prompt_obs_action_{goal_type}"
    if obs_action not in pieces:
        raise ConversionError(
            f"no goal type {goal_type!r} in {SOURCES[game]}'s {FUNCTION}: one of "
            f"{', '.join(goal_types(checkout, game))}"
        )
    slots = {"obs_action": pieces[obs_action]}
    for slot in SLOTS:
        slots[slot] = _piece(pieces, f"prompt_{slot}")
    text = re.sub(r"\{([a-z_]+)\}", lambda match: slots.get(match[1], match[0]), LAYOUT)
    PromptTemplate(text, f"{game}-{goal_type}")  # a TemplateError if the result is not valid
    return text


def _piece(pieces: dict[str, str], name: str) -> str:
    if name not in pieces:
        raise ConversionError(f"no {name} in {FUNCTION}: is this zharry29/pddlego-plus?")
    return pieces[name]


def _pieces(checkout: str | Path, game: str) -> dict[str, str]:
    """``prompt_*`` name -> its text as a template, from the game's ``llm_to_pddl``."""
    if game not in SOURCES:
        raise ConversionError(f"unknown game {game!r}: one of {', '.join(SOURCES)}")
    path = Path(checkout) / SOURCES[game]
    if not path.is_file():
        raise ConversionError(f"{path}: no such file (a checkout of zharry29/pddlego-plus?)")
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        raise ConversionError(f"{path}: {exc.strerror or exc}") from None
    if len(data) > MAX_SOURCE_BYTES:
        raise ConversionError(f"{path}: larger than {MAX_SOURCE_BYTES} bytes")
    try:
        tree = ast.parse(data.decode("utf-8"), filename=str(path))
    except (UnicodeDecodeError, SyntaxError) as exc:
        raise ConversionError(f"{path}: not Python source this converter reads ({exc})") from None
    function = next(
        (node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == FUNCTION),
        None,
    )
    if function is None:
        raise ConversionError(f"{path}: no function {FUNCTION}")
    pieces: dict[str, str] = {}
    for node in function.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id.startswith("prompt_")
            and isinstance(node.value, (ast.Constant, ast.JoinedStr))
        ):
            pieces[node.targets[0].id] = _text(node.value, path)
    return pieces


def _text(node: ast.Constant | ast.JoinedStr, path: Path) -> str:
    """A string or f-string as template text: literal text escaped, each ``{name}`` of
    theirs as its field."""
    parts = node.values if isinstance(node, ast.JoinedStr) else [node]
    out = []
    for part in parts:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            out.append(escape(part.value))
        elif (
            isinstance(part, ast.FormattedValue)
            and isinstance(part.value, ast.Name)
            and part.conversion == -1
            and part.format_spec is None
            and (part.value.id in FIELD_OF or part.value.id in CONSTANT_OF)
        ):
            name = part.value.id
            out.append("{" + FIELD_OF[name] + "}" if name in FIELD_OF else CONSTANT_OF[name])
        else:
            raise ConversionError(
                f"{path}, line {part.lineno}: a prompt expression this converter does not "
                f"know ({ast.unparse(part)})"
            )
    return "".join(out)
