"""Reading the DF and PF out of whatever a model wrote; what cannot be found is a
specific ExtractionError (for the inner loop), never a crash."""

import json
from pathlib import Path

import pytest

from planloop.formalizer import ExtractionError, Files, extract_files
from planloop.pddl import PDDLError, parse

DF = "(define (domain d)\n  (:predicates (p))\n  (:action a :parameters () :effect (p)))"
PF = "(define (problem q) (:domain d) (:init) (:goal (p)))"
BOTH = Files(DF, PF)
NO_FILES = (
    "the reply holds no domain file and no problem file: write each as a complete "
    '(define ...) form, or answer with JSON {"df": ..., "pf": ...}'
)


@pytest.mark.parametrize(
    "reply",
    [
        json.dumps({"df": DF, "pf": PF}),  # bare; the newlines are escaped \n
        json.dumps({"pf": PF, "df": DF}, indent=2),
        "```json\n" + json.dumps({"df": DF, "pf": PF}, indent=1) + "\n```",
        "Here are the files:\n```\n" + json.dumps({"df": DF, "pf": PF}) + "\n```\nGood luck {!}",
        "I think {this} works: " + json.dumps({"df": DF, "pf": PF}) + " - the end.",
        '{"df": "' + DF.replace("\n", "\\n") + '",\n "pf": "' + PF + '", "notes": "(p) is true"}',
        # JSON with raw newlines inside its strings (invalid JSON): the forms are read instead
        '{"df": "' + DF + '", "pf": "' + PF + '"}',
        f"```pddl\n{DF}\n```\nand the problem:\n```pddl\n{PF}\n```",
        f"```lisp\n{PF}\n```\n```\n{DF}\n```",  # any fence, any order
        f"The domain is {DF} and the problem is {PF}. Plan (carefully).",
        f"Draft: (define (domain d) (:predicates (old)))\nFinal:\n{DF}\n{PF}",  # the last form
    ],
)
def test_the_files_are_found(reply):
    assert extract_files(reply) == BOTH


def test_json_escaped_newlines_are_real_newlines():
    files = extract_files(json.dumps({"df": DF, "pf": PF}))
    assert files.df.splitlines()[1] == "  (:predicates (p))"


def test_json_values_are_stripped_and_upper_case_forms_kept():
    reply = json.dumps({"df": "\n  " + DF + "\n", "pf": PF + "  "})
    assert extract_files(reply) == BOTH
    upper = "(DEFINE (DOMAIN D) (:PREDICATES (P)))"
    assert extract_files(f"{upper}\n{PF}") == Files(upper, PF)


def test_comments_with_parentheses_do_not_end_a_form():
    df = (
        "(define (domain d) ; a comment with ) and ( in it\n"
        "  (:predicates (p)) ; )))\n"
        "  (:action a :parameters () :effect (p)))"
    )
    assert extract_files(f"{df}\n{PF}") == Files(df, PF)
    assert parse(df, PF)  # and the reader agrees


@pytest.mark.parametrize(
    "reply, stage, line, col, opened",
    [
        # an unclosed DF in its fence: handed on up to the fence's end, not swallowed
        (
            "```pddl\n(define (domain d)\n  (:predicates (p)\n```\n```pddl\n" + PF + "\n```",
            "domain",
            2,
            3,
            2,
        ),
        # an unclosed PF at the end of the reply runs to the end
        (
            DF + "\n(define (problem q) (:domain d)\n (:init) (:goal (p))\nThat is all.",
            "problem",
            1,
            1,
            1,
        ),
    ],
)
def test_an_unclosed_form_is_handed_on_for_the_reader_to_place(reply, stage, line, col, opened):
    files = extract_files(reply)
    if stage == "domain":
        assert files.df == "(define (domain d)\n  (:predicates (p)" and files.pf == PF
    else:
        assert files.df == DF and files.pf.endswith("(:goal (p))\nThat is all.")
    with pytest.raises(PDDLError) as error:
        parse(files.df, files.pf)
    assert str(error.value).startswith(
        f"{stage} error: line {line}, col {col}: unbalanced "
        f"parentheses: {opened} '(' never closed; the "
        f"innermost open one is here"
    )


