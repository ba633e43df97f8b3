"""What tokens cost: the dated default table, names matched exactly (a provider prefix
or a dated suffix dropped, never a guess), a user's prices file over the defaults (every
bad file a one-line PricesError quoting little of it), reasoning tokens counted once,
and the estimate before a run."""

import datetime
import json

import pytest

from planloop.bench.prices import (
    DEFAULT_PRICES,
    MAX_PRICES_BYTES,
    PRICES_AS_OF,
    Price,
    PricesError,
    cost_usd,
    estimate,
    price_of,
    prices,
    read_prices,
)
from planloop.errors import PlanloopError

MILLION = 1_000_000


def tokens(prompt: int, completion: int, reasoning: int = 0) -> dict:
    return {"prompt": prompt, "completion": completion, "reasoning": reasoning}


def test_the_default_table_is_dated_and_holds_openai_s_prices():
    assert datetime.date.fromisoformat(PRICES_AS_OF) <= datetime.date.today()
    assert {name: (p.prompt, p.completion) for name, p in DEFAULT_PRICES.items()} == {
        "gpt-4o": (2.50, 10.00),
        "gpt-4o-mini": (0.15, 0.60),
        "gpt-4.1": (2.00, 8.00),
        "gpt-4.1-mini": (0.40, 1.60),
        "gpt-4.1-nano": (0.10, 0.40),
        "o3": (2.00, 8.00),
        "o3-mini": (1.10, 4.40),
        "o4-mini": (1.10, 4.40),
        "gpt-5": (1.25, 10.00),
        "gpt-5-mini": (0.25, 2.00),
        "gpt-5-nano": (0.05, 0.40),
    }


@pytest.mark.parametrize(
    "model, used, usd",
    [
        ("gpt-4o", tokens(MILLION, MILLION), 12.50),
        ("gpt-4o-mini", tokens(2000, 500), 0.0006),
        ("gpt-5", tokens(10_000, 3_000), 0.0425),
        ("gpt-5-nano", tokens(MILLION, 0), 0.05),
        ("o4-mini", tokens(0, 0), 0.0),
    ],
)
def test_exact_costs(model, used, usd):
    assert cost_usd(used, price_of(model)) == pytest.approx(usd, abs=1e-12)


