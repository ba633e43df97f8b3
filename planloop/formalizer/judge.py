"""PDDLego+'s four error categories, computed per round from the hidden world.

A round is judged when its PF is readable with its DF and it carries a readable
``truth`` (the true PF of what has been observed); facts are matched as
:mod:`~planloop.formalizer.matching` says. Per round:

- **hallucinated**: the model's facts the truth does not support, or that name an
  invented object (``invented``: model names that stand for nothing observed);
- **forgotten**: the truth's relevant facts (``RELEVANT``: CoinCollector's passages
  and the rooms items lie in, ALFWorld's receptacle contents) no model fact matches;
- **bad_goal**: the check's ``goal`` stage (the goal is empty, or already true in the
  model's own PF), which needs no truth; and with one, a goal naming a thing never
  observed (``unobserved: x``), or a room assumed behind a door where the truth knows
  no passage (``unreachable: x``);
- **action_semantics**: executed steps the game refused (``ok`` False) while the PF
  asserted no hallucinated fact about the step's arguments (the agent and the
  domains' constants, such as directions, do not count) and left out no true fact
  relating two or more of them (a forgotten door's ``(blocked kitchen hall)``): the
  DF let a step apply that the world refused. A refused step with such a fact is
  blamed on it instead, as hallucinated or forgotten (``failed_steps`` has all, with
  their ``cause``).

Not detected (see also the matching's rules):

- a false property under a predicate the truth lacks: it is matched by its arguments,
  so ``(is-open cabinet_3)`` or ``(at cabinet_3)`` passes while ``(openable
  cabinet_3)`` holds, and a stale ``(at kitchen)`` while ``(visited kitchen)`` does
  (under the truth's own predicate, ``(opened cabinet_3)``, it is caught);
- facts with no argument but the agent (``(handempty)``): not judged;
- names the model declares as constants of its DF are never invented (their facts
  are still judged);
- goals unreachable for reasons of the dynamics (heating what cannot be heated,
  opening what does not open), goals true in the world but not in the model's stale
  PF, and what a quantified goal's variables stand for (only its names are checked);
- DF errors that no refused step exposed; and a refused step is judged against the
  round's PF, not the state the plan's earlier steps left.

Over-counted: facts whose arguments the model orders otherwise than the truth
(hallucinated, and the true ones forgotten).
"""

from __future__ import annotations

from statistics import mean
from typing import Any

from ..pddl import parse_command
from .mapping import squash
from .matching import Match, Truth, goal_names, match, read_files, read_truth
from .stability import stability

RELEVANT = {"coin": ("connected", "in-room"), "alfworld": ("inreceptacle",)}
CATEGORIES = ("hallucinated", "forgotten", "bad_goal", "action_semantics")


def judge_round(round: dict, family: str, previous: dict | None) -> dict:
    """The four categories for one round record (``df``, ``pf``, ``check``, ``steps``,
    ``truth``), with the round's ``stability`` against ``previous`` and the truth."""
    if family not in RELEVANT:
        raise ValueError(f"no judging rules for {family!r}: one of {sorted(RELEVANT)}")
    check = round.get("check") or {}
    result: dict[str, Any] = {
        "judged": False,
        "facts": 0,
        "hallucinated": [],
        "invented": [],
        "assumed": [],
        "forgotten": [],
        "bad_goal": [],
        "action_semantics": [],
        "failed_steps": [],
        "stability": stability(previous, round, round.get("truth")),
    }
    if check.get("stage") == "goal":
        result["bad_goal"].append(str(check.get("message") or "goal").split(":")[0])
    problem = read_files(round.get("df"), round.get("pf"))[1]
    truth = read_truth(round.get("truth"))
    if problem is None or truth is None:
        return result
    index = Truth.of(truth)
    found = match(problem, index)
    goal = {squash(n) for n in goal_names(problem.goal)}
    failed = [
        _failure(step, found, index, truth)
        for step in round.get("steps") or ()
        if step.get("ok") is False
    ]
    result.update(
        judged=True,
        facts=len(found.supported) + len(found.hallucinated),
        hallucinated=[str(a) for a in found.hallucinated],
        invented=list(found.invented),
        assumed=list(found.assumptions),
        forgotten=sorted(
            {
                str(a)
                for a in truth.init
                if a.predicate in RELEVANT[family] and a not in found.covered
            }
            | {fact for f in failed if f["cause"] == "forgotten" for fact in f["facts"]}
        ),
        action_semantics=[f["step"] for f in failed if f["cause"] == "action_semantics"],
        failed_steps=failed,
    )
    result["bad_goal"] += [
        f"unreachable: {n}" if n in found.stranded else f"unobserved: {n}"
        for n in sorted(goal.intersection(found.invented))
    ]
    return result


def _failure(step: dict, found: Match, truth: Truth, problem) -> dict:
    """A refused step: the hallucinated facts about its arguments; else the true facts
    relating its arguments (two or more of them) that the PF left out; else the DF."""
    try:
        args = parse_command(step["step"])[1]
    except ValueError:
        args = ()
    about = set(map(squash, args)) - found.agents - found.constants - truth.constants
    facts = [str(a) for a in found.hallucinated if about.intersection(map(squash, a.args))]
    if facts:
        return {
            "step": step["step"],
            "command": step.get("command"),
            "cause": "hallucinated",
            "facts": facts,
        }
    named = {found.names.get(n, n) for n in about}
    missing = []
    for atom in problem.init:
        objects = {squash(a) for a in atom.args} - truth.agents - truth.constants
        if atom not in found.covered and len(objects) >= 2 and objects <= named:
            missing.append(str(atom))
    return {
        "step": step["step"],
        "command": step.get("command"),
        "cause": "forgotten" if missing else "action_semantics",
        "facts": sorted(missing),
    }


def judge_episode(rounds: list[dict], family: str) -> dict:
    """Every round judged (``per_round``, each against the round before it) and the
    totals: ``rounds_<category>`` counts the rounds with at least one error of the
    category, ``<category>`` the errors (facts, goal defects, refused steps);
    ``regenerated`` the rounds with a regenerated file, and the mean Jaccard indices of
    facts against the previous round and the truth (None when there is none)."""
    per_round, previous = [], None
    for round_ in rounds:
        per_round.append(judge_round(round_, family, previous))
        previous = round_
    totals = {"rounds": len(per_round), "judged": sum(j["judged"] for j in per_round)}
    for category in CATEGORIES:
        totals[f"rounds_{category}"] = sum(bool(j[category]) for j in per_round)
        totals[category] = sum(len(j[category]) for j in per_round)
    totals["regenerated"] = sum(j["stability"]["regenerated"] is True for j in per_round)
    for key in ("facts_jaccard_previous", "facts_jaccard_truth"):
        values = [j["stability"][key] for j in per_round if j["stability"][key] is not None]
        totals[key] = mean(values) if values else None
    return totals | {"per_round": per_round}
