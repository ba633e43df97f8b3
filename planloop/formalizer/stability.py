"""How much of a formalization survives from one round to the next.

Facts are the PF's ``:init`` atoms as squashed tuples (``(at Kitchen)`` ->
``("at", "kitchen")``); actions are the DF's action names (squashed) with their arity.
Against the previous round both are compared as sets, in the model's own vocabulary.
Against the truth, facts are matched as :mod:`~planloop.formalizer.matching` says
(argument tuples, bound names), and the Jaccard index counts as shared
``min(model facts supported, true facts covered)`` (the set Jaccard index when the
matching is one to one). A file that is missing or unreadable has no facts or actions.

A file is *regenerated* when fewer than ``REGENERATED`` of its lines are shared with
the previous round's file (Jaccard index of the sets of non-blank lines, compared
lowercased with their whitespace collapsed): an incremental edit keeps most lines,
a file written from scratch keeps almost none, whatever its facts.
"""

from __future__ import annotations

from typing import Any

from .mapping import squash
from .matching import Truth, match, read_files, read_truth

REGENERATED = 0.2


def jaccard(a: set, b: set) -> float:
    """|a & b| / |a | b|; 1.0 for two empty sets."""
    return len(a & b) / len(a | b) if a | b else 1.0


def _facts(problem) -> set[tuple[str, ...]]:
    return {(squash(a.predicate), *map(squash, a.args)) for a in problem.init} if problem else set()


def _actions(domain) -> set[tuple[str, int]]:
    return {(squash(a.name), len(a.params)) for a in domain.actions.values()} if domain else set()


def _lines(text: str) -> set[str]:
    return {" ".join(line.split()).lower() for line in text.splitlines() if line.strip()}


def _compare(kind: str, before: set | None, after: set) -> dict:
    before = set() if before is None else before
    return {
        kind: len(after),
        f"{kind}_kept": len(after & before),
        f"{kind}_added": len(after - before),
        f"{kind}_dropped": len(before - after),
    }


def truth_jaccard(problem, truth_pf: str | None) -> float | None:
    """The model problem's facts against the true PF's (None without a readable truth)."""
    truth = read_truth(truth_pf)
    if truth is None:
        return None
    found = match(problem, Truth.of(truth)) if problem else None
    shared = min(len(found.supported), len(found.covered)) if found else 0
    total = (len(problem.init) if problem else 0) + len(truth.init) - shared
    return shared / total if total else 1.0


def stability(previous_round: dict | None, round: dict, truth_pf: str | None = None) -> dict:
    """Kept / added / dropped facts and actions since ``previous_round``, Jaccard
    indices against it and against ``truth_pf``, and whether a file was regenerated
    (None where there is nothing to compare: no previous round, or a file missing)."""
    domain, problem = read_files(round.get("df"), round.get("pf"))
    facts, actions = _facts(problem), _actions(domain)
    result: dict[str, Any] = {
        "facts_jaccard_previous": None,
        "actions_jaccard_previous": None,
        "facts_jaccard_truth": truth_jaccard(problem, truth_pf),
        "df_lines_jaccard": None,
        "pf_lines_jaccard": None,
        "regenerated": None,
    }
    before_facts = before_actions = None
    if previous_round is not None:
        before_domain, before_problem = read_files(
            previous_round.get("df"), previous_round.get("pf")
        )
        before_facts, before_actions = _facts(before_problem), _actions(before_domain)
        result.update(
            facts_jaccard_previous=jaccard(before_facts, facts),
            actions_jaccard_previous=jaccard(before_actions, actions),
        )
        for file in ("df", "pf"):
            if previous_round.get(file) and round.get(file):
                result[f"{file}_lines_jaccard"] = jaccard(
                    _lines(previous_round[file]), _lines(round[file])
                )
        shares = [result[f"{file}_lines_jaccard"] for file in ("df", "pf")]
        if None not in shares:
            result["regenerated"] = min(shares) < REGENERATED
    return (
        _compare("facts", before_facts, facts)
        | _compare("actions", before_actions, actions)
        | result
    )
