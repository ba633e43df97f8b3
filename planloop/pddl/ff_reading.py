"""PDDL read as the PDDLego+ authors' solver read it: FF's parser (in LAPKT's
``dual-bfws-ffparser``) accepts some files planloop's reader refuses and refuses some it
accepts; :func:`read_ff` gives the task FF's parser would give, or a
:class:`~.diagnostics.PDDLError` (with planloop's line:col diagnostics) where FF's parser
refuses the files.

FF's rules kept here, beyond planloop's reading (FF's sources, LAPKT ``external/libff``):

- of several ``(:types ...)`` sections only the last counts (scan-ops_pddl.y keeps the
  last list it read);
- types are sets of objects (:mod:`.ff_types`): an object declared under two types is
  in both, a constant of the domain declared again as an object is in both types
  (parse.c ``build_orig_constant_list``);
- an action with a parameter whose type has no object is no action ("unknown or empty
  type ... skipping op", inst_pre.c ``create_integer_representation``), and none of its
  errors count;
- a variable fills an argument when every object of its type is of the argument's type,
  else "type of var ... does not match" refuses the files; a constant fills it when it is
  of that type, else "type mismatch: constant" (inst_pre.c ``make_Fact``, ``is_subtype``);
- a predicate with an argument of a type no object has cannot be used ("declared to use
  unknown or empty type", its arity cut there; a use is then of the wrong arity);
- a character FF's lexer matches with no rule but its catch-all (``lex-fct_pddl.l``,
  ``lex-ops_pddl.l``: ``|``, ``,``, a non-ASCII letter ...) is skipped, splitting the
  name it stands in (``|fridge1|`` is ``fridge1``);
- a negative literal in ``:init`` is dropped, but as its last entry FF's parser reads
  past the list's end and the solver crashes (parse.c ``make_conjunction_of_atoms``):
  refused, with a message saying so;
- a domain's requirement must be one FF lists (scan-ops_pddl.y ``supported``), and its
  ``(:requirements)`` must name one; an empty ``()`` is no condition or effect in FF's
  grammar (``adl_goal_description``, ``adl_effect``): each else a syntax error;
- a word FF's lexer reads as a keyword (``domain`` in a domain file, ``problem`` in a
  problem file, ``and``, ``not`` ...) is no name: as a domain's, a problem's or an
  object's name, a syntax error;
- a goal's quantifiers range over their types as written (the problem is read against
  the domain's types for its goal).
"""

from __future__ import annotations

import os
import re
from dataclasses import replace

from .diagnostics import PDDLError, quote
from .ff_types import Membership, retype, typed_names
from .model import (
    ROOT_TYPE,
    And,
    Atom,
    Domain,
    Exists,
    Forall,
    ForallEffect,
    Formula,
    Imply,
    Not,
    Or,
    Param,
    Problem,
    When,
)
from .reader import parse_domain, parse_problem
from .reading import Reader
from .sexpr import SList, Sym, extract_define
from .source import Limits, read_source

_SKIPPED = re.compile(r"[^A-Za-z0-9\-_()?:;\".<>=+*/\[\]\s]")
_CONNECTIVES = frozenset({"and", "or", "not", "imply", "forall", "exists", "when", "="})


