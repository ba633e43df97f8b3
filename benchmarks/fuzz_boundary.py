"""The trust boundary's attack families for ``benchmarks/fuzz.py``: hostile MCP clients,
damaged results files, PDDL built to explode and the exit paths (a target each, seeded
like the others).

- ``mcp``: calls to a :class:`planloop.mcp.sessions.SessionRegistry` rooted at a folder
  that holds a domain and a problem, beside a secret file outside it: paths outside the
  root (absolute, ``..``, a link in the root pointing out, a linked folder), paths into
  it, PDDL text with the secret's marker, long and broken text, ``env_kwargs`` paths,
  guessed and real session ids, floods of starts; a folder of problems whose second
  member links to a secret problem outside the root (``env_kwargs`` ``problem`` or
  ``instances``); tools/call lines nested from just under to far over the transport's
  ``MAX_DEPTH``, as the stdio transport parses and screens them; any keyword argument
  or reset option of any registered environment (read from its signature) handed a
  path outside the root, a contingent ``hidden`` world among them; a link in the root
  that another process swaps between a file in it and the secret while sessions read
  it; batches and ids that are not a string or an integer. Contract: no answer or
  error holds the secret, and nothing outside the root is opened or listed; an error
  quotes at most 80 characters of one input; an unknown id gets "no such session" and
  nothing more; no more sessions live than the cap; the linked member is refused; a
  line nested deeper than ``MAX_DEPTH`` gets a JSON-RPC error (-32600) with its id, a
  shallower one goes through; a batch or an odd id gets -32600.
- ``results``: ``episodes.jsonl`` files of valid planner-baseline records with lines
  damaged (cut, typed wrong, keys dropped, bytes that are not UTF-8, lone surrogates,
  huge lines, nested up to 100,000 deep, fields the table reads of the wrong type or
  past a float) read as a study reads them, then tabled. Contract: never raises; every
  record kept fits the study's schema; every other line is set aside with its line
  number; the table is made from what is kept.
- ``explosion``: PDDL whose size grows with a parameter (a ``forall`` over k variables
  and n objects, chains and trees of types, nested ``when``, wide ``:init``) through
  ``load`` and ``solve(planner="auto", timeout=2)``. Contract: a task, a PDDLError
  (naming the limit when one is met) or a PlanResult, within the case's budget.
- ``exits``: the exit paths of issue 32. An ``:init`` asserting (or, contingent,
  declaring unknown) a fact and denying it, in one section or two, in any order, read
  by ``parse`` (default or strict) or ``solve``; a results path that is a folder, a
  pipe, under a file or whose set-aside file is a folder; ``gym.make`` with a
  ``render_mode`` outside the metadata; steps after an episode was won; (issue 40) a
  study's flag given a hostile value (out of range, not a number, huge, a domain's size
  below its minimum), and a task whose goal holds at reset. Contract: the
  contradiction is a PDDLError at a line and column naming the fact (a denial alone
  stays a warning); a results path is a one-line ResultsError; a render mode a
  ValueError; a step after the end pays 0, stays terminated and keeps the info's shape,
  its ``action_error`` of kind ``episode_over``; a flag value is accepted or is the
  parser's usage error (exit 2: a usage line and an error line, before any work), a
  size below a domain's minimum always refused; a goal that holds at reset is won
  there, a step after it is a step after the end, and ``run_episode`` records it won
  in 0 steps without asking the policy.
- ``belief``: contingent problems whose belief work grows with a parameter, each case
  one kind in turn: an ``or`` whose first disjunct is known true over n unknown atoms
  (a precondition or in the goal), ``or`` clauses chaining n atoms with no solution, a
  ``oneof`` over up to 20,000 atoms, a precondition true in every world that no split
  separates, ``gold_path`` where a ``oneof`` over 300 atoms meets 14 toggles, and issue
  40's: K-replanner's ``at-most-one`` over up to 12,000 atoms, one sensing step
  observing up to 5,000 atoms, an ``or`` of every pair of 150 atoms, 20,000 random
  binary clauses, cp2fsc ``:variable`` values under 13 nested foralls or of two
  parameters over 200 objects, and a duplicate ``:variable``, through
  ``gym.make("ContingentPDDL-v0")``, ``reset`` and one step (or ``gold_path()``).
  Contract: a step, or a one-line ValueError naming ``max_belief_work``,
  ``max_expansion``, ``max_ground_facts``, ``gold_path``'s budget or the empty initial
  belief (a duplicate: its line and column), within 5 s (``gold_path``: 30 s), never a
  MemoryError.
"""

from __future__ import annotations

import inspect
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from planloop.mcp.sessions import SessionRegistry

SECRET = "planloop-fuzz-secret-9f3c"
EXCERPT = 80
DOMAIN = """(define (domain d) (:requirements :strips)
  (:predicates (on ?a ?b) (clear ?a))
  (:action move :parameters (?a ?b) :precondition (clear ?a) :effect (on ?a ?b)))"""
PROBLEM = """(define (problem p) (:domain d) (:objects a b c)
  (:init (clear a)) (:goal (on a b)))"""


