"""``benchmarks/contingent_suites.py``: how it pairs a suite's problems with their domains
and hidden-worlds files, and what it records of each pair."""

import importlib.util
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
LAMPS = Path(__file__).resolve().parents[1] / "data" / "contingent" / "lamps"


def load(name: str):
    """A module of ``benchmarks/`` (benchmarks are scripts, not a package)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _suite(root: Path) -> None:
    """A suite in the layouts the public ones use: a domain above its problems, size
    folders, a hidden file beside its problem, a variant domain for variant problems."""
    domain, problem = (LAMPS / "domain.pddl").read_text(), (LAMPS / "problem.pddl").read_text()
    for folder in ("lamps/lamps4", "lamps/multivalued-variables"):
        (root / folder).mkdir(parents=True)
    (root / "lamps" / "domain.pddl").write_text(domain)
    (root / "lamps" / "lamps4" / "p.pddl").write_text(problem)
    (root / "lamps" / "lamps4" / "hidden.pddl").write_text(
        "(define (problem lamps-4)\n (:hidden (lit b))\n (:hidden (lit a) (lit b)))"
    )
    variants = root / "lamps" / "multivalued-variables"
    (variants / "d.pddl").write_text(domain)
    (variants / "new-d.pddl").write_text(domain.replace("(checked ?l - lamp)", ""))
    (variants / "p4.pddl").write_text(problem)
    (variants / "new-p4.pddl").write_text(problem)
    (variants / "h4.pddl").write_text("(define (problem lamps-4) (:hidden (lit c) (lit a)))")


def test_problems_pair_with_their_domains_and_hidden_files(tmp_path):
    suites = load("contingent_suites")
    _suite(tmp_path / "mine")
    pairs = {p.problem.name: p for p in suites.suite_pairs(tmp_path / "mine")}
    assert sorted(pairs) == ["new-p4.pddl", "p.pddl", "p4.pddl"]
    assert pairs["p.pddl"].domain.name == "domain.pddl" and pairs["p.pddl"].domain_name == "lamps"
    assert [h.name for h in pairs["p.pddl"].hidden] == ["hidden.pddl"]
    assert pairs["p4.pddl"].domain.name == "d.pddl"
    assert pairs["new-p4.pddl"].domain.name == "new-d.pddl"
    assert pairs["p4.pddl"].domain_name == "lamps (mvv)"
    assert [h.name for h in pairs["p4.pddl"].hidden] == ["h4.pddl"]


def test_a_record_says_what_reads_tracks_and_which_hidden_worlds_fit(tmp_path):
    suites = load("contingent_suites")
    _suite(tmp_path / "mine")
    records = {p.problem.name: suites.try_pair(p) for p in suites.suite_pairs(tmp_path / "mine")}
    good = records["p.pddl"]
    assert good["read"] and good["tracked"] and "error" not in good
    assert (good["hidden_worlds"], good["hidden_in_belief"]) == (2, 1)  # (lit a) without (lit d)
    assert records["p4.pddl"]["hidden_in_belief"] == 0  # (lit c) and (lit a) without (lit d)
    broken = records["new-p4.pddl"]
    assert not broken["read"] and "unknown predicate 'checked'" in broken["error"]
