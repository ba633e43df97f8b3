"""The ``planloop`` command: list environments, play one, solve or validate PDDL, and
``doctor``: what is installed here and what is missing."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import os
import re
import shutil
import sys
from pathlib import Path

from planloop.study.flags import non_negative_int, parse_option, positive_float

EXIT_OK, EXIT_NO_PLAN, EXIT_BAD_INPUT, EXIT_TIMEOUT, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
_SOLVE_EXIT = {"solved": EXIT_OK, "invalid_input": EXIT_BAD_INPUT, "timeout": EXIT_TIMEOUT}


def _envs(args) -> int:
    import gymnasium as gym

    import planloop  # noqa: F401  (registers the environments)
    from planloop.envs import ENVIRONMENTS, TWX_ENVIRONMENTS

    for env_id in [*ENVIRONMENTS, *TWX_ENVIRONMENTS]:
        spec = gym.spec(env_id)
        entry = spec.entry_point if isinstance(spec.entry_point, str) else repr(spec.entry_point)
        extra = "  (the twx extra and java)" if env_id in TWX_ENVIRONMENTS else ""
        print(f"{env_id:24} max_episode_steps={spec.max_episode_steps:<5} {entry}{extra}")
    return EXIT_OK


def _limit(text: str) -> tuple[str, int]:
    """``KEY=VALUE`` naming a field of :class:`planloop.pddl.Limits` and a positive int."""
    from planloop.pddl import Limits

    key, _, value = text.partition("=")
    names = [f.name for f in dataclasses.fields(Limits)]
    if key not in names:
        raise argparse.ArgumentTypeError(
            f"unknown limit {key!r}; the limits are {', '.join(names)}"
        )
    try:
        number = int(value.replace(",", ""))
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"{key} must be a positive integer, not {value!r}")
    return key, number


def _limits(args):
    from planloop.pddl import Limits

    return Limits(**dict(args.limit))


def _missing(*paths) -> int | None:
    """EXIT_BAD_INPUT after one line for the first of ``paths`` that does not exist."""
    for path in paths:
        if path is not None and not Path(path).exists():
            print(f"no such file: {path}", file=sys.stderr)
            return EXIT_BAD_INPUT
    return None


def _error(exc, prefix: str = "") -> None:
    """A PDDLError on stderr: a line per diagnostic, with the source line under it when
    the input is PDDL (a text that is not PDDL is not shown again)."""
    for d in exc.diagnostics:
        shown = dataclasses.replace(d, snippet="") if d.message.startswith("not PDDL") else d
        print(f"{prefix}{shown}", file=sys.stderr)


def _play(args) -> int:
    try:
        return _play_loop(args)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _play_loop(args) -> int:
    import gymnasium as gym

    import planloop  # noqa: F401
    from planloop.envs.lookup import make_error

    kwargs = dict(args.option)
    if args.domain:
        missing = _missing(args.domain, args.problem)
        if missing is not None:
            return missing
        kwargs.update(domain=args.domain, problem=args.problem)
    if args.limit:
        kwargs["limits"] = _limits(args)
    if args.obs_format:
        kwargs["obs_format"] = args.obs_format
    try:
        env = gym.make(args.env_id, **kwargs)
        options = {"instance": args.instance} if args.instance is not None else None
        obs, info = env.reset(seed=args.seed, options=options)
    except (gym.error.Error, OSError, TypeError, ValueError) as exc:
        print(
            f"planloop play: cannot start {args.env_id}: {make_error(args.env_id, exc)}",
            file=sys.stderr,
        )
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

    limits = _limits(args)
    try:
        domain, problem = parse(Path(args.domain), Path(args.problem), limits, args.strict)
    except PDDLError as exc:
        _error(exc, "invalid_input: ")
        return _SOLVE_EXIT["invalid_input"]
    _warn(domain, problem)
    result = solve(domain, problem, planner=args.planner, timeout=args.timeout, limits=limits)
    if result.solved:
        assert result.plan is not None  # a solved result holds its plan
        print("\n".join(result.plan))
        print(f"; {len(result.plan)} steps, {result.seconds:.3f} s, {result.planner}")
    else:
        print(f"{result.status}: {result.message}", file=sys.stderr)
    return _SOLVE_EXIT.get(result.status, EXIT_NO_PLAN)


def _validate(args) -> int:
    from planloop.pddl import PDDLError, load, validate
    from planloop.pddl.source import read_source

    limits = _limits(args)
    try:
        task = load(Path(args.domain), Path(args.problem), limits, args.strict)
        _warn(task.domain, task.problem)
        report = validate(task, read_source(Path(args.plan), "plan", limits), limits)
    except PDDLError as exc:
        _error(exc)
        return EXIT_BAD_INPUT
    print(report.advice)
    return EXIT_OK if report.valid else EXIT_NO_PLAN


_LIMIT_HELP = (
    "raise or lower a work limit of planloop.pddl.Limits, e.g. --limit "
    "max_expansion=5000000 or --limit max_bytes=20000000; repeatable"
)
_STRICT_HELP = (
    "refuse the forms Fast Downward or FF accept but PDDL does not (a type "
    "among its own subtypes, an undeclared type, ...); by default they are read "
    "as those planners read them, each with a warning on stderr"
)


# planloop doctor: what each extra is for, and the import name of a distribution whose
# module is named otherwise (the extras and their distributions come from the installed
# package's metadata, so they cannot drift from pyproject.toml)
PURPOSES = {
    "dev": "the tests",
    "referees": "the differential tests and benchmarks",
    "llm": "--llm openai:MODEL or URL@MODEL",
    "plot": "the studies' PNGs",
    "twx": "the real TextWorld Express games",
    "mcp": "planloop-mcp",
    "ray": "--backend ray",
}
MODULES = {"websocket-client": "websocket"}


def extras() -> dict[str, list[str]]:
    """planloop's extras, each with its distributions, from the installed metadata."""
    from importlib import metadata

    found: dict[str, list[str]] = {}
    for requirement in metadata.requires("planloop") or []:
        spec, _, marker = requirement.partition(";")
        extra = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", marker)
        name = re.match(r"[A-Za-z0-9_.-]+", spec.strip())
        if extra and name:
            found.setdefault(extra[1], []).append(name[0].lower())
    return found


