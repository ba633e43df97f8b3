"""planloop's environments as Model Context Protocol tools.

``planloop-mcp`` (or ``python -m planloop.mcp``) serves them over stdio; it needs the
``mcp`` extra. The session registry below does not.
"""

from .sessions import SessionError, SessionRegistry


def main() -> None:
    """Serve the tools over stdio."""
    try:
        from .server import build_server
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] != "mcp":
            raise
        raise SystemExit("planloop-mcp needs the MCP SDK: pip install 'planloop[mcp]'") from None
    build_server().run("stdio")


__all__ = ["SessionError", "SessionRegistry", "main"]
