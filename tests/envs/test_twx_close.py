"""TextWorld Express games close cleanly: closing twice, ten games in one process and
gymnasium's checker leave nothing on stderr, even with every warning an error."""

import shutil
import subprocess
import sys

import pytest

pytest.importorskip("textworld_express")
if shutil.which("java") is None:
    pytest.skip("TextWorld Express needs java", allow_module_level=True)

SCRIPT = """
import gymnasium as gym
import planloop
from gymnasium.utils.env_checker import check_env

for _ in range(10):
    env = gym.make("TWX-Sorting-v0")
    env.reset(seed=1)
    env.close()
    env.close()
coin = gym.make("CoinCollector-v0", backend="twx")
coin.reset(seed=0)
coin.close()
checked = gym.make("TWX-Sorting-v0")
check_env(checked.unwrapped)
checked.close()
"""


@pytest.mark.slow
def test_games_close_with_nothing_on_stderr_whatever_the_warnings_filter():
    run = subprocess.run(
        [sys.executable, "-W", "error", "-c", SCRIPT], capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0 and run.stderr == "", run.stderr[-2000:]
