"""FF's easy templates of a task (``inst_pre.c``, ``inst_easy.c``), for the authors
planner's model (:mod:`.ff_strips`): each operator's precondition in FF's disjunctive
normal form, one operator copy per way, and each ground action's place in FF's list.

- **DNF** (:func:`ff_dnf`): quantifiers expanded over their objects, negations moved
  down to the atoms, nested conjunctions and
  disjunctions merged in place, then a conjunction with disjunctions among its parts
  becomes a disjunction of its hitting sets (``collect_hitting_sets``): the sets in the
  reverse of the order they are enumerated (each is prepended), each set's parts in the
  reverse of the conjunction's order (each is prepended too).
- **Copies** (``split_domain``): an operator whose precondition is a disjunction is one
  operator per disjunct, in the disjunction's order.
- **The template list** (:func:`template_key`): the operators in the domain's order
  (the parser prepends each, and the templates are prepended again), an operator's
  copies last first; within one, the reverse of the order ``multiply_easy_op_parameters``
  made them: its static preconditions (``NOT-`` ones included) of two or more arguments
  bound in turn to their facts (a static predicate's in :init's order; a ``NOT-``
  predicate's as ``add_to_initial_state`` enumerates them, first argument slowest),
  then its other parameters in turn, the last fastest, over FF's objects of their type
  (the problem's objects then the domain's constants, both last declared first), or
  over the facts of the static unary predicate naming it when those are the
  parameter's objects (``create_intersected_type``).
"""

from __future__ import annotations

from typing import Callable, Union

from .grounding import Task
from .model import Action, And, Atom, Equals, Exists, Forall, Formula, Imply, Not, Or

# a literal: (atom or equality, negated); a node: a literal, or ("and" | "or", [node])
Lit = tuple[Union[Atom, Equals], bool]
Node = tuple

MAX_WAYS = 256  # a precondition or goal with more ways to meet it is beyond the model here
MAX_EXPANDED = 4096  # nor one whose quantifiers make more copies of their bodies


def ff_dnf(
    formula: Formula, objects_of: Callable[[tuple[str, ...]], list[str]]
) -> list[list[Lit]] | None:
    """The ways to meet ``formula`` as FF lists them (see the module's text), each a
    list of literals in FF's order; None beyond :data:`MAX_WAYS` ways, or quantifiers
    over more than :data:`MAX_EXPANDED` copies. A quantifier is the conjunction or
    disjunction of its body for each object of its type (``objects_of``), in the order
    they are declared (FF prepends each copy to its list of objects, last first)."""
    budget = [MAX_EXPANDED]
    tree = _down(formula, False, {}, objects_of, budget)
    if tree is None:
        return None
    tree = _dnf(tree)
    if tree is None:
        return None
    if _is_lit(tree):
        return [[tree]]
    kind, sons = tree
    if kind == "and":
        return [_flat(sons)]
    return [_flat(s[1]) if not _is_lit(s) else [s] for s in sons]


def _is_lit(node) -> bool:
    return not isinstance(node[0], str)


def _flat(sons: list) -> list[Lit]:
    out: list[Lit] = []
    for s in sons:
        out.extend(_flat(s[1]) if not _is_lit(s) else [s])
    return out


def _down(f: Formula, negated: bool, subst: dict, objects_of, budget: list) -> Node | None:
    """``f`` (negated when ``negated``, its quantified variables replaced as ``subst``
    says) with quantifiers expanded, negations down to the atoms and nested junctions of
    one kind merged in place; None past the ``budget`` of expanded copies."""
    if isinstance(f, Atom):
        return (Atom(f.predicate, tuple(subst.get(t, t) for t in f.args)), negated)
    if isinstance(f, Equals):
        return (Equals(subst.get(f.left, f.left), subst.get(f.right, f.right)), negated)
    if isinstance(f, Not):
        return _down(f.arg, not negated, subst, objects_of, budget)
    if isinstance(f, Imply):
        return _down(Or((Not(f.condition), f.consequence)), negated, subst, objects_of, budget)
    if isinstance(f, (Exists, Forall)):
        param, rest = f.params[0], f.params[1:]
        body = type(f)(rest, f.body) if rest else f.body
        objects = objects_of(param.types)
        budget[0] -= len(objects)
        if budget[0] < 0:
            return None
        kind = "and" if isinstance(f, Forall) != negated else "or"
        sons = []
        for o in objects:
            son = _down(body, negated, {**subst, param.name: o}, objects_of, budget)
            if son is None:
                return None
            sons.append(son)
        return (kind, _merged(kind, sons))
    kind = "and" if isinstance(f, And) != negated else "or"
    sons = []
    for part in f.args:
        son = _down(part, negated, subst, objects_of, budget)
        if son is None:
            return None
        sons.append(son)
    return (kind, _merged(kind, sons))


def _merged(kind: str, sons: list) -> list:
    out = []
    for s in sons:
        if not _is_lit(s) and s[0] == kind:
            out.extend(s[1])
        else:
            out.append(s)
    return out


