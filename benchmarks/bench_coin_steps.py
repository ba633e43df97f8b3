"""Steps per second of native CoinCollector-v0 against TextWorld Express, same run.

Both play the same games (TextWorld Express's own houses, by seed; the native engine
loads each house from the recorded transcripts in ``tests/data/twx_coin``, which
hold the complete map) with the same seeded random walk over the valid actions.
A step is ``env.step`` with the valid-action list of the new state.

    python benchmarks/bench_coin_steps.py --steps 3000
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from planloop.envs.coin import coin_collector

GAMES = sorted((Path(__file__).parents[1] / "tests" / "data" / "twx_coin").glob("coin_*.json"))


def walk(env, seed: int, steps: int) -> tuple[float, int]:
    """Seconds spent in ``steps`` random steps, and how many resets happened."""
    rng = random.Random(seed)
    _, info = env.reset(seed=seed)
    spent, resets = 0.0, 0
    for _ in range(steps):
        action = rng.choice(sorted(info["admissible_actions"]))
        start = time.perf_counter()
        _, _, terminated, truncated, info = env.step(action)
        spent += time.perf_counter() - start
        if terminated or truncated:
            _, info = env.reset(seed=seed)
            resets += 1
    return spent, resets


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000, help="steps per game")
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    rows = []
    for path in GAMES[:: max(1, len(GAMES) // args.games)][: args.games]:
        game = json.loads(path.read_text())
        params = game["game_params"]["dict"]
        kwargs = dict(
            num_locations=params["numLocations"],
            include_doors=bool(params["includeDoors"]),
            num_distractor_items=params["numDistractorItems"],
        )
        twx = coin_collector("twx", fold=game["fold"], **kwargs)
        native = coin_collector(layout=path)
        twx_s, _ = walk(twx, game["seed"], args.steps)
        native_s, _ = walk(native, game["seed"], args.steps)
        twx.close()
        rows.append(
            {
                "game": path.stem,
                "steps": args.steps,
                "native_us": 1e6 * native_s / args.steps,
                "twx_us": 1e6 * twx_s / args.steps,
            }
        )
    print("| game | steps | native µs/step | TextWorld Express µs/step | ratio |")
    print("|---|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['game']} | {r['steps']} | {r['native_us']:.1f} | {r['twx_us']:.1f} "
            f"| {r['twx_us'] / r['native_us']:.1f}x |"
        )
    native_total = sum(r["native_us"] for r in rows)
    twx_total = sum(r["twx_us"] for r in rows)
    print(
        f"\nall games: native {1e6 * len(rows) / native_total:,.0f} steps/s, TextWorld Express "
        f"{1e6 * len(rows) / twx_total:,.0f} steps/s, ratio {twx_total / native_total:.1f}x"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
