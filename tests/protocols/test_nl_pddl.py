"""The NL-PDDL protocol: ``formalize.py --paper`` takes the paper's settings, a flag
given beside it overrides one and is recorded, and the scheduled problems reach the
paper's n."""

from planloop.protocols.nl_pddl import NL_PDDL
from planloop.protocols.nl_pddl import study as formalize
from planloop.protocols.nl_pddl.config import SIZED


def resolved(*argv):
    parser, flags = formalize.SPEC.parser()
    return flags.resolve(parser.parse_args(list(argv)))


def test_paper_sets_every_setting_of_the_protocol_and_records_an_override():
    assert resolved("--paper").values == {
        "sizes": "10,20,30,40",
        "per_cell": 63,
        "max_iterations": 5,
        "planner": "lama-first",
        "domains": "blocksworld,gripper,ferry,logistics,planbench",
        "direct": "logistics,planbench",
    }
    settings = resolved("--paper", "--max-iterations", "3", "--planner", "lama-first")
    assert settings.values["max_iterations"] == 3 and settings.values["per_cell"] == 63
    assert settings.recorded() == {"protocol": "nl-pddl", "overrides": {"max_iterations": 3}}
    assert NL_PDDL.caption(settings.overrides).endswith("overridden: max_iterations=3")


def test_without_paper_the_study_keeps_its_own_defaults_and_keys():
    settings = resolved()
    assert settings.values["per_cell"] == 5 and settings.recorded() == {}


def test_the_paper_problems_reach_the_papers_thousand_instances():
    settings = resolved("--paper").values
    cells = len(SIZED) * len(settings["sizes"].split(","))
    assert 1000 <= cells * settings["per_cell"] < 1000 + cells


def test_tables_3_2_and_5_have_a_published_figure_in_every_cell():
    table_3, table_2, table_5 = NL_PDDL.tables
    assert table_3.rows == table_5.rows == ("Baseline", "Planner-in-the-loop")
    assert table_3.columns == table_5.columns == ("SVR", "PSR", "TSR", "CR")
    assert table_2.rows == ("Logistics", "Zenotravel", "Blocksworld")
    assert table_2.columns == ("Direct plan generation", "Planner-in-the-loop")
    for table in NL_PDDL.tables:
        assert set(table.published) == {(r, c) for r in table.rows for c in table.columns}
