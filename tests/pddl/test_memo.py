"""Reading the same PDDL text again returns what was read (planloop.pddl.memo), keyed by
the text and every option of the reading, bounded, and never keeping a failed read."""

import pytest

from planloop.pddl import Limits, PDDLError, parse, parse_domain, parse_problem
from planloop.pddl.memo import Memo

from conftest import IPC, PLANBENCH

DOMAIN = (PLANBENCH / "blocksworld" / "generated_domain.pddl").read_text()
PROBLEM = (PLANBENCH / "blocksworld" / "generated_basic" / "instance-1.pddl").read_text()


def test_the_same_text_read_the_same_way_is_the_same_object():
    domain, problem = parse(DOMAIN, PROBLEM)
    assert parse_domain(DOMAIN) is domain and parse_problem(PROBLEM, domain) is problem
    assert parse_domain(DOMAIN, strict=True) is not domain
    assert parse_domain(DOMAIN, Limits(max_objects=99)) is not domain
    assert parse_domain(DOMAIN + " ") is not domain  # another text


def test_a_file_is_kept_by_its_contents(tmp_path):
    path = tmp_path / "domain.pddl"
    path.write_text(DOMAIN)
    first = parse_domain(path)
    assert parse_domain(str(path)) is first and parse_domain(DOMAIN) is first
    path.write_text(DOMAIN.replace("(define", "; edited\n(define", 1))
    assert parse_domain(path) is not first  # new contents, read anew


def test_a_problem_is_kept_for_its_domain_object_only():
    domain = parse_domain(DOMAIN)
    strict = parse_domain(DOMAIN, strict=True)
    assert parse_problem(PROBLEM, domain) is not parse_problem(PROBLEM, strict)


def test_a_failed_read_keeps_nothing_and_fails_again():
    broken = DOMAIN.replace("(:action", "(:action (", 1)
    for _ in range(2):
        with pytest.raises(PDDLError, match="unbalanced parentheses"):
            parse_domain(broken)


def test_the_memo_is_bounded_and_drops_the_least_recently_used():
    memo: Memo[int] = Memo(size=2)
    calls = []

    def read(value):
        calls.append(value)
        return value

    assert [memo.get(k, lambda k=k: read(k)) for k in ("a", "b", "a", "c", "b")] == list("abacb")
    assert calls == ["a", "b", "c", "b"]  # "b" was dropped for "c", "a" was used since
    assert (memo.hits, memo.misses) == (1, 4)


def test_grounding_the_same_task_again_in_a_thread_is_free():
    import threading

    from planloop.pddl import ground, load

    first = load(DOMAIN, PROBLEM)
    assert load(DOMAIN, PROBLEM) is first  # the same text: the same Domain, Problem, Task
    assert load(DOMAIN, PROBLEM, Limits(max_objects=99)) is not first
    domain, problem = parse(DOMAIN, PROBLEM)
    assert ground(domain, problem, check=lambda: None) is first  # a deadline: no matter
    other = []
    thread = threading.Thread(target=lambda: other.append(load(DOMAIN, PROBLEM)))
    thread.start()
    thread.join()
    assert other[0] is not first  # each thread its own (a Task grows indexes lazily)
    assert other[0].init == first.init and len(other[0].actions) == len(first.actions)


def test_a_grounding_stopped_by_its_deadline_keeps_nothing():
    from planloop.envs.blocksworld import generate_problem
    from planloop.pddl import ground
    from planloop.pddl.deadline import SearchTimeout

    domain, problem = parse(IPC / "domain.pddl", generate_problem(80, 5, style="ipc"))

    def expired():
        raise SearchTimeout

    with pytest.raises(SearchTimeout):
        ground(domain, problem, check=expired)
    task = ground(domain, problem, check=lambda: None)
    assert len(task.actions) == 2 * 80 * 80 + 2 * 80 and ground(domain, problem) is task


def test_clear_all_forgets_every_reading_and_grounding():
    from planloop.pddl import load
    from planloop.pddl.memo import clear_all

    first = load(DOMAIN, PROBLEM)
    clear_all()
    assert load(DOMAIN, PROBLEM) is not first and parse_domain(DOMAIN) is not first.domain
