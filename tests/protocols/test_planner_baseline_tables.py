"""The planner baseline's table, built from hand-made records shaped as the study writes
them: one row per configuration, the latest record of each episode."""

from planloop.protocols.planner_baseline.study import by_configuration, plot_label, summarize


def record(key, planner, timeout, won, status="solved", length=4, env="Mystery-BW-v0"):
    return {
        "key": key,
        "study": "planner_baseline",
        "planner": planner,
        "won": won,
        "status": status,
        "plan_length": length,
        "planner_seconds": 0.5,
        "provenance": {"env": env, "env_kwargs": {}, "settings": {"timeout": timeout}},
    }


RECORDS = [
    record("a/0/0", "lama-first", 60.0, False, status="timeout"),
    record("a/0/0", "lama-first", 60.0, True),  # the rerun's record replaces the first
    record("a/1/0", "lama-first", 60.0, False, status="timeout"),
    record("b/0/0", "bfs", 5, True, length=6),
    {"key": "c/0/0", "study": "mystery", "won": True},  # another study's: not a row
]


def test_one_row_per_configuration_from_the_latest_records():
    groups = by_configuration(RECORDS)
    assert list(groups) == [
        ("Mystery-BW-v0", "-", "lama-first", "60 s"),
        ("Mystery-BW-v0", "-", "bfs", "5 s"),
    ]
    table = summarize(groups).splitlines()
    assert table[2] == (
        "| Mystery-BW-v0 | - | lama-first | 60 s | 2 | 1 | 50.0% | [9.5%, 90.5%] | 4.00 | "
        "0.500 | solved: 1, timeout: 1 |"
    )
    assert table[3].startswith("| Mystery-BW-v0 | - | bfs | 5 s | 1 | 1 | 100.0% |")
    assert [plot_label(c, groups) for c in groups] == ["lama-first, 60 s", "bfs, 5 s"]
