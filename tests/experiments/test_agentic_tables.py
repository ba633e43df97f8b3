"""experiments/agentic.py's Tables I and III (plan lengths by difficulty block) and the
paper's 102 IPC-2000 instances, found by the SHA-256 planloop ships: the blocks are the
instances' places in the paper's order, the co-solved set is what every compared
approach solved, and each table says how many instances ran."""

import hashlib
import json
from importlib import resources
from types import SimpleNamespace

import gymnasium as gym

import planloop  # noqa: F401
from planloop.protocols.agentic import BLOCKS, CONDITIONS, TABLE_I, TABLE_III, instances, tables

from conftest import IPC, load_experiment

SHIPPED = ["instance-1", "instance-2", "instance-3", "instance-10", "instance-20", "instance-35"]


def record(condition, place, length, won=True, restarted_after=(), instance=None):
    """A record of one episode whose last plan has ``length`` actions."""
    before = restarted_after[-1] if restarted_after else 0
    return {
        "condition": condition,
        "instance": place if instance is None else instance,
        "trial": 0,
        "paper_instance": place,
        "won": won,
        "error": None,
        "stop": "solved" if won else "timeout",
        "actions": ["(noop)"] * (before + length),
        "restarted_after": list(restarted_after),
    }


def row(text, block):
    return next(line for line in text.splitlines() if line.startswith(f"| {block} |"))


def test_the_checksums_name_the_102_in_the_papers_order():
    lines = (
        (resources.files("planloop.envs") / "data" / "ipc2000_blocks" / "SHA256SUMS")
        .read_text()
        .splitlines()
    )
    names = [line.split()[1] for line in lines]
    assert names == ["domain.pddl"] + [f"instances/instance-{i}.pddl" for i in range(1, 103)]
    domain = hashlib.sha256((IPC / "domain.pddl").read_bytes()).hexdigest()
    assert lines[0].split()[0] == domain  # the shipped domain is IPC-2000's
    assert len(instances.paper_checksums()) == 102


def test_the_shipped_six_are_found_at_their_places(tmp_path):
    env = gym.make("PDDL-v0", domain=str(IPC / "domain.pddl"), problem=str(IPC / "instances"))
    assert [instances.paper_place(env, i) for i in range(6)] == [0, 1, 2, 9, 19, 34]
    changed = tmp_path / "instance-1.pddl"
    changed.write_bytes((IPC / "instances" / "instance-1.pddl").read_bytes() + b"\n")
    other = gym.make("PDDL-v0", domain=str(IPC / "domain.pddl"), problem=str(changed))
    assert instances.paper_place(other, 0) is None  # one byte more: not the paper's
    assert instances.paper_place(SimpleNamespace(unwrapped=object()), 0) is None


def test_table_i_is_fast_downwards_lengths_where_both_solved():
    records = [
        record("lama-first", 0, 6),
        record("seq-sat-lama-2011", 0, 6),
        record("lama-first", 9, 20),
        record("seq-sat-lama-2011", 9, 14, restarted_after=(3,)),  # the plan after a restart
        record("lama-first", 19, 40),
        record("seq-sat-lama-2011", 19, 0, won=False),  # lama alone: in no block
        record("lama-first", 101, 300),
        record("seq-sat-lama-2011", 101, 200),
    ]
    text = tables.table_i(records)
    assert text.startswith(f"### {TABLE_I.title}\n\nthis run: no model; paper: Claude Haiku")
    assert row(text, "0–10") == (
        "| 0–10 | 2 (paper: 10) | 13.0 (paper: 14.0) | 10.0 (paper: 14.0) | 3.0 (paper: 0.0) |"
    )
    assert row(text, "10–20") == (
        "| 10–20 | 0 (paper: 10) | - (paper: 39.8) | - (paper: 37.6) | - (paper: 2.2) |"
    )
    assert row(text, "100–102").startswith("| 100–102 | 1 (paper: 0) | 300.0 (paper: —) |")
    assert len([line for line in text.splitlines() if line.startswith("| ")]) == 1 + len(BLOCKS)
    assert "Instances: 4 ran (the paper ran 102); by their SHA-256, 4 are among the paper's" in (
        text
    )
    assert "(instance-1, instance-10, instance-20, instance-102)." in text


def test_table_iii_is_the_co_solved_set():
    lengths = {"lama-first": 10, "seq-sat-lama-2011": 8, "direct": 7, "agentic": 9}
    records = [record(c, place, n + place) for c, n in lengths.items() for place in (0, 1)]
    records[-1] = record("agentic", 1, 0, won=False)  # instance 1 is not co-solved
    records.append(record("direct", None, 5, instance=7))  # not one of the paper's
    text = tables.table_iii(records)
    assert text.startswith(f"### {TABLE_III.title}\n\n")
    assert row(text, "0–10") == (
        "| 0–10 | 1 (paper: 10) | 10.0 (paper: 14.0) | 8.0 (paper: 14.0) | "
        "7.0 (paper: 14.0) | 9.0 (paper: 15.8) |"
    )
    assert row(text, "60–70") == "| 60–70 | 0 | - | - | - | - |"  # the paper prints no row
    assert "3 ran (the paper ran 102); by their SHA-256, 2 are among the paper's" in text
    assert ", 1 not (in no difficulty block)." in text


def test_the_study_writes_tables_i_and_iii_and_records_each_place(tmp_path):
    agentic = load_experiment("agentic")
    out = tmp_path / "planners"
    argv = ["--conditions", "lama-first,seq-sat-lama-2011", "--seconds", "20"]
    assert agentic.main([*argv, "--instances", "0:2", "--out", str(out)], show=False) == 0
    text = (out / "results.md").read_text()
    assert f"### {TABLE_I.title}" in text and f"### {TABLE_III.title}" not in text  # needs all 4
    assert "| 0–10 | 2 (paper: 10) |" in text
    assert "by their SHA-256, 2 are among the paper's IPC-2000 instances " in text
    records = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert sorted(r["paper_instance"] for r in records) == [0, 0, 1, 1]
    assert {r["objects"] for r in records} == {4}  # instance-1 and -2: 4 blocks each
    written = tables.paper_tables(records)
    assert list(written) == ["table-i", "table-ii", "table-iii"]
    assert "| 0–10 | 0 (paper: 10) |" in written["table-iii"]  # no LLM approach ran
    cost = tables.cost_table(tables.by_condition(records, list(CONDITIONS)))
    assert "| Direct LLM | - | - | - (paper: 28,488) | - (paper: 44,705) |" in cost
