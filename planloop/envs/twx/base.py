"""The base of the TextWorld Express games (the ``textworld-express`` package, which
runs a Java simulator): one game process per environment, seeded resets, steps,
valid actions, the gold path, and unknown commands told from the valid list."""

from __future__ import annotations

import shutil
import string
from collections.abc import Mapping
from typing import Literal, get_args

from ...pddl import quote
from ..arguments import MAX_SEED, choice, integer
from ..feedback import slip_cause
from ..info import CausedError, CoinInfo, caused_error, step_info
from ..text_env import MAX_OBS, Step, TextEnv
from ..text_space import ObservationText
from .gateway import shut_down, signals_held, start_game

Fold = Literal["train", "dev", "test"]
FOLDS: tuple[Fold, ...] = get_args(Fold)


class TWXEnv(TextEnv[CoinInfo]):
    """TextWorld Express's ``game`` with ``params`` (its ``gameParams``, by TWX's names).
    ``reset(seed=...)`` is TextWorld Express's own seed within ``fold``, shown as
    ``info["instance"]`` and replayed by ``reset(options={"instance": seed})``;
    ``gold_path()`` is its gold action sequence. Only commands outside the valid ones
    are errors (``action_error["kind"] == "unknown"``); their ``cause`` is told from the
    valid list. ``info`` is a :class:`~..info.CoinInfo`. An episode ends
    (``terminated``) when the task succeeds or fails, and is truncated after
    ``step_limit`` moves."""

    needs = "TextWorld Express games need"  # how the messages of a missing extra begin

    def __init__(
        self,
        game: str,
        params: Mapping[str, int],
        fold: str = "train",
        step_limit: int = 100,
        render_mode: str | None = None,
        max_obs_length: int = MAX_OBS,
    ):
        self.fold = choice("fold", fold, FOLDS)
        integer("step_limit", step_limit, 1, MAX_SEED)
        super().__init__(render_mode, max_obs_length)
        self.observation_space = ObservationText(  # simonsays may answer with nothing
            min_length=0, max_length=max_obs_length, charset=string.printable
        )
        try:
            import textworld_express  # noqa: F401  (the extra is there)
        except ImportError as exc:
            raise RuntimeError(f"{self.needs} the twx extra: pip install 'planloop[twx]'") from exc
        if shutil.which("java") is None:
            raise RuntimeError(f"{self.needs} java on PATH")
        self.params = ",".join(f"{name}={value}" for name, value in params.items())
        with signals_held():
            self._game = start_game(step_limit)
            try:
                self._game.load(gameName=game, gameParams=self.params)
            except BaseException:  # parameters TWX refuses: no Java left behind
                self.close()
                raise
        self._valid: list[str] = []
        self._gold: list[str] = []
        self.instance: int | None = None
        self._info: CoinInfo

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed, options=options)
        self.instance = self._seeded_instance(seed, options)
        with signals_held():
            obs, infos = self._generate()
            self._gold = list(self._game.getGoldActionSequence())
        return self._begin(self._emit(obs, infos, caused_error()), self._info)

    def _step(self, command: str) -> Step[CoinInfo]:
        known = command == "help" or command.strip() in self._valid
        with signals_held():
            obs, reward, done, infos = self._game.step(command)
        error = (
            caused_error()
            if known
            else caused_error("unknown", obs, (), self._cause(command.strip()))
        )
        obs = self._emit(obs, infos, error)
        ended = bool(infos["tasksuccess"] or infos["taskfailure"])
        return obs, float(reward), ended, bool(done and not ended), self._info

    def gold_path(self) -> list[str]:
        """TextWorld Express's gold action sequence for this episode, from its start.
        It may hold a command the game does not know (cookingworld opens a kitchen
        cupboard that is not there), which changes nothing."""
        return list(self._gold)

    def close(self):
        """Stop the game's Java process (once; a second call does nothing)."""
        game = self.__dict__.pop("_game", None)
        if game is not None:
            with signals_held():
                shut_down(game)

    def _generate(self) -> tuple[str, dict]:
        """The game of ``self.instance``; a world TWX cannot build is a ValueError."""
        from py4j.protocol import Py4JJavaError

        try:
            return self._game.reset(seed=self.instance, gameFold=self.fold, generateGoldPath=True)
        except Py4JJavaError as exc:
            reason = str(exc.java_exception.getMessage()).removeprefix("ERROR: ").strip(" .")
            raise ValueError(
                f"TextWorld Express cannot generate instance {self.instance} "
                f"of {self.params or 'the default game'} ({reason}); "
                "try another seed or other parameters"
            ) from exc

    def _cause(self, command: str) -> str:
        """Why ``command``, not among the valid ones, fails."""
        if not command:
            return "No command was given: the valid commands are info['admissible_actions']."
        return slip_cause(command, self._valid) or (
            f"{quote(command)} is not one of the valid commands here (info['admissible_actions'])."
        )

    def _emit(self, obs: str, infos: dict, error: CausedError) -> str:
        self._valid = list(infos["validActions"])
        self._info = step_info(
            CoinInfo,
            list(self._valid),
            infos["taskDescription"],
            bool(infos["tasksuccess"]),
            obs,
            error,
            {
                "score": float(infos["score"]),
                "moves": infos["numMoves"],
                "look": infos["look"],
                "inventory": infos["inventory"],
                "instance": self.instance,
            },
        )
        return self._show(obs)
