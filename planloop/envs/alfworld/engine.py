"""The game engine: TextWorld's PDDL engine, rebuilt on planloop's grounded task.

A :class:`World` is the task's state (a bitset) plus the engine's memory of negated
facts: every delete effect leaves a ``not_<predicate>`` fact that only re-adding the
fact removes; texts may query those (ALFWorld's ``look`` does).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property
from itertools import islice, product

from ...pddl import ActionLookupError, GroundAction, UnmetFact, quote, write_domain
from ...pddl.model import And, Atom
from ..info import FailureKind
from .game import Game, planners_domain
from .grammar import Key

NOTHING_HAPPENS = "Nothing happens."


@dataclass(frozen=True)
class World:
    """The true state and the remembered ``not_`` facts, both bitsets over fact ids."""

    state: int
    negated: int  # fact ids whose not_ fact the engine remembers


@dataclass(frozen=True)
class Failure:
    """Why a command was not admissible: the ``action_error`` kind and message, and what
    the command named: the domain action it fits with its variables bound to objects
    (and the preconditions that fail), or a name no object of the game has."""

    command: str
    kind: FailureKind
    message: str
    unmet: tuple[UnmetFact, ...] = ()
    action: str | None = None
    bound: dict[str, str] = field(default_factory=dict)
    unknown: str | None = None


@dataclass(frozen=True)
class Outcome:
    """What a command did: the world after it, the text, the action or the failure."""

    world: World
    feedback: str
    action: GroundAction | None = None
    failure: Failure | None = None


class _FactView:
    """The facts of a world by predicate, each list sorted by arguments (lazily)."""

    __slots__ = ("engine", "world", "cache")

    def __init__(self, engine: "Engine", world: World):
        self.engine, self.world = engine, world
        self.cache: dict[tuple, list[tuple[str, ...]]] = {}

    def facts(self, predicate: str, bound: tuple[int, str] | None = None) -> list[tuple[str, ...]]:
        key = (predicate, bound)
        found = self.cache.get(key)
        if found is None:
            negated = predicate.startswith("not_")
            bits = self.world.negated if negated else self.world.state
            index = self.engine.fact_index(predicate[4:] if negated else predicate, bound)
            found = self.cache[key] = [args for fid, args in index if bits >> fid & 1]
        return found

    def is_a(self, obj: str, type_name: str) -> bool:
        return self.engine.is_a(obj, type_name)


class Engine:
    """Commands, admissible lists and texts of one :class:`Game`."""

    MAX_DIAGNOSED = 512  # instantiations tried when explaining an unknown action

    def __init__(self, game: Game, cache_size: int = 4096):
        self.game = game
        self.task = task = game.task
        self.grammar = game.grammar
        self.entities = game.entities
        self._by_display = {e.name: obj for obj, e in game.entities.items()}
        self._schemas = {
            name: [(p.name.lstrip("?"), p.types[0]) for p in a.params]
            for name, a in task.domain.actions.items()
        }
        self.param_types = {name: dict(params) for name, params in self._schemas.items()}
        self._index: dict[str, list] = {}
        self._by_slot: dict[tuple[str, int], dict[str, list]] = {}
        self._indexed_facts = 0
        self._type_of = dict(task.objects)
        self._is_a: dict[tuple[str, str], bool] = {}
        changed = task.domain.changed_predicates()
        self.static_predicates = frozenset(task.domain.predicates) - changed
        self._ties = {
            name: _static_atoms(action.precondition, self.static_predicates)
            for name, action in task.domain.actions.items()
        }
        played = [
            (name, text.template)
            for name, text in self.grammar.actions.items()
            if name in task.domain.actions
        ]
        dynamic = changed | {"not_" + p for p in changed}  # TextWorld's negated facts
        self._text_slots = {
            name: self._static_slots(name, template, dynamic) for name, template in played
        }
        self._state_keyed = all(slots is not None for slots in self._text_slots.values())
        self._texts: dict[tuple[str, tuple[str, ...]], str] = {}  # by the arguments read
        self._shown: dict[GroundAction, str] = {}  # the same texts, by action
        self._commands: OrderedDict = OrderedDict()  # state (or world) -> commands
        self._cache_size = cache_size
        self._patterns = [
            (name, re.compile(_template_regex(template))) for name, template in played
        ]
        self.forms = {
            name: _template_form(template, self.param_types[name]) for name, template in played
        }  # take <object> from <receptacle>

    # -- facts -----------------------------------------------------------------------
    def initial_world(self) -> World:
        return World(self.task.init, 0)

    def fact_index(
        self, predicate: str, bound: tuple[int, str] | None = None
    ) -> list[tuple[int, tuple[str, ...]]]:
        """The task's facts of ``predicate`` as (id, arguments), sorted by arguments;
        with ``bound`` (slot, object), only those holding that object in that slot."""
        facts = self.task.facts
        if self._indexed_facts != len(facts):
            index: dict[str, list] = {}
            for fid, fact in enumerate(facts):
                index.setdefault(fact.predicate, []).append((fid, fact.args))
            for entries in index.values():
                entries.sort(key=lambda entry: entry[1])
            self._index, self._by_slot, self._indexed_facts = index, {}, len(facts)
        entries = self._index.get(predicate, [])
        if bound is None:
            return entries
        slot, obj = bound
        by_object = self._by_slot.get((predicate, slot))
        if by_object is None:
            by_object = self._by_slot[(predicate, slot)] = {}
            for entry in entries:
                if slot < len(entry[1]):
                    by_object.setdefault(entry[1][slot], []).append(entry)
        return by_object.get(obj, [])

    def is_a(self, obj: str, type_name: str) -> bool:
        key = (obj, type_name)
        found = self._is_a.get(key)
        if found is None:
            kind = self._type_of.get(obj)
            found = self._is_a[key] = kind is not None and self.task.domain.is_subtype(
                kind, (type_name,)
            )
        return found

    def view(self, world: World) -> _FactView:
        return _FactView(self, world)

    # -- texts -----------------------------------------------------------------------
    def objects_named(self, text: str) -> set[str]:
        """The objects whose displayed names ``text`` holds as whole words."""
        return {
            obj
            for obj, name, pattern in self._name_patterns
            if name in text and pattern.search(text)
        }

    @cached_property
    def domain_pddl(self) -> str:
        """The game's domain as written for planners (the same every time), reading
        without a warning (see :func:`.game.planners_domain`)."""
        return write_domain(planners_domain(self.task))

    @cached_property
    def _name_patterns(self) -> list[tuple[str, str, re.Pattern]]:
        return [
            (obj, e.name, re.compile(rf"\b{re.escape(e.name)}\b"))
            for obj, e in self.entities.items()
        ]

    def mapping(self, action: GroundAction) -> dict[Key, str]:
        return dict(zip(self._schemas[action.name], action.args, strict=True))

    def derive(self, rhs: str, world: World, mapping: dict[Key, str] | None = None) -> str:
        return self.grammar.derive(rhs, self.view(world), mapping or {}, self.entities)

    def intro(self, world: World) -> str:
        return self.derive("#intro#", world)

    def _static_slots(self, name: str, template: str, dynamic: set[str]) -> tuple[int, ...] | None:
        """The argument slots that action ``name``'s command reads, if it reads no fact
        that changes (then it renders the same in every state); else None."""
        queried = self.grammar.queried_predicates(template)
        variables = self.grammar.variables(template)
        if queried is None or variables is None or queried & dynamic:
            return None
        return tuple(i for i, (var, _) in enumerate(self._schemas[name]) if var in variables)

    def command_text(self, action: GroundAction, world: World) -> str:
        """The command of ``action``: where it reads no changing fact, rendered once for
        all the actions whose command reads the same arguments (``go to R`` from any
        place) and kept by action, so a step renders only commands never seen before."""
        text = self._shown.get(action)
        if text is not None:
            return text
        slots = self._text_slots[action.name]
        if slots is None:
            return self.render(action, world)
        key = (action.name, tuple(action.args[i] for i in slots))
        text = self._texts.get(key)
        if text is None:
            text = self._texts[key] = self.render(action, world)
        self._shown[action] = text
        return text

    def render(self, action: GroundAction, world: World) -> str:
        """The command of ``action`` in ``world``, rendered afresh."""
        template = self.grammar.actions[action.name].template
        return self.derive(template, world, self.mapping(action))

    def commands(self, world: World) -> dict[str, GroundAction]:
        """The admissible commands, sorted, each with the action it runs."""
        key = world.state if self._state_keyed else world
        found = self._commands.get(key)
        if found is not None:
            self._commands.move_to_end(key)
            return found
        texts: dict[str, GroundAction] = {}
        for action in self.task.applicable(world.state):
            if not changes_nothing(action):
                texts.setdefault(self.command_text(action, world), action)
        found = dict(sorted(texts.items()))
        self._commands[key] = found
        if len(self._commands) > self._cache_size:
            self._commands.popitem(last=False)
        return found

    # -- dynamics --------------------------------------------------------------------
    def execute(self, world: World, command: str) -> Outcome:
        """Run ``command`` (stripped, then compared exactly with the admissible ones)."""
        command = command.strip()
        action = self.commands(world).get(command)
        if action is None:
            return Outcome(world, NOTHING_HAPPENS, failure=self.diagnose(world, command))
        after = self.apply(world, action)
        feedback = self.derive(
            self.grammar.actions[action.name].feedback, after, self.mapping(action)
        )
        return Outcome(after, feedback, action)

    def apply(self, world: World, action: GroundAction) -> World:
        add, delete = action.add, action.delete
        for test, _, c_add, c_delete in action.conditional:
            if test(world.state):
                add, delete = add | c_add, delete | c_delete
        delete &= ~add
        return World((world.state & ~delete) | add, (world.negated | delete) & ~add)

    def diagnose(self, world: World, command: str) -> Failure:
        """Why ``command`` is not admissible."""
        options: list[tuple[str, dict[str, str]]] = []
        unknown: str | None = None
        mistyped: tuple[str, dict[str, str]] | None = None
        for name, pattern in self._patterns:
            match = pattern.fullmatch(command)
            if match is None:
                continue
            found = {var: self._by_display.get(shown) for var, shown in match.groupdict().items()}
            missing = [match.group(var) for var, obj in found.items() if obj is None]
            if missing:
                unknown = unknown or missing[0]
                continue
            bound = {var: obj for var, obj in found.items() if obj is not None}
            if all(
                self.is_a(obj, self.param_types[name].get(var, "object"))
                for var, obj in bound.items()
            ):
                options.append((name, bound))
            else:
                mistyped = mistyped or (name, bound)
        if options:
            unmet, name, bound = min(
                ((self._unmet(world, name, bound), name, bound) for name, bound in options),
                key=lambda o: len(o[0]),
            )
            verdict = "cannot be done now" if unmet else "would change nothing"
            return Failure(
                command, "inapplicable", f"{quote(command)} {verdict}", tuple(unmet), name, bound
            )
        if unknown is not None:
            return Failure(
                command,
                "unknown",
                f"{quote(command)}: there is no {quote(unknown)} in this game",
                unknown=unknown,
            )
        if mistyped is not None:
            name, bound = mistyped
            return Failure(
                command,
                "malformed",
                f"{quote(command)}: wrong kind of thing for {self.grammar.actions[name].name}",
                (),
                name,
                bound,
            )
        verbs = {t.template.split()[0] for t in self.grammar.actions.values()}
        if command.split(" ", 1)[0] in verbs:
            return Failure(
                command, "malformed", f"{quote(command)} does not fit any command template"
            )
        return Failure(command, "unknown", f"{quote(command)} is not a command this game knows")

    def _unmet(self, world: World, name: str, bound: dict[str, str]) -> list[UnmetFact]:
        """The fewest unmet preconditions of an action ``name`` with ``bound`` arguments
        (the others free), among grounded actions or, failing those, instantiations."""
        params = self._schemas[name]
        fixed = [(i, bound[var]) for i, (var, _) in enumerate(params) if var in bound]
        actions = [
            a
            for a in self.task.actions
            if a.name == name and all(a.args[i] == obj for i, obj in fixed)
        ]
        if not actions:
            pools = [
                [bound[var]] if var in bound else self._tied(world, name, var, kind, bound)
                for var, kind in params
            ]
            for args in islice(product(*pools), self.MAX_DIAGNOSED):
                try:
                    actions.append(self.task.action(name, args))
                except ActionLookupError:
                    continue
        return min((self.task.unmet(world.state, a) for a in actions), key=len, default=[])

    def _tied(
        self, world: World, name: str, var: str, kind: str, bound: dict[str, str]
    ) -> list[str]:
        """Candidates for the free ``var`` of type ``kind``: the objects that the action's
        static preconditions tie to the bound ones (``objecttype(o, ?ot)``: the type of
        ``o``; ``receptacleatlocation(r, ?l)``: where ``r`` is), so that a diagnosis is
        about the command's own objects; all of the type where no fact ties any."""
        objects = self.task.objects_of((kind,))
        view = self.view(world)
        known = {f"?{v}": obj for v, obj in bound.items()}
        free = f"?{var}"
        for predicate, args in self._ties[name]:
            if free not in args or any(
                a.startswith("?") and a != free and a not in known for a in args
            ):
                continue
            slot = args.index(free)
            tied = {
                found[slot]
                for found in view.facts(predicate)
                if all(a == free or found[i] == known.get(a, a) for i, a in enumerate(args))
            }
            objects = [obj for obj in objects if obj in tied] or objects
        return objects

    def show_unmet(self, unmet: UnmetFact) -> str:
        """An unmet fact with the game's names: ``opened(cabinet 2)``."""
        atom = unmet.atom
        names = [self.entities[a].name if a in self.entities else a for a in atom.args]
        text = f"{atom.predicate}({', '.join(names)})"
        return text if unmet.wanted else f"not {text}"