@pytest.mark.parametrize(
    "reply, message",
    [
        ("", "the reply was empty: answer with a PDDL domain file and a PDDL problem file"),
        (" \n\t", "the reply was empty: answer with a PDDL domain file and a PDDL problem file"),
        ("Go north, open the door, then take the coin.", NO_FILES),
        ("```pddl\n(:init (at kitchen))\n```", NO_FILES),
        ('{"plan": ["move north"]}', NO_FILES),
        (
            PF,
            "the reply holds no domain file: write each as a complete (define ...) form, or "
            'answer with JSON {"df": ..., "pf": ...}',
        ),
        (
            json.dumps({"df": DF, "pf": "  "}),
            "the reply holds no problem file: write each as a "
            'complete (define ...) form, or answer with JSON {"df": ..., "pf": ...}',
        ),
        (
            json.dumps({"df": 3, "pf": PF}),
            "the reply holds no domain file: write each as a "
            'complete (define ...) form, or answer with JSON {"df": ..., "pf": ...}',
        ),
    ],
)
def test_what_is_missing_is_named(reply, message):
    with pytest.raises(ExtractionError) as error:
        extract_files(reply)
    assert str(error.value) == message


def test_a_frozen_domain_needs_only_the_problem():
    assert extract_files(PF, need_df=False) == Files("", PF)
    assert extract_files(json.dumps({"pf": PF}), need_df=False) == Files("", PF)
    assert extract_files(f"{DF}\n{PF}", need_df=False) == BOTH
    with pytest.raises(ExtractionError) as error:
        extract_files(DF, need_df=False)
    # no JSON advice with a df: the contract is {"pf": ...} then
    assert str(error.value) == (
        "the reply holds no problem file: write each as a complete (define ...) form"
    )


@pytest.mark.parametrize(
    "reply, kind",
    [(None, "NoneType"), (3, "int"), (b"(define (domain d))", "bytes"), ([DF, PF], "list")],
)
def test_a_reply_that_is_not_text_is_an_extraction_error(reply, kind):
    with pytest.raises(ExtractionError) as error:
        extract_files(reply)
    assert str(error.value) == (
        f"the reply was not text but {kind}: answer with a PDDL domain file and a PDDL problem file"
    )


REAL = Path(__file__).resolve().parents[1] / "data" / "real_replies"  # see its README


def real_reply(name: str) -> str:
    return (REAL / name).read_text()


def test_a_form_in_a_broken_json_string_has_its_escapes_decoded():
    # the reply was cut off inside "pf": the JSON never parses, the forms are read
    files = extract_files(real_reply("json_cut_off.txt"))
    assert "\\" not in files.df + files.pf
    assert files.df.splitlines()[:2] == [
        "(define (domain exploration)",
        "  (:requirements :strips :typing :negative-preconditions)",
    ]
    assert files.df.endswith("    :effect (clean ?o)\n  )\n)")
    assert files.pf.endswith("    fridge1 - receptacle\n    garbagecan1 - recept")
    with pytest.raises(PDDLError) as error:
        parse(files.df, files.pf)
    assert str(error.value).startswith(
        "problem error: line 3, col 3: unbalanced parentheses: 2 '(' never closed"
    )


def test_a_string_value_ends_where_json_could_close_it():
    # {"pf_objects_and_init": "(define (problem ...)\n...)" \n}" - a stray quote after
    reply = real_reply("json_other_key.txt")
    assert extract_files(reply, need_df=False).pf == (
        "(define (problem explore-problem)\n  (:domain explore)\n  (:objects\n"
        "    kitchen - location\n    living-room - location\n    north - direction\n"
        "    west - direction\n  )\n  (:init\n    (at kitchen)\n"
        "    (door-closed kitchen north)\n    (door-open kitchen west)\n"
        "    (connected kitchen west living-room)\n  )\n)"
    )


