"""tarski, the reference PDDL parser, reads the shipped and sample files as we do.

Our reader is the engine (tarski cannot read ALFWorld's domain or ``either`` types,
and gives no positions for semantic errors); tarski referees it here.
"""

import pytest

from planloop.pddl import parse

from conftest import IPC, PLANBENCH

tarski_io = pytest.importorskip("tarski.io")

CASES = [
    (PLANBENCH / "blocksworld" / "generated_domain.pddl", p)
    for p in sorted((PLANBENCH / "blocksworld" / "generated_basic").glob("*.pddl"))[:5]
]
CASES += [
    (PLANBENCH / "mystery" / "generated_domain.pddl", p)
    for p in sorted((PLANBENCH / "mystery" / "generated_basic").glob("*.pddl"))[:5]
]
CASES += [(IPC / "domain.pddl", p) for p in sorted((IPC / "instances").glob("*.pddl"))]


def _atom_text(atom) -> str:
    return "(" + " ".join([atom.predicate.name] + [str(t) for t in atom.subterms]) + ")"


@pytest.mark.parametrize(
    "domain_path,problem_path", CASES, ids=[f"{d.parent.name}-{p.stem}" for d, p in CASES]
)
def test_same_model_as_tarski(domain_path, problem_path):
    reader = tarski_io.PDDLReader(raise_on_error=True, case_insensitive=True)
    reader.parse_domain(str(domain_path))
    theirs = reader.parse_instance(str(problem_path))
    domain, problem = parse(domain_path, problem_path)

    assert set(theirs.actions) == set(domain.actions)
    for name, action in domain.actions.items():
        assert len(theirs.actions[name].parameters) == len(action.params)
    their_predicates = {
        p.name: p.arity
        for p in theirs.language.predicates
        if isinstance(p.name, str) and p.name not in ("=", "!=")
    }
    assert {
        n: len(p.params) for n, p in domain.predicates.items()
    }.items() <= their_predicates.items()
    assert {_atom_text(a) for a in theirs.init.as_atoms()} == {str(a) for a in problem.init}
    their_goal = theirs.goal.subformulas if hasattr(theirs.goal, "subformulas") else [theirs.goal]
    assert {_atom_text(a) for a in their_goal} == {str(a) for a in problem.goal.args}
