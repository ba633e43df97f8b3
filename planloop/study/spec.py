"""A study declared once, played by one runner.

A :class:`StudySpec` names what makes a study its own: its settings (a
:class:`~planloop.study.config.StudyConfig`), the protocol ``--paper`` takes, its
conditions, the policy each episode plays (``play``) and what it writes from the records
(``report``). :func:`run_spec` does the rest, the same for every study: the command line
(the shared flags, ``--conditions``, ``--paper`` and the config's), the model and its
check, the environment's instances, the resume key, the episodes (resumable, in
parallel) and the report. :func:`spec_main` is the study as a command::

    SPEC = StudySpec(
        name="my-study", script="my_study.py", config=MyConfig, protocol=MY_PAPER,
        env="Baking-v0", out="results/my_study", conditions=("planner", "closed-loop"),
        play=lambda run: lambda env, job: ..., report=lambda run, records: ...,
    )
    main = spec_main(SPEC)
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Literal

from ..llm import ChatModel
from ..results import Record
from .backends import Play
from .config import C
from .errors import study_main
from .flags import LLM_SPECS, PaperFlags, Settings, add_conditions, run_options, study_parser
from .jobs import Job, Study
from .models import study_model
from .records import EpisodeRecord
from .runner import every_instance, run_study

ModelUse = Literal["required", "optional", "none"]  # --llm: required, optional, absent
_LLM_REQUIRED: dict[ModelUse, bool | None] = {"required": True, "optional": False, "none": None}


@dataclass
class StudyRun(Generic[C]):
    """One run of a study as its flags resolved it: what a spec's hooks receive.
    ``model`` is the study's model (None: it plays none), ``built`` the one the runner
    opened (checked before the first episode), ``show`` whether to print."""

    spec: StudySpec[C]
    args: argparse.Namespace
    config: C
    settings: Settings
    given_model: ChatModel | None  # the model given to main (reproduce.py, a test)
    show: bool
    model: ChatModel | None = None
    built: ChatModel | None = None
    env_kwargs: dict[str, object] = field(default_factory=dict)
    instances: Sequence[int] = ()
    study: Study | None = None
    state: dict[str, Any] = field(default_factory=dict)  # what ``validate`` derived

    @property
    def out(self) -> Path:
        """The results folder (``--out``)."""
        return self.args.out

    @property
    def conditions(self) -> list[str]:
        """The conditions asked for (``--conditions``), in their order."""
        return list(getattr(self.args, "conditions", ()))

    @property
    def player(self) -> str | None:
        """The built-in player ``--llm`` names in place of a model (one of the spec's
        ``players``), else None."""
        spec = getattr(self.args, "llm", None)
        given = self.given_model
        return spec if given is None and spec in self.spec.players else None

    @property
    def temperature(self) -> float | None:
        """The sampling temperature the policies ask for (flag, protocol or default)."""
        return getattr(self.args, "temperature", None)

    def caption(self) -> str:
        """``\\n\\nProtocol: ...`` under ``--paper`` (its overrides named), else ""."""
        protocol = self.spec.protocol
        if not self.settings.paper or protocol is None:
            return ""
        return f"\n\n{protocol.caption(self.settings.overrides)}"


def _every_condition(run: StudyRun) -> list[Mapping[str, object]]:
    return [{"condition": condition} for condition in run.conditions]


def _config_and_temperature(run: StudyRun) -> dict[str, object]:
    return {**run.config.key(), "temperature": run.temperature}


def _plays_a_model(run: StudyRun) -> bool:
    return run.player is None


@dataclass(frozen=True)
class StudySpec(Generic[C]):
    """A study, declared once.

    Identity and flags: ``name`` (each record's ``study``), ``script`` (its command's
    name in messages), ``description`` (the help), ``config`` (its settings),
    ``protocol`` (what ``--paper`` sets; a :class:`~planloop.protocols.Protocol`),
    ``env`` (``--env``'s default; None: a study of no environment), ``out``, ``trials``,
    ``instances`` (``--instances``' default), ``llm`` (whether ``--llm`` is required),
    ``llm_help``, ``players`` (built-in players ``--llm`` may name in place of a model,
    such as a ground-truth formalizer: recorded as the model's name), ``conditions`` (``--conditions``' choices, none: no such flag) and
    ``given_order`` (the conditions played in the order given, else in
    ``conditions``' order), ``temperature`` (what the policies ask for when neither the
    flag nor the protocol sets one).

    ``add_flags`` adds a study's own flags that are no setting (what its cells are made
    of, such as ``--horizons``). Hooks, each given the :class:`StudyRun`: ``validate`` (raise StudyError for flags
    that cannot go together), ``uses_model`` (whether this run needs the model),
    ``env_kwargs`` (``gym.make``'s arguments; default the ``-o`` options),
    ``instance_limit`` (without ``--instances``, the first N of the environment's),
    ``cells`` (the conditions each instance is played under), ``jobs`` (in place of
    ``cells``, for a study whose cells play different instances), ``keyed`` (the
    study-wide settings of the resume key; default the config's key and the
    temperature; the protocol and its overrides are added to it), ``play`` (returns
    the function that plays one episode and returns its record's fields) and ``report``
    (writes the tables and figures from the latest records of every run in ``--out``
    and, when ``run.show``, prints them). ``record``: the schema of the study's own
    records (a TypedDict extending :class:`~planloop.study.records.EpisodeRecord`), which a
    record read back must fit."""

    name: str
    script: str
    config: type[C]
    protocol: Any  # None: a study of no paper (no --paper)
    play: Callable[[StudyRun[C]], Play]
    report: Callable[[StudyRun[C], list[Record]], None]
    description: str | None = None
    env: str | None = None
    out: str = "results"
    trials: int = 1
    instances: str | None = None
    llm: ModelUse = "required"
    llm_help: str = LLM_SPECS
    players: tuple[str, ...] = ()
    conditions: tuple[str, ...] = ()
    given_order: bool = True
    temperature: float | None = None
    add_flags: Callable[[argparse.ArgumentParser], None] | None = None
    validate: Callable[[StudyRun[C]], None] | None = None
    uses_model: Callable[[StudyRun[C]], bool] = _plays_a_model
    env_kwargs: Callable[[StudyRun[C]], dict[str, object]] | None = None
    instance_limit: int | None = None
    cells: Callable[[StudyRun[C]], list[Mapping[str, object]]] = _every_condition
    jobs: Callable[[StudyRun[C]], list[Job]] | None = None
    keyed: Callable[[StudyRun[C]], dict[str, object]] = _config_and_temperature
    record: type = EpisodeRecord

    def parser(
        self, description: str | None = None
    ) -> tuple[argparse.ArgumentParser, PaperFlags | None]:
        """The study's command line: the shared flags, ``--conditions``, ``--paper``
        (with a protocol; then also its :class:`PaperFlags`) and the config's;
        ``description`` replaces the spec's help."""
        parser = study_parser(
            description or self.description,
            env=self.env,
            out=self.out,
            instances=self.instances,
            trials=self.trials,
            llm_required=_LLM_REQUIRED[self.llm],
            llm_choices_help=self.llm_help,
        )
        if self.conditions:
            add_conditions(parser, self.conditions, given_order=self.given_order)
        if self.add_flags is not None:
            self.add_flags(parser)
        if self.protocol is None:
            self.config.add_arguments(parser)
            return parser, None
        paper = PaperFlags(parser, self.protocol, temperature=self.temperature)
        self.config.add_arguments(paper)
        return parser, paper


def run_spec(
    spec: StudySpec[C],
    argv: list[str] | None = None,
    model: ChatModel | None = None,
    show: bool = True,
    description: str | None = None,
) -> int:
    """Play the study ``spec`` declares with the command line ``argv``; ``model``
    replaces the one ``--llm`` names, ``show=False`` prints nothing (the files are
    written all the same), ``description`` replaces the help. Errors are raised:
    :func:`spec_main` is the study as a command."""
    parser, paper = spec.parser(description)
    args = parser.parse_args(argv)
    settings = (
        paper.resolve(args, model.name if model else None) if paper else Settings({}, False, {})
    )
    run = StudyRun(spec, args, spec.config.from_args(args, parser), settings, model, show, model)
    if spec.validate is not None:
        spec.validate(run)
    run.env_kwargs = spec.env_kwargs(run) if spec.env_kwargs else dict(getattr(args, "option", []))
    if spec.uses_model(run):
        run.model, run.built = study_model(model, args.llm, args.call_timeout, settings.request)
    if args.instances is not None or spec.env is None:
        run.instances = args.instances or ()
    else:
        run.instances = every_instance(args.env, run.env_kwargs, limit=spec.instance_limit)
    run.study = Study(
        spec.name,
        args.env if spec.env is not None else None,
        run.env_kwargs,
        run.model.name if run.model else run.player,
        getattr(args, "llm", None),
        settings={**spec.keyed(run), **settings.recorded()},
        record=spec.record,
    )
    jobs: list[Job] = (
        spec.jobs(run) if spec.jobs else run.study.jobs(spec.cells(run), run.instances, args.trials)
    )
    records = run_study(
        run.study, jobs, spec.play(run), check=run.built, model=run.model, **run_options(args)
    )
    spec.report(run, records)
    return 0


def spec_main(spec: StudySpec) -> Callable[..., int]:
    """The study as a command: :func:`run_spec` under :func:`study_main` (an error is one
    line and exit 2, Ctrl-C and SIGTERM end it saving what finished)."""

    def main(
        argv: list[str] | None = None,
        model: ChatModel | None = None,
        show: bool = True,
        description: str | None = None,
    ) -> int:
        return run_spec(spec, argv, model, show, description)

    return study_main(main, prog=spec.script)
