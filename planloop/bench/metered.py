"""What a bench episode's model calls cost, and the two caps on them: the suite's calls
per episode (:class:`EpisodeModel`) and the run's dollars (:class:`Spending`,
``--max-cost``)."""

from __future__ import annotations

import threading

from ..llm import ChatModel, ChatResponse, LLMError
from .prices import Price, cost_usd
from .records import Tokens


class Spending:
    """Dollars spent by this run's calls (answers from the cache cost nothing), shared by
    every episode; ``cap`` (USD, None: no cap) stops any call once it is reached."""

    def __init__(self, cap: float | None = None, spent: float = 0.0):
        self.cap, self.spent = cap, spent
        self._lock = threading.Lock()

    def __reduce__(self):
        """A copy in another process (a Ray actor) starts from what was spent so far."""
        return Spending, (self.cap, self.spent)

    def add(self, usd: float) -> None:
        with self._lock:
            self.spent += usd

    @property
    def reached(self) -> bool:
        return self.cap is not None and self.spent >= self.cap

    def message(self) -> str:
        """The cap, in the one line that stops a run."""
        return (
            f"--max-cost {self.cap:g} USD reached (this run spent {self.spent:.4f} USD); "
            "the episodes that ended are saved: rerun with a higher --max-cost to go on"
        )


class EpisodeModel:
    """``model`` for one episode: it counts the calls and the tokens the server reported
    (answers from the cache too) and refuses a call (an LLMError, which ends the
    episode) past ``max_calls`` (then ``exhausted``) or once the run's ``spending`` has
    reached its cap (then ``capped``: the episode is not recorded, a rerun plays it).
    Reasoning tokens are part of the completion tokens."""

    def __init__(
        self,
        model: ChatModel,
        max_calls: int,
        price: Price | None,
        spending: Spending,
    ):
        self.model, self.name = model, model.name
        self.max_calls, self.price, self.spending = max_calls, price, spending
        self.calls = self.cached_calls = 0
        self.tokens: Tokens = {"prompt": 0, "completion": 0, "reasoning": 0}
        self.exhausted = self.capped = False
        self.per_call: list[dict[str, object]] = []  # each call's tokens, for the transcript

    def __getattr__(self, name: str):  # request(), params, base_url: the model's
        return getattr(self.__dict__["model"], name)

    def complete(
        self, messages: list[dict], tools: list[dict] | None = None, **params
    ) -> ChatResponse:
        if self.calls >= self.max_calls:
            self.exhausted = True
            raise LLMError("client", f"call limit: the suite's {self.max_calls} calls an episode")
        if self.spending.reached:
            self.capped = True
            raise LLMError("client", "--max-cost reached")
        response = self.model.complete(messages, tools, **params)
        self.calls += 1
        usage = response.usage
        tokens: Tokens = {
            "prompt": usage.prompt_tokens,
            "completion": usage.completion_tokens,
            "reasoning": usage.reasoning_tokens,
        }
        for key in self.tokens:
            self.tokens[key] += tokens[key]  # type: ignore[literal-required]
        self.per_call.append({**tokens, "cached": response.cached, "seconds": usage.seconds})
        if response.cached:
            self.cached_calls += 1
        else:
            self.spending.add(cost_usd(tokens, self.price) or 0.0)
        return response

    @property
    def cost_usd(self) -> float | None:
        """What this episode's calls cost at the model's price (None without one),
        answers from the cache counted: the episode's cost, whoever paid for it."""
        return cost_usd(self.tokens, self.price)
