"""A fuzzing campaign over every untrusted input: commands to the environments, PDDL
text to the reader, plan text to the validator, model replies to the chat client, and
the trust boundary's attack families (``benchmarks/fuzz_boundary.py``: hostile MCP
clients, damaged results files, PDDL built to explode, exit paths, belief work built to
explode).

Every target has its own seeded generator (case ``i`` of target ``t`` under
``--seed s`` is drawn from ``random.Random(f"{s}/{t}/{i}")`` alone, so any case can be
replayed by itself with ``--replay t:i``):

- ``env``: a command to every registered environment (PDDL-v0 on the shipped
  Blocksworld domain, Blocksworld-v0, Mystery-BW-v0, MysteryRandom-BW-v0, Baking-v0,
  CoinCollector-v0, ALFWorld-v0 on generated games), after a seeded reset and a short
  random walk. Commands are admissible actions mutated (case, parentheses, commas, an
  argument added, dropped or swapped), random words, control characters, NUL, emoji,
  right-to-left marks, combining characters, lone surrogates, commands up to 1 MB,
  blank ones, and non-strings (None, int, bytes, a numpy array, a list), for which the
  contract is a TypeError. Checked: the observation lies in ``observation_space``,
  ``info`` keeps the keys of the reset, and an invalid command (or a TypeError) leaves
  the true state as it was.
- ``pddl``: mutated domain and problem text to ``planloop.pddl.load`` (tokens deleted,
  duplicated, swapped or replaced; parentheses dropped; unicode; CR-only and mixed line
  ends; prose around it; empty; a sentence; a 300-character word; file names; huge fact
  lists; nesting, size, objects, facts and goals just under and just over the reader's
  ``Limits``). A task (which must then ground and step) or a PDDLError with well-formed
  diagnostics is handled. Inputs that may eat the machine's memory (the texts at the
  limits, device paths such as ``/dev/zero``) are loaded in a child process capped at
  1.5 GB. One case in a hundred calls ``planloop.pddl.solve`` instead (2 s timeout),
  which must return a PlanResult, and a solved plan must validate.
- ``plan``: plan text (mutated valid plans, numbering, junk lines, unicode, odd line
  ends), bytes, lists, None and numbers to ``planloop.pddl.validate``. A PlanReport or
  a PDDLError is handled.
- ``model``: replies of a misbehaving OpenAI-compatible server
  (``planloop.llm.fake_server``) to ``planloop.llm.OpenAIChat``: completions with
  mutated fields, truncated JSON, random bytes, deep nesting, SSE text, wrong content
  types, error statuses with and without Retry-After, slow and dripping replies,
  compressed bombs (gzip, deflate, gzip in gzip: 9 or 64 MiB from at most 64 KiB on
  the wire). A ChatResponse with ``str`` text and non-negative integer usage, or an
  LLMError, is handled; a bomb must be an LLMError.

Anything else raised is a crash, and so is a broken contract (a non-string command
accepted, ``info`` keys changed, an invalid command changing the state, a tool call
whose name is not text...). Each case runs under a SIGALRM watchdog; a case past its
wall-clock budget (10 s; a model call: its 2 s deadline + 3 s) is a hang. The exit
status is 1 when anything failed.

    python benchmarks/fuzz.py --cases 10000 --seed 0 --json /tmp/fuzz.json
    python benchmarks/fuzz.py --seed 0 --replay plan:17      # one case, with traceback
"""

from __future__ import annotations

import argparse
import functools
import inspect
import json
import math
import platform
import random
import re
import signal
import sys
import threading
import time
import traceback
import warnings
import zlib
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np

import planloop
from planloop.envs import ENVIRONMENTS
from planloop.envs.coin import CoinCollectorEnv
from planloop.envs.feedback import action_failure

if TYPE_CHECKING:
    from planloop.pddl import Task

ROOT = Path(__file__).resolve().parent.parent


