"""The cyclic garbage collector is off while a task is read or grounded, and back as it
was afterwards: after an error, after nested and concurrent pauses, and left off when
the caller had turned it off."""

import gc
import threading

import pytest

from planloop.pddl import PDDLError, domain_reader, grounding, load, problem_reader
from planloop.pddl.collection import collection_paused
from planloop.pddl.memo import clear_all

DOMAIN = """(define (domain d) (:predicates (p ?x) (q ?x))
  (:action a :parameters (?x) :precondition (p ?x) :effect (q ?x)))"""
PROBLEM = "(define (problem t) (:domain d) (:objects o1 o2) (:init (p o1)) (:goal (q o1)))"


@pytest.fixture(autouse=True)
def collector_on():
    gc.enable()
    yield
    gc.enable()


def test_reading_and_grounding_run_without_the_collector(monkeypatch):
    seen = []
    read, start = domain_reader.read_sections, grounding.Task._start

    def reading(*args):
        seen.append(("read", gc.isenabled()))
        return read(*args)

    def grounding_(self, *args):
        seen.append(("ground", gc.isenabled()))
        return start(self, *args)

    monkeypatch.setattr(domain_reader, "read_sections", reading)
    monkeypatch.setattr(problem_reader, "read_sections", reading)
    monkeypatch.setattr(grounding.Task, "_start", grounding_)
    clear_all()
    task = load(DOMAIN, PROBLEM)
    assert [a.text for a in task.actions] == ["(a o1)"]
    assert seen == [("read", False), ("read", False), ("ground", False)]
    assert gc.isenabled()


def test_the_collector_is_back_after_an_error():
    with pytest.raises(PDDLError):
        load(DOMAIN, PROBLEM.replace("(:goal (q o1))", "(:goal (r o1))"))
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off():
    gc.disable()
    load(DOMAIN, PROBLEM.replace("o2", "o3"))
    assert not gc.isenabled()


def test_nested_and_concurrent_pauses_end_with_the_last():
    inside, release = threading.Event(), threading.Event()

    def other():
        with collection_paused():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=other)
    with collection_paused():
        with collection_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
        thread.start()
        inside.wait(10)
    assert not gc.isenabled()  # the other thread's pause is still open
    release.set()
    thread.join(10)
    assert gc.isenabled()
