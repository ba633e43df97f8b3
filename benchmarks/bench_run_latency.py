"""How close a bench run with a real model's latency comes to its floor.

A local OpenAI-compatible server answers every call after ``--latency`` seconds (0.5 by
default). The suite is one contingent family whose policy makes one call a step, so that
each episode makes exactly ``--calls`` calls (the suite's call limit ends it). With
``--workers`` W the run cannot end sooner than the floor ``max(longest episode's calls,
all calls / W) x latency``; the ratio wall / floor is the harness's cost beside the
model's time (environments, the policy, records, transcripts), the model check's one
call left out (making each worker's environment is in).

    python benchmarks/bench_run_latency.py --episodes 64 --workers 16
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from planloop.bench.runner import Contestant, run_bench
from planloop.bench.suite import read_suite
from planloop.llm import OpenAIChat
from planloop.llm.fake_server import FakeChatServer

RESULTS = Path(__file__).parent / "results" / "bench_run_latency.json"


def suite(episodes: int, calls: int) -> bytes:
    family = {
        "family": "contingent",
        "policy": "plangen",
        "max_steps": 10 * calls,
        "max_calls": calls,
        "expect": {"calls": calls, "prompt_tokens": 0, "completion_tokens": 0},
        "sets": [{"env": "Contingent-Doors-v0", "instances": [0], "seeds": list(range(episodes))}],
    }
    return json.dumps({"name": "latency", "version": "1", "families": [family]}).encode()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=64)
    parser.add_argument("--calls", type=int, default=6, help="calls an episode")
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.5, help="seconds a call")
    parser.add_argument("--save", action="store_true", help=f"write {RESULTS.name}")
    args = parser.parse_args(argv)
    played = read_suite(suite(args.episodes, args.calls), "latency")
    calls = args.episodes * args.calls
    script = [("slow", args.latency, "(look)")] * (calls + 1)
    with FakeChatServer(script) as server, tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        # no cache: the episodes' first requests are alike, and each call is to be waited for
        contestant = Contestant("fake", OpenAIChat("fake", base_url=server.url))
        start = time.monotonic()
        records = run_bench(played, [contestant], out / "run", args.workers, stream=sys.stderr)
        wall = time.monotonic() - start - args.latency  # less the model check's one call
    made = sum(r["calls"] for r in records)
    longest = max(r["calls"] for r in records)
    floor = max(longest, made / args.workers) * args.latency
    result = {
        "episodes": len(records),
        "calls": made,
        "workers": args.workers,
        "latency_s": args.latency,
        "floor_s": round(floor, 2),
        "wall_s": round(wall, 2),
        "ratio": round(wall / floor, 3),
        "overhead_s_per_episode": round((wall - floor) / len(records), 4),
    }
    print(json.dumps(result, indent=1))
    if args.save:
        RESULTS.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