class McpTarget:
    name = "mcp"

    def setup(self, cases: int) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="planloop-fuzz-mcp-"))
        root, outside = self.folder / "root", self.folder / "outside"
        root.mkdir()
        outside.mkdir()
        (root / "domain.pddl").write_text(DOMAIN)
        (root / "problem.pddl").write_text(PROBLEM)
        (root / "broken.pddl").write_text(f"(define (problem p) (:domain d) {SECRET}")
        (outside / "secret.pddl").write_text(f"(define (domain {SECRET}))\n{SECRET}\n")
        (outside / "problem.pddl").write_text(PROBLEM.replace("a b c", f"a b c {SECRET}"))
        (root / "link.pddl").symlink_to(outside / "secret.pddl")
        (root / "out").symlink_to(outside)
        (root / "probs").mkdir()
        (root / "probs" / "a.pddl").write_text(PROBLEM)
        (root / "probs" / "b.pddl").symlink_to(outside / "problem.pddl")  # instance 1
        (root / "swapped.pddl").symlink_to(root / "problem.pddl")  # the race's link
        from planloop.envs import contingent

        shutil.copytree(
            Path(contingent.__file__).parent / "data" / "contingent" / "blocks2", root / "blocks2"
        )
        self.root, self.outside = root, outside
        self.registry: SessionRegistry | None = None
        self.opened: list[str] | None = None  # files opened outside the root, while watched
        self._keywords: dict[str, list[str]] = {}
        sys.addaudithook(self._watch)

    def _watch(self, event: str, args: tuple) -> None:
        """Audit hook: each file opened or folder listed outside the root, while watched."""
        if self.opened is None or event not in ("open", "os.listdir", "os.scandir"):
            return
        if args and isinstance(args[0], (str, bytes, os.PathLike)):
            path = os.path.abspath(os.fsdecode(args[0]))
            if Path(path).is_relative_to(self.outside):
                self.opened.append(path)

    def keywords(self, env_id: str) -> list[str]:
        """The keyword arguments of ``env_id``: its creator's, and where the creator
        passes ``**kwargs`` on, those of the environment it makes."""
        if env_id not in self._keywords:
            import gymnasium as gym
            from gymnasium.envs.registration import load_env_creator

            from planloop.envs import ENVIRONMENTS

            params = inspect.signature(load_env_creator(ENVIRONMENTS[env_id][0])).parameters
            names = {p.name for p in params.values() if p.kind is not p.VAR_KEYWORD}
            if any(p.kind is p.VAR_KEYWORD for p in params.values()):
                env = gym.make(env_id)
                made = inspect.signature(type(env.unwrapped).__init__).parameters.values()
                names |= {p.name for p in made if p.kind is p.POSITIONAL_OR_KEYWORD}
                env.close()
            self._keywords[env_id] = sorted(names - {"self"})
        return self._keywords[env_id]

    def budget(self, index: int) -> float:
        return 10.0

    def recover(self, record) -> None:
        self.registry = None

    def close(self) -> None:
        if hasattr(self, "folder"):
            shutil.rmtree(self.folder, ignore_errors=True)

    def run(self, rng: random.Random, index: int, record) -> None:
        from planloop.mcp.sandbox import Sandbox
        from planloop.mcp.sessions import SessionRegistry

        if self.registry is None or rng.random() < 0.2:
            self.registry = SessionRegistry(Sandbox.of([self.root]), max_sessions=4)
        kind, call = self._call(rng)
        record.label, record.input = f"mcp:{kind}", call
        sent = json.dumps(call[1], default=str)
        self.opened = []
        try:
            answer = self._send(call)
        except ValueError as exc:  # a tool error: SessionError, SandboxError, PDDLError
            self._check_error(str(exc), call, sent, record)
        else:
            text = json.dumps(answer, default=str)
            if SECRET in text and SECRET not in sent:
                record.violation("SecretLeaked", f"an answer holds the secret: {text[:120]}")
            if kind == "folder_link" and call[1]["instance"] == 1:
                record.violation("LinkFollowed", f"a member linked out was read: {text[:120]}")
            if kind == "deep":
                self._check_screened(call[1], answer, record)
            if kind == "odd_line":
                self._check_refused(call[1], answer, record)
        finally:
            opened, self.opened = self.opened, None
        if opened:
            record.violation("OpenedOutside", f"opened outside the root: {opened[0]}")
        if len(self.registry) > self.registry.max_sessions:
            record.violation("OverCap", f"{len(self.registry)} sessions live")

    def _call(self, rng: random.Random) -> tuple[str, tuple]:
        outside = str(self.outside / "secret.pddl")
        paths = [
            outside,
            str(self.root / ".." / "outside" / "secret.pddl"),
            str(self.root / "link.pddl"),
            str(self.root / "out" / "secret.pddl"),
            "../outside/secret.pddl",
            "/etc/passwd",
            "/dev/zero",
            "/proc/self/environ",
            "~/.ssh/id_rsa",
            "\x00",
            "",
            " " * 3,
        ]
        kind = rng.choice(
            [
                "path_out",
                "env_kwargs_out",
                "start_inside",
                "broken_inside",
                "text",
                "long_text",
                "guess_id",
                "real_id",
                "flood",
                "folder_link",
                "deep",
                "argument_out",
                "hidden_out",
                "race",
                "odd_line",
            ]
        )
        if kind == "path_out":
            domain, problem = rng.choice(
                [(rng.choice(paths), PROBLEM), (DOMAIN, rng.choice(paths))]
            )
            return kind, ("start", {"domain": domain, "problem": problem})
        if kind == "env_kwargs_out":
            key = rng.choice(["domain", "problem", "instances", "game_file"])
            env_id = rng.choice(["PDDL-v0", "Blocksworld-v0", "ALFWorld-v0"])
            return kind, ("start", {"env_id": env_id, "env_kwargs": {key: rng.choice(paths)}})
        if kind == "start_inside":
            return kind, (
                "start",
                {
                    "domain": str(self.root / "domain.pddl"),
                    "problem": rng.choice(["problem.pddl", str(self.root / "problem.pddl")]),
                },
            )
        if kind == "broken_inside":
            return kind, ("start", {"domain": "domain.pddl", "problem": "broken.pddl"})
        if kind == "text":
            cut = rng.randrange(len(PROBLEM))
            return kind, ("start", {"domain": DOMAIN, "problem": PROBLEM[:cut] + SECRET})
        if kind == "long_text":
            junk = "(" + rng.choice(["x", SECRET, "\u202e", "("]) * rng.choice([100, 10_000])
            return kind, ("start", {"domain": junk, "problem": PROBLEM})
        if kind == "guess_id":
            return kind, ("run", rng.choice(["s1", "s2", "", "0", SECRET, "x" * 500]))
        if kind == "real_id":
            return kind, ("real", rng.choice(["state", "applicable_actions", "history"]))
        if kind == "folder_link":
            env_id = rng.choice(["PDDL-v0", "Blocksworld-v0", "ContingentPDDL-v0"])
            folder = rng.choice(["probs", str(self.root / "probs"), "out/../root/probs"])
            env_kwargs = (
                {"instances": folder}
                if env_id == "Blocksworld-v0"
                else {"domain": "domain.pddl", "problem": folder}
            )
            instance = rng.choice([0, 1])
            return kind, (
                "start",
                {"env_id": env_id, "instance": instance, "env_kwargs": env_kwargs},
            )
        if kind == "deep":
            from planloop.mcp.sandbox import MAX_DEPTH

            levels = [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 150, 199, 200, 400, 10_000]
            return kind, ("wire", rng.choice(levels))
        if kind == "argument_out":
            from planloop.envs import ENVIRONMENTS
            from planloop.envs.arguments import CONTINGENT_RESET_OPTIONS

            env_id = rng.choice(list(ENVIRONMENTS))
            path = rng.choice(paths[:5] + [str(self.outside), "out", [outside]])
            if rng.random() < 0.2:
                option = rng.choice(CONTINGENT_RESET_OPTIONS)
                return kind, ("start", {"env_id": env_id, "options": {option: path}})
            key = rng.choice(self.keywords(env_id))
            return kind, ("start", {"env_id": env_id, "env_kwargs": {key: path}})
        if kind == "hidden_out":
            task = {"domain": "blocks2/domain.pddl", "problem": "blocks2/problem.pddl"}
            hidden = rng.choice(paths[:5] + ["out/problem.pddl"])
            where = rng.choice(["env_kwargs", "options"])
            env_kwargs = {**task, "hidden": hidden} if where == "env_kwargs" else task
            options = {"hidden": hidden} if where == "options" else None
            return kind, (
                "start",
                {"env_id": "ContingentPDDL-v0", "env_kwargs": env_kwargs, "options": options},
            )
        if kind == "race":
            return kind, ("race", rng.randint(20, 40))
        if kind == "odd_line":
            odd = rng.choice([{"a": 1}, [1], None, True, 1.5, "batch", "empty batch"])
            return kind, ("odd", odd)
        return kind, ("flood", rng.randint(5, 12))

    def _send(self, call: tuple) -> object:
        what, argument = call
        assert self.registry is not None  # run() makes one first
        if what == "start":
            return self.registry.start(**argument)
        if what == "run":
            return self.registry.run(argument, "state")
        if what == "real":
            opened = self.registry.start(domain=DOMAIN, problem=PROBLEM)
            return self.registry.run(opened["session_id"], argument)
        if what == "wire":
            return self._screened(argument)
        if what == "race":
            return self._race(argument)
        if what == "odd":
            return self._odd(argument)
        answers = []
        for _ in range(argument):
            try:
                answers.append(self.registry.start(domain=DOMAIN, problem=PROBLEM))
            except ValueError as exc:
                if "too many sessions" not in str(exc):
                    raise
        return answers

    @staticmethod
    def _screened(levels: int) -> object:
        """What planloop-mcp's stdio transport makes of a tools/call line nested
        ``levels`` deep (the message itself counted): the message, or its error."""
        from mcp.shared.message import SessionMessage
        from mcp.types import jsonrpc_message_adapter

        from planloop.mcp.wire import screen

        nest = "[" * (levels - 3) + "]" * (levels - 3)
        line = (
            '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": '
            f'{{"name": "get_state", "arguments": {{"session_id": {nest}}}}}}}'
        )
        try:
            item: SessionMessage | Exception = SessionMessage(
                jsonrpc_message_adapter.validate_json(line)
            )
        except ValueError as exc:  # what the transport hands the server
            item = exc
        return screen(item)

    def _race(self, reads: int) -> list:
        """``reads`` sessions started on the root's link ``swapped.pddl`` (read by the
        sandbox, or by an environment) while another process swaps it between the
        problem in the root and the secret one outside: their answers, errors as text."""
        assert self.registry is not None
        swapper = subprocess.Popen(
            [
                sys.executable,
                "-c",
                _SWAP,
                str(self.root / "swapped.pddl"),
                str(self.outside / "problem.pddl"),
                str(self.root / "problem.pddl"),
            ]
        )
        answers: list = []
        try:
            for attempt in range(reads):
                start = (
                    {"domain": DOMAIN, "problem": "swapped.pddl"}
                    if attempt % 2
                    else {
                        "env_id": "PDDL-v0",
                        "env_kwargs": {"domain": "domain.pddl", "problem": "swapped.pddl"},
                    }
                )
                try:
                    opened = self.registry.start(**start)
                    answers.append(opened)
                    self.registry.close(opened["session_id"])
                except ValueError as exc:
                    answers.append(str(exc))
        finally:
            swapper.kill()
            swapper.wait()
            (self.root / "swapped.pddl").unlink(missing_ok=True)
            (self.root / "swapped.pddl").symlink_to(self.root / "problem.pddl")
        return answers

    @staticmethod
    def _odd(odd: object) -> object:
        """The errors planloop-mcp's stdio transport answers a line with: a batch (two
        requests and a notification, or none) or a request whose id is ``odd``."""
        from planloop.mcp.wire import refused

        request = {"jsonrpc": "2.0", "method": "tools/list"}
        line = (
            [{**request, "id": 1}, {**request, "id": "b"}, request]
            if odd == "batch"
            else []
            if odd == "empty batch"
            else {**request, "id": odd}
        )
        return refused(json.dumps(line))

    @staticmethod
    def _check_refused(odd: object, answer: object, record) -> None:
        from mcp.types import INVALID_REQUEST

        ids = [1, "b"] if odd == "batch" else [None]
        if not isinstance(answer, list) or [a.id for a in answer] != ids:
            record.violation("OddUnanswered", f"{odd!r}: {str(answer)[:120]}")
        elif any(a.error.code != INVALID_REQUEST for a in answer):
            record.violation("OddUnanswered", f"{odd!r}: not -32600: {str(answer)[:120]}")

    @staticmethod
    def _check_screened(levels: int, answer: object, record) -> None:
        from mcp.shared.message import SessionMessage
        from mcp.types import INVALID_REQUEST, JSONRPCError

        from planloop.mcp.sandbox import MAX_DEPTH

        if levels > MAX_DEPTH:
            if not (
                isinstance(answer, JSONRPCError)
                and answer.id == 7
                and answer.error.code == INVALID_REQUEST
            ):
                record.violation("DeepUnanswered", f"{levels} levels: {str(answer)[:120]}")
        elif not isinstance(answer, SessionMessage):
            record.violation("ShallowRefused", f"{levels} levels: {str(answer)[:120]}")

    @staticmethod
    def _check_error(message: str, call: tuple, sent: str, record) -> None:
        if SECRET in message and SECRET not in sent:
            record.violation("SecretLeaked", f"an error holds the secret: {message[:160]}")
        if "root:x:0:0" in message:
            record.violation("FileLeaked", "an error holds /etc/passwd")
        echoed = _longest_run(message, sent)
        if echoed > EXCERPT + 2:
            record.violation(
                "LongEcho", f"an error quotes {echoed} characters of the input: {message[:160]}"
            )
        if call[0] == "run" and message != "no such session":
            record.violation("IdLeak", f"an unknown id got: {message[:160]}")


