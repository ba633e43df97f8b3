"""Wumpus problems of any size in the structure of CLG's benchmark (``wumpus05`` ...
``wumpus25``), for contingent PDDL.

An ``n`` x ``n`` grid of cells ``px-y``; the agent starts alive at ``p1-1`` and must grab
the gold at ``pn-n``. For each ``k`` from 2 to ``n - 1`` exactly one of the two cells
``pk-(k+1)`` and ``p(k+1)-k`` is safe; the other holds a wumpus, a pit or both. Every other
cell is safe. A cell next to such a pair has a stench exactly when a neighbour holds a
wumpus and a breeze exactly when one holds a pit, which the agent senses where it stands;
it may only move to a cell known safe. There are ``6 ** (n - 2)`` possible worlds.
"""

from __future__ import annotations

from .contingent import ContingentPDDLEnv

DOMAIN = """(define (domain wumpus)
  (:requirements :strips :typing :contingent)
  (:types pos)
  (:predicates (adj ?i ?j - pos) (at ?i - pos) (safe ?i - pos) (wumpus-at ?x - pos)
               (alive) (stench ?i - pos) (gold-at ?i - pos) (got-the-treasure)
               (breeze ?i - pos) (pit-at ?p - pos))
  (:action move
    :parameters (?i ?j - pos)
    :precondition (and (adj ?i ?j) (at ?i) (alive) (safe ?j))
    :effect (and (not (at ?i)) (at ?j)))
  (:action smell_wumpus
    :parameters (?pos - pos)
    :precondition (and (alive) (at ?pos))
    :observe (stench ?pos))
  (:action feel-breeze
    :parameters (?pos - pos)
    :precondition (and (alive) (at ?pos))
    :observe (breeze ?pos))
  (:action grab
    :parameters (?i - pos)
    :precondition (and (at ?i) (gold-at ?i) (alive))
    :effect (and (got-the-treasure) (not (gold-at ?i)))))
"""

MIN_SIZE = 3


def _cell(x: int, y: int) -> str:
    return f"p{x}-{y}"


def wumpus_problem(size: int) -> str:
    """The problem ``wumpus-<size>`` of :data:`DOMAIN` (``size`` at least 3)."""
    if not isinstance(size, int) or isinstance(size, bool) or size < MIN_SIZE:
        raise ValueError(f"size must be an integer of at least {MIN_SIZE}, not {size!r}")
    cells = [(x, y) for x in range(1, size + 1) for y in range(1, size + 1)]
    pairs = [((k, k + 1), (k + 1, k)) for k in range(2, size)]
    danger = {c for pair in pairs for c in pair}

    def neighbours(x: int, y: int) -> list[tuple[int, int]]:
        near = ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1))
        return [(a, b) for a, b in near if 1 <= a <= size and 1 <= b <= size]

    init = ["(at p1-1)", "(alive)", f"(gold-at {_cell(size, size)})"]
    init += [f"(adj {_cell(*c)} {_cell(*d)})" for c in cells for d in neighbours(*c)]
    init += [f"(safe {_cell(*c)})" for c in cells if c not in danger]
    for a, b in pairs:
        init.append(f"(oneof (safe {_cell(*a)}) (safe {_cell(*b)}))")
    for c in sorted(danger):
        p = _cell(*c)
        init += [
            f"(or (not (safe {p})) (not (wumpus-at {p})))",
            f"(or (not (safe {p})) (not (pit-at {p})))",
            f"(or (safe {p}) (wumpus-at {p}) (pit-at {p}))",
        ]
    for sign, cause in (("stench", "wumpus-at"), ("breeze", "pit-at")):
        for c in cells:
            near = [_cell(*d) for d in neighbours(*c) if d in danger]
            if c in danger or not near:
                continue
            p = _cell(*c)
            init.append(f"(or (not ({sign} {p})) " + " ".join(f"({cause} {n})" for n in near) + ")")
            init += [f"(or ({sign} {p}) (not ({cause} {n})))" for n in near]
    objects = " ".join(_cell(*c) for c in cells)
    body = "\n    ".join(init)
    return (
        f"(define (problem wumpus-{size})\n  (:domain wumpus)\n"
        f"  (:objects {objects} - pos)\n"
        f"  (:init\n    {body})\n"
        "  (:goal (and (got-the-treasure) (alive))))\n"
    )


def wumpus_env(size: int = 5, **kwargs) -> ContingentPDDLEnv:
    """``ContingentPDDL-v0`` on :func:`wumpus_problem` ``(size)``; ``kwargs`` go to it."""
    return ContingentPDDLEnv(DOMAIN, wumpus_problem(size), **kwargs)
