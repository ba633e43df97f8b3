"""The Mystery, agentic, NL-PDDL and Baking studies' configs: each setting's default is
defined once, in the config; the study's flags and the protocol's settings are derived
from it, and a protocol naming an unknown setting fails."""

import ast
import inspect
from pathlib import Path

import pytest

from planloop.protocols.agentic import AGENTIC, AgenticConfig
from planloop.protocols.agentic import study as agentic
from planloop.protocols.baking import BAKING, HorizonConfig
from planloop.protocols.baking import study as horizon
from planloop.protocols.mystery import MYSTERY, MysteryConfig
from planloop.protocols.mystery import study as mystery
from planloop.protocols.nl_pddl import NL_PDDL, FormalizeConfig
from planloop.protocols.nl_pddl import study as formalize

STUDIES = {  # name: (config, protocol, study module, the flags every run needs)
    "mystery": (MysteryConfig, MYSTERY, mystery, ["--conditions", "planner"]),
    "agentic": (AgenticConfig, AGENTIC, agentic, []),
    "nl-pddl": (FormalizeConfig, NL_PDDL, formalize, []),
    "baking": (HorizonConfig, BAKING, horizon, []),
}


def resolved(name, argv):
    config, _, study, needed = STUDIES[name]
    parser, paper = study.SPEC.parser()
    args = parser.parse_args([*needed, *argv])
    settings = paper.resolve(args, "m")
    return config.from_args(args), settings


@pytest.mark.parametrize("name", STUDIES)
def test_the_flags_defaults_are_the_configs_and_paper_its_protocols(name):
    config, protocol, _, _ = STUDIES[name]
    assert resolved(name, [])[0] == config()
    assert resolved(name, ["--paper"])[0] == config(**protocol.settings)
    assert protocol.settings == config.protocol(**protocol.settings)


@pytest.mark.parametrize("name", STUDIES)
def test_the_study_defines_no_setting_of_its_own(name):
    """No flag of a setting is added in the study module (a second definition of its
    default would sit there)."""
    config, _, study, _ = STUDIES[name]
    tree = ast.parse(Path(inspect.getfile(study)).read_text())
    flags = {
        arg.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("add_argument", "add")
        for arg in node.args
        if isinstance(arg, ast.Constant)
    }
    assert not flags & {"--" + name.replace("_", "-") for name in config.settings()}


@pytest.mark.parametrize("name", STUDIES)
def test_a_protocol_naming_an_unknown_setting_fails(name):
    config = STUDIES[name][0]
    with pytest.raises(TypeError, match="no setting retires"):
        config.protocol(retires=5)
