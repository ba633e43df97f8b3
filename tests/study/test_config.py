import argparse
from dataclasses import FrozenInstanceError, dataclass

import pytest

from planloop.protocols import Protocol
from planloop.study import PaperFlags, positive_int
from planloop.study.config import StudyConfig, setting


@dataclass(frozen=True)
class Demo(StudyConfig):
    horizon: int = setting(1, "plan cycles", type=positive_int, metavar="N")
    coin: str = setting(
        "planned", "the coin rule", choices=("planned", "in-view"), recorded=lambda v: v[:4]
    )
    rollback: bool = setting(False, "restart on a refusal", keyed="always")
    fixing: bool = setting(True, "fix errors", flag="--no-fixing")
    games: str = setting("generated", "whose games", keyed="never")
    planner: str = setting("auto", "the planner", flag="", keyed="never")


def test_key_drops_defaults_records_always_and_never():
    assert Demo().key() == {"rollback": False}
    config = Demo(horizon=3, coin="in-view", fixing=False, games="twx", planner="ff")
    assert config.key() == {"horizon": 3, "coin": "in-v", "rollback": False, "fixing": False}
    with pytest.raises(FrozenInstanceError):
        config.horizon = 2  # type: ignore[misc]


def test_argparse_defaults_and_values_come_from_the_config():
    parser = argparse.ArgumentParser()
    Demo.add_arguments(parser)
    assert "--planner" not in parser.format_help()
    args = parser.parse_args([])
    assert Demo.from_args(args) == Demo()
    args = parser.parse_args(["--horizon", "4", "--coin", "in-view", "--rollback", "--no-fixing"])
    assert Demo.from_args(args, planner="ff") == Demo(4, "in-view", True, False, "generated", "ff")
    assert "plan cycles (default 1)" in " ".join(parser.format_help().split())
    with pytest.raises(SystemExit):
        parser.parse_args(["--coin", "shown"])


def test_a_protocol_is_checked():
    assert Demo.protocol(horizon=5, coin="in-view") == {"horizon": 5, "coin": "in-view"}
    with pytest.raises(TypeError, match="horizn"):
        Demo.protocol(horizn=5)
    with pytest.raises(ValueError, match="shown"):
        Demo.protocol(coin="shown")


def test_paper_flags_take_a_protocol_built_from_the_config():
    protocol = Protocol("demo", "Demo", Demo.protocol(horizon=5, rollback=True))
    parser = argparse.ArgumentParser()
    paper = PaperFlags(parser, protocol)
    Demo.add_arguments(paper)
    assert "(default 1; the paper's: 5)" in " ".join(parser.format_help().split())
    args = parser.parse_args(["--paper", "--horizon", "2", "--coin", "in-view"])
    settings = paper.resolve(args)
    assert Demo.from_args(args) == Demo(horizon=2, coin="in-view", rollback=True)
    assert settings.overrides == {"horizon": 2}  # a flag the protocol does not set is no override
    args = parser.parse_args([])
    paper.resolve(args)
    assert Demo.from_args(args) == Demo()


def test_a_field_not_made_by_setting_is_refused():
    @dataclass(frozen=True)
    class Bad(StudyConfig):
        horizon: int = 1

    with pytest.raises(TypeError, match="horizon"):
        Bad.settings()
