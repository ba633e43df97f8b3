"""``Baking-v0``: the household baking domain of the closed-loop horizon study.

A robot bakes cakes and souffles with mixing bowls, a small bowl, pans, measuring cups,
eggs, flour, sugar, butter, baking powder, an electric stand mixer, a spatula, an oven
and plates. A cake needs a whole egg, a large portion of flour, sugar, butter and baking
powder; a souffle an egg yolk, a small portion of flour, sugar and butter, and no baking
powder. Every ingredient is used once.

Four problems, in this order, with optimal plan lengths checked by an optimal planner:
bake a cake (10 actions), bake a souffle (12), bake a cake, take it out and serve it on
a plate (15), bake a cake and a souffle (24).

Every predicate, action, action parameter and goal has a description in words, kept
here as plain data: they make the text templates of the observations and the domain
description of the prompts (``info["domain_description"]``).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from ..pddl import Domain, Templates, parse_domain, parse_problem
from . import arguments
from .pddl_env import PDDLEnv
from .view import TaskView

OPTIMAL_PLAN_LENGTHS = (10, 12, 15, 24)

PROBLEM_FILES = (
    "p01-cake.pddl",
    "p02-souffle.pddl",
    "p03-cake-plated.pddl",
    "p04-cake-and-souffle.pddl",
)

GOAL_DESCRIPTIONS = (
    "Bake a cake: mixture1 must end up as a baked cake.",
    "Bake a souffle: mixture1 must end up as a baked souffle.",
    "Bake a cake, take it out of the oven and serve it: mixture1 must be a cake served on "
    "plate1, and oven1 must be turned off.",
    "Bake a cake and a souffle: mixture1 must end up as a baked cake and mixture2 as a "
    "baked souffle.",
)

DOMAIN_SUMMARY = (
    "You are a household robot that bakes cakes and souffles. Ingredients wait in "
    "measuring cups and eggs in their shells. Pour ingredients into a mixing bowl and "
    "crack eggs into a bowl; to use only the yolk, crack the egg into the small bowl and "
    "separate its yolk into a mixing bowl. A mixing bowl takes one ingredient of each kind. "
    "Beat the bowl's ingredients into a batter with the electric stand mixer (the bowl must "
    "be attached to it), move the batter into an empty pan on the counter with a clean "
    "spatula, put the pan in the oven, which holds one pan at a time, and bake once the "
    "oven is on. A cake needs a whole egg, a large portion of flour, sugar, butter and "
    "baking powder; a souffle needs an egg yolk, a small portion of flour, sugar and "
    "butter, and no baking powder. Each ingredient can be used only once. Moving batter "
    "or food dirties the spatula and leaves the bowl dirty; wash them before reusing them. "
    "A baked dish is served on a plate with a clean spatula once its pan is out of the "
    "oven and has cooled."
)

# name -> (text template over the arguments, description)
PREDICATES: dict[str, tuple[str, str]] = {
    "in-shell": ("{0} is still in its shell", "The egg ?e is whole and uncracked, in its shell."),
    "in-cup": (
        "{0} is measured out in {1}",
        "The ingredient ?i waits, measured out, in the measuring cup ?m.",
    ),
    "in-container": (
        "{0} is in {1}",
        "The ingredient ?i has been put into the bowl ?c and not mixed yet.",
    ),
    "yolk-only": (
        "{0} is separated and only its yolk is kept",
        "The egg ?e has been separated: only its yolk is used, the white is left behind.",
    ),
    "large-portion": (
        "{0} is a large portion of flour",
        "The flour ?f is a large portion, enough for a cake.",
    ),
    "small-portion": (
        "{0} is a small portion of flour",
        "The flour ?f is a small portion, a little flour for a souffle.",
    ),
    "used": (
        "{0} has been used up in a batter",
        "The ingredient ?i has gone into a batter and cannot be used again.",
    ),
    "has-egg": ("{0} contains an egg", "The bowl ?c contains an egg or an egg yolk."),
    "has-flour": ("{0} contains flour", "The bowl ?c contains a portion of flour."),
    "has-sugar": ("{0} contains sugar", "The mixing bowl ?c contains sugar."),
    "has-butter": ("{0} contains butter", "The mixing bowl ?c contains butter."),
    "has-baking-powder": (
        "{0} contains baking powder",
        "The mixing bowl ?c contains baking powder.",
    ),
    "container-dirty": (
        "{0} is dirty",
        "The bowl ?c is dirty (batter or egg white is left in it) and must "
        "be washed before ingredients go into it.",
    ),
    "holds-batter": ("{0} holds a batter", "The mixing bowl ?c holds a beaten batter."),
    "attached": (
        "{0} is attached to {1}",
        "The mixing bowl ?c sits on the electric stand mixer ?m.",
    ),
    "mixer-free": ("{0} has no bowl attached", "No bowl sits on the electric stand mixer ?m."),
    "unmade": (
        "{0} has not been made yet",
        "The mixture ?x has not been made yet: it is still to be beaten.",
    ),
    "cake-batter": ("{0} is a cake batter", "The mixture ?x is an unbaked cake batter."),
    "souffle-batter": ("{0} is a souffle batter", "The mixture ?x is an unbaked souffle batter."),
    "mixture-in": ("{0} is in {1}", "The mixture ?x is in the mixing bowl ?c."),
    "in-pan": ("{0} is in {1}", "The mixture ?x (batter, or a baked dish) is in the pan ?p."),
    "pan-empty": ("{0} is empty", "The pan ?p has never been filled: batter can go in."),
    "pan-on-counter": (
        "{0} is on the counter",
        "The pan ?p stands on the kitchen counter, outside the oven.",
    ),
    "pan-hot": ("{0} is hot", "The pan ?p is hot from the oven and must cool first."),
    "spatula-clean": ("{0} is clean", "The spatula ?s is clean."),
    "pan-in-oven": ("{0} is in {1}", "The pan ?p is inside the oven ?o."),
    "oven-empty": ("{0} is empty", "The oven ?o has no pan in it."),
    "oven-on": ("{0} is turned on", "The oven ?o is turned on and hot."),
    "oven-off": ("{0} is turned off", "The oven ?o is turned off."),
    "is-cake": ("{0} is a baked cake", "The mixture ?x has been baked into a cake."),
    "is-souffle": ("{0} is a baked souffle", "The mixture ?x has been baked into a souffle."),
    "on-plate": ("{0} is served on {1}", "The baked mixture ?x is served on the plate ?pl."),
    "plate-empty": ("{0} is empty", "Nothing has been served on the plate ?pl."),
}

# name -> (text template over the arguments, description, {parameter: description})
ACTIONS: dict[str, tuple[str, str, dict[str, str]]] = {
    "crack-egg": (
        "crack {0} into {1}",
        "Crack an egg from its shell into a clean bowl that has no egg or batter in it. "
        "The whole egg goes into the bowl.",
        {
            "?e": "the egg to crack, still in its shell",
            "?c": "the bowl (mixing bowl or small bowl) it goes into",
        },
    ),
    "separate-yolk": (
        "separate the yolk of {0} from {1} into {2}",
        "Separate a cracked whole egg: its yolk goes into a clean mixing bowl that has no "
        "egg or batter in it, its white stays behind and dirties the first bowl.",
        {
            "?e": "the cracked, whole egg",
            "?from": "the bowl the cracked egg is in",
            "?to": "a different, clean mixing bowl that receives the yolk",
        },
    ),
    "pour-flour": (
        "pour {0} from {1} into {2}",
        "Pour a portion of flour from its measuring cup into a clean mixing bowl that has "
        "no flour or batter in it.",
        {
            "?f": "the flour to pour",
            "?m": "the measuring cup holding it",
            "?c": "the mixing bowl it goes into",
        },
    ),
    "pour-sugar": (
        "pour {0} from {1} into {2}",
        "Pour sugar from its measuring cup into a clean mixing bowl that has no sugar or "
        "batter in it.",
        {
            "?s": "the sugar to pour",
            "?m": "the measuring cup holding it",
            "?c": "the mixing bowl it goes into",
        },
    ),
    "pour-butter": (
        "pour {0} from {1} into {2}",
        "Pour the melted butter from its measuring cup into a clean mixing bowl that has no "
        "butter or batter in it.",
        {
            "?b": "the butter to pour",
            "?m": "the measuring cup holding it",
            "?c": "the mixing bowl it goes into",
        },
    ),
    "pour-baking-powder": (
        "pour {0} from {1} into {2}",
        "Pour baking powder from its measuring cup into a clean mixing bowl that has no "
        "baking powder or batter in it.",
        {
            "?p": "the baking powder to pour",
            "?m": "the measuring cup holding it",
            "?c": "the mixing bowl it goes into",
        },
    ),
    "attach-bowl": (
        "attach {0} to {1}",
        "Put a mixing bowl on the electric stand mixer, which must have no bowl on it.",
        {"?c": "the mixing bowl to attach", "?m": "the electric stand mixer"},
    ),
    "detach-bowl": (
        "detach {0} from {1}",
        "Take a mixing bowl off the electric stand mixer.",
        {"?c": "the mixing bowl to take off", "?m": "the electric stand mixer it sits on"},
    ),
    "beat-cake-batter": (
        "beat {3}, {4}, {5}, {6} and {7} in {0} with {1} into the cake batter {2}",
        "Beat a whole egg, a large portion of flour, sugar, butter and baking powder, all in "
        "a mixing bowl attached to the stand mixer, into a cake batter. The ingredients are "
        "used up and the bowl holds the batter.",
        {
            "?c": "the mixing bowl on the mixer",
            "?m": "the electric stand mixer",
            "?x": "the mixture that becomes the cake batter, not made yet",
            "?e": "the whole (not separated) egg in the bowl",
            "?f": "the large portion of flour in the bowl",
            "?s": "the sugar in the bowl",
            "?b": "the butter in the bowl",
            "?p": "the baking powder in the bowl",
        },
    ),
    "beat-souffle-batter": (
        "beat {3}, {4}, {5} and {6} in {0} with {1} into the souffle batter {2}",
        "Beat an egg yolk, a small portion of flour, sugar and butter, all in a mixing bowl "
        "attached to the stand mixer and with no baking powder in it, into a souffle "
        "batter. The ingredients are used up and the bowl holds the batter.",
        {
            "?c": "the mixing bowl on the mixer",
            "?m": "the electric stand mixer",
            "?x": "the mixture that becomes the souffle batter, not made yet",
            "?e": "the separated egg yolk in the bowl",
            "?f": "the small portion of flour in the bowl",
            "?s": "the sugar in the bowl",
            "?b": "the butter in the bowl",
        },
    ),
    "transfer-batter": (
        "transfer {0} from {1} into {2} with {3}",
        "Scrape a batter out of its mixing bowl into an empty pan on the counter with a "
        "clean spatula. The bowl and the spatula become dirty.",
        {
            "?x": "the batter to move",
            "?c": "the mixing bowl holding it",
            "?p": "the empty pan on the counter",
            "?s": "the clean spatula",
        },
    ),
    "wash-container": (
        "wash {0}",
        "Wash a dirty bowl that holds no batter, so that it is clean again.",
        {"?c": "the dirty bowl"},
    ),
    "wash-spatula": (
        "wash {0}",
        "Wash a dirty spatula, so that it is clean again.",
        {"?s": "the dirty spatula"},
    ),
    "put-pan-in-oven": (
        "put {0} in {1}",
        "Put a pan from the counter into the oven, which must be empty: it holds one pan.",
        {"?p": "the pan on the counter", "?o": "the empty oven"},
    ),
    "take-pan-out": (
        "take {0} out of {1}",
        "Take a pan out of the oven and put it on the counter.",
        {"?p": "the pan in the oven", "?o": "the oven"},
    ),
    "turn-on-oven": ("turn on {0}", "Turn on an oven that is off.", {"?o": "the oven to turn on"}),
    "turn-off-oven": (
        "turn off {0}",
        "Turn off an oven that is on.",
        {"?o": "the oven to turn off"},
    ),
    "bake-cake": (
        "bake {0} in {1} in {2} into a cake",
        "Bake a cake batter that is in a pan inside a turned-on oven. It becomes a cake and "
        "the pan gets hot.",
        {
            "?x": "the cake batter",
            "?p": "the pan holding it",
            "?o": "the turned-on oven the pan is in",
        },
    ),
    "bake-souffle": (
        "bake {0} in {1} in {2} into a souffle",
        "Bake a souffle batter that is in a pan inside a turned-on oven. It becomes a "
        "souffle and the pan gets hot.",
        {
            "?x": "the souffle batter",
            "?p": "the pan holding it",
            "?o": "the turned-on oven the pan is in",
        },
    ),
    "let-cool": (
        "let {0} cool",
        "Let a hot pan cool down on the counter.",
        {"?p": "the hot pan on the counter"},
    ),
    "serve-on-plate": (
        "serve {0} from {1} on {2} with {3}",
        "Lift a baked dish out of its cooled pan on the counter onto an empty plate with a "
        "clean spatula, which becomes dirty.",
        {
            "?x": "the baked cake or souffle",
            "?p": "the cooled pan holding it",
            "?pl": "the empty plate",
            "?s": "the clean spatula",
        },
    ),
}

TEMPLATES = Templates(
    predicates={name: text for name, (text, _) in PREDICATES.items()},
    actions={name: text for name, (text, _, _) in ACTIONS.items()},
)


def _data_dir():
    return resources.files("planloop.envs") / "data" / "baking"


@lru_cache(maxsize=None)
def domain_text() -> str:
    return _data_dir().joinpath("domain.pddl").read_text()


@lru_cache(maxsize=None)
def baking_domain() -> Domain:
    return parse_domain(domain_text())


@lru_cache(maxsize=None)
def problem_texts() -> tuple[str, ...]:
    """The four problems' PDDL, in the order of :data:`OPTIMAL_PLAN_LENGTHS`."""
    return tuple(_data_dir().joinpath(name).read_text() for name in PROBLEM_FILES)