_SWAP = """
import os, sys
link, targets = sys.argv[1], sys.argv[2:]
spare = link + ".spare"
while True:
    for target in targets:
        if os.path.lexists(spare):
            os.unlink(spare)
        os.symlink(target, spare)
        os.replace(spare, link)
"""


def _longest_run(message: str, source: str) -> int:
    """The length of the longest stretch of ``message`` that also appears in ``source``."""
    best = 0
    for start in range(len(message)):
        size = best + 1
        while start + size <= len(message) and message[start : start + size] in source:
            best = size
            size += 1
    return best


class ResultsTarget:
    name = "results"

    def setup(self, cases: int) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="planloop-fuzz-results-"))

    def budget(self, index: int) -> float:
        return 10.0

    def recover(self, record) -> None:
        pass

    def close(self) -> None:
        if hasattr(self, "folder"):
            shutil.rmtree(self.folder, ignore_errors=True)

    def run(self, rng: random.Random, index: int, record) -> None:
        from planloop.protocols.planner_baseline.study import (
            PlannerBaselineRecord,
            by_configuration,
            summarize,
        )
        from planloop.results import ResultsFile
        from planloop.study.jobs import Study

        study = Study("planner_baseline", "Mystery-BW-v0", record=PlannerBaselineRecord)
        lines = [
            json.dumps(
                {
                    "key": f"k/{i}/0",
                    "study": study.name,
                    "instance": i,
                    "trial": 0,
                    "won": rng.random() < 0.5,
                    "error": None,
                    "plan_length": rng.randint(0, 40),
                    "planner_seconds": rng.random(),
                    "status": "solved",
                    "provenance": {"env": study.env_id, "settings": {"timeout": 60.0}},
                }
            ).encode()
            for i in range(rng.randint(1, 8))
        ]
        damaged = [self._damage(rng, line) if rng.random() < 0.4 else line for line in lines]
        data = b"\n".join(damaged) + (b"\n" if rng.random() < 0.8 else b"")
        path = self.folder / f"{index}.jsonl"
        path.write_bytes(data)
        record.label, record.input = "results", data[:300]
        results = ResultsFile(path, study.record_problem)
        bad = [r for r in results.records if study.record_problem(r) is not None]
        if bad:
            record.violation("InvalidKept", f"kept {bad[0]!r}"[:200])
        counted = len(results.records) + len(results.set_aside)
        if counted != sum(1 for line in data.splitlines() if line.strip()):
            record.violation("LineLost", f"{counted} lines accounted for")
        results.damage_report()
        summarize(by_configuration(results.records))  # the study's table of what is kept

    @staticmethod
    def _damage(rng: random.Random, line: bytes) -> bytes:
        record = json.loads(line)
        kind = rng.choice(
            [
                "cut",
                "won",
                "instance",
                "drop",
                "bytes",
                "surrogate",
                "huge",
                "array",
                "key",
                "deep",
                "typed",
            ]
        )
        if kind == "cut":
            return line[: rng.randrange(1, len(line))]
        if kind == "won":
            record["won"] = rng.choice(["yes", 1, None, [True], "true"])
        elif kind == "instance":
            record["instance"] = rng.choice(["0", 1.5, True, None, -1])
        elif kind == "drop":
            record.pop(rng.choice(["study", "instance", "trial", "key"]))
        elif kind == "bytes":
            return line[:5] + bytes(rng.randrange(256) for _ in range(8)) + line[5:]
        elif kind == "surrogate":
            record["note"] = "\ud800 \udfff"
        elif kind == "huge":
            record["note"] = "x" * 1_000_000
        elif kind == "array":
            return b"[" + line + b"]"
        elif kind == "deep":  # around MAX_RECORD_DEPTH (100), and far past it
            depth = rng.choice([99, 100, 101, 5_000, 100_000])
            record["note"] = "DEEP"
            head, tail = json.dumps(record).encode().split(b'"DEEP"')
            return head + b"[" * depth + b"]" * depth + tail
        elif kind == "typed":  # a field the table reads, of the wrong type
            field, value = rng.choice(
                [
                    ("plan_length", "ten"),
                    ("plan_length", 10**400),
                    ("planner_seconds", 10**400),
                    ("planner_seconds", float("inf")),
                    ("seconds", float("nan")),
                    ("status", ["solved"]),
                    ("provenance", {"settings": [1, 2]}),
                    ("provenance", {"request": {"dropped": "temperature"}}),
                    ("usage", {"calls": "3"}),
                ]
            )
            record[field] = value
        else:
            record["key"] = rng.choice([None, 7, "", ["k"]])
        return json.dumps(record).encode()


