"""A parsed domain or problem is shared by every holder of its text: no caller can
change its mappings, and copies, pickles and equality still work."""

import copy
import pickle

import pytest

from planloop.pddl import parse_domain, parse_problem
from planloop.pddl.model import FrozenDict

from conftest import DATA

DOMAIN = (DATA / "ipc2000-blocks" / "domain.pddl").read_text()


@pytest.mark.parametrize(
    "change",
    [
        lambda m: m.pop(next(iter(m))),
        lambda m: m.__setitem__("x", None),
        lambda m: m.__delitem__(next(iter(m))),
        lambda m: m.update({"x": None}),
        lambda m: m.setdefault("x", None),
        lambda m: m.clear(),
        lambda m: m.popitem(),
    ],
)
def test_a_cached_domains_mappings_refuse_every_change(change):
    domain = parse_domain(DOMAIN)
    for mapping in (domain.actions, domain.predicates, domain.types, domain.constants):
        if mapping:
            with pytest.raises(TypeError, match="cannot be changed"):
                change(mapping)
    again = parse_domain(DOMAIN)  # the memo's copy is the same, whole
    assert set(again.actions) == {"pick-up", "put-down", "stack", "unstack"}


def test_a_problems_objects_refuse_change_and_copies_pickles_compare():
    domain = parse_domain(DOMAIN)
    problem = parse_problem(
        "(define (problem p) (:domain blocks) (:objects a b - block) (:init (clear a)) "
        "(:goal (clear b)))",
        domain,
    )
    with pytest.raises(TypeError):
        problem.objects["c"] = "block"
    assert pickle.loads(pickle.dumps(domain)) == domain
    assert copy.deepcopy(problem) == problem
    mutable = dict(domain.actions)
    mutable.pop("stack")
    assert "stack" in domain.actions and isinstance(domain.actions, FrozenDict)
