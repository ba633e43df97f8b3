"""Why ``gym.make`` refused an environment id or its arguments, in words a user can act
on: an unknown id with the closest registered ones, an unknown option with the options
the environment takes."""

from __future__ import annotations

import difflib
import inspect
import re
from collections.abc import Callable

from gymnasium.envs.registration import load_env_creator, registry

_UNEXPECTED = re.compile(r"(\w+)\.__init__\(\) got an unexpected keyword argument '(\w+)'")


def unknown_env(env_id: str) -> str | None:
    """``no environment Foo-v0 (closest: Baking-v0); planloop envs lists them`` for an id
    gymnasium has not registered, else None."""
    if env_id in registry:
        return None
    ids = {known.lower(): known for known in registry}
    closest = [
        ids[m] for m in difflib.get_close_matches(env_id.lower(), list(ids), n=3, cutoff=0.6)
    ]
    hint = f" (closest: {', '.join(closest)})" if closest else ""
    return f"no environment {env_id}{hint}; `planloop envs` lists them"


def env_options(env_id: str, class_name: str | None = None) -> list[str]:
    """The keyword arguments ``gym.make(env_id, ...)`` takes: its entry point's, and
    those of the class ``class_name`` its module holds when the entry point passes
    ``**kwargs`` on."""
    spec = registry[env_id]
    if not isinstance(spec.entry_point, str):
        return []
    creator = load_env_creator(spec.entry_point)
    targets: list[Callable[..., object]] = [creator]
    forwarded = getattr(inspect.getmodule(creator), class_name or "", None)
    if inspect.isclass(forwarded):
        targets.append(forwarded.__init__)
    names: dict[str, None] = {}
    for target in targets:
        for parameter in inspect.signature(target).parameters.values():
            if parameter.kind is parameter.KEYWORD_ONLY or (
                parameter.kind is parameter.POSITIONAL_OR_KEYWORD and parameter.name != "self"
            ):
                names[parameter.name] = None
    return list(names)


def make_error(env_id: str, exc: Exception) -> str:
    """What went wrong making ``env_id``: an unknown id or option said as above, else the
    environment's own message (gymnasium's "was raised from the environment creator"
    tail dropped)."""
    unknown = unknown_env(env_id)
    if unknown is not None:
        return unknown
    text = str(exc).split(" was raised from the environment creator")[0]
    match = _UNEXPECTED.search(text)
    if isinstance(exc, TypeError) and match:
        options = env_options(env_id, match.group(1))
        listed = f": it takes {', '.join(options)}" if options else ""
        return f"{env_id} has no option {match.group(2)}{listed}"
    return text
