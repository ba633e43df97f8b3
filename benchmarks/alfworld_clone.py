"""ALFWorld games made bigger: a game's receptacles cloned to a given count.

Each clone copies one of the game's receptacles (taken in turn): its type, ``openable``
and the ``canContain`` its type already has, but it stands empty at a location of its own,
so that the game offers one more ``go to`` and everything the agent can do there. The
walkthrough is renamed to the new displayed names (ALFWorld numbers the receptacles of a
class by their ids, so clones renumber the originals) and still wins.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

from planloop.envs.alfworld.game import display_names, fast_downward_reading
from planloop.pddl import Atom, ground, parse_domain, parse_problem, write_problem

COPIED = ("receptacletype", "openable")  # the facts of a receptacle a clone copies


def receptacles(problem) -> list[str]:
    """The problem's receptacles, in declaration order."""
    return [obj for obj, kind in problem.objects.items() if kind == "receptacle"]


def clone_receptacles(game: dict, count: int) -> dict:
    """``game`` (a ``game.tw-pddl`` JSON object) with ``count`` receptacles: its own and
    clones of them. Raises ValueError if it already has more."""
    domain = parse_domain(fast_downward_reading(game["pddl_domain"]))
    problem = parse_problem(game["pddl_problem"], domain)
    originals = receptacles(problem)
    if count < len(originals):
        raise ValueError(f"the game has {len(originals)} receptacles, more than {count}")
    objects, init = dict(problem.objects), list(problem.init)
    for k in range(count - len(originals)):
        source = originals[k % len(originals)]
        clone = f"{source.split('_bar_', 1)[0]}_bar_clone{k}"
        place = f"loc_bar_clone{k}"
        objects[clone], objects[place] = "receptacle", "location"
        init += [
            Atom(fact.predicate, (clone,) + fact.args[1:])
            for fact in problem.init
            if fact.predicate in COPIED and fact.args[0] == source
        ]
        init.append(Atom("receptacleatlocation", (clone, place)))
    bigger = replace(problem, objects=objects, init=tuple(init))
    renamed = _renaming(ground(domain, problem), ground(domain, bigger))
    return dict(
        game,
        pddl_problem=write_problem(bigger),
        walkthrough=[_rename(command, renamed) for command in game.get("walkthrough", ())],
    )


def clone_file(path: str | Path, count: int) -> dict:
    """The game file at ``path`` with its receptacles cloned to ``count``."""
    return clone_receptacles(json.loads(Path(path).read_text()), count)


def _renaming(before, after) -> dict[str, str]:
    """Each displayed name of ``before`` that ``after`` shows otherwise, to the new one."""
    old, new = display_names(before), display_names(after)
    return {e.name: new[obj].name for obj, e in old.items() if new[obj].name != e.name}


def _rename(command: str, renamed: dict[str, str]) -> str:
    if not renamed:
        return command
    names = "|".join(re.escape(name) for name in sorted(renamed, key=len, reverse=True))
    return re.sub(rf"\b(?:{names})\b", lambda m: renamed[m.group()], command)