class ExplosionTarget:
    name = "explosion"

    def setup(self, cases: int) -> None:
        pass

    def budget(self, index: int) -> float:
        return 10.0

    def recover(self, record) -> None:
        pass

    def run(self, rng: random.Random, index: int, record) -> None:
        from planloop.pddl import PDDLError, PlanResult, load, solve

        kind = rng.choice(["forall", "type_chain", "type_tree", "when", "wide_init"])
        domain, problem = getattr(self, f"_{kind}")(rng)
        record.label, record.input = f"explosion:{kind}", (domain[:150], problem[:150])
        try:
            if rng.random() < 0.3:
                result = solve(domain, problem, planner="auto", timeout=2)
                if not isinstance(result, PlanResult):
                    record.violation("NotPlanResult", repr(result)[:120])
            else:
                load(domain, problem)
        except PDDLError as exc:
            if not str(exc).strip():
                record.violation("EmptyError", "a PDDLError without a message")

    @staticmethod
    def _objects(count: int) -> str:
        return " ".join(f"o{i}" for i in range(count))

    def _forall(self, rng: random.Random) -> tuple[str, str]:
        k, n = rng.randint(1, 6), rng.choice([5, 20, 40])
        variables = " ".join(f"?v{i}" for i in range(k))
        domain = (
            f"(define (domain d) (:requirements :adl) (:predicates (p {variables}) (q))"
            f" (:action a :parameters () :precondition (forall ({variables}) "
            f"(p {variables})) :effect (q)))"
        )
        return domain, (
            f"(define (problem x) (:domain d) (:objects {self._objects(n)}) (:init) (:goal (q)))"
        )

    @staticmethod
    def _type_chain(rng: random.Random) -> tuple[str, str]:
        n = rng.choice([100, 2_000, 8_000, 20_000])
        types = " ".join(f"t{i + 1} - t{i}" for i in range(n))
        domain = (
            f"(define (domain d) (:requirements :typing) (:types t0 {types}) "
            f"(:predicates (p ?x - t0)) (:action a :parameters (?x - t{n}) "
            f":precondition (and) :effect (p ?x)))"
        )
        return domain, (
            f"(define (problem x) (:domain d) (:objects o - t{n}) (:init) (:goal (p o)))"
        )

    @staticmethod
    def _type_tree(rng: random.Random) -> tuple[str, str]:
        n = rng.choice([100, 5_000, 30_000])
        types = " ".join(f"t{i} - t{(i - 1) // 2}" for i in range(1, n))
        domain = (
            f"(define (domain d) (:requirements :typing) (:types t0 {types}) "
            f"(:predicates (p ?x - t0)) (:action a :parameters (?x - t0) "
            f":precondition (and) :effect (p ?x)))"
        )
        return domain, (
            f"(define (problem x) (:domain d) (:objects o - t{n - 1}) (:init) (:goal (p o)))"
        )

    def _when(self, rng: random.Random) -> tuple[str, str]:
        depth, n = rng.choice([3, 10, 50]), rng.choice([3, 30])
        effect = "(q)"
        for i in range(depth):
            effect = f"(forall (?w{i}) (when (p ?w{i}) {effect}))"
        domain = (
            f"(define (domain d) (:requirements :adl) (:predicates (p ?x) (q)) "
            f"(:action a :parameters () :precondition (and) :effect {effect}))"
        )
        init = " ".join(f"(p o{i})" for i in range(n))
        return domain, (
            f"(define (problem x) (:domain d) (:objects {self._objects(n)}) "
            f"(:init {init}) (:goal (q)))"
        )

    def _wide_init(self, rng: random.Random) -> tuple[str, str]:
        n = rng.choice([100, 1_000, 3_000])
        domain = (
            "(define (domain d) (:predicates (e ?a ?b) (q)) (:action a :parameters "
            "(?a ?b) :precondition (e ?a ?b) :effect (q)))"
        )
        init = " ".join(f"(e o{i} o{(i * 7) % n})" for i in range(n * 3))
        return domain, (
            f"(define (problem x) (:domain d) (:objects {self._objects(n)}) "
            f"(:init {init}) (:goal (q)))"
        )


