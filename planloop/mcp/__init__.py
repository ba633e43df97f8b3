"""planloop's environments as Model Context Protocol tools.

``planloop-mcp`` (or ``python -m planloop.mcp``) serves them over stdio; it needs the
``mcp`` extra. The session registry below does not.
"""

import argparse

from ..study.flags import positive_int
from .sandbox import MAX_BYTES, MAX_DEPTH, Sandbox
from .sessions import (
    IDLE_TIMEOUT,
    MAX_GROUND_ACTIONS,
    MAX_SESSIONS,
    SessionError,
    SessionRegistry,
)

DESCRIPTION = f"""Serve planloop's environments as MCP tools over stdio.

Clients send PDDL as text. A path, in any argument or option, is read only when it
resolves (symlinks followed) under a --root; every file an environment reads under a
root, a folder's members included, is checked where the opened file really is; without
a root, paths are refused. Errors quote at most 80 characters of what the client sent,
and never a file's lines. A message nested more than {MAX_DEPTH} levels deep, a batch
and an id that is not a string or an integer are answered with a JSON-RPC error."""


def _positive_seconds(text: str) -> float:
    """Seconds above 0 (``inf``: sessions never expire)."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0, not {text!r}")
    return value


def parser() -> argparse.ArgumentParser:
    cli = argparse.ArgumentParser(
        "planloop-mcp",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cli.add_argument(
        "--root",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder whose files clients may name by path (repeatable); a "
        "relative path is taken from the first",
    )
    cli.add_argument(
        "--max-bytes",
        type=positive_int,
        default=MAX_BYTES,
        metavar="N",
        help=f"the largest domain or problem, as text or file (default {MAX_BYTES:,})",
    )
    cli.add_argument(
        "--max-sessions",
        type=positive_int,
        default=MAX_SESSIONS,
        metavar="N",
        help=f"the most sessions open at once (default {MAX_SESSIONS}); past it "
        "start_session is an error until close_session or idle expiry",
    )
    cli.add_argument(
        "--idle-timeout",
        type=_positive_seconds,
        default=IDLE_TIMEOUT,
        metavar="SECONDS",
        help=f"close a session unused this long (default {IDLE_TIMEOUT:g})",
    )
    cli.add_argument(
        "--max-ground-actions",
        type=positive_int,
        default=MAX_GROUND_ACTIONS,
        metavar="N",
        help="the ground actions the open sessions' tasks may hold "
        "together, each task counted at its largest possible size before it is "
        f"grounded (default {MAX_GROUND_ACTIONS:,}, about 200 MB); a larger task "
        "is an error",
    )
    return cli


def main(argv: list[str] | None = None) -> None:
    """Serve the tools over stdio, as the command line ``argv`` says."""
    args = parser().parse_args(argv)
    try:
        from .server import build_server
        from .wire import run_stdio
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] != "mcp":
            raise
        raise SystemExit("planloop-mcp needs the MCP SDK: pip install 'planloop[mcp]'") from None
    registry = SessionRegistry(
        Sandbox.of(args.root, args.max_bytes),
        args.max_sessions,
        args.idle_timeout,
        args.max_ground_actions,
    )
    run_stdio(build_server(registry))


__all__ = ["SessionError", "SessionRegistry", "main"]