def domain_description(domain: Domain | None = None) -> str:
    """The domain in words for prompts: a summary, then every action with its parameters
    and every predicate, each with its description."""
    domain = domain or baking_domain()
    lines = [DOMAIN_SUMMARY, "", "Actions:"]
    for name, action in domain.actions.items():
        _, text, params = ACTIONS[name]
        lines.append(f"- ({name} {' '.join(p.name for p in action.params)}): {text}")
        for p in action.params:
            lines.append(f"    {p.name} ({'/'.join(p.types)}): {params[p.name]}")
    lines += ["", "Predicates:"]
    for name, predicate in domain.predicates.items():
        signature = " ".join([name] + [p.name for p in predicate.params])
        lines.append(f"- ({signature}): {PREDICATES[name][1]}")
    return "\n".join(lines)


def baking_env(obs_format: str = "text", limits=None, **kwargs) -> PDDLEnv:
    """``Baking-v0``: the four baking problems (instances 0-3, see the module docstring)."""
    domain = baking_domain()
    problems = [parse_problem(text, domain, arguments.limits(limits)) for text in problem_texts()]
    view = TaskView(
        obs_format=obs_format,
        text_templates=TEMPLATES,
        description=domain_description(),
        goal_texts={p.name: goal for p, goal in zip(problems, GOAL_DESCRIPTIONS, strict=True)},
    )
    return PDDLEnv(domain, problems, view=view, limits=limits, **kwargs)