EXIT_DOMAIN = """(define (domain d) (:predicates (p ?x) (q ?x))
  (:action go :parameters (?x) :precondition (p ?x) :effect (q ?x)))"""
PROBLEM_GO = "(define (problem x) (:domain d) (:objects a) (:init (p a)) (:goal (q a)))"
ENDED_ENVS = ("PDDL-v0", "CoinCollector-v0", "Contingent-Blocks-v0", "ALFWorld-v0")
BAD_RENDER_MODES = (1, 0, -1, 2.5, b"ansi", "rgb_array", "ansi_list", "ANSI", "", ["ansi"])


class ExitsTarget:
    name = "exits"

    def setup(self, cases: int) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="planloop-fuzz-exits-"))
        self.envs: dict = {}

    def budget(self, index: int) -> float:
        return 10.0

    def recover(self, record) -> None:
        self.envs.clear()

    def close(self) -> None:
        for env in getattr(self, "envs", {}).values():
            env.close()
        if hasattr(self, "folder"):
            shutil.rmtree(self.folder, ignore_errors=True)

    def run(self, rng: random.Random, index: int, record) -> None:
        kind = rng.choice(
            ["contradiction", "results", "render_mode", "after_end", "flags", "won_at_reset"]
        )
        record.label = f"exits:{kind}"
        getattr(self, f"_{kind}")(rng, index, record)

    @staticmethod
    def _contradiction(rng: random.Random, index: int, record) -> None:
        from planloop.pddl import PDDLError, parse, solve

        contingent = rng.random() < 0.3
        fact = f"(p o{rng.randrange(3)})"
        other = f"(unknown {fact})" if contingent and rng.random() < 0.5 else fact
        noise = " ".join(f"(q o{i})" for i in range(rng.randrange(3)))
        denied = rng.random() < 0.9  # else the denial names another fact: a warning
        first, second = rng.sample([other, f"(not {fact if denied else '(q o9)'})"], 2)
        two = rng.random() < 0.5
        if two:
            sections = f"(:init {noise} {first})\n(:init {second})"
        else:
            sections = f"(:init {first} {noise}\n {second})"
        problem = (
            f"(define (problem x) (:domain d) (:objects o0 o1 o2 o9)\n{sections}\n(:goal (q o0)))"
        )
        strict = rng.random() < 0.3
        record.input = (problem, contingent, strict)
        expected = denied and not (strict and two)  # strict refuses a second ':init' unread
        if not contingent and rng.random() < 0.2:
            result = solve(EXIT_DOMAIN, problem, planner="auto", timeout=2, strict=strict)
            refused = result.status == "invalid_input"
            if expected and not (refused and f"'{fact}' is both" in result.message):
                record.violation("Contradiction", f"solve: {result.status}: {result.message}")
            elif not denied and not strict and refused:
                record.violation("Contradiction", f"a lone denial refused: {result.message}")
            return
        try:
            parse(EXIT_DOMAIN, problem, strict=strict, contingent=contingent)
        except PDDLError as exc:
            found = [d for d in exc.diagnostics if "and false in ':init'" in d.message]
            if expected and not found:
                record.violation("Contradiction", f"another error: {exc}"[:200])
            elif found and not expected:
                record.violation("Contradiction", f"refused without one: {exc}"[:200])
            elif found and not (fact in found[0].message and found[0].line and found[0].col):
                record.violation("Contradiction", f"no place or fact: {found[0]}"[:200])
        else:
            if expected:
                record.violation("Contradiction", "read as a meaning")

    def _results(self, rng: random.Random, index: int, record) -> None:
        from planloop.results import ResultsError, ResultsFile

        case = self.folder / str(index)
        case.mkdir()
        path = case / "episodes.jsonl"
        how = rng.choice(["folder", "pipe", "under_a_file", "torn_folder"])
        record.input = how
        if how == "folder":
            path.mkdir()
        elif how == "pipe":
            os.mkfifo(path)
        elif how == "under_a_file":
            (case / "file").write_text("")
            path = case / "file" / "episodes.jsonl"
        else:
            path.write_text('{"key": "a"}\nnot json\n')
            (case / "episodes.jsonl.torn").mkdir()
        try:
            ResultsFile(path)
        except ResultsError as exc:
            if "\n" in str(exc) or str(path) not in str(exc):
                record.violation("ResultsPath", f"not one line naming the path: {exc}")
        else:
            record.violation("ResultsPath", f"{how} read as a results file")

    @staticmethod
    def _render_mode(rng: random.Random, index: int, record) -> None:
        import gymnasium as gym

        from planloop.envs import ENVIRONMENTS, TWX_ENVIRONMENTS

        env_id = rng.choice([*ENVIRONMENTS, *TWX_ENVIRONMENTS])
        mode = rng.choice(BAD_RENDER_MODES)
        record.input = (env_id, mode)
        try:
            gym.make(env_id, render_mode=mode, **_exit_kwargs(env_id))
        except ValueError as exc:
            if "render_mode" not in str(exc):
                record.violation("RenderMode", f"another ValueError: {exc}"[:200])
        else:
            record.violation("RenderMode", f"{mode!r} accepted")

    def _after_end(self, rng: random.Random, index: int, record) -> None:
        import gymnasium as gym

        from planloop.envs.pddl_env import PDDLEnv
        from planloop.envs.text_env import EPISODE_OVER
        from planloop.pddl.search import breadth_first

        env_id = rng.choice(ENDED_ENVS)
        env = self.envs.get(env_id)
        if env is None:
            env = self.envs[env_id] = gym.make(env_id, **_exit_kwargs(env_id))
        seed = rng.randrange(4)
        _, info = env.reset(seed=seed)
        shape = _shape(info)
        base = env.unwrapped
        if hasattr(base, "walkthrough"):
            path = base.walkthrough()
        elif hasattr(base, "gold_path"):
            path = base.gold_path()
        else:
            assert isinstance(base, PDDLEnv)  # PDDL-v0, the one without a path of its own
            task = base.started()
            plan = breadth_first(task, timeout=5)
            path = [] if plan is None else base.view.commands(plan, task)
        extra = [rng.choice([*path, "look", "(go o0)", "", "\x00" * 3]) for _ in range(3)]
        record.input = (env_id, seed, path, extra)
        paid = 0.0
        for command in path:
            paid += float(env.step(command)[1])
        for command in extra:
            obs, reward, terminated, truncated, info = env.step(command)
            paid += float(reward)
            if not terminated or truncated or obs != EPISODE_OVER:
                record.violation("AfterEnd", f"{terminated=} {truncated=} {obs[:80]!r}")
            if _shape(info) != shape or info["action_error"]["kind"] != "episode_over":
                record.violation("AfterEnd", f"info changed shape: {info}"[:200])
        if paid != 1.0:
            record.violation("AfterEnd", f"paid {paid} in all")

    def _flags(self, rng: random.Random, index: int, record) -> None:
        import contextlib
        import io

        script = rng.choice(sorted(STUDY_FLAGS))
        parser_of, config = STUDY_FLAGS[script]()
        parser, paper = parser_of()
        typed = [
            a.option_strings[-1]
            for a in parser._actions
            if a.option_strings and (a.type is not None or a.choices is not None)
        ]
        flag = rng.choice([*typed, "--sizes"] if script == "formalize" else typed)
        value = rng.choice(HOSTILE_VALUES)
        below = script == "formalize" and rng.random() < 0.3  # logistics needs 8 objects
        if below:
            flag, value = "--sizes", str(rng.randrange(1, 8))
        argv = [flag, value, "--out", str(self.folder / str(index))]
        record.input = (script, argv)
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                args = parser.parse_args(argv)
                if paper is not None:
                    paper.resolve(args, "m")
                config.from_args(args, parser)
        except SystemExit as exc:
            lines = err.getvalue().splitlines()
            if exc.code != 2 or len(lines) != 2 or not lines[0].startswith("usage: "):
                record.violation("FlagValue", f"exit {exc.code}: {err.getvalue()[:300]!r}")
            return
        if below:
            record.violation("FlagValue", f"--sizes {value} accepted below logistics' minimum")
        if (self.folder / str(index)).exists():
            record.violation("FlagValue", "the parser wrote files")

    @staticmethod
    def _won_at_reset(rng: random.Random, index: int, record) -> None:
        import gymnasium as gym

        from planloop.envs.text_env import EPISODE_OVER
        from planloop.policies import run_episode

        objects = [f"o{i}" for i in range(rng.randrange(1, 6))]
        done = rng.sample(objects, rng.randrange(1, len(objects) + 1))
        contingent = rng.random() < 0.4
        unknown = " ".join(f"(unknown (p {o}))" for o in objects) if contingent else ""
        init = " ".join(f"(q {o})" for o in done) + " " + unknown
        goal = "(and " + " ".join(f"(q {o})" for o in rng.sample(done, len(done))) + ")"
        problem = (
            f"(define (problem w) (:domain d) (:objects {' '.join(objects)}) "
            f"(:init {init}) (:goal {goal}))"
        )
        env_id = "ContingentPDDL-v0" if contingent else "PDDL-v0"
        record.input = (env_id, problem)
        env = gym.make(env_id, domain=EXIT_DOMAIN, problem=problem)
        _, info = env.reset(seed=rng.randrange(4))
        if info["won"] is not True:
            record.violation("WonAtReset", f"won is {info['won']!r} at reset")
            return
        shape = _shape(info)
        for command in [rng.choice([f"go {o}" for o in objects]), "look", ""]:
            obs, reward, terminated, truncated, after = env.step(command)
            if (obs, reward, terminated, truncated) != (EPISODE_OVER, 0.0, True, False):
                record.violation("WonAtReset", f"a step after it: {obs[:80]!r} {reward}")
            if _shape(after) != shape or after["action_error"]["kind"] != "episode_over":
                record.violation("WonAtReset", f"info changed shape: {after}"[:200])

        class Untouched:
            def reset(self, obs, info):
                raise AssertionError("asked to play")

            act = reset

        episode = run_episode(env, Untouched())
        if not (episode.won and episode.steps == 0 and not episode.truncated):
            record.violation("WonAtReset", f"run_episode: {episode.won=} {episode.steps=}")


