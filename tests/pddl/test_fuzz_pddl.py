"""Property: however a language model breaks valid PDDL, the reader answers with a
Task or a PDDLError carrying well-formed diagnostics, never with another exception.

Valid domains and problems are mutated the ways models get PDDL wrong: a paren
dropped or added, a token lost, a line repeated, a name misspelt, tokens swapped,
output cut off, prose around the code, an argument too many or too few, case
changed, commas, stray unicode.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planloop.pddl import Diagnostic, PDDLError, Task, load, parse_plan

DATA = Path(__file__).resolve().parent.parent / "data" / "planbench" / "blocksworld"

BLOCKSWORLD_DOMAIN = (DATA / "generated_domain.pddl").read_text()
BLOCKSWORLD_PROBLEM = (DATA / "generated_basic" / "instance-1.pddl").read_text()

# Typed, with constants, either, exists, forall, when, imply, equality.
COURIER_DOMAIN = """\
; a courier domain exercising the ADL the reader supports
(define (domain courier)
  (:requirements :strips :typing :negative-preconditions :equality :conditional-effects
                 :existential-preconditions :universal-preconditions)
  (:types vehicle parcel place - object
          truck van - vehicle)
  (:constants depot - place)
  (:predicates (at ?x - (either vehicle parcel) ?p - place)
               (in ?c - parcel ?v - vehicle)
               (road ?a ?b - place)
               (fragile ?c - parcel)
               (delivered ?c - parcel))
  (:action drive
    :parameters (?v - vehicle ?from ?to - place)
    :precondition (and (at ?v ?from) (road ?from ?to) (not (= ?from ?to)))
    :effect (and (not (at ?v ?from)) (at ?v ?to)))
  (:action load
    :parameters (?c - parcel ?v - (either truck van) ?p - place)
    :precondition (and (at ?c ?p) (at ?v ?p)
                       (not (exists (?o - parcel) (in ?o ?v))))
    :effect (and (in ?c ?v) (not (at ?c ?p))))
  (:action unload
    :parameters (?c - parcel ?v - vehicle ?p - place)
    :precondition (and (in ?c ?v) (at ?v ?p) (imply (fragile ?c) (= ?p depot)))
    :effect (and (not (in ?c ?v)) (at ?c ?p)
                 (when (= ?p depot) (delivered ?c))))
  (:action seal
    :parameters (?v - vehicle)
    :precondition (forall (?c - parcel) (not (in ?c ?v)))
    :effect (forall (?c - parcel) (when (at ?c depot) (not (fragile ?c))))))
"""

COURIER_PROBLEM = """\
(define (problem two-parcels)
  (:domain courier)
  (:objects t1 - truck v1 - van p1 p2 - parcel home market - place)
  (:init (at t1 home) (at v1 market) (at p1 home) (at p2 market) (fragile p2)
         (road home market) (road market home) (road home depot) (road depot home)
         (road market depot) (road depot market))
  (:goal (and (delivered p1) (delivered p2)
              (forall (?c - parcel) (exists (?p - place) (at ?c ?p))))))
