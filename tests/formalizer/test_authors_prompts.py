"""The converter from the PDDLego+ authors' prompt code to a template: on a stand-in
written here with the same structure (and, when PDDLEGO_PLUS_CHECKOUT names a checkout
of zharry29/pddlego-plus, on theirs), the template fills to exactly the text their
function builds, trigger by trigger."""

import ast
import os
import re
from pathlib import Path

import pytest

from planloop.formalizer import Files, PromptTemplate, Request, load_template
from planloop.formalizer.authors_prompts import (
    SOURCES,
    ConversionError,
    authors_template,
    goal_types,
)

from conftest import load_experiment

STAND_IN = '''
def llm_to_pddl(model_name, brief_obs, prev_df="", prev_pf="", prev_err="", prev_err_2=None,
                have_error=False, have_duplicate=False, edit=False, overall_memory=None,
                large_loop_error_message=None, goal_type="detailed", goal=None):
    prompt_format = f"""
        Reply with {{"df": "...", "pf": "..."}} only.
    """
    prompt_edit = """Edits as {"add": []}, unused"""
    prompt_obs_action_detailed = f"""
        Task: {goal}. New: {brief_obs}. Commands: {valid_actions}.
        Keep {{observation}} and {{{{end}}}} as written.
    """
    prompt_obs_action_subgoal = f"""Sub-goals. New: {brief_obs}"""
    prompt_prev_files = f"""
        Domain {prev_df} problem {prev_pf} memory {overall_memory}
    """
    prompt_new_obs = """Update them with {what is new}."""
    prompt_error_parser = f"""Errors: {prev_err}; {prev_err_2}"""
    prompt_simulation_error = f"""Refused: {large_loop_error_message}."""
    prompt_duplicate_note = """You repeat yourself {if df}."""
    prompt = prompt_format if not edit else prompt_edit
    if goal_type == "detailed":
        prompt += prompt_obs_action_detailed
    elif goal_type == "subgoal":
        prompt += prompt_obs_action_subgoal
    if prev_df and prev_pf:
        prompt += prompt_prev_files
        if not have_error:
            prompt += prompt_new_obs
        else:
            prompt += prompt_error_parser
        if large_loop_error_message:
            prompt += prompt_simulation_error
    if have_duplicate:
        prompt += prompt_duplicate_note
    return prompt
'''
COMMANDS = ("move east", "open door to north")
FILES = Files("(define (domain d))", "(define (problem p))")


def their_function(source: Path):
    """``llm_to_pddl`` alone from ``source``, its model call a stub returning ``prompt``."""
    tree = ast.parse(source.read_text())
    [function] = [
        n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "llm_to_pddl"
    ]
    function.args.defaults = [  # a default naming a module global (their `goal`) is None
        ast.Constant(None) if isinstance(d, ast.Name) else d for d in function.args.defaults
    ]
    module = ast.fix_missing_locations(ast.Module([function], []))
    space = {"run_llm_model": lambda prompt, model: ("", ""), "valid_actions": ", ".join(COMMANDS)}
    exec(compile(module, str(source), "exec"), space)
    call = space["llm_to_pddl"]

    def prompt(*args, **kwargs) -> str:
        kwargs = {k: v for k, v in kwargs.items() if k in call.__code__.co_varnames}
        result = call("model", *args, **kwargs)
        return result if isinstance(result, str) else result[3]

    return prompt


