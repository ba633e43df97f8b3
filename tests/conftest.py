import importlib.util
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
PLANBENCH = DATA / "planbench"
IPC = DATA / "ipc2000-blocks"
EXPERIMENTS = Path(__file__).parents[1] / "experiments"


def load_experiment(name: str):
    """The module of ``experiments/<name>.py`` (experiments are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(name, EXPERIMENTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BrokenModel:
    """A user's own chat model whose every call raises ``error`` or returns ``reply``."""

    name = "broken"

    def __init__(self, reply=None, error=None):
        self.reply, self.error = reply, error

    def complete(self, messages, tools=None, **params):
        if self.error is not None:
            raise self.error
        return self.reply


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture
def closed_port() -> int:
    """A local TCP port that nothing listens on (connections are refused at once)."""
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
