"""A model's problem file against the true one, across vocabularies: which of the
model's facts the hidden world supports, and which true facts the model covers.

The rules, in order:

- **Names** compare squashed (:func:`~planloop.formalizer.mapping.squash`:
  ``Cabinet_1``, ``cabinet1`` and ``cabinet-1`` are one). The agent is left out of
  every fact on both sides: the truth's objects of type ``agent``, and the model's
  names whose squashed name or type starts with ``agent`` or ``player``.
- **Facts** compare by their argument tuples, in order, not by predicate: the model's
  ``(at kitchen)`` is supported by the truth's ``(player-at kitchen)``. A model
  predicate whose squashed name is one of the truth's is held to that predicate:
  ``(opened drawer_1)`` needs the truth's ``(opened drawer_1)``, not ``(checked
  drawer_1)``. A fact with no argument left is not judged.
- **Places** (ALFWorld): a location is also named by the receptacles at it, so
  ``(at countertop_1)`` matches ``(atlocation agent1 loc_5)`` when
  ``(receptacleatlocation countertop_1 loc_5)`` holds.
- **Binding**: a model name unknown to the truth may stand for a truth object that no
  game text names (of type door, slot, location, agent, otype or rtype, or a room the
  truth assumes behind a closed door, ``unknown-...``): it is bound to the one that
  supports most of its facts, weighing each fact by how many names it ties it to,
  one binding at a time, the strongest first (``(connected kitchen room_s south)``
  binds ``room_s`` to ``unknown-south-of-kitchen``).
- **Assumptions** (CoinCollector): a name still unknown that appears in a fact after
  a room the truth has visited (``(connected kitchen room_x west)``), and otherwise
  only in facts naming it alone, is a room assumed behind a door, as the prompt
  allows, when some truth object fits its place in those facts (the passage is real;
  only its far side is unnamed): its facts are neither supported nor hallucinated.
  When none fits, the passage itself is invented: the name is invented and
  ``stranded``.
- The model domain's constants (directions, say) are its vocabulary, never invented.
  Any other unknown name is **invented**, and every fact naming it is hallucinated.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise, product
from os.path import commonprefix

from ..pddl import Atom, Domain, PDDLError, Problem, parse_domain, parse_problem
from ..pddl.model import ROOT_TYPE, Formula, Param, Predicate, map_formula
from ..pddl.sexpr import SList, Sym, extract_define
from .mapping import squash

# The true domains' words these rules use (CoinCollector's and ALFWorld's).
HIDDEN_TYPES = frozenset({"door", "slot", "location", "agent", "otype", "rtype"})
ASSUMED_PREFIX = "unknown"  # names the ground-truth formalizer's rooms behind closed doors
AGENT_PREFIXES = ("agent", "player")  # the model's names for the agent, squashed
PLACE = "receptacleatlocation"  # (r l): receptacle r also names location l
VISITED = "visited"
_CONNECTIVES = frozenset({"and", "or", "not", "imply", "exists", "forall", "when", "="})

Key = tuple[str, tuple[str, ...]]  # (squashed predicate, squashed arguments, agent left out)


def read_files(df: str | None, pf: str | None) -> tuple[Domain | None, Problem | None]:
    """The model's domain and problem as the planner reads them; None for a file that
    is missing or unreadable (the problem also when the domain is)."""
    try:
        domain = parse_domain(df) if df else None
    except PDDLError:
        return None, None
    try:
        return domain, parse_problem(pf, domain) if domain and pf else None
    except PDDLError:
        return domain, None


def read_truth(pf: str | None) -> Problem | None:
    """The true problem file, read against a domain inferred from the file itself
    (every predicate it uses, every type it names, every undeclared name a constant),
    since a round records the true PF only; None if unreadable."""
    try:
        return parse_problem(pf, _inferred_domain(pf)) if pf else None
    except PDDLError:
        return None


def _inferred_domain(text: str) -> Domain:
    form, _ = extract_define(text, "problem")
    arity: dict[str, int] = {}
    names: set[str] = set()
    types: set[str] = set()
    declared: set[str] = set()

    def visit(node) -> None:
        if (
            not isinstance(node, SList)
            or not node
            or not isinstance(node[0], Sym)
            or node[0].startswith("?")
        ):
            return
        if node[0] in _CONNECTIVES:
            for child in node[1:]:
                visit(child)
            return
        arity.setdefault(node[0], len(node) - 1)
        names.update(a for a in node[1:] if isinstance(a, Sym) and not a.startswith("?"))

    def typed(items: SList) -> None:
        for before, item in pairwise(items):
            if isinstance(item, SList):
                typed(item)
            elif before == "-":
                types.add(item)

    domain_name = "inferred"
    for section in form[2:]:
        if not isinstance(section, SList) or not section:
            continue
        typed(section)
        if section[0] == ":domain" and len(section) == 2:
            domain_name = section[1]
        elif section[0] == ":objects":
            declared.update(item for item in section[1:] if isinstance(item, Sym))
        elif section[0] in (":init", ":goal"):
            for node in section[1:]:
                visit(node)
    predicates = {
        name: Predicate(name, tuple(Param(f"?x{i}") for i in range(n))) for name, n in arity.items()
    }
    return Domain(
        domain_name,
        (),
        {t: ROOT_TYPE for t in types - {ROOT_TYPE}},
        {n: ROOT_TYPE for n in names - declared},
        predicates,
        {},
    )


def goal_names(goal: Formula) -> set[str]:
    """The names (not variables) the goal's atoms mention, as written."""
    found: set[str] = set()

    def leaf(node):
        if isinstance(node, Atom):
            found.update(a for a in node.args if not a.startswith("?"))
        return node

    map_formula(goal, leaf)
    return found


