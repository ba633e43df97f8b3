"""Rename the names of a text game's hidden world (its objects, types and predicates) in
everything the agent reads, and read its commands back: the memorization probe for the
games ``ObfuscateNames`` cannot rename (CoinCollector, ALFWorld, contingent PDDL)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping

import gymnasium as gym

from ..pddl import parse_domain, parse_problem

KEEP = frozenset(
    "a an the to from in on into onto of at with and or not is are you your this that "
    "there it its up down left right north south east west".split()
)  # words kept as they are: the language of the text, not the world's names
MIN_LENGTH = 3  # shorter parts of a name (``p`` of ``p1-2``) are kept
_CONSONANTS, _VOWELS = "bdfgkmnprstvz", "aeiou"
_PART = re.compile(r"[a-z]+")


def pseudo_word(word: str, seed: int, syllables: int = 3) -> str:
    """A pronounceable made-up word for ``word``, the same for the same ``seed``."""
    digest = hashlib.sha256(f"{seed}:{word}".encode()).digest()
    return "".join(
        _CONSONANTS[digest[2 * i] % len(_CONSONANTS)] + _VOWELS[digest[2 * i + 1] % len(_VOWELS)]
        for i in range(syllables)
    )


def world_words(
    domain_pddl: str, problem_pddl: str, keep: Iterable[str] = (), predicates: bool = False
) -> set[str]:
    """The words of a world's names: the alphabetic parts (at least :data:`MIN_LENGTH`
    letters) of its objects and types (and its predicates with ``predicates``: a game
    that states facts by predicate), less :data:`KEEP` and ``keep``."""
    domain = parse_domain(domain_pddl)
    problem = parse_problem(problem_pddl, domain)
    names = [*problem.objects, *problem.objects.values(), *domain.constants]
    if predicates:
        names += list(domain.predicates)
    kept = KEEP | {word.lower() for word in keep}
    return {
        part
        for name in names
        for part in _PART.findall(str(name).lower())
        if len(part) >= MIN_LENGTH and part not in kept
    }


class RenameWords(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Every word of the hidden world's names (:func:`world_words` of the environment's
    ``world_pddl()`` at each reset) becomes a seeded made-up word in the observation and
    in every text of ``info`` (the admissible actions, the task, the feedback, the action
    error); the agent's command is read back in the true words. A true word in a command
    is not understood (it reaches the game as an unknown word), so a name cannot be
    played from memory. With ``keep_verbs`` (the default) the first word of each
    admissible action is kept, so a command still says what it does; ``predicates``
    renames the predicates too (for a game that states its facts by predicate, as the
    contingent environments do; in a text game they are words such as "closed")."""

    def __init__(
        self, env: gym.Env, seed: int = 0, keep_verbs: bool = True, predicates: bool = False
    ):
        gym.utils.RecordConstructorArgs.__init__(
            self, seed=seed, keep_verbs=keep_verbs, predicates=predicates
        )
        gym.Wrapper.__init__(self, env)
        if not hasattr(env.unwrapped, "world_pddl"):
            raise TypeError("RenameWords needs a game that shows its hidden world (world_pddl)")
        self._seed, self._keep_verbs, self._predicates = seed, keep_verbs, predicates
        self.forward: dict[str, str] = {}
        self.backward: dict[str, str] = {}
        self._to_pseudo: re.Pattern[str] | None = None
        self._to_true: re.Pattern[str] | None = None

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        verbs = (
            {action.strip("()").split()[0] for action in info.get("admissible_actions") or ()}
            if self._keep_verbs
            else set()
        )
        domain, problem = self.env.unwrapped.world_pddl()  # type: ignore[attr-defined]
        self._learn(world_words(domain, problem, keep=verbs, predicates=self._predicates))
        return self.rename(obs), self._renamed(info)

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(self.true_command(action))
        return self.rename(obs), reward, terminated, truncated, self._renamed(info)

    def rename(self, text: str) -> str:
        """``text`` in the agent's words."""
        if self._to_pseudo is None:
            return text
        return self._to_pseudo.sub(lambda m: _cased(self.forward[m.group(0).lower()], m), text)

    def true_command(self, command: str) -> str:
        """The agent's ``command`` in the game's words; a true name in it is marked
        unknown (``name?``)."""
        if not isinstance(command, str) or self._to_true is None:
            return command
        return self._to_true.sub(self._unrename, command)

    def _unrename(self, match: re.Match[str]) -> str:
        word = match.group(0).lower()
        true = self.backward.get(word)
        return _cased(true, match) if true is not None else f"{match.group(0)}?"

    def _learn(self, words: set[str]) -> None:
        taken = set(words)
        self.forward = {}
        for word in sorted(words):
            pseudo, syllables = pseudo_word(word, self._seed), 3
            while pseudo in taken:  # never a true word, nor another word's pseudo-word
                syllables += 1
                pseudo = pseudo_word(word, self._seed, syllables)
            taken.add(pseudo)
            self.forward[word] = pseudo
        self.backward = {pseudo: word for word, pseudo in self.forward.items()}
        self._to_pseudo = _alternation(self.forward)
        self._to_true = _alternation({**self.forward, **self.backward})

    def _renamed(self, info: Mapping) -> dict:
        return {key: self._renamed_value(value) for key, value in info.items()}

    def _renamed_value(self, value):
        if isinstance(value, str):
            return self.rename(value)
        if isinstance(value, list):
            return [self._renamed_value(item) for item in value]
        if isinstance(value, dict):
            return {key: self._renamed_value(item) for key, item in value.items()}
        return value


def _alternation(words: Mapping[str, str]) -> re.Pattern[str] | None:
    """A pattern matching any of ``words`` as a whole word (longest first), any case;
    None for no words."""
    if not words:
        return None
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))
    return re.compile(rf"(?<![A-Za-z])(?:{alternatives})(?![A-Za-z])", re.IGNORECASE)


def _cased(word: str, match: re.Match[str]) -> str:
    """``word`` capitalised as the matched text is."""
    text = match.group(0)
    if text.isupper() and len(text) > 1:
        return word.upper()
    return word.capitalize() if text[:1].isupper() else word
