"""The one root of planloop's exceptions: ``except PlanloopError`` catches any of them.
Each also keeps the builtin base callers caught before (a :class:`~planloop.pddl.PDDLError`
is still a ValueError, an :class:`~planloop.llm.LLMError` a RuntimeError)."""


class PlanloopError(Exception):
    """Any error planloop raises on purpose, with a message that says what to do."""