"""

CORPUS = [(BLOCKSWORLD_DOMAIN, BLOCKSWORLD_PROBLEM), (COURIER_DOMAIN, COURIER_PROBLEM)]

_TOKEN = re.compile(r"\(|\)|[^\s()]+")
_WORD = re.compile(r"[^\s()]+")
_FLAT_GROUP = re.compile(r"\(([^()\s]+)((?:\s+[^()\s]+)*)\s*\)")

PROSE = [
    "Here is the PDDL you asked for:",
    "```pddl",
    "```",
    "Note: I assumed every block starts on the table.",
    "**Domain file**",
    "This domain models a simple world.\nEach action is explained below.",
    "1. First we define the types.",
    "(Sorry, I made a mistake earlier.)",
    "Let me know if you need anything else!",
]
UNICODE = [
    "\u00a0",
    "\u200b",
    "\u2028",
    "\ufeff",
    "\u201c",
    "\u201d",
    "\u2014",
    "\u2192",
    "\u0130",
    "\ufb00",
    "\u00e9",
    "\U0001f642",
    "\x00",
    "\r",
    "\t",
    "\u00ad",
    "\uff08",
    "\uff09",
]


# -- mutations: (draw, text) -> text ----------------------------------------------------
def _pos(draw, text: str) -> int:
    return draw(st.integers(0, len(text)))


def _pick(draw, matches):
    return draw(st.sampled_from(matches)) if matches else None


def delete_paren(draw, text):
    found = _pick(draw, [m.start() for m in re.finditer(r"[()]", text)])
    return text if found is None else text[:found] + text[found + 1 :]


def insert_paren(draw, text):
    pos = _pos(draw, text)
    return text[:pos] + draw(st.sampled_from("()")) + text[pos:]


def delete_token(draw, text):
    m = _pick(draw, list(_TOKEN.finditer(text)))
    return text if m is None else text[: m.start()] + text[m.end() :]


def duplicate_line(draw, text):
    lines = text.splitlines(keepends=True)
    if not lines:
        return text
    i = draw(st.integers(0, len(lines) - 1))
    line = lines[i] if lines[i].endswith("\n") else lines[i] + "\n"
    return "".join(lines[:i] + [line] + lines[i:])


_NEW_NAME = st.from_regex(r"\??[a-z][a-z0-9_-]{0,7}", fullmatch=True)


def rename_identifier(draw, text):
    m = _pick(draw, list(_WORD.finditer(text)))
    if m is None:
        return text
    new = draw(_NEW_NAME)
    if draw(st.booleans()):  # one occurrence: the name no longer matches its declaration
        return text[: m.start()] + new + text[m.end() :]
    pattern = r"(?<![^\s()])" + re.escape(m.group()) + r"(?![^\s()])"
    return re.sub(pattern, lambda _: new, text)  # every occurrence


def swap_tokens(draw, text):
    tokens = list(_TOKEN.finditer(text))
    if len(tokens) < 2:
        return text
    i = draw(st.integers(0, len(tokens) - 2))
    j = draw(st.integers(i + 1, len(tokens) - 1))
    a, b = tokens[i], tokens[j]
    return text[: a.start()] + b.group() + text[a.end() : b.start()] + a.group() + text[b.end() :]


def truncate(draw, text):
    return text[: _pos(draw, text)]


def insert_prose(draw, text):
    prose = draw(st.sampled_from(PROSE))
    if draw(st.booleans()):  # on a line of its own
        lines = text.splitlines(keepends=True)
        i = draw(st.integers(0, len(lines)))
        return "".join(lines[:i] + [prose + "\n"] + lines[i:])
    pos = _pos(draw, text)
    return text[:pos] + " " + prose + " " + text[pos:]


def change_arity(draw, text):
    m = _pick(draw, list(_FLAT_GROUP.finditer(text)))
    if m is None:
        return text
    words = m.group()[1:-1].split()
    if len(words) > 1 and draw(st.booleans()):
        del words[draw(st.integers(1, len(words) - 1))]
    else:
        words.append(draw(st.sampled_from(words[1:] or ["extra"]) | st.just("?extra")))
    return text[: m.start()] + "(" + " ".join(words) + ")" + text[m.end() :]


def change_case(draw, text):
    how = draw(st.sampled_from([str.upper, str.lower, str.swapcase, str.title]))
    if draw(st.booleans()):
        return how(text)
    start = _pos(draw, text)
    end = draw(st.integers(start, len(text)))
    return text[:start] + how(text[start:end]) + text[end:]


def insert_comma(draw, text):
    pos = _pos(draw, text)
    return text[:pos] + draw(st.sampled_from([",", ", ", " ,"])) + text[pos:]


def insert_unicode(draw, text):
    pos = _pos(draw, text)
    junk = draw(st.sampled_from(UNICODE) | st.text(min_size=1, max_size=3))
    return text[:pos] + junk + text[pos:]


MUTATIONS = [
    delete_paren,
    insert_paren,
    delete_token,
    duplicate_line,
    rename_identifier,
    swap_tokens,
    truncate,
    insert_prose,
    change_arity,
    change_case,
    insert_comma,
    insert_unicode,
]


@st.composite
def broken_pddl(draw, mutations=tuple(MUTATIONS), max_mutations=3):
    """A (domain, problem) pair from the corpus with 1..max_mutations mutations."""
    domain, problem = draw(st.sampled_from(CORPUS))
    for _ in range(draw(st.integers(1, max_mutations))):
        mutation = draw(st.sampled_from(mutations))
        if draw(st.booleans()):
            domain = mutation(draw, domain)
        else:
            problem = mutation(draw, problem)
    return domain, problem


# -- the property -------------------------------------------------------------------------
def check_diagnostic(d, texts: dict[str, str]) -> None:
    assert isinstance(d, Diagnostic)
    assert isinstance(d.stage, str) and d.stage
    assert isinstance(d.message, str) and d.message
    assert isinstance(d.snippet, str)
    assert d.severity in ("error", "warning")
    str(d)  # must render
    if d.line is None:
        assert d.col is None, d
        return
    assert type(d.line) is int and d.line >= 1, d
    assert type(d.col) is int and d.col >= 1, d
    text = texts.get(d.stage)
    if text is None:  # a stage without one text of its own: fits one of them
        assert any(d.line <= t.count("\n") + 1 for t in texts.values()), d
        return
    lines = text.split("\n")
    assert d.line <= len(lines), d
    assert d.col <= len(lines[d.line - 1]) + 1, d


def check_load(domain: str, problem: str) -> None:
    texts = {"domain": domain, "problem": problem}
    try:
        task = load(domain, problem)
    except PDDLError as exc:
        assert exc.diagnostics, "a PDDLError without diagnostics"
        assert isinstance(exc.diagnostics, tuple)
        assert any(d.severity == "error" for d in exc.diagnostics), exc.diagnostics
        for d in exc.diagnostics:
            check_diagnostic(d, texts)
        return
    assert isinstance(task, Task)
    for d in task.domain.warnings + task.problem.warnings:
        check_diagnostic(d, texts)
        assert d.severity == "warning", d


FUZZ = settings(
    max_examples=60,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.mark.parametrize("domain, problem", CORPUS, ids=["blocksworld", "courier"])
def test_corpus_is_valid(domain, problem):
    task = load(domain, problem)
    assert task.actions
    assert not task.domain.warnings and not task.problem.warnings


@pytest.mark.slow
@pytest.mark.parametrize("mutation", MUTATIONS, ids=[m.__name__ for m in MUTATIONS])
def test_each_mutation_gives_task_or_diagnostics(mutation):
    @FUZZ
    @given(broken_pddl(mutations=(mutation,), max_mutations=1))
    def run(pair):
        check_load(*pair)

    run()


@settings(FUZZ, max_examples=300)
@given(broken_pddl())
def test_mutated_pddl_gives_task_or_diagnostics(pair):
    check_load(*pair)


_PDDLISH = st.lists(
    st.sampled_from(
        list("()?-:;, \n\tabcdefxyz=0123456789")
        + [
            "define ",
            "domain ",
            "problem ",
            ":action ",
            ":parameters ",
            ":precondition ",
            ":effect ",
            ":predicates ",
            ":types ",
            ":objects ",
            ":init ",
            ":goal ",
            ":domain ",
            "and ",
            "not ",
            "or ",
            "either ",
            "forall ",
            "exists ",
            "when ",
            "imply ",
            "object ",
        ]
    ),
    max_size=80,
).map("".join)


@settings(FUZZ, max_examples=200)
@given(_PDDLISH, st.sampled_from(CORPUS))
def test_any_text_gives_domain_or_diagnostics(text, pair):
    """Text from scratch, as a domain (with a valid problem) and as a problem."""
    domain, problem = pair
    check_load(text, problem)
    check_load(domain, text)


@settings(FUZZ, max_examples=200)
@given(st.text(max_size=120) | _PDDLISH)
def test_any_text_gives_plan_or_diagnostics(text):
    try:
        steps = parse_plan(text)
    except PDDLError as exc:
        assert exc.diagnostics
        for d in exc.diagnostics:
            assert d.stage == "plan" and d.severity == "error"
            assert 1 <= d.line <= len(text.splitlines()), d
        return
    assert all(step.name for step in steps)
