"""Prompt templates: fields filled from the request in one pass, {if} blocks, escapes,
and every bad template refused in one line."""

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planloop.formalizer import (
    Files,
    ModelWriter,
    PromptTemplate,
    Request,
    TemplateError,
    load_template,
    render,
)
from planloop.formalizer.templates import FIELDS, MAX_BYTES, escape
from planloop.llm import ScriptedModel

START = Request("find the coin", "start", ("You are in the kitchen.",), ("move east", "look"))
FIXED = Request(
    "find the coin",
    "simulation_error",
    ("You are in the kitchen.", "> move east\nThe door is closed."),
    ("open door to east",),
    new_observations=("> move east\nThe door is closed.",),
    files=Files("(define (domain d))", "(define (problem p))"),
    error="the door is closed",
    succeeded=("look",),
    repeated="move east",
)


def test_every_field_is_filled_from_the_request():
    template = PromptTemplate(" | ".join(f"{{{name}}}" for name in FIELDS))
    assert template.fill(FIXED) == " | ".join(
        [
            "You are in the kitchen.\n> move east\nThe door is closed.",
            "> move east\nThe door is closed.",
            "find the coin",
            "open door to east",
            "(define (domain d))",
            "(define (problem p))",
            "the door is closed",
            "look",
            "move east",
        ]
    )
    assert template.fill(START).endswith("move east, look |  |  |  |  | ")


def test_a_fixed_domain_is_the_df_field():
    request = Request("t", "start", ("o",), (), frozen_df="(define (domain fixed))")
    assert PromptTemplate("{observation} {df}").fill(request) == "o (define (domain fixed))"


@pytest.mark.parametrize(
    "request_, expected",
    [
        (START, "o:start;no error;"),
        (FIXED, "o:files,retry;error;sim;nested;" + "\n".join(FIXED.history)),
    ],
)
def test_blocks_test_fields_and_triggers_and_nest(request_, expected):
    template = PromptTemplate(
        "o:{if df}files,{if simulation_error}retry{end}{end}{if start}start{end};"
        "{if not error}no {end}error;{if simulation_error}sim;{if repeated}nested;{end}{end}"
        "{if new_observations}{observation}{end}"
    )
    assert template.fill(request_) == expected


def test_filled_text_is_never_read_as_template():
    request = Request("{task}", "start", ("{error} {if df}x{end} {observation.__class__}",), ())
    assert PromptTemplate("{observation}|{task}").fill(request) == (
        "{error} {if df}x{end} {observation.__class__}|{task}"
    )


def test_only_known_names_between_single_braces_are_template():
    text = 'JSON {"df": "...", "pf": {}} {{observation}} {{if df}} {{end}} { x } {a.b} {0}'
    assert PromptTemplate(text + "{observation}").fill(START) == (
        'JSON {"df": "...", "pf": {}} {observation} {if df} {end} { x } {a.b} {0}'
        "You are in the kitchen."
    )


@given(st.text(alphabet="{}ifnot edxbsrva_ ", max_size=40))
def test_escaped_text_fills_to_itself(text):
    assert PromptTemplate(escape(text) + "{observation}").fill(START) == (
        text + "You are in the kitchen."
    )


def test_a_deep_nest_fills_without_recursion():
    depth = 50_000
    template = PromptTemplate("{if df}" * depth + "{observation}" + "{end}" * depth)
    assert template.fill(START) == "" and template.fill(FIXED).startswith("You are")


@pytest.mark.parametrize(
    "text, message",
    [
        ("{observation}\n\n{obs}", "prompt template t, line 3: unknown field {obs} "),
        ("{observation}{Observation}", "unknown field {Observation}"),
        ("{observation}{if obs}{end}", "{if obs} tests no field or trigger"),
        ("{observation}{if not}", "{if not} tests no field or trigger"),
        ("{observation}\n{if df}{if pf}{end}", "line 2: {if} without its {end}"),
        ("{observation}{end}", "line 1: {end} closes no {if}"),
        ("{{observation}} only", "no {observation} field"),
        ("", "no {observation} field"),
    ],
)
def test_a_bad_template_is_one_line(text, message):
    with pytest.raises(TemplateError) as caught:
        PromptTemplate(text, "t")
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_file_is_read_named_hashed_and_bounded(tmp_path):
    path = tmp_path / "my prompt|v2.txt"
    text = "{observation}" + "x" * (MAX_BYTES - len("{observation}"))
    path.write_text(text)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    assert load_template(path).version == f"file:my_prompt_v2.txt@sha256:{digest}"
    path.write_text(text + "x")
    with pytest.raises(TemplateError, match=f"larger than the limit of {MAX_BYTES} bytes"):
        load_template(path)
    path.write_bytes(b"{observation}\xc3")
    with pytest.raises(TemplateError, match="not UTF-8"):
        load_template(path)
    with pytest.raises(TemplateError, match="no such file"):
        load_template(tmp_path)


def test_a_template_is_sent_as_the_one_user_message():
    template = PromptTemplate("Seen: {observation}")
    assert render(template, START) == [{"role": "user", "content": "Seen: You are in the kitchen."}]
    model = ScriptedModel(['{"df": "(define (domain d))", "pf": "(define (problem p))"}'])
    writer = ModelWriter(model, template)
    assert writer.prompt_version == template.version and writer.write(START).files is not None
    assert model.prompts == [render(template, START)]
