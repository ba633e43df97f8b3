"""``planloop bench``: score models on every family of a suite (paired intervals, tokens
and dollars) into a run folder that another person can re-score offline (``--replay``).

    planloop bench --llm oracle --llm random --llm openai:gpt-4o-mini --suite smoke
    planloop bench --replay results/bench
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..llm import CachedModel, ChatModel, OpenAIChat
from ..llm.openai_chat import DEFAULTS as MODEL_DEFAULTS
from ..study.backends import BACKENDS
from ..study.errors import StudyError, one_line, study_main
from ..study.flags import (
    CALL_TIMEOUT,
    REQUEST_FLAGS,
    RequestSettings,
    positive_float,
    worker_count,
)
from ..study.models import open_model
from .families import PLAYER_HELP, PLAYERS
from .folder import (
    CALLS,
    ContestantEntry,
    Manifest,
    check_same_suite,
    read_manifest,
    stored_suite,
    write_manifest,
)
from .prices import Price, PricesError, estimate, price_of, prices, read_prices
from .records import BenchRecord, SuiteInfo
from .replay import Offline
from .report import terminal_board, write_reports
from .runner import Contestant, Job, bench_problem, recorded, results_files, run_bench
from .scores import leaderboard
from .suite import SUITES, Suite, SuiteError, load_suite

MAX_CONTESTANTS = 50  # --llm flags one run takes


def parser() -> argparse.ArgumentParser:
    bench = argparse.ArgumentParser(
        prog="planloop bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    bench.add_argument(
        "--llm",
        action="append",
        default=[],
        metavar="SPEC",
        help=f"a contestant, repeatable: openai:MODEL, URL@MODEL, or {PLAYER_HELP}",
    )
    bench.add_argument(
        "--suite",
        default="smoke",
        help=f"{' or '.join(SUITES)} (shipped), or a manifest file (default smoke)",
    )
    bench.add_argument("--families", metavar="A,B", help="play these families of the suite only")
    bench.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="the run folder; rerunning resumes, a model added later plays only its own "
        "episodes (default results/bench; with --replay, DIR/replay)",
    )
    bench.add_argument(
        "--workers", type=worker_count, default=1, metavar="N", help="episodes at once (default 1)"
    )
    bench.add_argument(
        "--backend",
        choices=BACKENDS,
        default="local",
        help="where the episodes run: local (threads) or ray (Ray actors on RAY_ADDRESS's "
        "cluster, else a new local runtime; the ray extra) (default local)",
    )
    bench.add_argument(
        "--prices",
        type=Path,
        metavar="FILE",
        help="USD per million prompt and completion tokens by model (JSON), over the "
        "shipped dated defaults",
    )
    bench.add_argument(
        "--max-cost",
        type=positive_float,
        metavar="USD",
        help="stop before spending more than this on model calls (the run resumes later)",
    )
    bench.add_argument(
        "--replay",
        type=Path,
        metavar="DIR",
        help="re-score the run in DIR from its recorded calls, with no network: every "
        "episode played again by the environments",
    )
    bench.add_argument(
        "--call-timeout",
        type=positive_float,
        default=CALL_TIMEOUT,
        metavar="S",
        help=f"the longest one model call may take, retries included (default {CALL_TIMEOUT:g} s)",
    )
    requests = bench.add_argument_group(
        "model request", "what every model call sends (else planloop's default, temperature 0)"
    )
    for dest, options in REQUEST_FLAGS.items():
        requests.add_argument("--" + dest.replace("_", "-"), dest=dest, default=None, **options)
    return bench


def run(argv: list[str] | None = None) -> int:
    """The command: every error a StudyError (one line, exit 2 under ``main``)."""
    args = parser().parse_args(argv)
    try:
        known = prices(read_prices(args.prices) if args.prices else None)
    except PricesError as exc:
        raise StudyError(one_line(exc)) from None
    if args.replay is not None:
        return _replay(args, known)
    if not args.llm:
        raise StudyError(f"give at least one --llm: a model spec or {', '.join(PLAYERS)}")
    if len(args.llm) > MAX_CONTESTANTS or len(set(args.llm)) != len(args.llm):
        raise StudyError(f"give at most {MAX_CONTESTANTS} --llm flags, each once")
    suite = _suite(args.suite, args.families)
    out: Path = args.out or Path("results/bench")
    if out.exists() and not out.is_dir():
        raise StudyError(f"--out {out} is a file: give a folder")
    manifest = check_same_suite(out, read_manifest(out), suite)
    request = {k: v for k, v in vars(args).items() if k in REQUEST_FLAGS and v is not None}
    contestants = [_contestant(spec, out, args.call_timeout, request, known) for spec in args.llm]
    _note(manifest, contestants, request)
    write_manifest(out, manifest, suite)
    print(_estimate(suite, contestants, out), file=sys.stderr, flush=True)
    try:
        run_bench(suite, contestants, out, args.workers, args.max_cost, backend=args.backend)
    finally:
        _note(manifest, contestants, request)
        write_manifest(out, manifest, suite)
    _report(out, suite, manifest)
    return 0


def _suite(name: str, families: str | None) -> Suite:
    try:
        suite = load_suite(name)
        if families:
            return suite.only([f.strip() for f in families.split(",") if f.strip()])
        return suite
    except SuiteError as exc:
        raise StudyError(one_line(exc)) from None


def _contestant(
    spec: str, out: Path, call_timeout: float, request: dict, known: dict[str, Price]
) -> Contestant:
    """A reference player, or the model ``spec`` names, its every call kept in the run
    folder's cache by request."""
    if spec in PLAYERS:
        return Contestant(spec)
    if spec == "interactive":
        raise StudyError("--llm interactive cannot play a bench: give a model spec")
    opened = open_model(spec, call_timeout, RequestSettings(set=request))
    inner = opened.model if isinstance(opened, CachedModel) else opened
    out.mkdir(parents=True, exist_ok=True)
    model: ChatModel = CachedModel(inner, out / CALLS, always=True)
    return Contestant(spec, model, dict(request), price_of(inner.name, known))