def cases(theirs, goal_type: str):
    """(their prompt, the request planloop's loop makes in the same state), per trigger."""
    kw = {"goal_type": goal_type, "goal": "find the coin"}
    state = {"task": "find the coin", "history": ("MEMORY",), "valid_commands": COMMANDS}
    new = ("NEW",)
    yield theirs("NEW", **kw), Request(trigger="start", new_observations=new, **state)
    their_files = ("NEW", FILES.df, FILES.pf)
    ours = {"new_observations": new, "files": FILES, **state}
    yield (
        theirs(*their_files, None, None, False, False, False, "MEMORY", "", **kw),
        Request(trigger="growth", **ours),
    )
    yield (
        theirs(*their_files, None, "no plan", True, False, False, "MEMORY", "", **kw),
        Request(trigger="solver_error", error="no plan", **ours),
    )
    yield (
        theirs(*their_files, None, None, False, False, False, "MEMORY", "door closed", **kw),
        Request(trigger="simulation_error", error="door closed", **ours),
    )
    yield (
        theirs(*their_files, None, None, False, True, False, "MEMORY", "door closed", **kw),
        Request(trigger="simulation_error", error="door closed", repeated="move east", **ours),
    )


@pytest.fixture
def checkout(tmp_path):
    (tmp_path / SOURCES["coin"]).write_text(STAND_IN)
    return tmp_path


@pytest.mark.parametrize("goal_type", ["detailed", "subgoal"])
def test_the_template_fills_to_their_prompt_on_every_trigger(checkout, goal_type):
    template = PromptTemplate(authors_template(checkout, "coin", goal_type))
    for theirs, request in cases(their_function(checkout / SOURCES["coin"]), goal_type):
        assert template.fill(request) == theirs
    assert goal_types(checkout, "coin") == ["detailed", "subgoal"]


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            ("{brief_obs}", "{brief_obs.upper()}"),
            "a prompt expression this converter does not know ({brief_obs.upper()})",
        ),
        (("{goal}", "{goal!r}"), "does not know ({goal!r})"),
        (("{goal}", "{unknown}"), "does not know ({unknown})"),
        (("prompt_new_obs =", "prompt_new_observations ="), "no prompt_new_obs in llm_to_pddl"),
        (("def llm_to_pddl", "def llm_to"), "no function llm_to_pddl"),
        (("def llm_to_pddl", "def llm_to_pddl)"), "not Python source"),
    ],
)
def test_code_it_does_not_know_is_refused_in_one_line(checkout, edit, message):
    (checkout / SOURCES["coin"]).write_text(STAND_IN.replace(*edit, 1))
    with pytest.raises(ConversionError, match=re.escape(message)):
        authors_template(checkout, "coin")


def test_a_missing_checkout_goal_type_or_game_is_refused(checkout, tmp_path):
    with pytest.raises(ConversionError, match="no goal type 'plain'.*one of detailed, subgoal"):
        authors_template(checkout, "coin", "plain")
    with pytest.raises(ConversionError, match="interactive_Alfworld.py: no such file"):
        authors_template(checkout, "alfworld")
    with pytest.raises(ConversionError, match="unknown game 'chess'"):
        authors_template(checkout, "chess")


def test_the_script_writes_a_template_pddlego_reads(checkout, tmp_path, capsys):
    script = load_experiment("authors_prompts")
    out = tmp_path / "coin-detailed.txt"
    assert script.main([str(checkout), "--out", str(out)]) == 0
    assert capsys.readouterr().out.strip().endswith(f"recorded as {load_template(out).version}")
    with pytest.raises(SystemExit) as stopped:
        script.main([str(checkout), "--goal-type", "plain", "--out", str(out)])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and err.count("\n") == 1 and "no goal type 'plain'" in err


THEIRS = os.environ.get("PDDLEGO_PLUS_CHECKOUT")


@pytest.mark.skipif(not THEIRS, reason="PDDLEGO_PLUS_CHECKOUT names no checkout of their code")
@pytest.mark.parametrize("game", list(SOURCES))
def test_on_their_code_the_template_fills_to_their_prompt(game):
    theirs = their_function(Path(str(THEIRS)) / SOURCES[game])
    for goal_type in goal_types(str(THEIRS), game):
        template = PromptTemplate(authors_template(str(THEIRS), game, goal_type))
        for prompt, request in cases(theirs, goal_type):
            assert template.fill(request) == prompt