def changes_nothing(action: GroundAction) -> bool:
    """Fast Downward's translator drops operators whose effects their preconditions
    already ensure (``go to`` the receptacle the agent stands at)."""
    return (
        not action.conditional
        and action.add & ~action.pre_pos == 0
        and action.delete & ~action.add == 0
    )


def _static_atoms(precondition, static: frozenset[str]) -> list[tuple[str, tuple[str, ...]]]:
    """The static atoms among a precondition's top-level conjuncts."""
    parts = precondition.args if isinstance(precondition, And) else (precondition,)
    return [(p.predicate, p.args) for p in parts if isinstance(p, Atom) and p.predicate in static]


_SLOT = re.compile(r"\[\{\s*([A-Za-z_]\w*)[^}]*\}\]|\{\s*([A-Za-z_]\w*)[^}]*\}")  # a variable


def _template_form(template: str, types: dict[str, str]) -> str:
    """A command template in words: each variable as ``<its type>``."""
    return _SLOT.sub(lambda m: f"<{types.get(m.group(1) or m.group(2), 'object')}>", template)


def _template_regex(template: str) -> str:
    """A command template as a regex with one named group per bound variable."""
    pattern, position = "", 0
    for match in _SLOT.finditer(template):
        pattern += re.escape(template[position : match.start()])
        pattern += f"(?P<{match.group(1) or match.group(2)}>.+?)"
        position = match.end()
    return pattern + re.escape(template[position:])