def read_ff(
    domain: str | os.PathLike, problem: str | os.PathLike, limits: Limits
) -> tuple[Domain, Problem]:
    """The domain and problem (texts or paths) read as FF's parser reads them."""
    dtext = _lexed(read_source(domain, "domain", limits))
    ptext = _lexed(read_source(problem, "problem", limits))
    d = parse_domain(dtext, limits, False)
    dform = extract_define(dtext, "domain", limits, False)[0]
    pform = extract_define(ptext, "problem", limits, False)[0]
    dsec, psec = _sections(dform), _sections(pform)
    membership = Membership(
        typed_names(_last_section(dform, ":types")),
        typed_names(dsec.get(":constants", [])) + typed_names(psec.get(":objects", [])),
    )
    flat = replace(
        d,
        types={},
        constants=dict.fromkeys(d.constants, ROOT_TYPE),
        predicates={
            n: replace(p, params=tuple(Param(q.name) for q in p.params))
            for n, p in d.predicates.items()
        },
        unread_actions=(),
    )
    p = parse_problem(ptext, flat, limits, False)
    rd, rp = Reader(dtext, "domain"), Reader(ptext, "problem")
    check = _Check(membership, d)
    kept = {}
    for name, action in d.actions.items():
        node = _action_node(dform, name)
        empty = check.empty_param(action.params)
        if empty is not None:
            rd.warn(_skipped(name, empty), node)
            continue
        kept[name] = action
        for message in check.action(action):
            rd.error(message, node)
    for unread in d.unread_actions:
        if all(membership.members(t) for t in unread.param_types):
            rd.errors.extend(unread.errors)
    for requirement in dsec.get(":requirements", []):
        if str(requirement).upper() not in FF_REQUIREMENTS:
            rd.error(
                f"requirement {quote(str(requirement))} is not one FF's parser supports "
                "(it lists :strips, :typing, :negative-preconditions, :adl and a few more): "
                "the authors' solver refuses the domain",
                requirement,
            )
    for section in dform[2:]:
        if isinstance(section, SList) and len(section) == 1 and section[0] == ":requirements":
            rd.error(
                "a (:requirements) section naming none: FF's parser wants at least one "
                "(write :strips, or leave the section out), and the authors' solver "
                "refuses the domain",
                section,
            )
        if isinstance(section, SList) and section and section[0] == ":action":
            for key, value in zip(section[2::2], section[3::2], strict=False):
                blank = _empty_part(value)
                if key in (":precondition", ":effect") and blank is not None:
                    rd.error(_EMPTY.format(key), blank)
    for node in psec.get(":goal", []):
        if (blank := _empty_part(node)) is not None:
            rp.error(_EMPTY.format(":goal"), blank)
    for form, keywords, reader in ((dform, _OPS_KEYWORDS, rd), (pform, _FACT_KEYWORDS, rp)):
        if (word := _keyword_as_name(form, keywords)) is not None:
            reader.error(
                f"{quote(str(word))} is a word FF's lexer reads as a keyword, never as a "
                "name: the authors' solver refuses the file here (give it another name)",
                word,
            )
    for node in psec.get(":init", []):
        check.ground(rp, node)
    for node in psec.get(":goal", []):
        check.ground(rp, node)
    init = [n for n in pform[2:] if isinstance(n, SList) and n and n[0] == ":init"]
    if init and len(init[-1]) > 1 and _negative(init[-1][-1]):
        rp.error(
            "a negative literal as the last fact of ':init': FF's parser reads past the "
            "end of ':init' here and the authors' solver crashes",
            init[-1][-1],
        )
    if rd.errors or rp.errors:
        raise PDDLError(rd.errors + rp.errors)
    ff_domain, kinds, goal = retype(
        replace(d, actions=kept, unread_actions=()),
        membership,
        _typed_goal(ptext, flat, d, limits, p),
    )
    ff_domain = replace(ff_domain, warnings=_kept(d.warnings) + tuple(rd.warnings))
    objects = {o: kinds.get(o, ROOT_TYPE) for o in p.objects}
    return ff_domain, replace(p, objects=objects, goal=goal, warnings=_kept(p.warnings, d.types))


def _typed_goal(ptext: str, flat: Domain, d: Domain, limits: Limits, p: Problem) -> Formula:
    """``p``'s goal with its quantifiers' types as written (``p`` was read against the
    domain with no types, which reads every quantified variable as an ``object``), when
    the problem reads against the domain's types; else ``p``'s goal. A goal with no
    quantifier is ``p``'s as it is (the problem is read again only for one with)."""
    if not _has_quantifier(p.goal):
        return p.goal
    try:
        return parse_problem(ptext, replace(flat, types=d.types), limits, False).goal
    except PDDLError:
        return p.goal


