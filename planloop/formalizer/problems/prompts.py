"""What the problem writer is told: the task (the domain's name, its predicates and
actions with their arities and types, the problem in words) and, after a failed check,
the check's diagnostics with a request for a minimal edit. The answer is always exactly
one ``(define (problem ...))`` form."""

from __future__ import annotations

from ...pddl.model import Domain, Param

PROMPT_VERSION = "nl2pf-v1"
CONTRACT = (
    "Answer with exactly one PDDL problem, a single (define (problem ...) ...) "
    "expression, and nothing else: no explanation, no domain."
)
SYSTEM = (
    "You translate planning problems described in words into PDDL problem files for "
    "a given domain. Declare every object with one of the domain's types, and write "
    "every fact with a predicate of the domain, its number of arguments and their "
    "types. " + CONTRACT
)
TASK = (
    "Domain: {name}\n\n{summary}\n\nThe problem, in words:\n{description}\n\n"
    "Write the PDDL problem (:domain {name})."
)
PARSE_FAILED = (
    "Your problem could not be read:\n{diagnostic}\n\nFix the syntax only, "
    "changing as little as possible. " + CONTRACT
)
NOT_EXECUTABLE = (
    "Your problem was read, but {verdict}\n{diagnostic}\n\nRevise it minimally: "
    "make sure every object you use is declared with a domain type, every fact "
    "matches its predicate's arity and types, and the initial state holds every "
    "fact (for example connections) that the goal needs to be reachable. " + CONTRACT
)


def domain_summary(domain: Domain) -> str:
    """The types, then each predicate and action with its typed parameters and arity."""
    lines = []
    if domain.types:
        lines.append(
            "Types: "
            + ", ".join(
                f"{t} (a kind of {parent})" if parent != "object" else t
                for t, parent in domain.types.items()
            )
        )
    if domain.constants:
        lines.append("Constants: " + ", ".join(f"{c} - {t}" for c, t in domain.constants.items()))
    lines.append("Predicates:")
    lines += [f"  {_signature(name, p.params)}" for name, p in domain.predicates.items()]
    lines.append("Actions:")
    lines += [f"  {_signature(name, a.params)}" for name, a in domain.actions.items()]
    return "\n".join(lines)


def _signature(name: str, params: tuple[Param, ...]) -> str:
    typed = " ".join(f"{p.name} - {' or '.join(p.types)}" for p in params)
    arity = f"{len(params)} argument{'' if len(params) == 1 else 's'}"
    return f"({name}{' ' + typed if typed else ''})  [{arity}]"


def task_messages(domain: Domain, description: str) -> list[dict]:
    """The first request: the system's contract and the task."""
    return [
        {"role": "system", "content": SYSTEM},
        {
            "role": "user",
            "content": TASK.format(
                name=domain.name, summary=domain_summary(domain), description=description
            ),
        },
    ]
