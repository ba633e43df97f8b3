"""Every file a session can be made to read: each keyword argument and reset option of
each registered environment, handed a path outside the root, and a link swapped while
files under the root are opened (the registry and its sandbox, without the MCP SDK)."""

import inspect
import os
import shutil
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest
from gymnasium.envs.registration import load_env_creator

from planloop.envs import ENVIRONMENTS, arguments
from planloop.mcp import SessionError, SessionRegistry
from planloop.mcp.sandbox import Sandbox, SandboxError
from planloop.pddl import PDDLError
from planloop.pddl.source import read_source

from conftest import DATA, PLANBENCH

MARK = "zqsecretmark"  # in the first line of every file outside the root
LAMPS = DATA / "contingent" / "lamps"
_OPENED: list[tuple[str, str]] = []  # (event, path) of every file opened or folder listed


def _record(event: str, args: tuple) -> None:
    if event in ("open", "os.listdir", "os.scandir") and args:
        if isinstance(args[0], (str, bytes, os.PathLike)):
            _OPENED.append((event, os.fsdecode(args[0])))


sys.addaudithook(_record)


@pytest.fixture(scope="module")
def places(tmp_path_factory):
    """A root holding a PDDL task and the lamps task, and a folder outside it holding
    secret files (PDDL, JSON, a game file) that each name :data:`MARK` first."""
    root = tmp_path_factory.mktemp("root")
    shutil.copy(PLANBENCH / "blocksworld" / "generated_domain.pddl", root / "domain.pddl")
    shutil.copy(PLANBENCH / "blocksworld" / "generated_basic" / "instance-1.pddl", root / "p.pddl")
    shutil.copytree(LAMPS, root / "lamps")
    outside = tmp_path_factory.mktemp("outside")
    for name in ("secret.pddl", "game.tw-pddl", "layout.json", "alfred.pddl", "alfred.twl2"):
        (outside / name).write_text(f"(:hidden ({MARK} a)) {MARK} line one\n{MARK} two\n")
    (root / "out").symlink_to(outside)
    return root, outside


def keywords(env_id: str) -> set[str]:
    """The keyword arguments ``env_id`` takes: its creator's, and where the creator passes
    ``**kwargs`` on, those of the environment it makes."""
    creator = load_env_creator(ENVIRONMENTS[env_id][0])
    params = inspect.signature(creator).parameters.values()
    names = {p.name for p in params if p.kind is not p.VAR_KEYWORD}
    if any(p.kind is p.VAR_KEYWORD for p in params):
        env = gym.make(env_id)
        made = inspect.signature(type(env.unwrapped).__init__).parameters.values()
        names |= {p.name for p in made if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
        env.close()
    return names - {"self"}


def reset_options() -> set[str]:
    """Every reset option of every environment."""
    return set(arguments.RESET_OPTIONS) | set(arguments.CONTINGENT_RESET_OPTIONS)


def needed(env_id: str) -> dict:
    """The keyword arguments ``env_id`` cannot start without (files in the root)."""
    if env_id == "PDDL-v0":
        return {"domain": "domain.pddl", "problem": "p.pddl"}
    if env_id == "ContingentPDDL-v0":
        return {"domain": "lamps/domain.pddl", "problem": "lamps/problem.pddl"}
    return {}


def hostile(outside: Path) -> list:
    """Ways to name what is outside the root."""
    secret = outside / "secret.pddl"
    return [
        str(secret),
        str(outside),
        f"../{outside.name}/secret.pddl",
        "out/secret.pddl",
        "out",
        [str(secret)],
        {"map": str(secret)},
    ]


@pytest.mark.slow
@pytest.mark.parametrize("env_id", ENVIRONMENTS)
def test_no_argument_or_option_reads_outside_the_root(places, env_id):
    root, outside = places
    registry = SessionRegistry(Sandbox.of([root]))
    names = keywords(env_id)
    assert names, env_id
    calls = [
        ({**needed(env_id), name: value}, None) for name in names for value in hostile(outside)
    ]
    calls += [
        (needed(env_id), {name: value}) for name in reset_options() for value in hostile(outside)
    ]
    answered = 0
    for env_kwargs, options in calls:
        _OPENED.clear()
        try:
            reply = str(
                registry.start(env_id=env_id, seed=0, env_kwargs=env_kwargs, options=options)
            )
            answered += 1
        except SessionError as exc:
            reply = str(exc)
        touched = [(e, p) for e, p in _OPENED if Path(os.path.abspath(p)).is_relative_to(outside)]
        assert MARK not in reply and not touched, (env_kwargs, options, reply, touched)
        assert len(registry) <= 1
        for sid in list(registry._sessions):
            registry.close(sid)
    assert answered < len(calls)  # most are refused: the arguments are checked


def test_a_hidden_world_outside_the_root_is_refused_unread(places):
    root, outside = places
    registry = SessionRegistry(Sandbox.of([root]))
    lamps = needed("ContingentPDDL-v0")
    for env_kwargs, options in (
        ({**lamps, "hidden": str(outside / "secret.pddl")}, None),
        (lamps, {"hidden": str(outside / "secret.pddl")}),
        (lamps, {"hidden": "out/secret.pddl"}),
    ):
        _OPENED.clear()
        with pytest.raises(SessionError) as refused:
            registry.start(env_id="ContingentPDDL-v0", env_kwargs=env_kwargs, options=options)
        assert str(refused.value).endswith("is outside the allowed roots"), refused.value
        assert MARK not in str(refused.value)
        assert not any(Path(p).is_relative_to(outside) for _, p in _OPENED)


def test_a_link_swapped_while_files_are_opened_never_leaks(places):
    """Another process swaps a link in the root between a file in it and one outside, as
    fast as it can, while the sandbox reads the link 3,000 times, directly and as an
    environment reads a problem (through the guard). Before the opener checked the
    opened file, 151 of 5,000 reads through the guard leaked."""
    root, outside = places
    inside, secret = root / "p.pddl", outside / "secret.pddl"
    link = root / "swapped.pddl"
    link.symlink_to(inside)
    sandbox = Sandbox.of([root])
    guard = sandbox.guard({"problem": "swapped.pddl"})
    swapper = subprocess.Popen([sys.executable, "-c", SWAP, str(link), str(secret), str(inside)])
    outcomes = {"read": 0, "refused": 0}
    try:
        for attempt in range(3_000):
            try:
                if attempt % 2:
                    text = sandbox.read("swapped.pddl", "problem").text
                else:
                    with guard():
                        text = read_source("swapped.pddl", "problem", arguments.limits(None))
            except (SandboxError, PDDLError) as exc:  # refused, or caught mid-swap
                assert MARK not in str(exc)
                outcomes["refused"] += 1
                continue
            assert MARK not in text, f"leaked on try {attempt}"
            outcomes["read"] += 1
    finally:
        swapper.kill()
        swapper.wait()
    assert outcomes["read"] > 0 and outcomes["refused"] > 0, outcomes  # it raced


SWAP = """
import os, sys
link, targets = sys.argv[1], sys.argv[2:]
spare = link + ".spare"
while True:
    for target in targets:
        if os.path.lexists(spare):
            os.unlink(spare)
        os.symlink(target, spare)
        os.replace(spare, link)  # atomic: the link always names one of the two
"""
