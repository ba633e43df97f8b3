"""The trust boundary's attack families for ``benchmarks/fuzz.py``: hostile MCP clients,
damaged results files and PDDL built to explode (a target each, seeded like the others).

- ``mcp``: calls to a :class:`planloop.mcp.sessions.SessionRegistry` rooted at a folder
  that holds a domain and a problem, beside a secret file outside it: paths outside the
  root (absolute, ``..``, a link in the root pointing out, a linked folder), paths into
  it, PDDL text with the secret's marker, long and broken text, ``env_kwargs`` paths,
  guessed and real session ids, floods of starts. Contract: no answer or error holds
  the secret; an error quotes at most 80 characters of one input; an unknown id gets
  "no such session" and nothing more; no more sessions live than the cap.
- ``results``: ``episodes.jsonl`` files of valid records with lines damaged (cut, typed
  wrong, keys dropped, bytes that are not UTF-8, lone surrogates, huge lines) read as a
  study reads them. Contract: never raises; every record kept is valid; every other
  line is set aside with its line number.
- ``explosion``: PDDL whose size grows with a parameter (a ``forall`` over k variables
  and n objects, chains and trees of types, nested ``when``, wide ``:init``) through
  ``load`` and ``solve(planner="auto", timeout=2)``. Contract: a task, a PDDLError
  (naming the limit when one is met) or a PlanResult, within the case's budget.
"""

from __future__ import annotations

import json
import random
import shutil
import tempfile
from pathlib import Path

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
        (root / "link.pddl").symlink_to(outside / "secret.pddl")
        (root / "out").symlink_to(outside)
        self.root, self.outside = root, outside
        self.registry = None

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
        try:
            answer = self._send(call)
        except ValueError as exc:  # a tool error: SessionError, SandboxError, PDDLError
            self._check_error(str(exc), call, sent, record)
        else:
            text = json.dumps(answer, default=str)
            if SECRET in text and SECRET not in sent:
                record.violation("SecretLeaked", f"an answer holds the secret: {text[:120]}")
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
        return kind, ("flood", rng.randint(5, 12))

    def _send(self, call: tuple) -> object:
        what, argument = call
        if what == "start":
            return self.registry.start(**argument)
        if what == "run":
            return self.registry.run(argument, "state")
        if what == "real":
            opened = self.registry.start(domain=DOMAIN, problem=PROBLEM)
            return self.registry.run(opened["session_id"], argument)
        answers = []
        for _ in range(argument):
            try:
                answers.append(self.registry.start(domain=DOMAIN, problem=PROBLEM))
            except ValueError as exc:
                if "too many sessions" not in str(exc):
                    raise
        return answers

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
        from planloop.results import ResultsFile
        from planloop.study.runner import episode_problem

        lines = [
            json.dumps(
                {
                    "key": f"k/{i}/0",
                    "study": "s",
                    "instance": i,
                    "trial": 0,
                    "won": rng.random() < 0.5,
                    "error": None,
                }
            ).encode()
            for i in range(rng.randint(1, 8))
        ]
        damaged = [self._damage(rng, line) if rng.random() < 0.4 else line for line in lines]
        data = b"\n".join(damaged) + (b"\n" if rng.random() < 0.8 else b"")
        path = self.folder / f"{index}.jsonl"
        path.write_bytes(data)
        record.label, record.input = "results", data[:300]
        results = ResultsFile(path, episode_problem)
        bad = [r for r in results.records if episode_problem(r) is not None]
        if bad:
            record.violation("InvalidKept", f"kept {bad[0]!r}"[:200])
        counted = len(results.records) + len(results.set_aside)
        if counted != sum(1 for line in data.splitlines() if line.strip()):
            record.violation("LineLost", f"{counted} lines accounted for")
        results.damage_report()

    @staticmethod
    def _damage(rng: random.Random, line: bytes) -> bytes:
        record = json.loads(line)
        kind = rng.choice(
            ["cut", "won", "instance", "drop", "bytes", "surrogate", "huge", "array", "key"]
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


TARGETS = {"mcp": McpTarget, "results": ResultsTarget, "explosion": ExplosionTarget}
WEIGHTS = {"mcp": 0.03, "results": 0.03, "explosion": 0.02}
