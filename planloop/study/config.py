"""One frozen config per study family: every setting, its one default, its flag and how
it enters the resume key.

A study declares its settings as the fields of a frozen dataclass deriving from
:class:`StudyConfig`, each made by :func:`setting`::

    @dataclass(frozen=True)
    class HorizonConfig(StudyConfig):
        horizon: int = setting(1, "plan cycles", type=positive_int, metavar="N")
        replan: str = setting("never", "when to replan", choices=("never", "always"))

Then ``HorizonConfig.add_arguments(paper)`` adds the flags (``--horizon``,
``--replan``; a :class:`~planloop.study.PaperFlags`, or a plain parser), each defaulting
to the field's default, ``HorizonConfig.from_args(args)`` reads the parsed values back,
``config.key()`` is the part of a condition the settings make (a setting at its default
is left out, so that runs made before the setting existed keep their keys) and
``HorizonConfig.protocol(horizon=5)`` is a paper's settings, checked: a name that is not
a setting, a value outside a setting's choices or refused by its ``type``, or settings
that :meth:`StudyConfig.check` refuses together, raises at import.

A setting's valid values are declared once, by its ``type`` (argparse's: it reads the
flag's text and raises ``ArgumentTypeError`` for a value out of range) or its
``choices``; settings that are valid alone but not together (sizes below a domain's
minimum) are refused by the config's :meth:`~StudyConfig.check`, which
:meth:`~StudyConfig.from_args` turns into the parser's usage error: every flag value is
checked before the study does any work.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal, TypeVar

if TYPE_CHECKING:
    from .flags import PaperFlags

Keyed = Literal["changed", "always", "never"]
_META = "planloop.setting"
C = TypeVar("C", bound="StudyConfig")


@dataclass(frozen=True)
class Setting:
    """How one setting is asked for and recorded. ``flag``: its command-line name
    (default ``--`` and the field's name with dashes; "" for none); ``type``,
    ``choices``, ``metavar``, ``action``: argparse's; ``keyed``: whether
    :meth:`StudyConfig.key` records it when it differs from the default
    (``changed``), always (``always``) or never (``never``: a setting that changes the
    environment or the study, recorded there); ``recorded``: the value the key holds
    for a value (e.g. a name kept from earlier runs)."""

    help: str
    flag: str | None = None
    type: Callable[[str], object] | None = None
    choices: tuple[object, ...] | None = None
    metavar: str | None = None
    action: str | None = None
    keyed: Keyed = "changed"
    recorded: Callable[[Any], object] | None = None


def setting(
    default: Any,
    help: str,
    *,
    flag: str | None = None,
    type: Callable[[str], object] | None = None,
    choices: tuple[object, ...] | None = None,
    metavar: str | None = None,
    keyed: Keyed = "changed",
    recorded: Callable[[Any], object] | None = None,
) -> Any:
    """A config field: ``default`` (the setting's one default) and :class:`Setting`'s
    metadata. A boolean default is a switch: given, it turns the default over."""
    switch = isinstance(default, bool) and type is None and choices is None
    action = ("store_false" if default else "store_true") if switch else None
    meta = Setting(help, flag, type, choices, metavar, action, keyed, recorded)
    return field(default=default, metadata={_META: meta})


@dataclass(frozen=True)
class StudyConfig:
    """The base of a study family's config (see the module's docstring)."""

    @classmethod
    def settings(cls) -> dict[str, tuple[Setting, object]]:
        """Every setting by field name: its metadata and default."""
        found = {}
        for f in fields(cls):
            if _META not in f.metadata or f.default is MISSING:
                raise TypeError(f"{cls.__name__}.{f.name} is not made by setting()")
            found[f.name] = (f.metadata[_META], f.default)
        return found

    @classmethod
    def defaults(cls) -> dict[str, object]:
        """Every setting's default, by name."""
        return {name: default for name, (_, default) in cls.settings().items()}

    @classmethod
    def add_arguments(cls, target: argparse.ArgumentParser | PaperFlags) -> None:
        """A flag per setting that has one, on a parser, or beside a :class:`PaperFlags`'s
        ``--paper`` (which then sets the settings its protocol names), each flag's
        help ending with its default (a switch's: the paper's only)."""
        protocol: Mapping[str, object] = {}
        if isinstance(target, argparse.ArgumentParser):
            parser = target
        else:
            protocol, parser = target.protocol.settings, target.parser
        for name, (meta, default) in cls.settings().items():
            if meta.flag == "":
                continue
            told = [] if meta.action else [f"default {'none' if default is None else default}"]
            if name in protocol:
                told.append(f"the paper's: {protocol[name]}")
            options: dict[str, Any] = {"dest": name, "help": meta.help}
            if told:
                options["help"] += f" ({'; '.join(told)})"
            for key in ("type", "choices", "metavar", "action"):
                if getattr(meta, key) is not None:
                    options[key] = getattr(meta, key)
            flag = meta.flag or "--" + name.replace("_", "-")
            if name in protocol and not isinstance(target, argparse.ArgumentParser):
                target.add(flag, default=default, **options)
            else:
                parser.add_argument(flag, default=default, **options)

    @classmethod
    def from_args(
        cls: type[C],
        args: argparse.Namespace,
        parser: argparse.ArgumentParser | None = None,
        **values: object,
    ) -> C:
        """The config of parsed flags (resolved, for a :class:`PaperFlags`); ``values``
        for the settings that have no flag or that the script decided. Settings that
        :meth:`check` refuses together are ``parser``'s usage error (exit 2), else a
        ValueError."""
        names = cls.settings()
        given = {name: getattr(args, name) for name in names if hasattr(args, name)}
        config = cls(**{**given, **values})
        try:
            config.check()
        except ValueError as exc:
            if parser is None:
                raise
            parser.error(" ".join(str(exc).split()))
        return config

    def check(self) -> None:
        """A ValueError, in one line naming the flags, for settings that cannot go
        together; a family's config overrides it (the base has none)."""

    @classmethod
    def protocol(cls, **values: object) -> dict[str, object]:
        """A paper's settings, by name, in the order given: a TypeError for a name that
        is not a setting, a ValueError for a value outside a setting's choices, refused
        by its ``type`` (given the value's text) or by :meth:`check` beside the other
        settings' defaults."""
        known = cls.settings()
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise TypeError(f"{cls.__name__} has no setting {', '.join(unknown)}")
        for name, value in values.items():
            meta = known[name][0]
            if meta.choices is not None and value not in meta.choices:
                raise ValueError(f"{cls.__name__}.{name} is one of {meta.choices}, not {value!r}")
            if meta.type is not None and value is not None:
                try:
                    meta.type(str(value))
                except (argparse.ArgumentTypeError, TypeError, ValueError) as exc:
                    raise ValueError(f"{cls.__name__}.{name}: {exc}") from None
        cls(**values).check()
        return dict(values)

    def key(self) -> dict[str, object]:
        """The settings that enter a condition's key, by name, each as recorded: those
        ``keyed="always"`` and those ``keyed="changed"`` whose recorded value differs
        from the default's (so that a setting added later leaves the keys of runs made
        without it as they were)."""
        key = {}
        for name, (meta, default) in self.settings().items():
            if meta.keyed == "never":
                continue
            value = getattr(self, name)
            if meta.recorded is not None:
                value, default = meta.recorded(value), meta.recorded(default)
            if meta.keyed == "always" or value != default:
                key[name] = value
        return key
