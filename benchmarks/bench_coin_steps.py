"""Steps per second of native CoinCollector-v0 against TextWorld Express, same run.

Both play the same games (TextWorld Express's own houses, by seed; the native engine
loads each house from the recorded transcripts in ``tests/data/twx_coin``, which
hold the complete map) with the same seeded random walk over the valid actions, each
through its ordinary API: ``gym.make("CoinCollector-v0")`` with the wrappers it adds,
and TextWorld Express's own ``TextWorldExpressEnv``. A step is one ``step`` call, timed
alone; it returns the valid actions of the new state. An episode ends when the coin is
taken or after ``CoinCollector-v0``'s 200 steps; resets are not timed. Both walks must
print the same text at every step, or the run fails. The native walks run first, with
no Java process about (as a native user runs them); then TextWorld Express's Java
process starts and, after an untimed ``--warmup`` walk, plays the same walks. Each walk
runs ``--repeats`` times on each side (a fresh native env each time), and the fastest
counts, so that a burst of load on a shared machine sways neither side.

    python benchmarks/bench_coin_steps.py --steps 3000
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import gymnasium as gym

import planloop  # noqa: F401  (registers CoinCollector-v0)

GAMES = sorted((Path(__file__).parents[1] / "tests" / "data" / "twx_coin").glob("coin_*.json"))
EPISODE = gym.spec("CoinCollector-v0").max_episode_steps

Read = Callable[[tuple], tuple[str, list[str], bool]]  # a step's result -> text, valid, won


def walk(reset: Callable[[], tuple], step: Callable, read: Read, seed: int, steps: int):
    """Seconds spent in ``steps`` random calls of ``step`` (the env's own), and every text
    printed; ``read`` takes the text, the valid actions and whether the game is won
    from a result (untimed)."""
    rng = random.Random(seed)
    obs, valid, _ = read(reset())
    texts, spent, moves = [obs], 0.0, 0
    for _ in range(steps):
        action = rng.choice(sorted(valid))
        start = time.perf_counter()
        result = step(action)
        spent += time.perf_counter() - start
        obs, valid, won = read(result)
        texts.append(obs)
        moves += 1
        if won or moves == EPISODE:
            obs, valid, _ = read(reset())
            texts.append(obs)
            moves = 0
    return spent, texts


def fastest(runs: Iterable[tuple[float, list[str]]]) -> tuple[float, list[str]]:
    """The fastest of repeated walks, which print the same texts each time."""
    return min(runs, key=lambda run: run[0])


def native(path: Path, seed: int, steps: int):
    env = gym.make("CoinCollector-v0", layout=path)

    def read(result):  # (obs, info) or (obs, reward, terminated, truncated, info)
        return result[0], result[-1]["admissible_actions"], len(result) == 5 and result[2]

    return walk(lambda: env.reset(seed=seed), env.step, read, seed, steps)


def textworld_express(env, game: dict, steps: int):
    """The walk on TextWorld Express's ``env`` (a ``TextWorldExpressEnv``)."""
    env.load(gameName="coin", gameParams=game["game_params"]["string"])

    def read(result):  # (obs, infos) or (obs, reward, done, infos)
        return result[0], result[-1]["validActions"], result[-1]["tasksuccess"]

    def reset():
        return env.reset(seed=game["seed"], gameFold=game["fold"])

    return walk(reset, env.step, read, game["seed"], steps)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000, help="steps per game")
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument(
        "--warmup", type=int, default=3000, help="untimed TextWorld Express steps first"
    )
    parser.add_argument("--repeats", type=int, default=3, help="walks per game and side")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    games = [
        (path, json.loads(path.read_text()))
        for path in GAMES[:: max(1, len(GAMES) // args.games)][: args.games]
    ]
    natives = [
        fastest(native(path, game["seed"], args.steps) for _ in range(args.repeats))
        for path, game in games
    ]
    from textworld_express import TextWorldExpressEnv  # its Java process starts now

    twx = TextWorldExpressEnv(envStepLimit=EPISODE)
    textworld_express(twx, games[0][1], args.warmup)  # the JVM compiles its hot code
    rows = []
    for (path, game), (native_s, native_texts) in zip(games, natives, strict=True):
        twx_s, twx_texts = fastest(
            textworld_express(twx, game, args.steps) for _ in range(args.repeats)
        )
        if native_texts != twx_texts:
            raise SystemExit(f"{path.stem}: the two walks printed different texts")
        rows.append(
            {
                "game": path.stem,
                "steps": args.steps,
                "native_us": 1e6 * native_s / args.steps,
                "twx_us": 1e6 * twx_s / args.steps,
            }
        )
    twx.close()
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
        f"{1e6 * len(rows) / twx_total:,.0f} steps/s, ratio {twx_total / native_total:.1f}x "
        "(same walks, same texts)"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