@dataclass(frozen=True)
class Truth:
    """The true problem, indexed for matching (names squashed)."""

    agents: frozenset[str]
    names: frozenset[str]  # objects, and the names facts use
    hidden: tuple[str, ...]  # the objects no game text names, sorted
    constants: frozenset[str]  # names facts use that are not objects (directions)
    visited: frozenset[str]  # rooms with (visited r)
    predicates: frozenset[str]
    by_args: dict[tuple[str, ...], frozenset[Atom]]
    by_key: dict[Key, frozenset[Atom]]

    @classmethod
    def of(cls, problem: Problem) -> "Truth":
        types = {squash(o): squash(t) for o, t in problem.objects.items()}
        agents = frozenset(o for o, t in types.items() if t == "agent")
        aliases: dict[str, set[str]] = defaultdict(set)
        for a in problem.init:
            if a.predicate == PLACE and len(a.args) == 2:
                aliases[squash(a.args[1])].add(squash(a.args[0]))
        by_args, by_key = defaultdict(set), defaultdict(set)
        for atom in problem.init:
            pred, args = _key(atom, agents)
            for combo in product(*({a} | aliases[a] for a in args)):
                by_args[combo].add(atom)
                by_key[(pred, combo)].add(atom)
        used = {squash(a) for atom in problem.init for a in atom.args}
        return cls(
            agents,
            frozenset(types) | used,
            tuple(
                sorted(
                    o for o, t in types.items() if t in HIDDEN_TYPES or o.startswith(ASSUMED_PREFIX)
                )
            ),
            frozenset(used - set(types)),
            frozenset(squash(a.args[0]) for a in problem.init if a.predicate == VISITED and a.args),
            frozenset(squash(a.predicate) for a in problem.init),
            {k: frozenset(v) for k, v in by_args.items()},
            {k: frozenset(v) for k, v in by_key.items()},
        )

    def support(self, key: Key) -> frozenset[Atom]:
        """The true facts that support a model fact whose names are resolved."""
        pred, args = key
        if pred in self.predicates:
            return self.by_key.get(key, frozenset())
        return self.by_args.get(args, frozenset())


def _key(atom: Atom, agents: frozenset[str]) -> Key:
    return squash(atom.predicate), tuple(s for s in map(squash, atom.args) if s not in agents)


