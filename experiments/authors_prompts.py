"""Writes the PDDLego+ authors' formalizer prompt as a template for ``pddlego.py
--prompt-file``, read from a checkout of their code (zharry29/pddlego-plus, MIT licence)
that you name; planloop ships none of their text.

    git clone https://github.com/zharry29/pddlego-plus
    python experiments/authors_prompts.py pddlego-plus --game coin --out coin-detailed.txt
    python experiments/pddlego.py --paper --prompt-file coin-detailed.txt --llm openai:o3-mini

What is read and where the template cannot follow theirs:
``planloop.formalizer.authors_prompts``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from planloop.formalizer import TemplateError, load_template
from planloop.formalizer.authors_prompts import SOURCES, ConversionError, authors_template


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("checkout", type=Path, help="a checkout of zharry29/pddlego-plus")
    parser.add_argument("--game", choices=SOURCES, default="coin")
    parser.add_argument(
        "--goal-type",
        default="detailed",
        help="their prompt variant: detailed (their runs' default), subgoal, and on "
        "ALFWorld without_hint, without_detailed_goal, general_goal",
    )
    parser.add_argument("--out", type=Path, required=True, help="the template file to write")
    args = parser.parse_args(argv)
    try:
        text = authors_template(args.checkout, args.game, args.goal_type)
    except (ConversionError, TemplateError) as exc:
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
    args.out.write_text(text, encoding="utf-8")
    version = load_template(args.out).version
    print(f"{args.out}: {len(text.split())} words, recorded as {version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
