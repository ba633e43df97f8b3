"""Reading the DF and PF out of whatever a model wrote; what cannot be found is a
specific ExtractionError (for the inner loop), never a crash."""

import json

import pytest

from planloop.formalizer import ExtractionError, Files, extract_files
from planloop.pddl import PDDLError, parse

DF = "(define (domain d)\n  (:predicates (p))\n  (:action a :parameters () :effect (p)))"
PF = "(define (problem q) (:domain d) (:init) (:goal (p)))"
BOTH = Files(DF, PF)
NO_FILES = ('the reply holds no domain file and no problem file: write each as a complete '
            '(define ...) form, or answer with JSON {"df": ..., "pf": ...}')


@pytest.mark.parametrize("reply", [
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
])
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
    df = ("(define (domain d) ; a comment with ) and ( in it\n"
          "  (:predicates (p)) ; )))\n"
          "  (:action a :parameters () :effect (p)))")
    assert extract_files(f"{df}\n{PF}") == Files(df, PF)
    assert parse(df, PF)  # and the reader agrees


@pytest.mark.parametrize("reply, stage, line, col, opened", [
    # an unclosed DF in its fence: handed on up to the fence's end, not swallowed
    ("```pddl\n(define (domain d)\n  (:predicates (p)\n```\n```pddl\n" + PF + "\n```",
     "domain", 2, 3, 2),
    # an unclosed PF at the end of the reply runs to the end
    (DF + "\n(define (problem q) (:domain d)\n (:init) (:goal (p))\nThat is all.",
     "problem", 1, 1, 1),
])
def test_an_unclosed_form_is_handed_on_for_the_reader_to_place(reply, stage, line, col,
                                                               opened):
    files = extract_files(reply)
    if stage == "domain":
        assert files.df == "(define (domain d)\n  (:predicates (p)" and files.pf == PF
    else:
        assert files.df == DF and files.pf.endswith("(:goal (p))\nThat is all.")
    with pytest.raises(PDDLError) as error:
        parse(files.df, files.pf)
    assert str(error.value).startswith(f"{stage} error: line {line}, col {col}: unbalanced "
                                       f"parentheses: {opened} '(' never closed; the "
                                       f"innermost open one is here")


@pytest.mark.parametrize("reply, message", [
    ("", "the reply was empty: answer with a PDDL domain file and a PDDL problem file"),
    (" \n\t", "the reply was empty: answer with a PDDL domain file and a PDDL problem file"),
    ("Go north, open the door, then take the coin.", NO_FILES),
    ("```pddl\n(:init (at kitchen))\n```", NO_FILES),
    ('{"plan": ["move north"]}', NO_FILES),
    (PF, "the reply holds no domain file: write each as a complete (define ...) form, or "
         'answer with JSON {"df": ..., "pf": ...}'),
    (json.dumps({"df": DF, "pf": "  "}), "the reply holds no problem file: write each as a "
     'complete (define ...) form, or answer with JSON {"df": ..., "pf": ...}'),
    (json.dumps({"df": 3, "pf": PF}), "the reply holds no domain file: write each as a "
     'complete (define ...) form, or answer with JSON {"df": ..., "pf": ...}'),
])
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
    assert str(error.value) == ("the reply holds no problem file: write each as a complete "
                                "(define ...) form")


@pytest.mark.parametrize("reply, kind", [(None, "NoneType"), (3, "int"),
                                         (b"(define (domain d))", "bytes"), ([DF, PF], "list")])
def test_a_reply_that_is_not_text_is_an_extraction_error(reply, kind):
    with pytest.raises(ExtractionError) as error:
        extract_files(reply)
    assert str(error.value) == (f"the reply was not text but {kind}: answer with a PDDL "
                                f"domain file and a PDDL problem file")
