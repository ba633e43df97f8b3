"""A language model as formalizer: the prompt, one call, the files read from the reply."""

from __future__ import annotations

from ..llm import LLMError, call_model
from .extract import ExtractionError, Files, extract_files, extract_json_files
from .prompts import SYSTEM, Prompt
from .request import Draft, Request
from .templates import PromptTemplate


def render(prompt: Prompt | PromptTemplate, request: Request) -> list[dict]:
    """The chat messages for ``request`` (a template's: one user message)."""
    if isinstance(prompt, PromptTemplate):
        return [{"role": "user", "content": prompt.fill(request)}]
    parts = [
        prompt.instructions(with_df=request.frozen_df is None),
        f"Your task: {request.task}",
        "Everything so far (your commands after '>'):\n" + "\n".join(request.history),
        "Commands the game accepts now: " + ", ".join(request.valid_commands),
    ]
    if request.frozen_df is not None:
        parts.append(f"The domain file (fixed):\n{request.frozen_df}")
    if request.files is not None:
        if request.frozen_df is None:
            parts.append(f"Your domain file so far:\n{request.files.df}")
        parts.append(f"Your problem file so far:\n{request.files.pf}")
    parts.append(_reason(request))
    if request.repeated:
        parts.append(
            f"Note: '{request.repeated}' has now failed twice in a row. Do not plan "
            f"it again unless your files change what makes it fail."
        )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n\n".join(parts)}]


def _reason(request: Request) -> str:
    if request.trigger == "start":
        return "Write the first domain and problem files."
    if request.trigger == "growth":
        return (
            "Your last plan ran. New observations:\n"
            + "\n".join(request.new_observations)
            + "\nUpdate the files with every new place, object and relation, and set "
            "the next goal."
        )
    if request.trigger == "solver_error":
        return (
            f"Your files could not be used: {request.error}\nFix the files so that the "
            f"planner finds a plan to your goal."
        )
    done = ", ".join(request.succeeded) or "none"
    return (
        f"A step of your plan failed in the game: {request.error}\nThe commands that "
        f"succeeded since your last files: {done}. Fix the files so that they agree "
        f"with what the game did."
    )


class ModelWriter:
    """Asks ``model`` for files with ``prompt`` (planloop's, or a template); a reply
    without usable files is a ``Draft`` whose ``problem`` says so (for the inner loop),
    never an exception. Model failures (LLMError) propagate, for the runner to record.

    ``replies="json"`` reads a reply as PDDLego+'s code does: it must be one JSON object
    with ``df`` and ``pf``, and anything else is an LLMError (kind ``unreadable_reply``)
    that ends the episode; by default (``"lenient"``) files are found wherever the reply
    holds them (see :func:`extract_files`)."""

    def __init__(self, model, prompt: Prompt | PromptTemplate, replies: str = "lenient", **params):
        if replies not in ("lenient", "json"):
            raise ValueError(f"replies must be 'lenient' or 'json', not {replies!r}")
        self.model, self.prompt, self.params = model, prompt, params
        self.replies = replies
        self.name = model.name
        self.prompt_version = prompt.version

    def write(self, request: Request) -> Draft:
        reply = call_model(self.model, render(self.prompt, request), **self.params)
        read = extract_json_files if self.replies == "json" else extract_files
        try:
            files = read(reply.text, need_df=request.frozen_df is None)
        except ExtractionError as exc:
            if self.replies == "json":
                raise LLMError("unreadable_reply", str(exc)) from None
            return Draft(None, str(exc), reply.text, reply.usage)
        if request.frozen_df is not None:
            files = Files(request.frozen_df, files.pf)
        return Draft(files, None, reply.text, reply.usage)