# hostile values for a study's typed flags: out of range, not numbers, huge, empty
HOSTILE_VALUES = (
    "0", "-1", "-0", "nan", "inf", "-inf", "1e309", "99999999999", "10**400", "²", "",
    " ", "x", "x" * 5000, "0:0", "5:2", "0:100000001", "1,2,,3", "none", "paper", "3",
    "\x00", "1.5", "0x10", "１２",
)  # fmt: skip


def _study_flags() -> dict:
    """Each study's parser maker (its parser and :class:`PaperFlags`, or None) and config,
    both from its :class:`~planloop.study.spec.StudySpec`."""

    def spec_of(module: str):
        def made():
            import importlib

            spec = importlib.import_module(module).SPEC
            return spec.parser, spec.config

        return made

    return {
        "formalize": spec_of("planloop.protocols.nl_pddl.study"),
        "mystery": spec_of("planloop.protocols.mystery.study"),
        "horizon_sweep": spec_of("planloop.protocols.baking.study"),
        "agentic": spec_of("planloop.protocols.agentic.study"),
        "pddlego": spec_of("planloop.protocols.pddlego_plus.study"),
        "planner_baseline": spec_of("planloop.protocols.planner_baseline.study"),
    }


STUDY_FLAGS = _study_flags()


def _exit_kwargs(env_id: str) -> dict:
    """What ``gym.make`` needs beyond the id: PDDL-v0's and ContingentPDDL-v0's files."""
    if env_id == "PDDL-v0":
        return {"domain": EXIT_DOMAIN, "problem": PROBLEM_GO}
    if env_id == "ContingentPDDL-v0":
        from importlib import resources

        folder = Path(str(resources.files("planloop.envs") / "data" / "contingent" / "blocks2"))
        return {"domain": folder / "domain.pddl", "problem": folder / "problem.pddl"}
    return {}