def _boundary_targets():
    """``benchmarks/fuzz_boundary.py``, the trust boundary's targets (a script beside
    this one, loaded by path)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "planloop_fuzz_boundary", Path(__file__).resolve().parent / "fuzz_boundary.py"
    )
    assert spec is not None and spec.loader is not None  # a .py file's spec has a loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ENV_DATA = ROOT / "planloop" / "envs" / "data"
ALFWORLD_LOGIC = ROOT / "tests" / "data" / "alfworld" / "logic"

BOUNDARY = _boundary_targets()
TARGETS = ("env", "pddl", "plan", "model", *BOUNDARY.TARGETS)
WEIGHTS = {"env": 0.56, "pddl": 0.18, "plan": 0.11, "model": 0.07, **BOUNDARY.WEIGHTS}  # of --cases
BUDGET = 10.0  # seconds of wall clock per case before it counts as a hang
INPUT_REPR = 200  # characters of an input's repr kept in a crash record

# -- pieces of nasty text ---------------------------------------------------------------
CONTROL = [chr(c) for c in range(32)] + ["\x7f", "\x85", "\x9b", "\x1b[2J"]
UNICODE = {
    "nul": ["\x00"],
    "emoji": ["\U0001f600", "\U0001f9d1\u200d\U0001f373", "\U0001f1fa\U0001f1f8", "\u2764\ufe0f"],
    "rtl": ["\u200f", "\u202e", "\u2067", "\u061c", "\u202b"],
    "combining": ["\u0301", "\u0336", "\u20dd", "\u0301" * 30, "\u0489"],
    "zero_width": ["\u200b", "\u200d", "\ufeff", "\u2060"],
    "spaces": ["\u00a0", "\u3000", "\u2028", "\u2029", "\x0b", "\x0c", "\x1c", "\x85"],
    "lookalike": ["\u0430", "\u0435", "\u043e", "\uff41", "\u0131", "\u0130", "\u00df", "\ufb01"],
    "surrogate": ["\ud800", "\udfff", "\udc80"],
    "other": ["\ufffd", "\uffff", "\U0010ffff", "\u00e9", "\u4e2d\u6587", "\u0928\u093f"],
}
ALL_UNICODE = [c for pool in UNICODE.values() for c in pool] + CONTROL
JUNK_WORDS = [
    "look",
    "inventory",
    "help",
    "quit",
    "restart",
    "reset",
    "undo",
    "go",
    "north",
    "take",
    "the",
    "coin",
    "open",
    "door",
    "1",
    "-1",
    "0",
    "NaN",
    "inf",
    "None",
    "null",
    "true",
    ":q",
    "; drop table",
    "$(rm -rf /)",
    "%s%n",
    "{0}",
    "{}",
    "../../etc/passwd",
    "\\",
    "'",
    '"',
    "`",
    "and",
    "then",
    "please",
    "(",
    ")",
    "?x",
    "- object",
    ":action",
    "define",
    "not",
    "=",
    "*",
    "<|endoftext|>",
]
SENTENCE = "I think the best next step is to pick up the red block and put it on the table."


def mutate_text(rng: random.Random, text: str, pool: str | None = None) -> str:
    """``text`` with one to four nasty characters inserted at random places."""
    chars = UNICODE[pool] if pool else ALL_UNICODE
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(0, len(text))
        text = text[:at] + rng.choice(chars) + text[at:]
    return text


def flip_case(rng: random.Random, text: str) -> str:
    style = rng.randrange(4)
    if style == 0:
        return text.upper()
    if style == 1:
        return text.title()
    if style == 2:
        return text.swapcase()
    return "".join(c.upper() if rng.random() < 0.5 else c for c in text)


# -- commands -----------------------------------------------------------------------------
def split_command(action: str) -> list[str]:
    return action.strip().strip("()").replace(",", " ").split() or ["look"]


def command_mutation(rng: random.Random, action: str, vocab: list[str]) -> tuple[str, str]:
    """(kind, a mutated command) from an admissible ``action``."""
    words = split_command(action)
    verb, args = words[0], words[1:]
    kind = rng.choice(
        [
            "as_is",
            "case",
            "parens",
            "call",
            "commas",
            "extra_arg",
            "missing_arg",
            "swap_args",
            "joined",
            "words",
            "control",
            "nul",
            "emoji",
            "rtl",
            "combining",
            "unicode",
            "surrogate",
            "blank",
            "long",
            "numeric",
            "padding",
        ]
    )
    if kind == "as_is":
        return kind, action
    if kind == "case":
        return kind, flip_case(rng, action)
    if kind == "parens":
        plain = " ".join(words)
        return kind, rng.choice(
            [
                plain,
                "(" + plain,
                plain + ")",
                "((" + plain + "))",
                "(" + verb + " (" + " ".join(args) + "))",
                ")" + plain + "(",
                "(" * rng.randint(2, 200) + plain,
                plain + ")" * 50,
                "()",
                "(" + plain + ")(" + plain + ")",
                "[" + plain + "]",
            ]
        )
    if kind == "call":
        return kind, f"{verb}({', '.join(args)})" + rng.choice(["", ";", ")", "\n"])
    if kind == "commas":
        return kind, rng.choice([", ", ",", " ,", ",,"]).join(words)
    if kind == "extra_arg":
        extra = [rng.choice(vocab) for _ in range(rng.randint(1, 3))]
        return kind, "(" + " ".join(words + extra) + ")"
    if kind == "missing_arg":
        return kind, "(" + " ".join(words[: rng.randint(0, max(0, len(words) - 1))]) + ")"
    if kind == "swap_args":
        shuffled = args[:]
        rng.shuffle(shuffled)
        return kind, "(" + " ".join([verb] + shuffled[::-1]) + ")"
    if kind == "joined":
        return kind, rng.choice(["\n", "; ", " and ", "\r\n", " then ", "\r"]).join(
            [action, rng.choice(vocab + [action])]
        )
    if kind == "words":
        return kind, " ".join(rng.choice(vocab + JUNK_WORDS) for _ in range(rng.randint(1, 6)))
    if kind == "control":
        return kind, mutate_text(rng, action, None) if rng.random() < 0.5 else "".join(
            rng.choice(CONTROL) for _ in range(rng.randint(1, 20))
        )
    if kind in ("nul", "emoji", "rtl", "combining", "surrogate"):
        return kind, mutate_text(rng, action, kind)
    if kind == "unicode":
        return kind, mutate_text(rng, action, rng.choice(list(UNICODE)))
    if kind == "blank":
        return kind, rng.choice(
            ["", " ", "\t", "\n", "\r\n", "\u3000", "\u00a0", "\x0b\x0c", "   \n\t  ", "\u200b"]
        )
    if kind == "numeric":
        return kind, rng.choice(
            [
                "0",
                "1",
                "-1",
                "99999999999999999999999",
                "1e308",
                "nan",
                "0x10",
                str(rng.randrange(-100, 100)),
            ]
        )
    if kind == "padding":
        pad = rng.choice([" ", "\t", "\n", "\u3000"]) * rng.choice([10, 9_999, 10_001, 100_000])
        return kind, rng.choice([pad + action, action + pad, pad + action + pad])
    # long: around the command limit and up to 1 MB
    size = rng.choice([9_999, 10_000, 10_001, 50_000, 300_000, 1_000_000])
    unit = rng.choice(
        [
            action + " ",
            "x",
            "(",
            ")",
            "\u00e9",
            "\U0001f600",
            "a" + "\u0301",
            verb + " " + " ".join(args + ["b"] * 5) + " ",
        ]
    )
    return kind, (unit * (size // len(unit) + 1))[:size]


class StrCommand(str):
    """A str subclass: still a command string."""


NON_STRINGS = [
    lambda a: None,
    lambda a: 3,
    lambda a: 2.5,
    lambda a: True,
    lambda a: a.encode(),
    lambda a: bytearray(a.encode()),
    lambda a: np.array(split_command(a)),
    lambda a: np.array([a]),
    lambda a: [a],
    lambda a: (a,),
    lambda a: {"action": a},
    lambda a: object(),
    lambda a: np.int64(0),
]


# -- the case runner ----------------------------------------------------------------------
class Hang(BaseException):
    """Raised by the watchdog in the main thread (a BaseException so that ``except
    Exception`` in the code under test does not swallow it)."""


def _alarm(signum, frame):
    raise Hang()


@contextmanager
def watchdog(seconds: float):
    """Raise Hang in the main thread after ``seconds`` (no-op off the main thread;
    the runner then judges hangs by elapsed time alone)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class Record:
    """What one case is doing: its input (set as soon as it is drawn), a label saying
    which generator made it, and its findings."""

    def __init__(self):
        self.input: object = None
        self.label = ""
        self.violations: list[tuple[str, str]] = []  # (type, message): contract broken
        self.outside: list[str] = []
        self.budget = BUDGET
        self.env_key: tuple[str, str] | None = None

    def violation(self, kind: str, message: str) -> None:
        self.violations.append((kind, message))