def _lexed(text: str) -> str:
    """``text`` with each character FF's lexer skips (its catch-all rule ``. {}``:
    ``|``, ``,``, ``@``, a non-ASCII letter ...) made a space, so tokens split there as
    they do in FF and line:col positions stay."""
    return _SKIPPED.sub(" ", text)


def _sections(form: SList) -> dict[str, list]:
    """Section key -> the entries of every section with that key, in order."""
    found: dict[str, list] = {}
    for section in form[2:]:
        if isinstance(section, SList) and section and isinstance(section[0], Sym):
            found.setdefault(str(section[0]), []).extend(section[1:])
    return found


def _has_quantifier(f: Formula) -> bool:
    if isinstance(f, (Exists, Forall)):
        return True
    if isinstance(f, Not):
        return _has_quantifier(f.arg)
    if isinstance(f, (And, Or)):
        return any(map(_has_quantifier, f.args))
    if isinstance(f, Imply):
        return _has_quantifier(f.condition) or _has_quantifier(f.consequence)
    return False


def _last_section(form: SList, key: str) -> list:
    """The entries of the last section with ``key`` (FF's parser keeps only the last
    ``(:types ...)``: scan-ops_pddl.y, ``gparse_types = $4``)."""
    found: list = []
    for section in form[2:]:
        if isinstance(section, SList) and section and section[0] == key:
            found = list(section[1:])
    return found


def _action_node(form: SList, name: str):
    return next(
        (
            s[1]
            for s in form[2:]
            if isinstance(s, SList) and len(s) > 1 and s[0] == ":action" and s[1] == name
        ),
        form,
    )


# the requirements FF's parser accepts (scan-ops_pddl.y, ``supported``); any other is a
# syntax error
FF_REQUIREMENTS = frozenset(
    ":STRIPS :NEGATION :EQUALITY :TYPING :CONDITIONAL-EFFECTS :NEGATIVE-PRECONDITIONS "
    ":DISJUNCTIVE-PRECONDITIONS :EXISTENTIAL-PRECONDITIONS :UNIVERSAL-PRECONDITIONS "
    ":QUANTIFIED-PRECONDITIONS :ADL :FLUENTS :ACTION-COSTS".split()
)
_EMPTY = (
    "an empty () as a condition or effect in {}: FF's parser has no such form (write "
    "(and) or leave it out), and the authors' solver refuses the file"
)


# the bare words FF's lexers read as keywords (lex-ops_pddl.l, lex-fct_pddl.l): one of
# them anywhere but at the head of a list, where the grammar wants a name, is a syntax
# error
_OPS_KEYWORDS = frozenset(
    "define domain and not when imply or forall exists assign scale-up scale-down "
    "increase decrease".split()
)
_FACT_KEYWORDS = frozenset("define problem situation and imply or forall exists not".split())


def _keyword_as_name(form: SList, keywords: frozenset) -> Sym | None:
    """The first symbol of ``form`` that is one of ``keywords`` (any case) and not the
    head of its list."""
    for i, part in enumerate(form):
        if isinstance(part, SList):
            if (found := _keyword_as_name(part, keywords)) is not None:
                return found
        elif i and isinstance(part, Sym) and str(part).lower() in keywords:
            return part
    return None


def _empty_part(node) -> SList | None:
    """The first empty list ``node`` holds where FF's grammar wants a condition or an
    effect (it is one, or a part of and/or/not/imply/when, or a quantifier's body)."""
    if not isinstance(node, SList):
        return None
    if not node:
        return node
    head = str(node[0]).lower() if isinstance(node[0], Sym) else ""
    if head in ("and", "or", "not", "imply", "when"):
        parts = node[1:]
    elif head in ("forall", "exists"):
        parts = node[2:]
    else:
        return None
    return next((e for e in map(_empty_part, parts) if e is not None), None)


def _negative(node) -> bool:
    return isinstance(node, SList) and len(node) == 2 and node[0] == "not"


def _skipped(action: str, param: Param) -> str:
    return (
        f"parameter {quote(param.name)} of action {quote(action)} has type "
        f"{quote(' or '.join(param.types))}, which no object has; read as no action "
        f"{quote(action)}, as FF skips it"
    )