def _shape(info: dict) -> dict:
    """Each key of ``info`` with its value's type, and the keys of its ``action_error``."""
    return {key: type(value) for key, value in info.items()} | {
        "action_error": tuple(info["action_error"])
    }


BELIEF_DOMAIN = """(define (domain wide)
  (:requirements :strips :disjunctive-preconditions :conditional-effects :contingent)
  (:predicates (k) (u ?x) (t ?x) (done) (never))
  (:action go :precondition {pre} :effect (done))
  (:action drop :effect (not (k)))
  (:action look :parameters (?x) :observe (u ?x))
  (:action toggle :parameters (?x) :precondition (t ?x)
    :effect (and (when (u ?x) (not (u ?x))) (when (not (u ?x)) (u ?x)))))"""
SENSING_DOMAIN = """(define (domain wide) (:requirements :strips :contingent)
  (:constants {objects}) (:predicates (u ?x) (done))
  (:action go :effect (done)) (:action look :observe (and {atoms})))"""
VARIABLE_DOMAIN = """(define (domain wide) (:requirements :strips :typing :contingent) (:types t)
  (:predicates (a ?x ?y - t) (b ?x ?y - t) (p {params}) (done))
  {variables}
  (:action go :effect (done)))"""
BELIEF_KINDS = (
    "disjunction",
    "chain",
    "oneof",
    "tautology",
    "gold",
    "at-most-one",
    "sensing",
    "pairs",
    "binary",
    "variables",
    "duplicate",
)
BELIEF_REFUSALS = (
    "(max_belief_work)",
    "(max_expansion)",
    "(max_ground_facts)",
    "the initial belief is empty",
    "more than its budget",
)


