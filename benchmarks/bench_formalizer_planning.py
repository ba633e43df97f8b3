"""Planning overhead per formalization round: Fast Downward against ``auto``, same run.

A PDDLego+-style loop plans once per round on its formalization of what the agent has
seen. The rounds here are ground-truth formalizations along each game's winning
commands (``gold_path()`` for CoinCollector, ``walkthrough()`` for ALFWorld): before
each command, the domain of ``world_pddl()`` and a problem holding only the facts
observed so far (``observed_facts()``) with a sub-goal. CoinCollector: generated houses
of 5, 7 and 11 rooms with doors, several seeds; the goal is ``(holding coin)`` once the
coin has been seen, else ``(player-at R)`` for the first (sorted) known room not yet
visited. ALFWorld: the 18 fixture games of ``tests/data/alfworld`` and games of
``gym.make("ALFWorld-v0")``'s generator; ALFWorld never names locations, so a round
also holds the location facts of the agent and of every receptacle and object it has
seen (a formalizer names a location after what stands there); the goal is the game's
own goal, else ``(opened R)`` for the first closed openable receptacle seen, else
``(atlocation agent L)`` for the first location the agent is not at. Rounds whose
problem Fast Downward does not solve are left out.

Each round is timed through ``solve(domain_text, problem_text, ...)`` with (a)
``planner="lama-first"`` (Fast Downward in a subprocess), (b) ``planner="auto"`` and
(c) ``PlanCache(...).solve(..., planner="auto")`` as a loop uses it. (a) and (b) run in
``--repeat`` whole passes over the rounds in walk order, the best pass per round kept:
``auto`` reuses the previous round's ground actions when a round declares the same
objects and static facts, so a round is timed after the round a loop meets before it;
the table gives the means of both kinds of round. How often a loop meets the same pair
again is modelled, not measured: (c) plays every episode's rounds ``--trials`` times in
a row through one cache (repeated trials of the same instance with a deterministic
formalizer, or replanning a round whose observation added no fact), so of every
``--trials`` calls one solves and the rest are hits; with ``--trials 1`` no pair
repeats and (c) is (b) plus hashing. Each of ``--repeat`` runs of (c) starts with an
empty cache; the best run per call is kept. Every plan of (b) is checked with
``validate`` and its status compared with Fast Downward's.

    python benchmarks/bench_formalizer_planning.py --json /tmp/bench_formalizer_planning.json
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import re
import statistics
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Callable, TypeVar

import gymnasium as gym
from timing import timed

import planloop  # noqa: F401  (registers the environments)
from planloop.envs.alfworld import ALFWorldEnv
from planloop.envs.coin import CoinCollectorEnv
from planloop.pddl import (
    Atom,
    PlanCache,
    PlanResult,
    load,
    parse,
    parse_domain,
    parse_problem,
    solve,
    validate,
    write_problem,
)
from planloop.pddl.writer import formula_text

GAMES_DIR = Path(__file__).resolve().parent.parent / "tests" / "data" / "alfworld" / "games"


@dataclass(frozen=True)
class Round:
    env: str
    game: str
    step: int
    domain: str
    problem: str


# -- building the rounds --------------------------------------------------------------


def round_problem(world_domain: str, world_problem: str, facts: list[str], goal, name: str) -> str:
    """A problem of ``facts`` (strings) and ``goal`` (a formula), declaring the objects
    they name and those the domain's actions name (ALFWorld's ``sinkbasintype``...)
    with their types in the hidden world."""
    domain = parse_domain(world_domain)
    world = parse_problem(world_problem, domain)
    atoms = [Atom(words[0], tuple(words[1:])) for words in (f.strip("()").split() for f in facts)]
    named = {arg for atom in atoms for arg in atom.args}
    named |= set(re.findall(r"[^\s()]+", formula_text(goal))) | set(domain.external_constants)
    objects = {o: t for o, t in world.objects.items() if o in named}
    return write_problem(
        replace(world, name=name, objects=objects, init=tuple(atoms), goal=goal), domain
    )


def coin_goal(facts: list[str]):
    """``(holding coin)`` once the coin is seen, else the first known unvisited room."""
    if any(f.startswith("(in-room coin ") for f in facts):
        return Atom("holding", ("coin",))
    rooms = sorted({f.split()[2] for f in facts if f.startswith("(connected ")})
    visited = {f.strip("()").split()[1] for f in facts if f.startswith("(visited ")}
    unvisited = [r for r in rooms if r not in visited]
    return Atom("player-at", (unvisited[0],)) if unvisited else Atom("holding", ("coin",))


def coin_rounds(locations: list[int], seeds: int) -> list[Round]:
    rounds = []
    for n in locations:
        env = gym.make("CoinCollector-v0", num_locations=n, include_doors=True)
        for seed in range(seeds):
            env.reset(seed=seed)
            game = env.unwrapped
            assert isinstance(game, CoinCollectorEnv)
            path = game.gold_path()
            assert path is not None  # a generated house's coin is reachable
            for step, command in enumerate(path):
                domain, world = game.world_pddl()
                facts = game.observed_facts()
                problem = round_problem(domain, world, facts, coin_goal(facts), f"round{step}")
                rounds.append(Round("CoinCollector", f"L{n}-s{seed}", step, domain, problem))
                env.step(command)
        env.close()
    return rounds


def alfworld_facts(game, world) -> list[str]:
    """The observed facts, with the location facts of the agent and of all that was seen
    (the world's well-typed facts only)."""
    facts = {str(a) for a in world.init}
    observed = [f for f in game.observed_facts() if f in facts]
    shown = {arg for f in observed for arg in f.strip("()").split()[1:]}
    shown |= {o for o, t in world.objects.items() if t == "agent"}

    def located(atom: Atom) -> bool:
        places = [a for a in atom.args if world.objects.get(a) == "location"]
        return bool(places) and all(a in shown or a in places for a in atom.args)

    return observed + [str(a) for a in world.init if located(a)]


def alfworld_goals(world, facts: list[str]) -> list:
    """The game's goal, then exploration sub-goals, in the order tried."""
    atoms = [f.strip("()").split() for f in facts]
    true = {tuple(a) for a in atoms}
    openable = [a[1] for a in atoms if a[0] == "openable" and ("opened", a[1]) not in true]
    agent_at = {a[2] for a in atoms if a[0] == "atlocation"}
    places = sorted({a[2] for a in atoms if a[0] == "receptacleatlocation"} - agent_at)
    agent = next(o for o, t in world.objects.items() if t == "agent")
    return (
        [world.goal]
        + [Atom("opened", (r,)) for r in openable[:1]]
        + [Atom("atlocation", (agent, place)) for place in places[:1]]
    )


def alfworld_rounds(generated: int) -> list[Round]:
    games = [
        (path.parent.name, gym.make("ALFWorld-v0", game_file=path), 0)
        for path in sorted(GAMES_DIR.glob("*/game.tw-pddl"))
    ]
    if generated:
        env = gym.make("ALFWorld-v0", num_generated=generated)
        games += [(f"generated-{i}", env, i) for i in range(generated)]
    rounds = []
    for name, env, instance in games:
        env.reset(options={"instance": instance})
        game = env.unwrapped
        assert isinstance(game, ALFWorldEnv)
        for step, command in enumerate(game.walkthrough()):
            domain_text, world_text = game.world_pddl()
            world = parse_problem(world_text, parse_domain(domain_text))
            facts = alfworld_facts(game, world)
            for goal in alfworld_goals(world, facts):
                problem = round_problem(domain_text, world_text, facts, goal, f"round{step}")
                if solve(domain_text, problem, planner="lama-first", timeout=60).solved:
                    rounds.append(Round("ALFWorld", name, step, domain_text, problem))
                    break
            env.step(command)
    return rounds


# -- timing ---------------------------------------------------------------------------


T = TypeVar("T")


def timed_ms(call: Callable[[], T]) -> tuple[float, T]:
    """The milliseconds ``call()`` took, and its result."""
    times, result = timed(call)
    return 1e3 * times[0], result


def afresh(rounds: list[Round]) -> list[bool]:
    """Whether each round names other objects or static facts than the round before it
    of its domain, so that ``auto`` grounds it anew (else it reuses that round's ground
    actions)."""
    flags: list[bool] = []
    last: dict[str, tuple] = {}  # domain text -> the key of its last round
    for r in rounds:
        domain, problem = parse(r.domain, r.problem)
        static = set(domain.predicates) - domain.changed_predicates()
        key = (
            tuple(problem.objects.items()),
            frozenset(a for a in problem.init if a.predicate in static),
        )
        flags.append(last.get(r.domain) != key)
        last[r.domain] = key
    return flags


def time_rounds(rounds: list[Round], repeat: int, trials: int) -> list[dict]:
    fd_ms, auto_ms = [math.inf] * len(rounds), [math.inf] * len(rounds)
    fd: list[PlanResult | None] = [None] * len(rounds)
    auto: list[PlanResult | None] = [None] * len(rounds)
    for _ in range(repeat):  # whole passes in walk order, as a loop meets the rounds
        for i, r in enumerate(rounds):
            ms, fd[i] = timed_ms(partial(solve, r.domain, r.problem, planner="lama-first"))
            fd_ms[i] = min(fd_ms[i], ms)
            ms, auto[i] = timed_ms(partial(solve, r.domain, r.problem, planner="auto"))
            auto_ms[i] = min(auto_ms[i], ms)
    rows = []
    for i, (r, fresh) in enumerate(zip(rounds, afresh(rounds), strict=True)):
        fd_result, auto_result = fd[i], auto[i]
        assert fd_result is not None and auto_result is not None  # timed at least once
        task = load(r.domain, r.problem)
        rows.append(
            {
                "env": r.env,
                "game": r.game,
                "step": r.step,
                "fd_ms": fd_ms[i],
                "auto_ms": auto_ms[i],
                "afresh": fresh,
                "fd_status": fd_result.status,
                "auto_status": auto_result.status,
                "auto_planner": auto_result.planner,
                "ground_actions": len(task.actions),
                "auto_valid": auto_result.solved
                and validate(task, list(auto_result.plan or ())).valid,
                "fd_plan": len(fd_result.plan or ()),
                "auto_plan": len(auto_result.plan or ()),
            }
        )
    cached = [[math.inf] * trials for _ in rows]
    for _ in range(repeat):
        cache = PlanCache()
        for episode in _episodes(rows):
            for trial in range(trials):
                for i in episode:
                    ms, _ = timed_ms(
                        partial(cache.solve, rounds[i].domain, rounds[i].problem, planner="auto")
                    )
                    cached[i][trial] = min(cached[i][trial], ms)
    for row, times in zip(rows, cached, strict=True):
        row["cached_ms"] = times
    return rows


def _episodes(rows: list[dict]) -> list[list[int]]:
    """The row indices of each game, in order."""
    games: dict[tuple[str, str], list[int]] = {}
    for i, row in enumerate(rows):
        games.setdefault((row["env"], row["game"]), []).append(i)
    return list(games.values())


# -- reporting ------------------------------------------------------------------------


def stats(values: list[float]) -> dict:
    ordered = sorted(values)
    return {
        "mean": statistics.fmean(ordered),
        "p50": statistics.median(ordered),
        "p90": ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))],
    }