def _doctor_import(module: str) -> str | None:
    """None when ``module`` imports, else why not (one line). Whatever the import
    prints (pddlgym's notice about gym) is kept off the report."""
    import contextlib
    import io

    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            importlib.import_module(module)
    except Exception as exc:  # an extra that is absent or broken: reported, not raised
        return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return None


def _doctor_version(distribution: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "?"


def _doctor_checks() -> list[tuple[str, bool, str, str]]:
    """(item, found, what was found or why not, the one line that fixes it)."""
    checks = []
    from planloop.pddl import fd_planner

    try:
        bin_dir, downward = fd_planner.fast_downward_paths()
        translator = bin_dir / "fast_downward" / "translate" / "__main__.py"
        absent = [str(p) for p in (downward, translator) if not p.is_file()]
        found = not absent and os.access(downward, os.X_OK)
        detail = (
            f"downward {downward}, translator {translator.parent}"
            if found
            else f"missing or not executable: {', '.join(absent) or downward}"
        )
    except RuntimeError as exc:
        found, detail = False, str(exc)
    checks.append(
        ("Fast Downward (core)", found, detail, "pip install --force-reinstall up-fast-downward")
    )
    for extra, packages in extras().items():
        failed = [
            (dist, why)
            for dist in packages
            if (why := _doctor_import(MODULES.get(dist, dist.replace("-", "_"))))
        ]
        detail = (
            "; ".join(f"{dist}: {why}" for dist, why in failed)
            if failed
            else ", ".join(f"{dist} {_doctor_version(dist)}" for dist in packages)
        )
        purpose = f" ({PURPOSES[extra]})" if extra in PURPOSES else ""
        checks.append(
            (f"extra {extra}{purpose}", not failed, detail, f"pip install 'planloop[{extra}]'")
        )
    java = shutil.which("java")
    checks.append(
        (
            "Java (for the twx extra)",
            java is not None,
            java or "no java on PATH",
            "apt-get install default-jre-headless",
        )
    )
    chromium = shutil.which("chromium")
    checks.append(
        (
            "Chromium (the HTML report's test)",
            chromium is not None,
            chromium or "no chromium on PATH",
            "apt-get install chromium",
        )
    )
    key, base = os.environ.get("OPENAI_API_KEY"), os.environ.get("OPENAI_BASE_URL")
    server = f"OPENAI_API_KEY set ({len(key)} characters)" if key else "OPENAI_API_KEY is not set"
    if base:
        server += f"; openai:MODEL goes to OPENAI_BASE_URL={base}"
    checks.append(
        (
            "a model server (--llm openai:MODEL)",
            bool(key),
            server,
            "export OPENAI_API_KEY=sk-...  (a local server needs none: --llm URL@MODEL)",
        )
    )
    return checks


def _doctor(args) -> int:
    """Print each item, found or MISSING, with the line that fixes what is missing;
    exit 1 only when the core (Fast Downward) is missing."""
    checks = _doctor_checks()
    print("planloop doctor: what is installed here (no network is used)")
    for item, found, detail, fix in checks:
        print(f"  {'ok' if found else 'MISSING':8} {item}: {detail}")
        if not found:
            print(f"  {'':8} fix: {fix}")
    missing = [item for item, found, _, _ in checks if not found]
    core = checks[0][1]
    print(
        f"{len(checks) - len(missing)} of {len(checks)} found"
        + (f"; missing: {', '.join(m.split(' (')[0] for m in missing)}" if missing else "")
        + ("" if core else "; the core is missing: planners and environments will not work")
    )
    return EXIT_OK if core else EXIT_NO_PLAN


def build_parser() -> argparse.ArgumentParser:
    from planloop.pddl import PLANNER_NAMES

    parser = argparse.ArgumentParser(prog="planloop", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("envs", help="list the registered environments").set_defaults(run=_envs)

    play = sub.add_parser("play", help="play an environment in the terminal")
    play.add_argument("env_id")
    play.add_argument("--seed", type=non_negative_int, default=None)
    play.add_argument("--instance", type=non_negative_int, default=None)
    play.add_argument("--obs-format", choices=("text", "pddl"), default=None)
    play.add_argument("--domain", help="domain file, for PDDL-v0")
    play.add_argument("--problem", help="problem file or folder, for PDDL-v0")
    play.add_argument(
        "-o",
        "--option",
        action="append",
        type=parse_option,
        default=[],
        metavar="KEY=VALUE",
        help="an environment argument, e.g. -o game_file=PATH (ALFWorld-v0) "
        "or -o num_locations=7 (CoinCollector-v0); repeatable",
    )
    play.add_argument(
        "--limit", action="append", type=_limit, default=[], metavar="KEY=VALUE", help=_LIMIT_HELP
    )
    play.set_defaults(run=_play)

    solve = sub.add_parser(
        "solve", help="solve a PDDL task; exit 0 solved, 1 no plan, 2 bad input, 3 timeout"
    )
    solve.add_argument("domain")
    solve.add_argument("problem")
    solve.add_argument("--planner", default="lama-first", choices=PLANNER_NAMES)
    solve.add_argument(
        "--timeout",
        type=positive_float,
        default=60.0,
        help="seconds for the whole call, reading and grounding included (default 60)",
    )
    solve.add_argument(
        "--limit", action="append", type=_limit, default=[], metavar="KEY=VALUE", help=_LIMIT_HELP
    )
    solve.add_argument("--strict", action="store_true", help=_STRICT_HELP)
    solve.set_defaults(run=_solve)

    val = sub.add_parser("validate", help="validate a plan; exit 0 valid, 1 invalid, 2 bad input")
    val.add_argument("domain")
    val.add_argument("problem")
    val.add_argument("plan")
    val.add_argument(
        "--limit", action="append", type=_limit, default=[], metavar="KEY=VALUE", help=_LIMIT_HELP
    )
    val.add_argument("--strict", action="store_true", help=_STRICT_HELP)
    val.set_defaults(run=_validate)

    sub.add_parser(
        "bench",
        help="score models on every family of a suite: planloop bench --help",
        add_help=False,
    )

    doctor = sub.add_parser(
        "doctor",
        help="what is installed and what is missing (extras, Java, Fast Downward, "
        "Chromium, a model server), each with the line that fixes it; exit 1 only "
        "when Fast Downward is missing",
    )
    doctor.set_defaults(run=_doctor)
    return parser


def _bench(argv: list[str]) -> int:
    """``planloop bench``, its own command line (:mod:`planloop.bench.command`); an
    interrupted run ends the process at once, its running episodes with it."""
    import threading

    from planloop.bench.command import main as bench_main
    from planloop.study.errors import EXIT_INTERRUPTED, EXIT_TERMINATED, end_now

    code = bench_main(argv)
    if code in (EXIT_INTERRUPTED, EXIT_TERMINATED) and threading.active_count() > 1:
        end_now(code)
    return code


def main(argv: list[str] | None = None) -> int:
    from planloop.pipes import pipe_safe_output

    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["bench"]:
        return _bench(argv[1:])
    args = build_parser().parse_args(argv)
    with pipe_safe_output():
        return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