def _note(manifest: Manifest, contestants: list[Contestant], request: dict) -> None:
    """Each contestant into the manifest, with what its calls sent as they sent it."""
    for c in contestants:
        model = c.model.model if isinstance(c.model, CachedModel) else c.model
        entry: ContestantEntry = {
            "kind": "player" if model is None else "model",
            "model": None if model is None else model.name,
            "base_url": getattr(model, "base_url", None),
            "request": dict(request) if model is not None else {},
            "sent": {},
            "dropped": {},
            "served_model": None,
            "price": None if c.price is None else c.price.as_dict(),
        }
        if isinstance(model, OpenAIChat):
            record = model.request_record()
            entry["sent"] = dict(record["sent"])  # type: ignore[call-overload]
            entry["dropped"] = dict(model.learned["dropped"])
            entry["served_model"] = record["served_model"]  # type: ignore[typeddict-item]
        manifest["contestants"][c.label] = entry


def _estimate(suite: Suite, contestants: list[Contestant], out: Path) -> str:
    """The line said before the run: what the calls of the episodes left should cost,
    from each family's expected calls and tokens (``expect`` in the suite)."""
    done = recorded(results_files(out, suite))
    models = [c for c in contestants if c.model is not None]
    if not models:
        return "estimate: no model calls (reference players only)"
    total: float | None = 0.0
    for c in models:
        for family in suite.families:
            left = sum(Job(c, family, u).key(suite.sha256) not in done for u in family.units)
            usd = estimate(c.price, left, family.expect)
            total = None if usd is None or total is None else total + usd
    cost = "unknown (a model has no price: --prices)" if total is None else f"about {total:.2f} USD"
    return f"estimate before the run, from the suite's expected calls and tokens: {cost}"


def _report(out: Path, suite: Suite, manifest: Manifest) -> None:
    """The board of every contestant the folder holds for this suite: written, and
    printed once."""
    records: list[BenchRecord] = [
        r
        for r in recorded(results_files(out, suite)).values()
        if r["suite"] == suite.sha256 and bench_problem(r) is None
    ]
    settings = {
        label: {
            "request": entry["request"],
            "sent": sent_sets([r for r in records if r["model"] == label]),
            "dropped": entry["dropped"],
            "served_model": entry["served_model"],
        }
        for label, entry in manifest["contestants"].items()
    }
    info: SuiteInfo = {
        "name": suite.name,
        "sha256": suite.sha256,
        "families": [f.name for f in suite.families],
    }
    board = leaderboard(records, info, settings)
    write_reports(out, board, records)
    print(terminal_board(board))
    print(f"\nthe board: {out / 'leaderboard.md'} (and .json, .html)")


def sent_sets(records: list[BenchRecord]) -> list[dict[str, object]]:
    """The distinct parameter sets the requests of ``records`` carried (what was sent,
    read from the requests), in the order first sent."""
    found: list[dict[str, object]] = []
    for record in records:
        found += [s for s in record["sent"] if s not in found]
    return found


def _replay(args: argparse.Namespace, known: dict[str, Price]) -> int:
    """Every episode of the run in ``args.replay`` played again from its recorded calls."""
    folder: Path = args.replay
    manifest = read_manifest(folder)
    if manifest is None:
        raise StudyError(f"--replay {folder}: no {folder / 'manifest.json'} (not a bench run)")
    suite = stored_suite(folder, manifest)
    out: Path = args.out or folder / "replay"
    if out.resolve() == folder.resolve():
        raise StudyError("--out must differ from --replay's folder")
    contestants = []
    for label, entry in manifest["contestants"].items():
        if entry["kind"] == "player":
            contestants.append(Contestant(label))
            continue
        request: dict[str, Any] = dict(entry["request"])
        try:
            model = OpenAIChat(
                entry["model"] or label,
                base_url=entry["base_url"],
                api_key="replay",
                defaults=dict(MODEL_DEFAULTS),
                **request,
            )
        except ValueError as exc:
            raise StudyError(f"{folder}: contestant {label}: {one_line(exc)}") from None
        model.learned["dropped"].update(entry["dropped"])
        cached = CachedModel(Offline(model), folder / CALLS, always=True)
        price = Price.of(entry["price"]) if entry["price"] else price_of(model.name, known)
        contestants.append(Contestant(label, cached, dict(entry["request"]), price))
    replayed = check_same_suite(out, read_manifest(out), suite)
    replayed["contestants"] = dict(manifest["contestants"])
    write_manifest(out, replayed, suite)
    run_bench(suite, contestants, out, args.workers, check=False, backend=args.backend)
    _report(out, suite, replayed)
    return 0


main = study_main(run, prog="planloop bench")  # an error one line and exit 2; 130 / 143