@dataclass(frozen=True)
class Match:
    """One model problem against the truth. Facts are the model's atoms as written."""

    supported: tuple[Atom, ...]
    hallucinated: tuple[Atom, ...]  # false in the truth, or naming an invented object
    assumed: tuple[Atom, ...]  # naming an assumed room: not judged
    invented: tuple[str, ...]  # model names (squashed) that stand for nothing observed
    stranded: tuple[str, ...]  # of those, rooms assumed where the truth knows no passage
    assumptions: tuple[str, ...]  # model names (squashed) of rooms assumed behind doors
    covered: frozenset[Atom]  # the truth's facts some model fact matches
    names: dict[str, str]  # model name (squashed) -> the truth's (squashed)
    agents: frozenset[str]  # the model's agent names (squashed), left out of facts
    constants: frozenset[str]  # the model's domain constants (squashed): never invented


def match(model: Problem, truth: Truth) -> Match:
    """Match ``model``'s facts against ``truth`` by the module's rules."""
    agents = frozenset(_model_agents(model)) | truth.agents
    facts = [(atom, _key(atom, agents)) for atom in model.init]
    facts = [(atom, key) for atom, key in facts if key[1]]  # nullary, or the agent alone
    mentioned = {a for _, (_, args) in facts for a in args} | {
        s for s in map(squash, goal_names(model.goal)) if s not in agents
    }
    constants = frozenset(mentioned - {squash(o) for o in model.objects})
    names = {n: n for n in mentioned if n in truth.names or n in constants}
    about = {n: [key for _, key in facts if n in key[1]] for n in mentioned - set(names)}
    _bind(about, names, truth)
    unknown = set(about) - set(names)
    passages = {n: _passages(about[n], n, truth.visited) for n in unknown}
    shaped = {n for n in unknown if passages[n]}
    assumptions = {
        n for n in shaped if any(_fit(passages[n], n, x, names, truth) for x in truth.names)
    }
    invented = unknown - assumptions
    supported: list[Atom] = []
    hallucinated: list[Atom] = []
    assumed: list[Atom] = []
    covered: set[Atom] = set()
    for atom, (pred, args) in facts:
        if invented.intersection(args):
            hallucinated.append(atom)
        elif assumptions.intersection(args):
            assumed.append(atom)
        else:
            found = truth.support((pred, tuple(names[a] for a in args)))
            (supported if found else hallucinated).append(atom)
            covered |= found
    return Match(
        tuple(supported),
        tuple(hallucinated),
        tuple(assumed),
        tuple(sorted(invented)),
        tuple(sorted(shaped - assumptions)),
        tuple(sorted(assumptions)),
        frozenset(covered),
        names,
        agents,
        constants,
    )


def _model_agents(model: Problem) -> Iterator[str]:
    for name, kind in model.objects.items():
        if squash(name).startswith(AGENT_PREFIXES) or squash(kind).startswith(AGENT_PREFIXES):
            yield squash(name)


def _fit(keys: list[Key], name: str, candidate: str, names: dict[str, str], truth: Truth) -> int:
    """How well ``candidate`` stands for ``name``: the arguments of the facts about
    ``name`` (whose other names are resolved) that the truth supports with it."""
    return sum(
        len(args)
        for pred, args in keys
        if all(a == name or a in names for a in args)
        and truth.support((pred, tuple(candidate if a == name else names[a] for a in args)))
    )


def _bind(about: dict[str, list[Key]], names: dict[str, str], truth: Truth) -> None:
    """Bind unknown names to hidden truth objects, the best-supported binding first
    (ties: the longer common prefix, then by name)."""
    while True:
        best, best_score = None, (0, 0)
        for name in sorted(set(about) - set(names)):
            for hidden in truth.hidden:
                score = (
                    _fit(about[name], name, hidden, names, truth),
                    len(commonprefix([name, hidden])),
                )
                if score[0] and score > best_score:
                    best, best_score = (name, hidden), score
        if best is None:
            return
        names[best[0]] = best[1]


def _passages(keys: list[Key], name: str, visited: frozenset[str]) -> list[Key]:
    """The facts naming ``name`` after a visited room, if every other fact about it
    names it alone; else none."""
    found = []
    for pred, args in keys:
        if any(a in visited for a in args[: args.index(name)]):
            found.append((pred, args))
        elif set(args) != {name}:
            return []
    return found