def cut(value: object, limit: int = INPUT_REPR) -> str:
    try:
        text = repr(value)
    except Exception as exc:  # a repr must not stop the campaign
        text = f"<unrepresentable {type(value).__name__}: {exc!r}>"
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def where(exc: BaseException) -> str:
    """The innermost frame of the traceback inside planloop (else the innermost)."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "/planloop/" in f.filename.replace("\\", "/")]
    kept = ours or frames
    if not kept:
        return "?"
    frame = kept[-1]
    name = frame.filename.replace("\\", "/")
    name = name[name.rfind("/planloop/") + 1 :] if "/planloop/" in name else Path(name).name
    return f"{name}:{frame.lineno} {frame.name}"


# -- target: commands to the environments -------------------------------------------------
ENV_IDS = list(ENVIRONMENTS)
FULLY_OBSERVABLE = (
    "PDDL-v0",
    "Blocksworld-v0",
    "Mystery-BW-v0",
    "MysteryRandom-BW-v0",
    "Baking-v0",
)
ALFWORLD_GAMES = 3  # generated games the ALFWorld cases draw from (made once, in setup)


def make_env(env_id: str, obs_format: str = "text"):
    kwargs: dict[str, Any] = {"obs_format": obs_format} if env_id in FULLY_OBSERVABLE else {}
    if env_id == "PDDL-v0":
        # the shipped Blocksworld domain; problems as Blocksworld-v0 writes them
        source = gym.make("Blocksworld-v0").unwrapped
        problems = []
        for instance in (0, 446, 500):
            _, info = source.reset(options={"instance": instance})
            problems.append(info["problem_pddl"])
        kwargs.update(domain=ENV_DATA / "blocksworld.pddl", problem=problems)
    if env_id == "ContingentPDDL-v0":  # the shipped sample's smallest, the blocks
        sample = ENV_DATA / "contingent" / "blocks2"
        kwargs.update(domain=sample / "domain.pddl", problem=sample / "problem.pddl")
    if env_id == "ALFWorld-v0":
        try:
            return gym.make(env_id)
        except FileNotFoundError:  # no ALFWorld logic files installed: the tests' copy
            return gym.make(env_id, logic_dir=ALFWORLD_LOGIC)
    return gym.make(env_id, **kwargs)


def snapshot(env):
    """The true state, comparable before and after a step."""
    inner = env.unwrapped
    if hasattr(inner, "state"):
        return inner.state
    return inner.world_pddl()  # CoinCollector updates its world in place


class EnvTarget:
    name = "env"

    def __init__(self):
        self.envs: dict[tuple[str, str], object] = {}
        self.keys: dict[tuple[str, str], set] = {}

    def env(self, env_id: str, obs_format: str):
        key = (env_id, obs_format)
        if key not in self.envs:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                env = make_env(env_id, obs_format)
                if env_id == "ALFWorld-v0":  # generate the games now, outside any case
                    for game in range(ALFWORLD_GAMES):
                        env.reset(seed=0, options={"instance": game})
                _, info = env.reset(seed=0)
            self.envs[key], self.keys[key] = env, set(info)
        return self.envs[key]

    def setup(self, cases: int) -> None:
        for index in range(min(cases, len(ENV_IDS))):
            self.env(ENV_IDS[index], "text")

    def budget(self, index: int) -> float:
        return BUDGET

    def recover(self, record: Record) -> None:
        """After a hang the env may be mid-step: make a new one next time."""
        if record.env_key is not None:
            self.envs.pop(record.env_key, None)

    def run(self, rng: random.Random, index: int, record: Record) -> None:
        env_id = ENV_IDS[index % len(ENV_IDS)]
        obs_format = rng.choice(["text", "text", "pddl"]) if env_id in FULLY_OBSERVABLE else "text"
        record.env_key = (env_id, obs_format)
        env = self.env(env_id, obs_format)
        keys = self.keys[record.env_key]
        options = {"instance": rng.randrange(ALFWORLD_GAMES)} if env_id == "ALFWorld-v0" else None
        obs, info = env.reset(seed=rng.randrange(2**31), options=options)
        for _ in range(rng.choice([0, 0, 1, 2, 3, 6])):  # a short random walk first
            if not info["admissible_actions"]:
                break
            obs, _, terminated, truncated, info = env.step(
                rng.choice(sorted(info["admissible_actions"]))
            )
            if terminated or truncated:
                obs, info = env.reset(seed=rng.randrange(2**31), options=options)
        admissible = sorted(info["admissible_actions"]) or ["look"]
        action = rng.choice(admissible)
        vocab = sorted(
            {w for a in admissible for w in split_command(a)} | set(str(obs).split()[:50])
        )
        roll = rng.random()
        if roll < 0.08:
            maker = rng.randrange(len(NON_STRINGS))
            command, kind = NON_STRINGS[maker](action), "non_string"
        elif roll < 0.11:
            command, kind = (np.str_ if rng.random() < 0.5 else StrCommand)(action), "str_type"
        else:
            kind, command = command_mutation(rng, action, vocab)
            if rng.random() < 0.25:  # and a second mutation on top
                second, command = command_mutation(rng, command, vocab)
                kind += "+" + second
        record.label = f"{env_id}[{obs_format}] {kind}"
        record.input = command
        before = snapshot(env)
        if kind == "non_string":
            try:
                env.step(command)
            except TypeError:
                if snapshot(env) != before:
                    record.violation(
                        "StateChanged", "a rejected non-string action changed the state"
                    )
                return
            record.violation("NoTypeError", f"a {type(command).__name__} action was accepted")
            return
        obs, reward, terminated, truncated, info = env.step(command)
        if not env.observation_space.contains(obs):
            bad = (
                sorted({c for c in obs if c not in env.observation_space.character_set})[:10]
                if isinstance(obs, str)
                else type(obs).__name__
            )
            size = len(obs) if isinstance(obs, str) else "-"
            record.outside.append(f"obs of length {size}, characters outside the charset: {bad!r}")
        if set(info) != keys:
            record.violation(
                "InfoKeys", f"info keys {sorted(set(info) ^ keys)} differ from the reset's"
            )
        if action_failure(info) is not None and snapshot(env) != before:
            record.violation(
                "StateChanged",
                "an invalid command changed the state "
                f"(action_error kind {info['action_error'].get('kind')!r})",
            )


# -- target: PDDL text to the reader, and to the planners ---------------------------------
IPC_TYPED_PROBLEM = """\
(define (problem BLOCKS-4-0)
(:domain BLOCKS)
(:objects D B A C - block)
(:INIT (CLEAR C) (CLEAR A) (CLEAR B) (CLEAR D) (ONTABLE C) (ONTABLE A)
 (ONTABLE B) (ONTABLE D) (HANDEMPTY))
(:goal (AND (ON D C) (ON C B) (ON B A)))
)
"""
_TOKENS = re.compile(r"\s+|\(|\)|[^\s()]+")
PROSE = [
    ("Here is the PDDL you asked for:\n```pddl\n", "\n```\nLet me know if this helps!"),
    ("Sure! ", ""),
    ("", "\n\nNote: I added the missing predicate."),
    ("```\n", "\n```"),
    ("<think>hmm</think>\n", ""),
    ("(define", ""),
    ("Domain:\n", "\nProblem:\n(define (problem p) (:domain d))"),
]


def pddl_sources(target_envs) -> list[tuple[str, str, str, float]]:
    """(name, domain text, problem text, weight) of the valid inputs mutated."""
    sources = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for env_id in ("Blocksworld-v0", "Mystery-BW-v0", "MysteryRandom-BW-v0", "Baking-v0"):
            env = gym.make(env_id).unwrapped
            for instance in (0, 3):
                _, info = env.reset(options={"instance": instance})
                sources.append(
                    (f"{env_id}#{instance}", info["domain_pddl"], info["problem_pddl"], 1.0)
                )
        sources.append(
            ("blocks_typed", (ENV_DATA / "blocks_typed.pddl").read_text(), IPC_TYPED_PROBLEM, 1.0)
        )
        coin = gym.make("CoinCollector-v0").unwrapped
        assert isinstance(coin, CoinCollectorEnv)
        coin.reset(seed=0)
        sources.append(("CoinCollector-world", *coin.world_pddl()[:2], 1.0))
        try:
            alfworld = target_envs.env("ALFWorld-v0", "text").unwrapped
            alfworld.reset(seed=0, options={"instance": 0})
            sources.append(("ALFWorld-world", *alfworld.world_pddl()[:2], 0.15))  # 0.2 s a load
        except Exception as exc:  # no logic files: the campaign goes on without it
            print(f"note: no ALFWorld PDDL source ({exc})", file=sys.stderr)
    return sources


PDDL_KINDS = {  # kind: weight
    "delete": 1,
    "duplicate": 1,
    "swap": 1,
    "replace": 1,
    "drop_paren": 1,
    "add_paren": 1,
    "unicode": 1,
    "control": 1,
    "line_ends": 1,
    "prose": 1,
    "case": 1,
    "truncate": 1,
    "lines": 1,
    "comments": 1,
    "empty": 0.5,
    "sentence": 0.5,
    "long_word": 0.5,
    "other_file": 0.5,
    "path_like": 0.5,
    "facts": 0.3,
    "nesting": 0.6,
    "limits": 0.12,
}
# Paths whose reading never ends or never stops growing: tried only in a child process
# with a memory cap (an unbounded read would take the whole machine down), like the
# texts grown to the reader's limits (a task of 20,000 objects may ground forever).
DEVICE_PATHS = ["/dev/zero", "/dev/urandom", "/dev/stdin", "/dev/full"]


def reader_limits():
    """The reader's limits (planloop.pddl.source.Limits), or the defaults it was
    written with when that module is not there."""
    try:
        from planloop.pddl.source import Limits

        return Limits()
    except ImportError:

        class Defaults:
            max_bytes, max_depth, max_objects = 8_000_000, 100, 20_000
            max_init_facts, max_goal_size = 200_000, 100_000

        return Defaults()


def mutate_pddl(rng: random.Random, text: str, other: str, side: str) -> tuple[str, str]:
    """(kind, ``text`` broken the ways models break PDDL)."""
    tokens = _TOKENS.findall(text)
    words = [i for i, t in enumerate(tokens) if not t.isspace()]
    kind = rng.choices(list(PDDL_KINDS), weights=list(PDDL_KINDS.values()))[0]
    if kind == "delete":
        for _ in range(rng.randint(1, 3)):
            tokens[rng.choice(words)] = ""
    elif kind == "duplicate":
        i = rng.choice(words)
        tokens[i] = tokens[i] + " " + tokens[i]
    elif kind == "swap":
        i, j = rng.choice(words), rng.choice(words)
        tokens[i], tokens[j] = tokens[j], tokens[i]
    elif kind == "replace":
        i = rng.choice(words)
        tokens[i] = rng.choice(
            JUNK_WORDS
            + [
                tokens[rng.choice(words)],
                "?" + tokens[i],
                ":" + tokens[i],
                tokens[i] + "-",
                "-",
                "--",
                "either",
                ":types",
                "object",
                "(",
                ")",
            ]
        )
    elif kind in ("drop_paren", "add_paren"):
        parens = [i for i in words if tokens[i] in "()"]
        for _ in range(rng.randint(1, 3)):
            i = rng.choice(parens)
            tokens[i] = "" if kind == "drop_paren" else tokens[i] * 2
    elif kind == "unicode":
        return kind, mutate_text(rng, text, rng.choice(list(UNICODE)))
    elif kind == "control":
        return kind, mutate_text(rng, text, None)
    elif kind == "line_ends":
        ends = rng.choice([["\r"], ["\r", "\n", "\r\n"], ["\u2028"], ["\x85", "\n"], ["\x0c"]])
        return kind, "".join(line + rng.choice(ends) for line in text.splitlines())
    elif kind == "prose":
        before, after = rng.choice(PROSE)
        return kind, before + text + after
    elif kind == "empty":
        return kind, rng.choice(
            [
                "",
                " ",
                "\n",
                "\t\n  ",
                "()",
                "(define)",
                "(define (domain))",
                ";; nothing here\n",
                "\ufeff",
            ]
        )
    elif kind == "sentence":
        return kind, rng.choice(
            [SENTENCE, "I cannot help with that.", "Sorry, as an AI...", "None", "null", "{}", "[]"]
        )
    elif kind == "long_word":
        word = "".join(rng.choice("abcdefghij-_") for _ in range(300))
        if rng.random() < 0.4:
            return kind, word  # a single line without parentheses reads as a file name
        tokens[rng.choice(words)] = word
    elif kind == "facts":
        return kind, _huge(rng, text)
    elif kind == "nesting":
        return kind, _nested(rng, text)
    elif kind == "limits":
        return _at_limits(rng, text, side)
    elif kind == "case":
        return kind, flip_case(rng, text)
    elif kind == "truncate":
        return kind, text[: rng.randrange(len(text) + 1)]
    elif kind == "lines":
        lines = text.splitlines()
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        op = rng.randrange(3)
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[j])
        else:
            lines[i], lines[j] = lines[j], lines[i]
        return kind, "\n".join(lines)
    elif kind == "other_file":
        return kind, other
    elif kind == "path_like":
        if rng.random() < 0.25:
            return "device_path", rng.choice(DEVICE_PATHS)
        return kind, rng.choice(
            [
                "domain.pddl",
                "/",
                "/etc",
                ".",
                "~",
                "\x00",
                "a\x00b",
                "/dev/null",
                "../../../../etc/hostname",
                "C:\\domain.pddl",
                "x" * 5000,
                "\udc80.pddl",
                "/proc/self/mem",
                "/etc/passwd",
                str(ROOT / "README.md"),
                str(ROOT),
            ]
        )
    elif kind == "comments":
        i = rng.choice(words)
        tokens[i] = rng.choice([";", "; (", ";)", "#", "//"]) + tokens[i]
    return kind, "".join(tokens)


def _huge(rng: random.Random, text: str) -> str:
    """A fact list (the :init, or a domain's :predicates) repeated many times."""
    copies = rng.choice([100, 1_000, 5_000])
    match = re.search(r"\(:init(.*?)\)\s*\(:goal", text, re.IGNORECASE | re.DOTALL) or re.search(
        r"\(:predicates(.*?)\)\s*\(:", text, re.IGNORECASE | re.DOTALL
    )
    if match is None:
        return text * 100
    body = match.group(1)
    return text[: match.start(1)] + (body + "\n") * copies + text[match.end(1) :]


def _nested(rng: random.Random, text: str) -> str:
    limit = reader_limits().max_depth
    depth = rng.choice(
        [limit - 5, limit - 2, limit - 1, limit, limit + 1, limit + 5, 10_000, 200_000]
    )
    style = rng.randrange(4)
    if style == 0:  # deep (and ...) in the goal or a precondition
        at = text.lower().find("(:goal")
        at = at if at >= 0 else max(0, text.lower().find(":precondition"))
        cut_at = text.find("(", at + 1)
        if cut_at < 0:
            return "(" * depth + text + ")" * depth
        return text[:cut_at] + "(and " * depth + text[cut_at:].replace(")", ")" * (depth + 1), 1)
    if style == 1:  # around the whole text
        return "(" * depth + text + ")" * depth
    if style == 2:  # unclosed
        return text + "(" * depth
    return text + ")" * depth


def _at_limits(rng: random.Random, text: str, side: str) -> tuple[str, str]:
    """``text`` grown to just under or just over one of the reader's size limits."""
    limits = reader_limits()
    over = rng.random() < 0.5
    field = rng.choice(
        ["max_bytes", "max_objects", "max_init_facts", "max_goal_size"]
        if side == "problem"
        else ["max_bytes", "max_objects"]
    )
    count = getattr(limits, field) + (1 if over else -1)
    kind = f"limits:{field}{'+1' if over else '-1'}"
    lower = text.lower()
    if field == "max_bytes":
        pad = "\n; " + "x" * 997
        filler = (pad * (count // len(pad) + 1))[: max(0, count - len(text))]
        return kind, text + filler
    if field == "max_objects":
        at = lower.find("(:objects") if side == "problem" else -1
        if at >= 0:  # keep the declared ones, then add up to the limit
            declared = text[at + len("(:objects") : form_end(text, at) - 1].split()
            count -= len(declared) - 2 * declared.count("-")
            at += len("(:objects")
            return kind, text[:at] + " " + " ".join(f"o{i}" for i in range(count)) + " " + text[at:]
        names = " ".join(f"o{i}" for i in range(count))
        at = lower.find("(:predicates")
        at = at if at >= 0 else lower.find("(:action")
        return kind, text[:at] + f"(:constants {names})\n  " + text[at:]
    if field == "max_init_facts":
        match = re.search(r"\(:init\s*(\([^()]*\))", text, re.IGNORECASE)
        if match is None:
            return kind, text
        fact = match.group(1)
        return kind, text[: match.end(1)] + (" " + fact) * (count - 1) + text[match.end(1) :]
    start = lower.find("(:goal")
    atom = (
        re.search(r"\((?!and\b)[^()]*\)", text[start + 1 :], re.IGNORECASE) if start >= 0 else None
    )
    if atom is None:
        return kind, text
    end = form_end(text, start)
    return kind, text[:start] + "(:goal (and " + " ".join(
        [atom.group(0)] * (count - 1)
    ) + "))" + text[end:]


def form_end(text: str, start: int) -> int:
    """The index just past the parenthesized form opening at ``start``."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


SANDBOX = r"""
import json, resource, sys, traceback
limit = 1_500_000_000
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from planloop.pddl import PDDLError, load
with open(sys.argv[1], encoding="utf-8") as f:
    domain, problem = json.load(f)
try:
    task = load(domain, problem)
    actions = task.applicable(task.init)  # and the task is usable
    task.is_goal(task.init)
    if actions:
        actions[0].apply(task.init)
    print(json.dumps({"outcome": "task"}))
except PDDLError:
    print(json.dumps({"outcome": "PDDLError"}))
except BaseException as exc:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/planloop/" in f.filename]
    place = frames[-1] if frames else None
    where = (place.filename[place.filename.rfind("/planloop/") + 1:] + f":{place.lineno} "
             + place.name) if place else "?"
    print(json.dumps({"outcome": "crash", "type": type(exc).__name__,
                      "message": str(exc)[:300], "where": where,
                      "traceback": "".join(traceback.format_exception(exc))[-4000:]}))
"""


class SandboxedCrash(Exception):
    """An exception that ended a case run in a child process."""

    def __init__(self, kind: str, message: str, place: str, child_traceback: str = ""):
        super().__init__(message)
        self.kind, self.place, self.child_traceback = kind, place, child_traceback


def load_in_child(domain: str, problem: str, budget: float) -> None:
    """``load`` in a memory-capped child process: raises SandboxedCrash or Hang."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        inputs = Path(folder) / "inputs.json"
        inputs.write_text(json.dumps([domain, problem]), encoding="utf-8")
        try:
            done = subprocess.run(
                [sys.executable, "-c", SANDBOX, str(inputs)],
                capture_output=True,
                text=True,
                timeout=budget,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            raise Hang() from None
    lines = done.stdout.strip().splitlines()
    if not lines:
        raise SandboxedCrash(f"exit {done.returncode}", done.stderr.strip()[-300:], "sandbox")
    answer = json.loads(lines[-1])
    if answer["outcome"] == "crash":
        raise SandboxedCrash(
            answer["type"], answer["message"], answer["where"], answer.get("traceback", "")
        )


class PddlTarget:
    name = "pddl"
    SOLVE_EVERY = 100  # one case in a hundred calls the planners (each spawns Fast Downward)
    SOLVE_TIMEOUT = 2.0

    def __init__(self, envs: EnvTarget):
        self.envs = envs
        self.sources: list[tuple[str, str, str, float]] | None = None

    def setup(self, cases: int) -> None:
        from planloop.pddl import load

        self.sources = pddl_sources(self.envs)
        for _name, domain, problem, _ in self.sources:  # every source itself is valid
            load(domain, problem)

    def solving(self, index: int) -> bool:
        return index % self.SOLVE_EVERY == self.SOLVE_EVERY // 2

    def budget(self, index: int) -> float:
        return BUDGET + (self.SOLVE_TIMEOUT if self.solving(index) else 0)

    def recover(self, record: Record) -> None:
        pass

    def run(self, rng: random.Random, index: int, record: Record) -> None:
        from planloop.pddl import PDDLError, load

        sources = self.sources
        assert sources is not None  # setup() reads them
        name, domain, problem, _ = rng.choices(sources, weights=[s[3] for s in sources])[0]
        side = rng.choice(["domain", "problem", "problem", "both"])
        kinds = []
        if side in ("domain", "both"):
            kind, domain = mutate_pddl(rng, domain, problem, "domain")
            kinds.append("domain:" + kind)
        if side in ("problem", "both"):
            kind, problem = mutate_pddl(rng, problem, domain, "problem")
            kinds.append("problem:" + kind)
        # what may eat the machine's memory is read in a child process, never solved
        sandboxed = any(k in kind for kind in kinds for k in ("device_path", "limits:"))
        solving = self.solving(index) and not sandboxed
        record.label = f"{'solve ' if solving else ''}{name} {' '.join(kinds)}"
        record.input = (
            {side: domain}
            if side == "domain"
            else {side: problem}
            if side == "problem"
            else {"domain": domain, "problem": problem}
        )
        if solving:
            return self._solve(rng, domain, problem, record)
        if sandboxed:
            return load_in_child(domain, problem, record.budget - 1)
        try:
            task = load(domain, problem)
        except PDDLError as exc:
            check_pddl_error(exc, record)
            return
        actions = task.applicable(task.init)  # and the task is usable
        task.is_goal(task.init)
        if actions:
            actions[0].apply(task.init)

    def _solve(self, rng: random.Random, domain: str, problem: str, record: Record) -> None:
        from planloop.pddl import PDDLError, PlanResult, load, solve, validate

        planner = rng.choice(["lama-first", "lama-first", "bfs", "astar"])
        record.label += f" [{planner}]"
        result = solve(domain, problem, planner=planner, timeout=self.SOLVE_TIMEOUT)
        if not isinstance(result, PlanResult):
            record.violation("NotPlanResult", f"solve returned {cut(result, 80)}")
            return
        statuses = ("solved", "unsolvable", "timeout", "out_of_memory", "invalid_input", "error")
        if result.status not in statuses:
            record.violation("BadStatus", f"solve status {result.status!r}")
        if result.status == "solved":
            try:
                report = validate(load(domain, problem), list(result.plan or ()))
            except PDDLError as exc:
                record.violation("SolvedUnreadable", f"solved, but load raised: {exc}"[:300])
                return
            if not report.valid:
                record.violation("InvalidPlan", f"solve's plan fails: {report.advice}"[:300])


def check_pddl_error(exc: Exception, record: Record) -> None:
    from planloop.pddl import Diagnostic

    diagnostics = getattr(exc, "diagnostics", None)
    if not diagnostics or not all(
        isinstance(d, Diagnostic) and isinstance(d.message, str) for d in diagnostics
    ):
        record.violation(
            "BadDiagnostics", f"PDDLError without well-formed diagnostics: {cut(diagnostics, 120)}"
        )


# -- target: plans to the validator -------------------------------------------------------
MAX_PLAN_TEXT = 5_000_000  # the largest plan text generated, in characters
PLAN_JUNK = [
    "Plan:",
    "Here is the plan:",
    "```",
    "```pddl",
    "1.",
    "Step:",
    "- ",
    "* ",
    "...",
    "; cost = 4 (unit cost)",
    "(",
    ")",
    "()",
    "END",
    "Done!",
    SENTENCE,
    "0.000: (",
    "[1]",
    "Step 1: ",
    "#",
    "\t",
    "\u2022 (x)",
    "(a)(b)(c)",
]


def plan_formats(rng: random.Random, steps: list[str]) -> str:
    """A valid plan written one of the ways planners and models write plans."""
    style = rng.randrange(6)
    lines = []
    for i, step in enumerate(steps, start=1):
        words = split_command(step)
        lines.append(
            [
                step,
                f"{i}. {step}",
                f"Step {i}: {' '.join(words)}",
                f"{i - 1}.000: {step} [1]",
                f"{words[0]}({', '.join(words[1:])})",
                step.upper(),
            ][style]
        )
    return "\n".join(lines)


class PlanTarget:
    name = "plan"

    def __init__(self, pddl: PddlTarget):
        self.pddl = pddl
        self.tasks: list[tuple[str, Task, list[str]]] | None = None

    def setup(self, cases: int) -> None:
        from planloop.pddl import load, solve

        sources = self.pddl.sources
        if sources is None:
            sources = self.pddl.sources = pddl_sources(self.pddl.envs)
        self.tasks = []
        for name, domain, problem, _ in sources:
            if not name.startswith(("Blocksworld", "Mystery", "Baking#0", "blocks_typed")):
                continue
            task = load(domain, problem)
            result = solve(domain, problem, planner="lama-first", timeout=30)
            plan = list(result.plan or [])
            self.tasks.append((name, task, plan))

    def budget(self, index: int) -> float:
        return BUDGET

    def recover(self, record: Record) -> None:
        pass

    def run(self, rng: random.Random, index: int, record: Record) -> None:
        from planloop.pddl import PDDLError, PlanReport, validate

        assert self.tasks is not None  # setup() loads them
        name, task, plan = rng.choice(self.tasks)
        kind, value = self._plan(rng, task, plan)
        record.label, record.input = f"{name} {kind}", value
        try:
            report = validate(task, value)
        except PDDLError as exc:
            check_pddl_error(exc, record)
            return
        if not isinstance(report, PlanReport):
            record.violation("NotPlanReport", f"validate returned {cut(report, 80)}")
        elif report.valid and (report.final_state is None or not task.is_goal(report.final_state)):
            record.violation("ValidWithoutGoal", "a valid report whose final state misses the goal")
        elif not isinstance(report.advice, str):
            record.violation("BadAdvice", f"advice {cut(report.advice, 80)}")

    def _plan(self, rng: random.Random, task, plan: list[str]):
        vocab = sorted({w for step in plan for w in split_command(step)}) or ["a"]
        steps = plan[:] or ["(look)"]
        roll = rng.random()
        if roll < 0.10:  # not text at all
            text = plan_formats(rng, steps)
            return "non_text", rng.choice(
                [
                    None,
                    0,
                    7,
                    2.5,
                    True,
                    text.encode(),
                    bytearray(text.encode()),
                    {"plan": text},
                    object(),
                    [None],
                    [1, 2],
                    [steps],
                    [b"(x)"],
                    np.array(steps),
                    (s for s in steps),
                    [steps[0], 3],
                ]
            )
        if roll < 0.25:  # a list of commands
            items = [command_mutation(rng, s, vocab)[1] if rng.random() < 0.3 else s for s in steps]
            return "list", items if rng.random() < 0.8 else tuple(items)
        lines = plan_formats(rng, steps).split("\n")
        kinds = []
        for _ in range(rng.randint(1, 3)):
            op = rng.choice(
                [
                    "delete",
                    "duplicate",
                    "swap",
                    "command",
                    "junk",
                    "unicode",
                    "line_ends",
                    "huge",
                    "long_line",
                    "one_line",
                    "empty",
                    "case",
                    "prose",
                ]
            )
            kinds.append(op)
            i = rng.randrange(len(lines)) if lines else 0
            if not lines:
                lines = [""]
            if op == "delete":
                del lines[i]
            elif op == "duplicate":
                lines.insert(i, lines[i])
            elif op == "swap":
                j = rng.randrange(len(lines))
                lines[i], lines[j] = lines[j], lines[i]
            elif op == "command":
                lines[i] = command_mutation(rng, lines[i], vocab)[1]
            elif op == "junk":
                lines.insert(i, rng.choice(PLAN_JUNK + JUNK_WORDS))
            elif op == "unicode":
                lines[i] = mutate_text(rng, lines[i], rng.choice(list(UNICODE)))
            elif op == "line_ends":
                sep = rng.choice(["\r", "\r\n", "\u2028", "\x85", "\x0b", "\x1e", "\n\n\n"])
                lines = [sep.join(lines)]
            elif op == "huge":  # up to about MAX_PLAN_TEXT
                size = sum(len(line) + 1 for line in lines)
                lines = lines * max(
                    1, min(rng.choice([100, 10_000, 50_000]), MAX_PLAN_TEXT // max(1, size))
                )
            elif op == "long_line":
                lines[i] = lines[i] + " " + "x" * rng.choice([300, 100_000, 1_000_000])
            elif op == "one_line":
                lines = [" ".join(lines)]
            elif op == "empty":
                lines = [rng.choice(["", " ", "\n", "```\n```"])]
            elif op == "case":
                lines[i] = flip_case(rng, lines[i])
            elif op == "prose":
                lines = [SENTENCE] + lines + ["Hope this helps."]
        return "text:" + "+".join(kinds), "\n".join(lines)


# -- target: model replies to the chat client ---------------------------------------------
DEADLINE = 2.0  # the client's total deadline and Retry-After cap, when it has them
GOOD_USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}


def completion(message: object, **fields) -> dict:
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": dict(GOOD_USAGE),
    }
    body.update(fields)
    return body


def garbage(rng: random.Random, depth: int = 0) -> object:
    """A small random JSON value."""
    pick = rng.randrange(9 if depth < 3 else 6)
    if pick == 0:
        return None
    if pick == 1:
        return rng.choice([True, False])
    if pick == 2:
        return rng.choice([0, -1, 2**63, -(2**70), 3, 10**30])
    if pick == 3:
        return rng.choice([0.5, -2.5, 1e308, -0.0])
    if pick == 4:
        return rng.choice(["", "x", "\u0000", "\ud83d\ude00", "NaN", "-1", "null"])
    if pick == 5:
        return mutate_text(rng, "text")
    if pick == 6:
        return [garbage(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {
        rng.choice(["content", "role", "name", "x", ""]): garbage(rng, depth + 1)
        for _ in range(rng.randint(0, 3))
    }


def mutated_completion(rng: random.Random) -> tuple[str, dict]:
    message: dict[str, object] = {"role": "assistant", "content": "(attack a)"}
    body: Any = completion(message)  # any JSON value once mutated
    field = rng.choice(
        [
            "content",
            "message",
            "choices",
            "tool_calls",
            "usage",
            "model",
            "finish_reason",
            "top",
            "extra",
            "missing",
            "role",
        ]
    )
    if field == "content":
        message["content"] = rng.choice(
            [
                None,
                5,
                -1.5,
                True,
                ["a", "b"],
                [{"type": "text", "text": "hi"}],
                {"text": "hi"},
                "",
                "x" * 100_000,
                garbage(rng),
            ]
        )
    elif field == "message":
        body["choices"][0]["message"] = rng.choice([None, "hi", 3, [], {}, [message], garbage(rng)])
    elif field == "choices":
        body["choices"] = rng.choice(
            [
                [],
                "hi",
                None,
                0,
                {},
                [None],
                [{}],
                [[]],
                ["x"],
                [{"message": message}] * 50,
                garbage(rng),
            ]
        )
    elif field == "tool_calls":
        message["tool_calls"] = rng.choice(
            [
                "garbage",
                5,
                {},
                [None],
                [5],
                ["x"],
                [{}],
                [{"function": None}],
                [{"id": "c", "type": "function", "function": {"name": 5, "arguments": {"a": 1}}}],
                [{"id": None, "type": "function", "function": {"name": None, "arguments": None}}],
                [
                    {
                        "id": "c",
                        "type": "function",
                        "function": {"name": "act", "arguments": "{not json"},
                    }
                ],
                [{"id": "c", "type": "function", "function": {"name": "act", "arguments": "{}"}}]
                * 30,
                [{"id": "c", "type": "nonsense", "function": "act"}],
                garbage(rng),
            ]
        )
    elif field == "usage":
        body["usage"] = rng.choice(
            [
                None,
                "lots",
                5,
                [],
                {},
                {"prompt_tokens": "11", "completion_tokens": "7"},
                {"prompt_tokens": -5, "completion_tokens": -1},
                {"prompt_tokens": 1.5},
                {"prompt_tokens": None, "completion_tokens": None},
                {"prompt_tokens": 10**30},
                {"prompt_tokens": True, "completion_tokens": False},
                {"prompt_tokens": "NaN"},
                {"prompt_tokens": [1]},
                {"completion_tokens": {"x": 1}},
                garbage(rng),
            ]
        )
    elif field == "model":
        body["model"] = rng.choice([None, 5, "", [], {"x": 1}])
    elif field == "finish_reason":
        body["choices"][0]["finish_reason"] = rng.choice([None, "length", 5, "content_filter"])
    elif field == "top":
        body = rng.choice(
            [
                None,
                [],
                "hi",
                5,
                [body],
                {"error": {"message": "overloaded"}},
                {"error": "x"},
                {"object": "error", "message": "bad"},
            ]
        )
    elif field == "extra":
        body[rng.choice(["x", "choices_", "system_fingerprint"])] = garbage(rng)
    elif field == "missing":
        body.pop(rng.choice(["id", "choices", "usage", "model", "object", "created"]))
    else:
        message["role"] = rng.choice([None, "user", 5, "tool"])
    return field, body


def raw_body(rng: random.Random) -> tuple[str, tuple]:
    good = json.dumps(completion({"role": "assistant", "content": "(attack a)"})).encode()
    kind = rng.choice(
        [
            "truncated",
            "random_bytes",
            "deep",
            "sse",
            "html",
            "content_type",
            "bad_utf8",
            "bom",
            "empty",
            "gzip",
            "length_short",
            "length_long",
            "chunked",
            "nan",
            "huge",
            "duplicate_keys",
            "status_body",
            "bomb",
        ]
    )
    status, headers = 200, {}
    if kind == "truncated":
        body = good[: rng.randrange(len(good))]
    elif kind == "random_bytes":
        body = bytes(rng.randrange(256) for _ in range(rng.randint(0, 2000)))
    elif kind == "deep":
        depth = rng.choice([100, 1_000, 100_000])
        body = (
            (b"[" * depth + b"]" * depth)
            if rng.random() < 0.5
            else (b'{"choices": ' + b'{"a":' * depth + b"1" + b"}" * depth + b"}")
        )
    elif kind == "sse":
        chunk = {
            "id": "x",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": None}],
        }
        body = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
        headers = {"Content-Type": rng.choice(["text/event-stream", "application/json"])}
    elif kind == "html":
        body = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
        headers = {"Content-Type": "text/html"}
    elif kind == "content_type":
        body = good
        headers = {
            "Content-Type": rng.choice(
                [
                    "text/plain",
                    "application/octet-stream",
                    "image/png",
                    "",
                    "application/json; charset=x",
                ]
            )
        }
    elif kind == "bad_utf8":
        body = good.replace(b"(attack a)", b"\xff\xfe\xc3(")
    elif kind == "bom":
        body = b"\xef\xbb\xbf" + good
    elif kind == "empty":
        body = b""
    elif kind == "gzip":
        body = b"\x1f\x8b\x08\x00garbage"
        headers = {"Content-Encoding": rng.choice(["gzip", "br", "deflate", "zstd"])}
    elif kind == "length_short":
        body = good
        headers = {"Content-Length": str(len(good) - rng.randint(1, 20))}
    elif kind == "length_long":
        body = good
        headers = {"Content-Length": str(len(good) + rng.choice([1, 1000, 10**9]))}
    elif kind == "chunked":
        body = good if rng.random() < 0.5 else b"5\r\nhello\r\nzz\r\n"
        headers = {"Transfer-Encoding": "chunked"}
    elif kind == "nan":
        body = good.replace(b"11", rng.choice([b"NaN", b"Infinity", b"-Infinity", b"1e999"]))
    elif kind == "huge":
        body = json.dumps(
            completion({"role": "assistant", "content": "x" * rng.choice([10**5, 5 * 10**6])})
        ).encode()
    elif kind == "duplicate_keys":
        body = good[:-1] + b', "choices": null}'
    elif kind == "bomb":  # a completion of 9 or 64 MiB, at most 64 KiB on the wire
        encoding = rng.choice(["gzip", "deflate", "gzip, gzip"])
        body = compressed_bomb(encoding, rng.choice([9, 64]) * 2**20)  # made once: 1 s
        headers = {"Content-Encoding": encoding}
    else:
        status = rng.choice([200, 201, 204, 299, 301, 302, 304, 400, 429, 500, 503, 999])
        body = good if rng.random() < 0.5 else b"{}"
        if status in (301, 302):
            headers = {
                "Location": rng.choice(["http://127.0.0.1:1/", "/v1/chat/completions", "ftp://x"])
            }
    return kind, ("raw", status, headers, body)


@functools.cache
def compressed_bomb(encoding: str, size: int) -> bytes:
    """A chat completion whose content is ``size`` bytes, compressed as ``encoding``
    (``gzip``, ``deflate``, ``gzip, gzip``), made a MiB at a time (never whole)."""
    codings = [c.strip() for c in encoding.split(",")]
    packers = [zlib.compressobj(9, zlib.DEFLATED, 31 if c == "gzip" else 15) for c in codings]

    def pack(data: bytes, final: bool = False) -> bytes:
        for packer in packers:
            data = packer.compress(data) + (packer.flush() if final else b"")
        return data

    head, tail = json.dumps(completion({"role": "assistant", "content": "X"})).split('"X"')
    piece = b"x" * 2**20
    parts = [pack(head.encode() + b'"')]
    parts += [pack(piece) for _ in range(size // len(piece))]
    parts.append(pack(b'"' + tail.encode(), final=True))
    return b"".join(parts)


def retry_after(rng: random.Random) -> dict:
    value = rng.choice(
        [
            "0",
            "1",
            "-5",
            "abc",
            "99999",
            "1e9",
            "NaN",
            "0.01",
            "",
            "Wed, 21 Oct 2015 07:28:00 GMT",
            "Fri, 31 Dec 9999 23:59:59 GMT",
        ]
    )
    return rng.choice(
        [
            {"Retry-After": value},
            {"retry-after-ms": value},
            {"Retry-After": value, "retry-after-ms": "5"},
        ]
    )


def model_script(rng: random.Random) -> tuple[str, list]:
    """(kind, a FakeChatServer script) for one call."""
    roll = rng.random()
    if roll < 0.35:
        field, body = mutated_completion(rng)
        return f"json:{field}", [("json", body)]
    if roll < 0.62:
        kind, item = raw_body(rng)
        return f"raw:{kind}", [item]
    if roll < 0.80:
        code = rng.choice([400, 401, 403, 404, 408, 409, 413, 422, 429, 429, 500, 502, 503, 504])
        first = ("status", code, retry_after(rng)) if rng.random() < 0.5 else ("status", code)
        second = rng.choice(
            [("ok", "after the retry"), ("status", 500), ("json", mutated_completion(rng)[1])]
        )
        return f"status:{code}{'+retry-after' if len(first) == 3 else ''}", [first, second]
    if roll < 0.95:
        if rng.random() < 0.5:
            text = rng.choice(
                [
                    "",
                    " ",
                    "(attack a)",
                    mutate_text(rng, "(feast a b)"),
                    "x" * 200_000,
                    "\ud800",
                    "\x00" * 10,
                ]
            )
            return "ok", [("ok", text)]
        arguments = rng.choice(
            ['{"command": "(attack a)"}', "{not json", "", "null", "[]", '"x"', "\x00", "{" * 1000]
        )
        return "tool", [("tool", rng.choice(["act", "", "\u202e", "x" * 1000]), arguments)]
    if roll < 0.975:
        seconds = rng.choice([0.2, 0.6, 1.3, 3.0])
        return f"slow:{seconds}", [("slow", seconds, "late"), ("ok", "on time")]
    good = json.dumps(completion({"role": "assistant", "content": "(attack a)"})).encode()
    per_byte = rng.choice([0.005, 0.02, 0.05])  # 1.5 s to 15 s for the whole body
    return f"drip:{per_byte}", [("drip", good, per_byte)]


class ModelTarget:
    name = "model"

    def __init__(self):
        self.server = None
        self.options = {}

    def setup(self, cases: int) -> None:
        from planloop.llm import OpenAIChat

        parameters = inspect.signature(OpenAIChat.__init__).parameters
        self.options = {"timeout": 1, "max_retries": 1, "backoff": 0.01}
        for name in ("deadline", "max_retry_after"):
            if name in parameters:
                self.options[name] = DEADLINE
        self._start()

    def _start(self) -> None:
        from planloop.llm.fake_server import FakeChatServer

        if self.server is not None:
            self.server.__exit__(None, None, None)
        self.server = FakeChatServer([]).__enter__()

    def close(self) -> None:
        if self.server is not None:
            self.server.__exit__(None, None, None)
            self.server = None

    def budget(self, index: int) -> float:
        # with a total deadline a call is bounded by it; without, by the retries' timeouts
        return DEADLINE + 3 if "deadline" in self.options else BUDGET

    def recover(self, record: Record) -> None:
        self._start()

    def run(self, rng: random.Random, index: int, record: Record) -> None:
        from planloop.llm import ChatResponse, LLMError, OpenAIChat

        kind, script = model_script(rng)
        record.label, record.input = kind, script
        server = self.server
        assert server is not None  # setup() starts it
        server.script[:] = script
        server.requests.clear()
        model = OpenAIChat("m", base_url=server.url, **self.options)
        tools = (
            [
                {
                    "type": "function",
                    "function": {
                        "name": "act",
                        "parameters": {
                            "type": "object",
                            "properties": {"command": {"type": "string"}},
                        },
                    },
                }
            ]
            if kind == "tool"
            else None
        )
        try:
            reply = model.complete([{"role": "user", "content": "next action?"}], tools=tools)
        except LLMError:
            return
        finally:
            client = getattr(model, "_client", None)
            if client is not None:
                client.close()
        if not isinstance(reply, ChatResponse):
            record.violation("NotChatResponse", f"complete returned {cut(reply, 80)}")
            return
        if not isinstance(reply.text, str):
            record.violation("TextNotStr", f"text is {cut(reply.text, 80)}")
        usage = reply.usage
        for name in ("calls", "prompt_tokens", "completion_tokens", "cached_calls"):
            value = getattr(usage, name, None)
            if type(value) is not int or value < 0:
                record.violation("BadUsage", f"usage.{name} = {cut(value, 60)}")
        seconds = getattr(usage, "seconds", None)
        if not isinstance(seconds, (int, float)) or not math.isfinite(seconds) or seconds < 0:
            record.violation("BadUsage", f"usage.seconds = {cut(seconds, 60)}")
        for call in reply.tool_calls:
            if not isinstance(call.name, str) or not isinstance(call.arguments, str):
                record.violation("BadToolCall", f"tool call {cut(call, 120)}")
        if kind == "raw:bomb":
            record.violation("BombRead", f"a reply of {len(reply.text):,} bytes was read whole")
        if script[0][0] == "ok" and reply.text != script[0][1]:
            record.violation(
                "TextChanged", f"sent {cut(script[0][1], 60)}, got {cut(reply.text, 60)}"
            )


# -- the campaign --------------------------------------------------------------------------
def split_cases(cases: int, targets) -> dict[str, int]:
    """``cases`` shared among ``targets`` by WEIGHTS; the shares sum to ``cases``."""
    total = sum(WEIGHTS[t] for t in targets)
    shares = {t: int(cases * WEIGHTS[t] / total) for t in targets}
    for t in sorted(targets, key=lambda t: -WEIGHTS[t])[: cases - sum(shares.values())]:
        shares[t] += 1
    return shares


def make_targets() -> dict:
    envs = EnvTarget()
    pddl = PddlTarget(envs)
    return {
        "env": envs,
        "pddl": pddl,
        "plan": PlanTarget(pddl),
        "model": ModelTarget(),
        **{name: make() for name, make in BOUNDARY.TARGETS.items()},
    }


def run_case(
    target, seed: int, index: int, slack: float = 1.0
) -> tuple[Record, BaseException | None, float, bool]:
    """Run case ``index``: (record, exception or None, seconds, hung). ``slack``
    multiplies the case's wall-clock budget (a loaded machine)."""
    rng = random.Random(f"{seed}/{target.name}/{index}")
    record = Record()
    record.budget = target.budget(index) * slack
    error, hung = None, False
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with watchdog(record.budget):
                target.run(rng, index, record)
    except Hang:
        hung = True
    except Exception as exc:  # every other exception is a crash, recorded
        error = exc
    seconds = time.perf_counter() - start
    if seconds > record.budget:  # past the budget (the watchdog off, or swallowed)
        hung = True
    return record, error, seconds, hung


def run_target(target, cases: int, seed: int, progress=None, slack: float = 1.0) -> dict:
    result: dict[str, Any] = {
        "cases": 0,
        "crashes": [],
        "hangs": [],
        "outside_space": [],
        "violations": 0,
        "slowest": {"seconds": 0.0},
        "seconds": 0.0,
        "coverage": {},
    }
    start = time.perf_counter()
    target.setup(cases)
    result["setup_seconds"] = round(time.perf_counter() - start, 3)
    for index in range(cases):
        record, error, seconds, hung = run_case(target, seed, index, slack)
        result["cases"] += 1
        source = record.label.split(" ")[0]  # the env, PDDL source, task or reply kind
        result["coverage"][source] = result["coverage"].get(source, 0) + 1
        reproducer = {
            "seed": seed,
            "case": index,
            "replay": f"--seed {seed} --replay {target.name}:{index}",
            "label": record.label,
            "input": cut(record.input),
        }
        if hung:
            result["hangs"].append(
                {**reproducer, "seconds": round(seconds, 3), "budget": record.budget}
            )
            target.recover(record)
        elif error is not None:
            if isinstance(error, SandboxedCrash):
                crash_type, place = error.kind, error.place
            else:
                crash_type, place = type(error).__name__, where(error)
            result["crashes"].append(
                {
                    **reproducer,
                    "type": crash_type,
                    "message": str(error)[:300],
                    "where": place,
                }
            )
        for kind, message in record.violations:
            result["violations"] += 1
            result["crashes"].append(
                {**reproducer, "type": kind, "message": message[:300], "where": "contract"}
            )
        for message in record.outside:
            result["outside_space"].append({**reproducer, "message": message[:300]})
        if seconds > result["slowest"]["seconds"]:
            result["slowest"] = {
                "seconds": round(seconds, 4),
                "case": index,
                "label": record.label,
                "input": cut(record.input, 120),
            }
        if progress:
            progress(target.name, index + 1, cases)
    result["seconds"] = round(time.perf_counter() - start, 3)
    return result


def run_campaign(
    cases: int = 10_000, seed: int = 0, targets=TARGETS, progress=None, slack: float = 1.0
) -> dict:
    """Run ``cases`` generated cases split over ``targets``; the results by target.
    ``slack`` multiplies every case's wall-clock budget (for a loaded machine)."""
    unknown = set(targets) - set(TARGETS)
    if unknown:
        raise ValueError(f"unknown targets {sorted(unknown)}; choose from {TARGETS}")
    targets = [t for t in TARGETS if t in set(targets)]
    shares = split_cases(cases, targets)
    made = make_targets()
    results = {}
    start = time.perf_counter()
    try:
        for name in targets:
            results[name] = run_target(made[name], shares[name], seed, progress, slack)
    finally:
        for target in made.values():
            if hasattr(target, "close"):
                target.close()
    return {
        "seed": seed,
        "cases": cases,
        "targets": results,
        "seconds": round(time.perf_counter() - start, 3),
        "python": platform.python_version(),
        "planloop": planloop.__version__,
    }


def failures(campaign: dict) -> int:
    return sum(
        len(r["crashes"]) + len(r["hangs"]) + len(r["outside_space"])
        for r in campaign["targets"].values()
    )


def markdown(campaign: dict) -> str:
    lines = [
        "| target | cases | crashes | hangs | outside space | slowest case s |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, r in campaign["targets"].items():
        slow = r["slowest"]
        lines.append(
            f"| {name} | {r['cases']} | {len(r['crashes'])} | {len(r['hangs'])} "
            f"| {len(r['outside_space'])} | {slow['seconds']:.3f} "
            f"(#{slow.get('case', '-')} {slow.get('label', '')}) |"
        )
    total = campaign["targets"].values()
    lines.append(
        f"| **all** | {sum(r['cases'] for r in total)} "
        f"| {sum(len(r['crashes']) for r in total)} "
        f"| {sum(len(r['hangs']) for r in total)} "
        f"| {sum(len(r['outside_space']) for r in total)} "
        f"| {max((r['slowest']['seconds'] for r in total), default=0):.3f} |"
    )
    return "\n".join(lines)


def details(campaign: dict, examples: int = 2) -> str:
    """Failures grouped by (target, type, place), each with a count and reproducers."""
    out = []
    for name, r in campaign["targets"].items():
        groups: dict[tuple, list] = {}
        for crash in r["crashes"]:
            groups.setdefault(("crash", crash["type"], crash["where"]), []).append(crash)
        for hang in r["hangs"]:
            groups.setdefault(("hang", "Hang", hang["label"].split(" ")[0]), []).append(hang)
        for outside in r["outside_space"]:
            groups.setdefault(
                ("outside", "OutsideSpace", outside["label"].split(" ")[0]), []
            ).append(outside)
        for (what, kind, place), items in sorted(groups.items(), key=lambda g: -len(g[1])):
            first = items[0]
            message = first.get(
                "message", f"{first.get('seconds')} s over a {first.get('budget')} s budget"
            )
            out.append(
                f"- {name} {what} x{len(items)}: {kind} at {place}: "
                f"{message.splitlines()[0][:160] if message else ''}"
            )
            for item in items[:examples]:
                out.append(f"    - `{item['replay']}` [{item['label']}] input {item['input']}")
    return "\n".join(out)


def replay(target_name: str, index: int, seed: int) -> int:
    """Run one case and print its input, findings and traceback."""
    target = make_targets()[target_name]
    target.setup(1)
    try:
        record, error, seconds, hung = run_case(target, seed, index)
    finally:
        if hasattr(target, "close"):
            target.close()
    print(f"{target_name} case {index} (seed {seed}) [{record.label}] {seconds:.3f} s")
    print(f"input: {cut(record.input, 2000)}")
    for kind, message in record.violations:
        print(f"violation {kind}: {message}")
    for message in record.outside:
        print(f"outside space: {message}")
    if hung:
        print(f"hang: over the {record.budget} s budget")
    if isinstance(error, SandboxedCrash):
        print(f"in the child process: {error.kind}: {error}\n{error.child_traceback}")
    elif error is not None:
        traceback.print_exception(type(error), error, error.__traceback__)
    return int(hung or error is not None or bool(record.violations or record.outside))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000, help="cases in all targets")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--targets", default=",".join(TARGETS), help=f"comma-separated, of {','.join(TARGETS)}"
    )
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    parser.add_argument(
        "--replay",
        metavar="TARGET:CASE",
        help="run one case of the campaign and print its traceback",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    args = parser.parse_args(argv)
    if args.replay:
        name, _, index = args.replay.partition(":")
        return replay(name, int(index), args.seed)
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]

    live = sys.stderr.isatty()  # redraw one line on a terminal, else a line per update

    def progress(name, done, total):
        if not args.quiet and (done % 100 == 0 or done == total):
            print(
                f"\r{name}: {done}/{total}" if live else f"{name}: {done}/{total}",
                end="" if live and done < total else "\n",
                file=sys.stderr,
                flush=True,
            )

    campaign = run_campaign(args.cases, args.seed, targets, progress)
    print(
        f"fuzz campaign: {sum(r['cases'] for r in campaign['targets'].values())} cases, "
        f"seed {args.seed}, {campaign['seconds']:.1f} s, Python {campaign['python']}\n"
    )
    print(markdown(campaign))
    found = failures(campaign)
    if found:
        print("\nFailures (grouped; replay one with the command shown):\n")
        print(details(campaign))
    if args.json:
        args.json.write_text(json.dumps(campaign, indent=2, default=str))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
