"""The authors' hand-written answers to a command the game refuses (PDDLego+ and
PlanGen, ``--feedback authors``), in planloop's words."""

from __future__ import annotations


def authors_feedback(family: str, command: str, game_text: str) -> str | None:
    """What the authors' harness tells the model when the game refuses ``command``, in
    planloop's words; None when it lets the refusal pass (the plan goes on)."""
    told = f"You took the action '{command}' and it failed. "
    if family == "coin":
        return told + _coin_hint(command, game_text)
    hint = _alfworld_hint(command)
    return None if hint is None else told + hint


def plangen_feedback(family: str, command: str, game_text: str) -> str:
    """What the authors' PlanGen harness tells the model when the game refuses
    ``command``: PDDLego+'s answer, and on ALFWorld for a refused 'go to' (which
    PDDLego+ lets pass, but which ends PlanGen's one-command try) a hint of its own."""
    told = authors_feedback(family, command, game_text)
    return told or (
        f"You took the action '{command}' and it failed. You may be at that receptacle "
        "already, or there is no such receptacle."
    )


def _coin_hint(command: str, game_text: str) -> str:
    if "door is closed" in game_text:
        return "The door in that direction is closed: open it before you move there."
    if "already open" in game_text:
        return (
            "That door is already open, so you have been here before. Check what your "
            "files say about the door."
        )
    if command.startswith("open door"):
        return (
            "There is no door in that direction, or nothing at all. Where there is no "
            "door you can move there directly."
        )
    if command.startswith("move"):
        return (
            "You cannot move in that direction. Check your actions' predicates and what "
            "the problem file says about this place."
        )
    return "The game did not accept it."


_ALFWORLD_HINTS = (
    (
        "open",
        "Go to the receptacle before you open it. If you are at it and it still does "
        "not open, it cannot be opened: what is inside shows when you go to it.",
    ),
    (
        "take",
        "Go to the receptacle before you take from it. If you are at it, the object is "
        "not there: search other receptacles, and make finding the object your goal "
        "rather than assuming where it is.",
    ),
    (
        "move",
        "To put an object somewhere, first find it (go to unvisited receptacles, open "
        "them if needed), pick it up, then go to the target receptacle and put it there.",
    ),
    (
        "slice",
        "To slice, pick up the sharp object (and nothing else), then slice without "
        "picking up the object to slice; put the sharp object back afterwards.",
    ),
    (
        "cool",
        "To cool an object, pick it up elsewhere, go to the fridge and cool it there; "
        "do not put it into the fridge.",
    ),
    (
        "use",
        "Only a lamp can be used: it lights up to look at an object, which you must hold first.",
    ),
)


def _alfworld_hint(command: str) -> str | None:
    if command.startswith("go to"):
        return None
    return next(
        (hint for verb, hint in _ALFWORLD_HINTS if command.startswith(verb)),
        "The game did not accept it.",
    )
