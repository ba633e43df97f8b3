"""PDDLegoConfig: each setting's default is defined once, and the study's flags, the
policy's defaults and the protocol's settings are derived from it."""

import ast
import inspect
import textwrap
from pathlib import Path

import pytest

from planloop.formalizer import ModelWriter, Prompt
from planloop.llm import ScriptedModel
from planloop.policies import PDDLegoPolicy
from planloop.protocols.pddlego_plus import PDDLEGO_PLUS, PDDLegoConfig, study
from planloop.protocols.pddlego_plus.episodes import policy_of

POLICY_SETTINGS = {  # the policy's parameter: the setting whose default it takes
    "max_solver_retries": "retries",
    "max_simulation_retries": "retries",
    "error_fixing": "error_fixing",
    "planner": "planner",
    "rollback": "rollback",
    "strict_pddl": "strict_pddl",
    "unmapped": "unmapped",
}


def resolved(argv):
    parser, paper = study.SPEC.parser()
    args = parser.parse_args([*argv, "--llm", "groundtruth"])
    settings = paper.resolve(args)
    return PDDLegoConfig.from_args(args), settings


def test_the_flags_defaults_are_the_configs():
    assert resolved([])[0] == PDDLegoConfig()
    config, settings = resolved(["--paper", "--retries", "3", "--no-error-fixing"])
    assert config == PDDLegoConfig(**{**PDDLEGO_PLUS.settings, "retries": 3, "error_fixing": False})
    assert settings.overrides == {"retries": 3}


def test_the_study_defines_no_flag_of_its_own():
    """Every flag of the study comes from the config or the shared harness: the study
    module adds none (a second definition of a default would sit there)."""
    tree = ast.parse(Path(inspect.getfile(study)).read_text())
    calls = {
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    }
    assert not calls & {"add_argument", "add", "set_defaults"}


def test_the_policys_defaults_are_the_configs():
    """The policy owns its settings: each default is written once (``DEFAULT.<setting>``
    in the policy's signature), and the study's config takes it from there."""
    init = ast.parse(textwrap.dedent(inspect.getsource(PDDLegoPolicy.__init__)))
    args = init.body[0].args
    named = [a.arg for a in args.args][-len(args.defaults) :]
    defaults = dict(zip(named, args.defaults, strict=True))
    for parameter, name in POLICY_SETTINGS.items():
        assert ast.unparse(defaults[parameter]) == f"DEFAULT.{name}", parameter
    signature = inspect.signature(PDDLegoPolicy)
    config = PDDLegoConfig()
    for parameter, name in POLICY_SETTINGS.items():
        assert signature.parameters[parameter].default == getattr(config, name)


def test_the_policy_of_the_default_config_is_the_default_policy():
    writer = ModelWriter(ScriptedModel([]), Prompt("coin", "detailed"))
    config = PDDLegoConfig().for_env("CoinCollector-v0", "coin")
    built, plain = policy_of(writer, config), PDDLegoPolicy(writer)
    assert vars(built).keys() == vars(plain).keys()
    assert all(getattr(built, k) == getattr(plain, k) for k in vars(plain) if k not in ("usage",))
    with pytest.raises(ValueError, match="paper"):
        policy_of(writer, PDDLegoConfig(max_steps="paper"))


def test_the_protocol_is_an_instance_of_the_config():
    assert PDDLegoConfig(**PDDLEGO_PLUS.settings).coin == "shown"
    with pytest.raises(TypeError, match="retires"):
        PDDLegoConfig.protocol(retires=5)


def test_the_key_drops_defaults_as_before():
    config = PDDLegoConfig().for_env("ALFWorld-v0", "alfworld")
    assert config.condition(None) == {
        "policy": "pddlego",
        "prompt": "detailed",
        "error_fixing": True,
        "rollback": False,
        "feedback": "game",
        "domain": None,
    }
    paper = PDDLegoConfig(policy="plangen", **PDDLEGO_PLUS.settings)
    assert paper.for_env("ALFWorld-v0", "alfworld").condition(None) == {
        "policy": "plangen",
        "rollback": True,
        "feedback": "authors",
        "simulation_retries": 4,
        "max_steps": 20,
        "unmapped": "play",
        "replies": "json",
        "trial_attempts": 2,
        "planner": "authors",  # a planner not auto is keyed: --paper's authors, since 12-02
    }
    coin = PDDLegoConfig(coin="in-view").for_env("CoinCollector-v0", "coin")
    assert coin.condition(None)["coin"] == "auto"


def test_the_study_as_reproduce_calls_it_names_the_command(capsys):
    assert study.main(["--env", "Blocksworld-v0", "--llm", "groundtruth"]) == 2
    assert capsys.readouterr().err.startswith("pddlego.py: error: no PDDLego+ prompts")
