"""``planloop bench --backend ray`` on a local Ray runtime: the same board, episode for
episode, as the local threads (timings aside)."""

import json

import pytest
from test_command import bench, read_records, small_suite

from planloop.llm.fake_server import FakeChatServer

ray = pytest.importorskip("ray")
TIMINGS = {"seconds"}


@pytest.mark.slow
def test_ray_plays_the_same_episodes_as_threads(tmp_path):
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        suite = small_suite(tmp_path)
        with FakeChatServer([("ok", "I would rather not say.")] * 400) as server:
            fake = f"{server.url}@fake-model"
            outs = {}
            for backend in ("local", "ray"):
                outs[backend] = tmp_path / backend
                argv = ["--suite", suite, "--out", outs[backend], "--backend", backend,
                        "--workers", "2", "--llm", "oracle", "--llm", "random", "--llm", fake]  # fmt: skip
                assert bench(*argv) == 0
    finally:
        ray.shutdown()

    def episodes(out):
        return {
            r["key"]: {k: v for k, v in r.items() if k not in TIMINGS} for r in read_records(out)
        }

    local, on_ray = episodes(outs["local"]), episodes(outs["ray"])
    assert len(local) == 22 and local == on_ray
    boards = [json.loads((outs[b] / "leaderboard.json").read_text()) for b in ("local", "ray")]
    for row in boards:
        for model in row["models"]:
            model.pop("seconds")
    assert boards[0]["models"] == boards[1]["models"] and boards[0]["pairs"] == boards[1]["pairs"]
