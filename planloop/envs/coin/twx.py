"""``CoinCollector-v0`` with ``backend="twx"``: the real TextWorld Express game (the
``textworld-express`` package, which runs a Java simulator), behind the same
interface as the native engine, so that published settings can be reproduced."""

from __future__ import annotations

import shutil

from ..arguments import MAX_SEED, integer
from ..feedback import check_feedback, no_error
from ..text_env import MAX_OBS, TextEnv
from . import text
from .causes import command_cause
from .generate import check_house


class TWXCoinCollectorEnv(TextEnv):
    """TextWorld Express's ``coin`` game. ``reset(seed=...)`` is TextWorld Express's
    own seed within ``fold``, shown as ``info["instance"]`` and replayed by
    ``reset(options={"instance": seed})``; ``gold_path()`` is its gold action sequence.
    Only commands outside the valid ones are errors; their ``cause`` is told from the
    valid list. ``feedback="detailed"`` needs the native backend's hidden world."""

    def __init__(self, num_locations: int = 5, include_doors: bool = True,
                 num_distractor_items: int = 0, fold: str = "train", step_limit: int = 200,
                 feedback: str = "game", render_mode: str | None = None,
                 max_obs_length: int = MAX_OBS):
        check_house(num_locations, include_doors, num_distractor_items, fold)
        integer("step_limit", step_limit, 1, MAX_SEED)
        if check_feedback(feedback) != "game":
            raise ValueError("feedback='detailed' needs backend='native': the real game "
                             "shows no hidden world to explain a failure with")
        try:
            from textworld_express import TextWorldExpressEnv
        except ImportError as exc:
            raise RuntimeError("backend='twx' needs the twx extra: "
                               "pip install 'planloop[twx]'") from exc
        if shutil.which("java") is None:
            raise RuntimeError("backend='twx' needs java on PATH")
        super().__init__(render_mode, max_obs_length)
        self.fold = fold
        self._game = TextWorldExpressEnv(envStepLimit=step_limit)
        self._game.load(gameName="coin", gameParams=(
            f"numLocations={num_locations},includeDoors={int(bool(include_doors))},"
            f"numDistractorItems={num_distractor_items}"))
        self._valid: list[str] = []
        self._gold: list[str] = []
        self.instance: int | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed, options=options)
        self.instance = self._seeded_instance(seed, options)
        obs, infos = self._game.reset(seed=self.instance, gameFold=self.fold,
                                      generateGoldPath=True)
        self._gold = list(self._game.getGoldActionSequence())
        return self._emit(obs, infos, no_error(cause="")), self._info

    def step(self, action: str):
        command = self._command(action)
        known = command == "help" or command.strip() in self._valid
        obs, reward, done, infos = self._game.step(command)
        error = no_error(cause="") if known else {
            "kind": "unknown", "message": obs, "unmet": [],
            "cause": command_cause(command.strip(), self._valid, "here")}
        obs = self._emit(obs, infos, error)
        return obs, float(reward), bool(infos["tasksuccess"]), \
            bool(done and not infos["tasksuccess"]), self._info

    def gold_path(self) -> list[str]:
        """TextWorld Express's gold action sequence for this episode, from its start."""
        return list(self._gold)

    def close(self):
        self._game.close()

    def _emit(self, obs: str, infos: dict, error: dict) -> str:
        self._valid = list(infos["validActions"])
        self._info = {"admissible_actions": list(self._valid),
                      "task": infos.get("taskDescription", text.TASK),
                      "won": bool(infos["tasksuccess"]), "feedback": obs,
                      "action_error": error, "score": infos["score"],
                      "moves": infos["numMoves"], "look": infos["look"],
                      "inventory": infos["inventory"], "instance": self.instance}
        return self._show(obs)