def _dnf(node: Node) -> Node | None:
    """FF's ``ANDs_below_ORs_in_wff``; None beyond :data:`MAX_WAYS` ways."""
    if _is_lit(node):
        return node
    kind, sons = node
    done = []
    for s in sons:
        d = _dnf(s)
        if d is None:
            return None
        done.append(d)
    if kind == "or" or not any(not _is_lit(s) and s[0] == "or" for s in done):
        return (kind, _merged(kind, done))
    sets: list = []

    def collect(i: int, chosen: list) -> bool:
        if len(sets) > MAX_WAYS:
            return False
        if i == len(done):
            sets.insert(0, ("and", chosen[::-1]))
            return True
        son = done[i]
        if _is_lit(son) or son[0] != "or":
            return collect(i + 1, chosen + [son])
        return all(collect(i + 1, chosen + [way]) for way in son[1])

    if not collect(0, []):
        return None
    return ("or", _merged("or", sets))


class Templates:
    """Each (ground action, way of its operator's precondition) FF makes a template of,
    with its place in FF's list."""

    def __init__(self, task: Task, fluent: set[str]):
        self.task = task
        self.fluent = fluent
        self.init = {(a.predicate, a.args): i for i, a in enumerate(task.problem.init)}
        self.declared = list(task.objects)[::-1]  # build_orig_constant_list prepends each
        self.unary: dict[tuple[str, bool], list[str]] = {}  # static unary -> its objects
        for atom in task.problem.init:
            if len(atom.args) == 1 and atom.predicate not in fluent:
                self.unary.setdefault((atom.predicate, False), []).append(atom.args[0])
        self.ways: dict[str, list[list[Lit]] | None] = {
            name: ff_dnf(schema.precondition, task.objects_of)
            for name, schema in task.domain.actions.items()
        }
        self.position = {name: s for s, name in enumerate(task.domain.actions)}
        self._free: dict[tuple[str, int], tuple] = {}
        self._of_argument: dict[tuple[str, int], list[str]] = {}  # see _consts

    def holds_statically(self, lit: Lit, binding: dict) -> bool | None:
        """Whether a static literal holds under ``binding`` (None: not static)."""
        target, negated = lit
        if isinstance(target, Equals):
            return (
                binding.get(target.left, target.left) == binding.get(target.right, target.right)
            ) != negated
        if target.predicate in self.fluent:
            return None
        args = tuple(binding.get(t, t) for t in target.args)
        return ((target.predicate, args) in self.init) != negated

    def key(self, schema: Action, d: int, way: list[Lit], binding: dict) -> tuple:
        """The place of the template of way ``d`` of ``schema`` under ``binding``."""
        params = {p.name for p in schema.params}
        made = []
        bound: set[str] = set()
        for target, negated in way:
            if isinstance(target, Equals) or target.predicate in self.fluent:
                continue
            if len(target.args) == 1 and target.args[0] in params:
                continue  # a unary inertia is a type (encode_easy_unaries_as_types)
            if not any(t in params for t in target.args):
                continue
            args = tuple(binding.get(t, t) for t in target.args)
            if negated:
                made.append(self._enumerated(target.predicate, args))
            else:
                made.append(self.init.get((target.predicate, args), -1))
            bound.update(t for t in target.args if t in params)
        for name, places in self._free_params(schema, d, way, bound):
            made.append(places.get(binding.get(name), -1))
        return (self.position.get(schema.name, len(self.position)), -d, tuple(-m for m in made))

    def _free_params(self, schema: Action, d: int, way: list[Lit], bound: set) -> tuple:
        key = (schema.name, d)
        if key not in self._free:
            unaries: dict[str, list[list[str]]] = {p.name: [] for p in schema.params}
            for target, negated in way:
                if isinstance(target, Equals) or target.predicate in self.fluent:
                    continue
                if len(target.args) == 1 and target.args[0] in unaries:
                    unaries[target.args[0]].append(self._unary_objects(target.predicate, negated))
            free = []
            for param in schema.params:
                if param.name in bound:
                    continue
                of_type = set(self.task.objects_of(param.types))
                types = [[o for o in self.declared if o in of_type], *unaries[param.name]]
                within = [set(t) for t in types[1:]]
                kept = [o for o in types[0] if all(o in t for t in within)]
                order = next((t for t in types if len(set(t)) == len(kept)), kept)
                free.append((param.name, {o: i for i, o in enumerate(order)}))
            self._free[key] = tuple(free)
        return self._free[key]

    def _unary_objects(self, predicate: str, negated: bool) -> list[str]:
        """The objects of a static unary predicate's facts (its ``NOT-`` one's when
        ``negated``) in FF's order."""
        key = (predicate, negated)
        if not negated:
            return self.unary.get(key, [])
        if key not in self.unary:
            held = set(self.unary.get((predicate, False), []))
            self.unary[key] = [o for o in self._consts(predicate, 0) if o not in held]
        return self.unary[key]

    def _consts(self, predicate: str, j: int) -> list[str]:
        """FF's objects of ``predicate``'s argument ``j``'s type, in FF's order."""
        key = (predicate, j)
        if key not in self._of_argument:
            declared = self.task.domain.predicates.get(predicate)
            if declared is None or j >= len(declared.params):
                found = self.declared
            else:
                of_type = set(self.task.objects_of(declared.params[j].types))
                found = [o for o in self.declared if o in of_type]
            self._of_argument[key] = found
        return self._of_argument[key]

    def _enumerated(self, predicate: str, args: tuple[str, ...]) -> int:
        """The place of ``NOT-predicate(args)`` among the facts ``add_to_initial_state``
        enumerates (first argument slowest)."""
        place = 0
        for j, arg in enumerate(args):
            consts = self._consts(predicate, j)
            place = place * (len(consts) + 1) + (
                consts.index(arg) if arg in consts else len(consts)
            )
        return place