def test_escapes_mixed_with_real_line_breaks_are_decoded():
    # Llama wrote some line breaks as \n\t and some raw, and its PF inside the DF's string
    files = extract_files(real_reply("mixed_escapes.txt"))
    assert "\\" not in files.df + files.pf
    assert files.df.splitlines()[:2] == [
        "(define (domain explore)",
        "\t(:requirements :strips :equality)",
    ]
    assert "\n\t(:goal (at unknown)\n\t)\n" in files.pf


def test_a_parenthesis_too_many_in_a_string_is_handed_on_whole():
    # the real reply has no pf and no closing brace; a pf member in its style is added
    reply = real_reply("extra_paren_json.txt") + ',\n  "pf": "' + PF + '"'
    files = extract_files(reply)
    assert files.df.endswith("(is_closed?loc?loc2?dir)))))))))") and files.pf == PF
    with pytest.raises(PDDLError) as error:
        parse(files.df, files.pf)
    assert str(error.value).startswith(
        "domain error: line 1, col 727: unbalanced parentheses: ')' closes nothing"
    )


@pytest.mark.parametrize(
    "df, line, col, problem",
    [
        (DF + ")", 3, 42, "')' closes nothing"),
        # closed early: the action after the close is not dropped
        (
            "(define (domain d)\n  (:predicates (p)))\n  (:action a :parameters () :effect (p)))",
            2,
            20,
            "this ')' closes '(define' but sections follow it",
        ),
    ],
)
def test_a_parenthesis_too_many_in_a_fence_is_handed_on_whole(df, line, col, problem):
    files = extract_files(f"```pddl\n{df}\n```\n```pddl\n{PF}\n```")
    assert files == Files(df, PF)
    with pytest.raises(PDDLError) as error:
        parse(files.df, files.pf)
    assert str(error.value).startswith(
        f"domain error: line {line}, col {col}: unbalanced parentheses: {problem}"
    )


def test_words_after_a_form_in_its_fence_are_left_out():
    reply = f"```pddl\n{DF}\n\nThat is the domain; now the problem:\n{PF}\n```"
    assert extract_files(reply) == BOTH


def test_the_answer_after_think_is_read_not_the_drafts_inside():
    reply = real_reply("think_then_json.txt")
    files = extract_files(reply)
    drafts = (
        "Draft: " + json.dumps({"df": DF, "pf": PF}) + "\n"
        "(define (domain draft) (:predicates (q)))\n"
        "(define (problem draft) (:domain draft) (:init) (:goal (q)))\n"
    )
    assert extract_files(reply.replace("</think>", drafts + "</think>")) == files
    assert files.df.startswith("(define (domain exploration)")
    assert files.pf.startswith("(define (problem kitchen-start)")


def test_files_only_inside_think_are_not_the_answer():
    reply = f"<think>\nFirst try:\n{DF}\n{PF}\n</think>\nI will move north."
    with pytest.raises(ExtractionError) as error:
        extract_files(reply)
    assert str(error.value).startswith(
        "the reply holds no domain file and no problem file after its </think> block: write each"
    )


def test_an_answer_without_files_after_think_says_where_they_were_missing():
    # the reply has </think> but no <think> (the server dropped it)
    with pytest.raises(ExtractionError) as error:
        extract_files(real_reply("think_then_actions.txt"))
    assert str(error.value) == (
        "the reply holds no domain file and no problem file after its </think> block: "
        'write each as a complete (define ...) form, or answer with JSON {"df": ..., '
        '"pf": ...}'
    )


@pytest.mark.parametrize(
    "need_df, missing, advice",
    [
        (True, "domain file or problem file", ', or answer with JSON {"df": ..., "pf": ...}'),
        (False, "problem file", ""),
    ],
)
def test_a_reply_cut_off_inside_think_says_so(need_df, missing, advice):
    with pytest.raises(ExtractionError) as error:
        extract_files(real_reply("think_cut_off.txt"), need_df=need_df)
    assert str(error.value) == (
        f"the reply ended inside its <think> block before any {missing}: reason more "
        f"briefly, close the block with </think>, then write each as a complete "
        f"(define ...) form{advice}"
    )