class BeliefTarget:
    name = "belief"

    def setup(self, cases: int) -> None:
        pass

    def budget(self, index: int) -> float:
        return 30.0 if BELIEF_KINDS[index % len(BELIEF_KINDS)] == "gold" else 5.0

    def recover(self, record) -> None:
        pass

    def run(self, rng: random.Random, index: int, record) -> None:
        import gymnasium as gym

        import planloop  # noqa: F401  (registers the environments)
        from planloop.envs.contingent import ContingentPDDLEnv

        kind = BELIEF_KINDS[index % len(BELIEF_KINDS)]
        domain, problem, command = getattr(self, f"_{kind.replace('-', '_')}")(rng)
        record.label, record.input = f"belief:{kind}", (domain[-150:], problem[:150])
        try:
            env = gym.make(
                "ContingentPDDL-v0", domain=domain, problem=problem, max_obs_length=10**7
            )
        except ValueError as exc:
            self._refused(kind, exc, record)
            return
        try:
            env.reset(seed=index)
            if kind == "gold":
                contingent = env.unwrapped
                assert isinstance(contingent, ContingentPDDLEnv)
                contingent.gold_path()
            else:
                _, _, _, _, info = env.step(command)
                if info["action_error"]["kind"] not in ("", "inapplicable"):
                    record.violation("NotAStep", repr(info["action_error"])[:200])
        except ValueError as exc:
            self._refused(kind, exc, record)
        finally:
            env.close()

    @staticmethod
    def _refused(kind: str, exc: ValueError, record) -> None:
        """A refusal is one named limit, or (``duplicate``) the duplicate at its place."""
        text = str(exc)
        if kind == "duplicate":
            if not re.search(r"line \d+, col \d+: duplicate variable 'v'", text):
                record.violation("UnplacedDuplicate", text[:200])
        elif not any(words in text for words in BELIEF_REFUSALS) or "\n" in text.strip():
            record.violation("UnnamedRefusal", text[:200])

    @staticmethod
    def _wide(n: int, pre: str, init: str, goal: str = "(done)") -> tuple[str, str, str]:
        objects = " ".join(f"o{i}" for i in range(n))
        problem = (
            f"(define (problem w) (:domain wide) (:objects {objects}) (:init {init}) "
            f"(:goal {goal}))"
        )
        return BELIEF_DOMAIN.format(pre=pre), problem, "(go)"

    @staticmethod
    def _unknown(n: int) -> str:
        return "(k) " + " ".join(f"(unknown (u o{i}))" for i in range(n))

    def _disjunction(self, rng: random.Random) -> tuple[str, str, str]:
        n = rng.choice([10, 22, 30])
        disjunction = "(or (k) " + " ".join(f"(u o{i})" for i in range(n)) + ")"
        if rng.random() < 0.5:
            return self._wide(n, disjunction, self._unknown(n))
        return self._wide(n, "(k)", self._unknown(n), f"(and (done) {disjunction})")

    def _chain(self, rng: random.Random) -> tuple[str, str, str]:
        n = rng.choice([12, 30, 40])
        chain = " ".join(f"(or (u o{i}) (u o{i + 1}))" for i in range(n - 1))
        return self._wide(n, "(k)", f"(k) {chain} (or (u o{n - 1})) (or (not (u o{n - 1})))")

    def _oneof(self, rng: random.Random) -> tuple[str, str, str]:
        n = rng.choice([100, 2_000, 20_000])
        atoms = " ".join(f"(u o{i})" for i in range(n))
        pre = rng.choice(["(k)", f"(or (k) {atoms})", f"(or {atoms})"])
        return self._wide(n, pre, f"(k) (oneof {atoms})")

    def _tautology(self, rng: random.Random) -> tuple[str, str, str]:
        n = rng.choice([8, 16, 30])
        ladder = [
            "(and " + " ".join(f"(u o{j})" for j in range(i)) + f" (not (u o{i})))"
            for i in range(n)
        ]
        every = "(and " + " ".join(f"(u o{j})" for j in range(n)) + ")"
        return self._wide(n, "(or " + " ".join(ladder) + f" {every})", self._unknown(n))

    def _gold(self, rng: random.Random) -> tuple[str, str, str]:
        n, toggles = rng.choice([50, 300]), rng.choice([4, 14])
        atoms = " ".join(f"(u o{i})" for i in range(n))
        init = f"(oneof {atoms}) " + " ".join(f"(t o{i})" for i in range(toggles))
        return self._wide(n, "(k)", init, "(never)")

    def _at_most_one(self, rng: random.Random) -> tuple[str, str, str]:
        """K-replanner's at-most-one over n atoms (issue 40: n(n-1)/2 clauses once)."""
        n = rng.choice([300, 1_000, 12_000])
        atoms = " ".join(f"(u o{i})" for i in range(n))
        return self._wide(n, "(k)", f"(k) (at-most-one {atoms})")

    @staticmethod
    def _sensing(rng: random.Random) -> tuple[str, str, str]:
        """One sensing step observing n unknown atoms (issue 40: quadratic in n)."""
        n = rng.choice([1_000, 2_000, 5_000])
        objects = " ".join(f"o{i}" for i in range(n))
        atoms = " ".join(f"(u o{i})" for i in range(n))
        init = " ".join(f"(unknown (u o{i}))" for i in range(n))
        problem = f"(define (problem w) (:domain wide) (:init {init}) (:goal (done)))"
        return SENSING_DOMAIN.format(objects=objects, atoms=atoms), problem, "(look)"

    def _pairs(self, rng: random.Random) -> tuple[str, str, str]:
        """An ``or`` of each pair of n atoms: every value tried walks n - 1 clauses."""
        n = rng.choice([100, 150])
        pairs = " ".join(f"(or (u o{i}) (u o{j}))" for i in range(n) for j in range(i + 1, n))
        return self._wide(n, "(k)", f"(k) {pairs}")

    def _binary(self, rng: random.Random) -> tuple[str, str, str]:
        """m random binary clauses over 1,000 atoms (sizes kept to the case's budget)."""
        m, n = rng.choice([10_000, 20_000]), 1_000
        clauses = " ".join(
            "(or (u o{}) (u o{}))".format(*rng.sample(range(n), 2)) for _ in range(m)
        )
        return self._wide(n, "(k)", f"(k) {clauses}")

    @staticmethod
    def _variables(rng: random.Random) -> tuple[str, str, str]:
        """cp2fsc variables: a value under foralls nested d deep over 3 objects, or a
        variable of two parameters over n objects."""
        if rng.random() < 0.5:
            depth, n = rng.choice([8, 13]), 3
            names = [f"?v{i}" for i in range(depth)]
            value = f"(p {' '.join(names)})"
            for name in reversed(names):
                value = f"(forall ({name} - t) {value})"
            variables, params = f"(:variable v {value})", " ".join(f"{v} - t" for v in names)
        else:
            n = rng.choice([60, 200])
            variables, params = "(:variable (v ?x ?y - t) (a ?x ?y) (b ?x ?y))", "?x - t"
        domain = VARIABLE_DOMAIN.format(params=params, variables=variables)
        objects = " ".join(f"o{i}" for i in range(n))
        problem = (
            f"(define (problem w) (:domain wide) (:objects {objects} - t) (:init) (:goal (done)))"
        )
        return domain, problem, "(go)"

    @staticmethod
    def _duplicate(rng: random.Random) -> tuple[str, str, str]:
        """A second ``(:variable v ...)``: refused at its place, like any duplicate."""
        first = "(:variable v (a o0 o0) (b o0 o0))"
        second = rng.choice(["(:variable v (a o0 o0))", "(:obs-variable v (b o0 o0))"])
        domain = VARIABLE_DOMAIN.format(params="?x - t", variables=f"{first}\n  {second}")
        domain = domain.replace("(:types t)", "(:types t) (:constants o0 - t)")
        problem = "(define (problem w) (:domain wide) (:init) (:goal (done)))"
        return domain, problem, "(go)"


TARGETS = {
    "mcp": McpTarget,
    "results": ResultsTarget,
    "explosion": ExplosionTarget,
    "exits": ExitsTarget,
    "belief": BeliefTarget,
}
WEIGHTS = {"mcp": 0.03, "results": 0.03, "explosion": 0.02, "exits": 0.02, "belief": 0.02}