def summary(rows: list[dict]) -> dict:
    actions = sorted(r["ground_actions"] for r in rows)
    fresh = [r["auto_ms"] for r in rows if r["afresh"]]
    reused = [r["auto_ms"] for r in rows if not r["afresh"]]
    return {
        "rounds": len(rows),
        "games": len({r["game"] for r in rows}),
        "actions_median": statistics.median(actions),
        "actions_max": actions[-1],
        "fallbacks": sum(r["auto_planner"] == "auto/lama-first" for r in rows),
        "fd": stats([r["fd_ms"] for r in rows]),
        "auto": stats([r["auto_ms"] for r in rows]),
        "afresh": (len(fresh), statistics.fmean(fresh) if fresh else math.nan),
        "reused": (len(reused), statistics.fmean(reused) if reused else math.nan),
        "cached": stats([t for r in rows for t in r["cached_ms"]]),
    }


def mean_of(ms: float, rounds: int) -> str:
    return f"{ms:.2f} ({rounds})" if rounds else "- (0)"


def fmt(s: dict) -> str:
    return f"{s['mean']:.2f} / {s['p50']:.2f} / {s['p90']:.2f}"


def markdown(groups: list[tuple[str, dict]], trials: int) -> str:
    lines = [
        "| env | games | rounds | ground actions (median, max) | FD lama-first ms "
        "(mean / p50 / p90) | auto ms (mean / p50 / p90) | FD/auto (means) "
        "| auto ms, rounds grounded afresh / reusing the last round's actions (mean, "
        f"rounds) | cached auto, {trials} trials, ms per call (mean / p50 / p90) "
        "| FD/cached (means) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, s in groups:
        (fresh, fresh_ms), (reused, reused_ms) = s["afresh"], s["reused"]
        lines.append(
            f"| {name} | {s['games']} | {s['rounds']} | {s['actions_median']:g}, "
            f"{s['actions_max']} | {fmt(s['fd'])} | {fmt(s['auto'])} "
            f"| **{s['fd']['mean'] / s['auto']['mean']:.0f}x** "
            f"| {mean_of(fresh_ms, fresh)} / {mean_of(reused_ms, reused)} "
            f"| {fmt(s['cached'])} | **{s['fd']['mean'] / s['cached']['mean']:.0f}x** |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--locations", type=int, nargs="+", default=[5, 7, 11], help="CoinCollector house sizes"
    )
    parser.add_argument("--seeds", type=int, default=5, help="houses per size")
    parser.add_argument(
        "--generated", type=int, default=6, help="generated ALFWorld games, besides the 18 fixtures"
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per round (best kept)")
    parser.add_argument(
        "--trials",
        type=int,
        default=3,
        help="times (c) meets each episode's rounds (see the docstring)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a fast run: 2 seeds, 11 rooms only, 2 generated games, 1 repeat",
    )
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    args = parser.parse_args(argv)
    if args.quick:
        args.locations, args.seeds, args.generated, args.repeat = [11], 2, 2, 1

    rounds = coin_rounds(args.locations, args.seeds)
    rounds = [r for r in rounds if solve(r.domain, r.problem, planner="lama-first").solved]
    rounds += alfworld_rounds(args.generated)
    rows = time_rounds(rounds, args.repeat, args.trials)
    disagree = [r for r in rows if r["auto_status"] != r["fd_status"] or not r["auto_valid"]]
    groups = [
        (env, summary([r for r in rows if r["env"] == env]))
        for env in ("CoinCollector", "ALFWorld")
    ]
    groups.append(("both", summary(rows)))

    print(
        f"planning per formalization round, Python {platform.python_version()}; "
        f"CoinCollector houses of {args.locations} rooms x {args.seeds} seeds, ALFWorld "
        f"fixtures + {args.generated} generated; best of {args.repeat}; Fast Downward answered "
        f"for auto in {groups[-1][1]['fallbacks']} rounds; auto and FD disagree or "
        f"auto's plan is invalid in {len(disagree)} rounds\n"
    )
    print(markdown(groups, args.trials))
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "args": vars(args) | {"json": str(args.json)},
                    "python": platform.python_version(),
                    "summary": dict(groups),
                    "rows": rows,
                },
                indent=2,
            )
        )
    return 1 if disagree else 0


if __name__ == "__main__":
    raise SystemExit(main())
