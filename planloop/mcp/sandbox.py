"""What planloop-mcp takes from its clients: PDDL as text, files only under the roots the
server was started with, sizes within a limit, and errors that echo little of either.

Text is anything with a ``(`` in it; anything else is a path, refused unless it
resolves (symlinks followed) under a root. An error quotes at most :data:`EXCERPT`
characters of what the client sent, and of a file read from a root only where the
fault is (line and column), never its lines.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ..pddl import Domain, PDDLError, Problem, quote

EXCERPT = 80  # the most of a client's input an error quotes
MAX_BYTES = 1_000_000  # the largest domain or problem, as text or as a file
PATH_KWARGS = ("domain", "problem", "instances", "game_file", "data_dir", "logic_dir")


class SandboxError(ValueError):
    """Input the sandbox refuses; the message says why."""


def excerpt(text: object) -> str:
    """``text`` quoted for a message, cut after :data:`EXCERPT` characters."""
    return quote(str(text), EXCERPT)


def shorten(text: str) -> str:
    """The first line of ``text``, cut after :data:`EXCERPT` characters."""
    line = text.strip().partition("\n")[0]
    return line if len(line) <= EXCERPT else line[: EXCERPT - 3] + "..."


@dataclass(frozen=True)
class Source:
    """A domain or problem: its text, and the file it was read from (None: sent as text)."""

    text: str
    path: Path | None = None


@dataclass(frozen=True)
class Sandbox:
    """The roots a client's paths must resolve under (none: text only) and the size limit."""

    roots: tuple[Path, ...] = ()
    max_bytes: int = MAX_BYTES

    @classmethod
    def of(cls, roots=(), max_bytes: int = MAX_BYTES) -> Sandbox:
        return cls(tuple(Path(root).resolve() for root in roots), max_bytes)

    def read(self, value: object, stage: str) -> Source:
        """The ``stage`` (domain or problem) sent as text or as a path under a root."""
        if not isinstance(value, str):
            raise SandboxError(f"the {stage} must be PDDL text, not {type(value).__name__}")
        if "(" in value:
            if len(value) > self.max_bytes:
                raise SandboxError(
                    f"the {stage} text has {len(value):,} characters, more than "
                    f"the limit of {self.max_bytes:,} (--max-bytes)"
                )
            return Source(value if "\n" in value else value + "\n")  # never read as a path
        path = self.path(value, stage)
        if not path.is_file():
            raise SandboxError(f"the {stage} {excerpt(value)} is not a regular file")
        with path.open("rb") as file:
            data = file.read(self.max_bytes + 1)
        if len(data) > self.max_bytes:
            raise SandboxError(
                f"the {stage} file {excerpt(value)} has more than "
                f"{self.max_bytes:,} bytes (--max-bytes)"
            )
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise SandboxError(f"the {stage} file {excerpt(value)} is not UTF-8 text") from None
        return Source(text + "\n", path)

    def path(self, value: str, stage: str) -> Path:
        """The existing file or folder ``value`` names, resolved under a root (a relative
        path is taken from the first root)."""
        if not self.roots:
            raise SandboxError(
                f"the {stage} {excerpt(value)} is not PDDL text, and paths are "
                "not accepted: send the PDDL itself, or start the server with "
                "--root DIR"
            )
        try:
            path = (self.roots[0] / value).resolve()
            inside = any(path.is_relative_to(root) for root in self.roots)
            if inside and path.exists():
                return path
        except (OSError, RuntimeError, ValueError):  # a loop of links, a NUL byte...
            inside = False
        if not inside:
            raise SandboxError(f"the {stage} path {excerpt(value)} is outside the allowed roots")
        raise SandboxError(f"no such file: the {stage} {excerpt(value)}")

    def env_kwargs(self, env_kwargs: dict) -> tuple[dict, bool]:
        """``env_kwargs`` with every path-taking argument checked (PDDL text, or a path
        under a root), and whether one names a file or folder."""
        checked, on_disk = dict(env_kwargs), False
        for key in set(PATH_KWARGS) & set(checked):
            values = checked[key]
            many = isinstance(values, list)
            found = []
            for value in values if many else [values]:
                if not isinstance(value, str):
                    raise SandboxError(
                        f"{key} must be PDDL text or a path, not {type(value).__name__}"
                    )
                if "(" in value:
                    found.append(self.read(value, key).text)
                else:
                    found.append(str(self.path(value, key)))
                    on_disk = True
            checked[key] = found if many else found[0]
        return checked, on_disk


def unreadable(exc: PDDLError, sources: dict[str, Source]) -> str:
    """A reader's error in brief: where the first fault is, and what, unless it is in a
    file (a file's content is never quoted)."""
    first = exc.diagnostics[0] if exc.diagnostics else None
    if first is None:
        return "cannot read the task"
    where = f" at line {first.line}, col {first.col}" if first.line is not None else ""
    others = len(exc.diagnostics) - 1
    more = f" (and {others} more)" if others else ""
    source = sources.get(first.stage)
    if source is not None and source.path is not None:
        return f"cannot read the task: the {first.stage} file has an error{where}{more}"
    return f"cannot read the task: {first.stage} error{where}: {shorten(first.message)}{more}"


def ground_actions(domain: Domain, problem: Problem) -> int:
    """How many actions grounding may make at most: for each action, the product of the
    numbers of objects its parameters' types admit."""
    per_type = Counter({**domain.constants, **problem.objects}.values())
    total = 0
    for action in domain.actions.values():
        count = 1
        for param in action.params:
            count *= sum(n for kind, n in per_type.items() if domain.is_subtype(kind, param.types))
        total += count
    return total
