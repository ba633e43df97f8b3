"""The ``planloop`` command: list environments, play one, solve or validate PDDL."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from planloop.study.flags import parse_option

EXIT_OK, EXIT_NO_PLAN, EXIT_BAD_INPUT, EXIT_TIMEOUT = 0, 1, 2, 3
_SOLVE_EXIT = {"solved": EXIT_OK, "invalid_input": EXIT_BAD_INPUT, "timeout": EXIT_TIMEOUT}


def _envs(args) -> int:
    import gymnasium as gym

    import planloop  # noqa: F401  (registers the environments)
    from planloop.envs import ENVIRONMENTS
    for env_id in ENVIRONMENTS:
        spec = gym.spec(env_id)
        entry = spec.entry_point if isinstance(spec.entry_point, str) else repr(spec.entry_point)
        print(f"{env_id:24} max_episode_steps={spec.max_episode_steps:<5} {entry}")
    return EXIT_OK


def _play(args) -> int:
    import gymnasium as gym

    import planloop  # noqa: F401
    kwargs = dict(args.option)
    if args.domain:
        kwargs.update(domain=args.domain, problem=args.problem)
    if args.obs_format:
        kwargs["obs_format"] = args.obs_format
    try:
        env = gym.make(args.env_id, **kwargs)
        options = {"instance": args.instance} if args.instance is not None else None
        obs, info = env.reset(seed=args.seed, options=options)
    except (gym.error.Error, OSError, TypeError, ValueError) as exc:
        print(f"planloop play: cannot start {args.env_id}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(obs)
    print("Type an action, 'actions' to list the valid ones, or 'quit'.")
    while True:
        try:
            line = input("> ").strip()
        except EOFError:
            return EXIT_OK
        if line in ("quit", "exit"):
            return EXIT_OK
        if line == "actions":
            print("\n".join(info.get("admissible_actions", ["(hidden)"])))
            continue
        obs, reward, terminated, truncated, info = env.step(line)
        print(obs)
        if terminated or truncated:
            print("You won!" if info.get("won") else "The episode is over (step limit).")
            return EXIT_OK


def _warn(domain, problem) -> None:
    """The reader's warnings (forms planners accept), on stderr."""
    for warning in domain.warnings + problem.warnings:
        print(warning, file=sys.stderr)


def _solve(args) -> int:
    from planloop.pddl import PDDLError, parse, solve
    try:
        domain, problem = parse(args.domain, args.problem, strict=args.strict)
    except PDDLError as exc:
        print(f"invalid_input: {exc}", file=sys.stderr)
        return _SOLVE_EXIT["invalid_input"]
    _warn(domain, problem)
    result = solve(domain, problem, planner=args.planner, timeout=args.timeout)
    if result.solved:
        print("\n".join(result.plan))
        print(f"; {len(result.plan)} steps, {result.seconds:.3f} s, {result.planner}")
    else:
        print(f"{result.status}: {result.message}", file=sys.stderr)
    return _SOLVE_EXIT.get(result.status, EXIT_NO_PLAN)


def _validate(args) -> int:
    from planloop.pddl import PDDLError, load, validate
    try:
        task = load(args.domain, args.problem, strict=args.strict)
        _warn(task.domain, task.problem)
        report = validate(task, Path(args.plan).read_text())
    except PDDLError as exc:
        print(exc, file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        print(f"cannot read the plan: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(report.advice)
    return EXIT_OK if report.valid else EXIT_NO_PLAN


_STRICT_HELP = ("refuse the forms Fast Downward or FF accept but PDDL does not (a type "
                "among its own subtypes, an undeclared type, ...); by default they are read "
                "as those planners read them, each with a warning on stderr")


def build_parser() -> argparse.ArgumentParser:
    from planloop.pddl import PLANNERS
    parser = argparse.ArgumentParser(prog="planloop", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("envs", help="list the registered environments").set_defaults(run=_envs)

    play = sub.add_parser("play", help="play an environment in the terminal")
    play.add_argument("env_id")
    play.add_argument("--seed", type=int, default=None)
    play.add_argument("--instance", type=int, default=None)
    play.add_argument("--obs-format", choices=("text", "pddl"), default=None)
    play.add_argument("--domain", help="domain file, for PDDL-v0")
    play.add_argument("--problem", help="problem file or folder, for PDDL-v0")
    play.add_argument("-o", "--option", action="append", type=parse_option, default=[],
                      metavar="KEY=VALUE",
                      help="an environment argument, e.g. -o game_file=PATH (ALFWorld-v0) "
                           "or -o num_locations=7 (CoinCollector-v0); repeatable")
    play.set_defaults(run=_play)

    solve = sub.add_parser("solve", help="solve a PDDL task; exit 0 solved, 1 no plan, "
                                         "2 bad input, 3 timeout")
    solve.add_argument("domain")
    solve.add_argument("problem")
    solve.add_argument("--planner", default="lama-first", choices=PLANNERS)
    solve.add_argument("--timeout", type=float, default=60.0)
    solve.add_argument("--strict", action="store_true", help=_STRICT_HELP)
    solve.set_defaults(run=_solve)

    val = sub.add_parser("validate", help="validate a plan; exit 0 valid, 1 invalid, "
                                          "2 bad input")
    val.add_argument("domain")
    val.add_argument("problem")
    val.add_argument("plan")
    val.add_argument("--strict", action="store_true", help=_STRICT_HELP)
    val.set_defaults(run=_validate)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
