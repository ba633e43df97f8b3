from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
PLANBENCH = DATA / "planbench"
IPC = DATA / "ipc2000-blocks"


@pytest.fixture
def data_dir() -> Path:
    return DATA