@pytest.mark.parametrize(
    "name, priced_as",
    [
        ("gpt-4o", "gpt-4o"),
        ("gpt-4o-2024-08-06", "gpt-4o"),
        ("gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
        ("gpt-4.1-nano-2025-04-14", "gpt-4.1-nano"),
        ("o3-mini-2025-01-31", "o3-mini"),
        ("openai/gpt-4o", "gpt-4o"),
        ("openai/gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
        ("openrouter/openai/gpt-5-mini", "gpt-5-mini"),
    ],
)
def test_a_served_name_matches_its_model(name, priced_as):
    assert price_of(name) == DEFAULT_PRICES[priced_as]


def test_a_mini_model_is_never_priced_as_its_big_sibling():
    assert price_of("gpt-4o-mini") != price_of("gpt-4o")
    assert price_of("gpt-4o-mini-2024-07-18") == Price(0.15, 0.60)


@pytest.mark.parametrize(
    "name",
    ["llama-3.1-8b", "", "GPT-4O", "gpt-4o-latest", "gpt-4o-mini-fast", "gpt-4o-2024-08",
     "gpt-4o-20240806", "gpt-4o/other", "my-gpt-4o", "gpt-5-2025-08-07-preview"],
)  # fmt: skip
def test_an_unknown_model_has_no_price(name):
    assert price_of(name) is None
    assert cost_usd(tokens(100, 100), price_of(name)) is None


def test_reasoning_tokens_are_not_counted_twice():
    # 600k of the million completion tokens were reasoning: billed once, as completion
    assert cost_usd(tokens(0, MILLION, 600_000), price_of("gpt-4o")) == pytest.approx(10.0)


def test_a_file_overrides_the_defaults_model_by_model(tmp_path):
    path = tmp_path / "prices.json"
    path.write_text(
        json.dumps(
            {"gpt-4o": {"prompt": 1, "completion": 2}, "my-local": {"prompt": 0, "completion": 0},
             "gpt-4o-mini-2024-07-18": {"prompt": 0.1, "completion": 0.5}}
        )
    )  # fmt: skip
    given = read_prices(path)
    known = prices(given)
    assert given["gpt-4o"] == Price(1.0, 2.0) and len(given) == 3
    assert price_of("gpt-4o-2024-08-06", known) == Price(1.0, 2.0)
    assert price_of("gpt-4o-mini", known) == DEFAULT_PRICES["gpt-4o-mini"]
    assert price_of("gpt-4o-mini-2024-07-18", known) == Price(0.1, 0.5)  # its own name first
    assert cost_usd(tokens(10, 10), price_of("my-local", known)) == 0.0
    assert DEFAULT_PRICES["gpt-4o"] == Price(2.5, 10.0)  # the defaults are not changed
    assert prices() == DEFAULT_PRICES and prices() is not DEFAULT_PRICES


def test_a_dated_file_reads_like_a_plain_one(tmp_path):
    path = tmp_path / "prices.json"
    path.write_text(
        '{"as_of": "2025-09-01", "models": {"gpt-x": {"prompt": 3, "completion": 12.5}}}'
    )
    assert read_prices(path) == {"gpt-x": Price(3.0, 12.5)}
    path.write_text("{}")
    assert read_prices(path) == {}


LONG = "z" * 1000
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    "content, said",
    [
        (None, "prices.json: No such file or directory"),
        ("{not json", "prices.json: not JSON"),
        ("", "prices.json: not JSON"),
        (b"\x80\x81{}", "prices.json: not JSON"),
        ("{" + " " * MAX_PRICES_BYTES + "}", "prices.json: larger than 1,048,576 bytes"),
        (DEEP, "prices.json: JSON nested too deeply"),
        ('{"gpt-x": {"prompt": ' + "[" * 500 + "]" * 500 + ', "completion": 1}}',
         "prices.json: gpt-x: prompt must be a non-negative number of USD per million tokens,"
         " not a list"),
        ('[{"gpt-x": {"prompt": 1, "completion": 1}}]', "prices.json: not a JSON object of models"),
        ('"gpt-x"', "prices.json: not a JSON object of models"),
        ('{"gpt-x": 5}', "prices.json: gpt-x: not an object of prompt and completion"),
        ('{"gpt-x": {"prompt": 1, "completion": "ten"}}',
         'prices.json: gpt-x: completion must be a non-negative number of USD per million tokens,'
         ' not "ten"'),
        ('{"gpt-x": {"prompt": -0.5, "completion": 1}}', "gpt-x: prompt must be a non-negative"
         " number of USD per million tokens, not -0.5"),
        ('{"gpt-x": {"prompt": NaN, "completion": 1}}', "gpt-x: prompt must be"),
        ('{"gpt-x": {"prompt": 1, "completion": Infinity}}', "gpt-x: completion must be"),
        ('{"gpt-x": {"prompt": 1e999, "completion": 1}}', "gpt-x: prompt must be"),
        ('{"gpt-x": {"prompt": 1' + "0" * 400 + ', "completion": 1}}', "gpt-x: prompt must be"),
        ('{"gpt-x": {"prompt": true, "completion": 1}}', "gpt-x: prompt must be a non-negative"
         " number of USD per million tokens, not true"),
        ('{"gpt-x": {"prompt": null, "completion": 1}}', "not null"),
        ('{"gpt-x": {"prompt": 1}}', "gpt-x: completion must be a non-negative number of USD"
         " per million tokens, not missing"),
        ('{"gpt-x": {"prompt": 1, "completion": 1, "cached": 0.5}}',
         'prices.json: gpt-x: unknown field "cached"'),
        ('{"gpt-x": {"prompt": "' + LONG + '", "completion": 1}}', 'not "zzzzzzzz'),
        ('{"' + LONG + '": {"prompt": 1, "completion": 1}}', "a model name of 1 to 200 characters"),
        ('{"": {"prompt": 1, "completion": 1}}', "a model name of 1 to 200 characters"),
        ('{"' + "m" * 100 + '": {"prompt": -1, "completion": 1}}', "m" * 40 + "...: prompt must"),
        ('{"gpt\\nx": {"prompt": -1, "completion": 1}}', 'prices.json: "gpt\\nx": prompt must'),
        ('{"as_of": 20250807, "models": {}}', "prices.json: as_of must be a date as text"),
        ('{"as_of": "2025-08-07", "gpt-x": {}}', 'a dated file holds as_of and models, not "gpt-x"'),
        ('{"as_of": "2025-08-07"}', "prices.json: a dated file without models"),
        ('{"as_of": "2025-08-07", "models": [1]}', "prices.json: not a JSON object of models"),
    ],
)  # fmt: skip
def test_a_bad_prices_file_is_one_line_naming_what_is_wrong(tmp_path, content, said):
    path = tmp_path / "prices.json"
    if content is not None:
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(PricesError) as caught:
        read_prices(path)
    message = str(caught.value)
    assert isinstance(caught.value, PlanloopError) and isinstance(caught.value, ValueError)
    assert "\n" not in message and said in message and str(path) in message
    text = content.decode(errors="replace") if isinstance(content, bytes) else content or ""
    assert len(message) - len(str(path)) < 200
    assert not any(text[i : i + 45] in message for i in range(0, min(len(text), 5000) - 44))


def test_a_folder_is_not_a_prices_file(tmp_path):
    with pytest.raises(PricesError, match="Is a directory"):
        read_prices(tmp_path)


def test_the_estimate_multiplies_episodes_calls_and_tokens():
    expect = {"calls": 3.0, "prompt_tokens": 1000.0, "completion_tokens": 200.0}
    # 10 episodes x 3 calls: 30,000 prompt and 6,000 completion tokens of gpt-4o-mini
    assert estimate(price_of("gpt-4o-mini"), 10, expect) == pytest.approx(0.0081)
    assert estimate(price_of("gpt-4o-mini"), 0, expect) == 0.0
    assert estimate(None, 10, expect) is None
