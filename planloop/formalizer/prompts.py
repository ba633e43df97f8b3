"""The formalizer's prompts, versioned by name, per environment family.

Families: ``coin`` (CoinCollector) and ``alfworld`` (ALFWorld). Names:

- ``simple``: the observations, the actions with their parameters, the output
  contract; sub-goals are the model's business;
- ``detailed``: adds PDDL goal templates and procedural hints (PDDLego+'s detailed
  prompt);
- ``without_hint`` and ``without_detailed_goal``: the two ablations;
- ``generic``: one domain-agnostic text, the same for every family, with no actions
  listed, no templates and no hints.

A prompt of one's own is a template: :mod:`planloop.formalizer.templates`.
"""

from __future__ import annotations

from dataclasses import dataclass

VERSION = "v1"
NAMES = ("simple", "detailed", "without_hint", "without_detailed_goal", "generic")
FAMILIES = ("coin", "alfworld", "contingent")  # contingent PDDL: the generic prompt only

SYSTEM = (
    "You write PDDL. You explore a text game step by step and keep a PDDL domain file "
    "and a PDDL problem file that model what you have observed, so that a classical "
    "planner can find the actions to take."
)

ROLE = """You are in an environment you explore step by step. Build and update a PDDL domain \
file (df) and problem file (pf) from your observations only: do not invent objects, places \
or relations you have not observed, and do not leave out anything you have observed. The \
planner's plan is carried out in the game one action after another."""

ACTIONS = {
    "coin": """The game's actions, which your domain file must define with these parameters:
1. move through a passage: (move ?from - location ?to - location ?dir - direction)
2. open a door: (open-door ?loc1 - location ?loc2 - location ?dir - direction)
3. take an object: (take ?o - object ?loc - location)
Directions are north, south, east and west.""",
    "alfworld": """The game's actions, which your domain file must define with these parameters:
1. go to a receptacle: (GotoLocation ?from - receptacle ?to - receptacle)
2. open a receptacle: (OpenObject ?r - receptacle)
3. close a receptacle: (CloseObject ?r - receptacle)
4. take an object from a receptacle: (PickupObject ?o - object ?r - receptacle)
5. put an object in or on a receptacle: (PutObject ?o - object ?r - receptacle)
6. turn an object on or off: (useObject ?o - object)
7. heat an object with a receptacle: (HeatObject ?o - object ?r - receptacle)
8. clean an object with a receptacle: (CleanObject ?o - object ?r - receptacle)
9. cool an object with a receptacle: (CoolObject ?o - object ?r - receptacle)
10. slice an object with a sharp object: (SliceObject ?r - receptacle ?o - object ?sharp - object)
Name objects as the game does, with the number: "mug 1" is mug_1.""",
}

COIN_TAKEN_GOAL = """Set the problem's goal to the next sub-goal you can reach with what you know:
go to a location you have not visited yet, (:goal (at ?location)) with ?location a place
not visited. The coin is taken for you once the game shows it: plan only moves and door
openings."""

GOALS = {
    "coin": """Set the problem's goal to the next sub-goal you can reach with what you know:
- while you have not seen the coin, go to a location you have not visited yet:
  (:goal (at ?location)) with ?location a place not visited;
- once you have seen the coin, take it: (:goal (holding coin)).""",
    "alfworld": """Set the problem's goal to the next sub-goal you can reach with what you know:
- while you have not found the object the task needs, search: go to a receptacle you have
  not visited, (:goal (at ?receptacle)), and if it is closed, open it,
  (:goal (opened ?receptacle));
- once you have found it, pursue the task itself, e.g. (:goal (and (holding ?o)))
  then (:goal (inReceptacle ?o ?r)).""",
}

HINTS = {
    "coin": """Hints:
- a closed door must be opened before you move through it;
- behind a closed door you may assume a location you have not visited; do not assume doors
  where the game shows none;
- in the problem's :init, list only facts that hold, never (not ...).""",
    "alfworld": """Hints:
- you can hold one object at a time; take an object before you heat, cool or clean it;
- hold an object to heat it with the microwave, cool it with the fridge or clean it with the
  sink basin;
- a receptacle must be open before you take an object from it or put one in it;
- pick up a sharp object (a knife) before slicing;
- you must be at a receptacle to open it, take from it or put into it.""",
}

SIMPLE_GOAL = "Set the problem's goal to a sub-goal you can reach with what you know now."

GENERIC = """You know only the game's commands below, and what the game has printed. Model \
the places, objects and relations you have observed, and the effect of each command, as a \
PDDL domain and problem. When the task cannot yet be achieved with what you know, set a \
sub-goal that gains knowledge: reach a place you have not visited, or open something you \
have not looked into. When it can, set the task's goal. A plan step must name one of the \
game's commands and the things it acts on."""

CONTRACT = {
    True: 'Answer with JSON only, {"df": "<domain file>", "pf": "<problem file>"}, '
    "each a complete (define ...) form.",
    False: "The domain file is fixed (below). Answer with JSON only, "
    '{"pf": "<problem file>"}, a complete (define (problem ...)) form for it.',
}


@dataclass(frozen=True)
class Prompt:
    """One prompt of one family, by name; ``version`` is what the records carry."""

    family: str
    name: str
    coin_taken: bool = False  # CoinCollector: the coin is taken for the agent when seen

    def __post_init__(self):
        if self.family not in FAMILIES:
            raise ValueError(f"unknown prompt family {self.family!r}: one of {FAMILIES}")
        if self.name not in NAMES:
            raise ValueError(f"unknown prompt {self.name!r}: one of {', '.join(NAMES)}")
        if self.family == "contingent" and self.name != "generic":
            raise ValueError(
                "contingent PDDL environments have the generic prompt only "
                "(their domains differ): use the prompt 'generic'"
            )

    @property
    def version(self) -> str:
        family = "any" if self.name == "generic" else self.family
        return f"pddlego/{family}/{self.name}/{VERSION}" + (
            "+coin-taken" if self.coin_taken else ""
        )

    def instructions(self, with_df: bool) -> str:
        """The fixed part: the role, the actions, the goal rules, the hints, the contract."""
        if self.name == "generic":
            parts = [ROLE, GENERIC]
        else:
            templates = self.name in ("detailed", "without_hint")
            hints = self.name in ("detailed", "without_detailed_goal")
            goals = COIN_TAKEN_GOAL if self.coin_taken else GOALS[self.family]
            parts = [ROLE, ACTIONS[self.family], goals if templates else SIMPLE_GOAL]
            parts += [HINTS[self.family]] if hints else []
        return "\n\n".join(parts + [CONTRACT[with_df]])