def _kept(warnings, types=()) -> tuple:
    """The warnings of planloop's reading that still hold under FF's types: not its
    type mismatches of variables, nor the types the flat reading of a problem missed,
    nor objects declared twice (each is in both types)."""
    return tuple(
        w
        for w in warnings
        if not w.message.startswith("type mismatch:")
        and "declared twice" not in w.message
        and "already a constant of the domain" not in w.message
        and not any(w.message.startswith(f"undeclared type {quote(t)}") for t in types)
    )


class _Check:
    """FF's type checks of atoms (inst_pre.c ``make_Fact``) against ``membership``."""

    def __init__(self, membership: Membership, d: Domain):
        self.m, self.d = membership, d
        self.broken = {  # predicates FF cut short: an argument of an empty type
            name
            for name, p in d.predicates.items()
            if any(not self.m.members(q.types) for q in p.params)
        }

    def empty_param(self, params) -> Param | None:
        return next((q for q in params if not self.m.members(q.types)), None)

    def atom(self, predicate: str, args, scope: dict) -> str | None:
        """What FF says against ``(predicate args...)``, or None."""
        if predicate == "=" or predicate not in self.d.predicates:
            return None
        if predicate in self.broken:
            return (
                f"predicate {quote(predicate)} is declared with an argument of a type no "
                f"object has, so FF cannot read its use"
            )
        for i, (arg, q) in enumerate(
            zip(args, self.d.predicates[predicate].params, strict=False), 1
        ):
            if arg.startswith("?"):
                types = scope.get(arg)
                if types is not None and not self.m.is_subtype(types, q.types):
                    return (
                        f"type of variable {quote(arg)} ({' or '.join(types)}) does not match "
                        f"argument {i} of {quote(predicate)} ({' or '.join(q.types)}): some "
                        f"object of the one is not of the other"
                    )
            elif (
                arg in self.m.of and self.m.of[arg].isdisjoint(q.types) and ROOT_TYPE not in q.types
            ):
                return (
                    f"type mismatch: {quote(arg)} as argument {i} of {quote(predicate)}, "
                    f"which expects {' or '.join(q.types)}"
                )
        return None

    def action(self, action) -> list[str]:
        scope = {q.name: q.types for q in action.params}
        found: list[str] = []
        self._formula(action.precondition, scope, found)
        self._effects(action.effects, scope, found)
        return list(dict.fromkeys(found))

    def _formula(self, f, scope, found) -> None:
        if isinstance(f, Atom):
            message = self.atom(f.predicate, f.args, scope)
            if message:
                found.append(message)
        elif isinstance(f, (And, Or)):
            for x in f.args:
                self._formula(x, scope, found)
        elif isinstance(f, Not):
            self._formula(f.arg, scope, found)
        elif isinstance(f, Imply):
            self._formula(f.condition, scope, found)
            self._formula(f.consequence, scope, found)
        elif isinstance(f, (Exists, Forall)):
            self._formula(f.body, scope | {q.name: q.types for q in f.params}, found)

    def _effects(self, effects, scope, found) -> None:
        for e in effects:
            if isinstance(e, When):
                self._formula(e.condition, scope, found)
                self._effects(e.effects, scope, found)
            elif isinstance(e, ForallEffect):
                self._effects(e.effects, scope | {q.name: q.types for q in e.params}, found)
            else:
                self._formula(e.atom, scope, found)

    def ground(self, r: Reader, node) -> None:
        """FF's checks of the atoms of an ``:init`` fact or the goal, on ``r``."""
        todo = [node]
        while todo:
            item = todo.pop()
            if not isinstance(item, SList) or not item or not isinstance(item[0], Sym):
                continue
            if item[0] in _CONNECTIVES:
                todo.extend(x for x in item[1:] if isinstance(x, SList))
            elif all(isinstance(a, Sym) for a in item[1:]):
                message = self.atom(str(item[0]), [str(a) for a in item[1:]], {})
                if message:
                    r.error(message, item)
