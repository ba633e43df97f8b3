"""docs/reproducing.md's "Fidelity to the papers" stays current: a table per paper, and
in it the flag of every setting its protocol fixes."""

import re
from pathlib import Path

from planloop.protocols.registry import papers

PAGE = Path(__file__).resolve().parents[2] / "docs" / "reproducing.md"


def tables() -> dict[str, str]:
    """{protocol name: its table}: the table right after the line naming
    ``reproduce.py NAME``."""
    text = PAGE.read_text()
    section = text.split("\n## Fidelity to the papers\n", 1)[1].split("\n## ", 1)[0]
    found: dict[str, str] = {}
    name = None
    for line in section.splitlines():
        if line.startswith("|"):
            if name is not None:
                found[name] = found.get(name, "") + line + "\n"
        elif line.strip():
            named = re.search(r"`reproduce\.py ([\w-]+)`", line)
            name = named.group(1) if named else None
    return found


def test_every_paper_has_a_table_naming_the_flag_of_each_setting():
    found = tables()
    assert set(found) == set(papers())
    for name, paper in papers().items():
        protocol = paper.protocol
        for key in protocol.settings:
            flag = "--" + key.replace("_", "-")
            assert f"`{flag}`" in found[name], (name, flag)
