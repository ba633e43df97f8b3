"""PDDLego+'s inputs as its authors ran them (issue 34, parts 1-3): the coin taken only
after a step whose text mentions it, TextWorld Express's own CoinCollector games at the
authors' parameters, the paper's n scheduled by reproduce.py from the protocol, and
ALFWorld without a command cap of the environment's."""

import json
import shutil

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.envs.coin import load_layout
from planloop.envs.coin.explore import explore
from planloop.llm import ScriptedModel
from planloop.protocols.pddlego_plus import (
    ALFWORLD_MAX_EPISODE_STEPS,
    ENVIRONMENTS,
    PDDLEGO_PLUS,
    TWX_COIN,
)
from planloop.protocols.pddlego_plus import study as pddlego_study
from planloop.protocols.pddlego_plus.tables import condition_label
from planloop.study import make_env
from planloop.wrappers import AutoTakeCoin

from conftest import DATA, load_experiment

TWX_COIN_GAMES = sorted((DATA / "twx_coin").glob("coin_*.json"))
PAPER_GAMES = [
    (cell["num_locations"], seed)
    for cell in ENVIRONMENTS["CoinCollector"].cells
    for seed in range(ENVIRONMENTS["CoinCollector"].instances)
]


def twx_here() -> bool:
    try:
        import textworld_express  # noqa: F401
    except ImportError:
        return False
    return shutil.which("java") is not None


needs_twx = pytest.mark.skipif(
    not twx_here(), reason="TextWorld Express needs its package and java"
)

# A model whose every plan the game refuses: its one action names no game command, so
# the paper's protocol plays it as written ("fly kitchen r1") and the game refuses it.
FLY_DF = """(define (domain coin) (:requirements :strips :typing) (:types location)
(:predicates (at ?l - location))
(:action fly :parameters (?from - location ?to - location)
 :precondition (at ?from) :effect (and (not (at ?from)) (at ?to))))"""
FLY_PF = """(define (problem p) (:domain coin) (:objects kitchen r1 - location)
(:init (at kitchen)) (:goal (at r1)))"""
REFUSED = json.dumps({"df": FLY_DF, "pf": FLY_PF})


def records_of(out):
    return [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]


# -- 1. the coin ----------------------------------------------------------------------
def test_a_coin_in_view_at_reset_is_taken_only_after_a_step_shows_it_again():
    env = AutoTakeCoin(gym.make("CoinCollector-v0", num_locations=11), when="shown")
    obs, info = env.reset(seed=0)  # this house's coin lies in the kitchen, in view
    assert "a coin" in obs and "take coin" not in info["admissible_actions"]
    obs, _, terminated, _, info = env.step("move east")  # the step does not show it
    assert not terminated and not info["won"] and "take coin" not in obs
    obs, reward, terminated, _, info = env.step("move west")  # back: the text mentions it
    assert terminated and info["won"] and reward == 1
    assert obs.endswith("\n> take coin\nYou take the coin.")


def test_today_s_rule_stays_the_default_and_a_named_switch():
    env = AutoTakeCoin(gym.make("CoinCollector-v0", num_locations=11))
    assert env.when == "in_view"
    env.reset(seed=0)
    obs, _, terminated, _, info = env.step("move east")  # taken in place of the command
    assert terminated and info["won"] and obs.startswith("> take coin\n")
    with pytest.raises(ValueError, match="when must be one of in_view, shown"):
        AutoTakeCoin(gym.make("CoinCollector-v0"), when="auto")


def test_coin_in_view_keeps_the_recorded_value_of_the_runs_before(tmp_path):
    """``--coin in-view`` is what ``--coin auto`` was: its condition records "auto", so
    an earlier run's records keep their key; the authors' rule records "shown"."""
    study = load_experiment("pddlego")
    base = ["--llm", "groundtruth", "-o", "num_locations=3", "--instances", "0:1"]
    for rule, recorded in (("in-view", "auto"), ("shown", "shown")):
        out = tmp_path / rule
        assert study.main([*base, "--coin", rule, "--out", str(out)], show=False) == 0
        [record] = records_of(out)
        assert record["coin"] == recorded and record["won"]
        assert record["provenance"]["condition"]["coin"] == recorded
    assert condition_label({"policy": "pddlego", "coin": "auto"}).endswith(
        "coin taken in view (at reset too)"
    )
    out = tmp_path / "default"  # the default records no coin rule and no new env argument
    assert study.main([*base, "--out", str(out)], show=False) == 0
    [record] = records_of(out)
    assert "coin" not in record and record["provenance"]["env_kwargs"] == {"num_locations": 3}


@needs_twx
@pytest.mark.slow
def test_a_model_whose_plan_the_game_always_refuses_wins_none_of_the_paper_s_games(tmp_path):
    """The issue's test: under --paper, 0 of the 20 CoinCollector games (sizes 3-11 x
    seeds 0-3); taking a coin in view at reset (today's rule, --coin in-view) hands the
    same model the games that start with the coin in view."""
    study = load_experiment("pddlego")
    won = {}
    for rule in ("shown", "in-view"):
        out = tmp_path / rule
        for cell in ENVIRONMENTS["CoinCollector"].cells:
            argv = ["--paper", "-o", f"num_locations={cell['num_locations']}"]
            argv += ["--instances", "0:4", "--llm", "x", "--out", str(out)]
            argv += [] if rule == "shown" else ["--coin", rule]
            model = ScriptedModel(lambda messages: REFUSED)
            assert study.main(argv, model=model, show=False) == 0
        records = records_of(out)
        assert len(records) == 20
        won[rule] = sorted(
            (r["provenance"]["env_kwargs"]["num_locations"], r["instance"])
            for r in records
            if r["won"]
        )
        if rule == "shown":
            for record in records:  # 5 tries of 1 call each, every one refused
                assert record["usage"]["calls"] == 5 and record["actions"] == ["fly kitchen r1"] * 5
    assert won["shown"] == []
    assert won["in-view"] == [(3, 1), (3, 3), (5, 0), (5, 2), (9, 2), (11, 3)]


# -- 2. TextWorld Express's games -------------------------------------------------------
def test_the_explorer_reads_every_recorded_house_from_its_texts():
    """The hidden world of a TWX game is read by walking it; on planloop's engine, which
    prints what TextWorld Express printed, every recorded house reads back as recorded
    (items hidden inside furniture show in no text)."""
    for path in TWX_COIN_GAMES:
        env = gym.make("CoinCollector-v0", layout=path).unwrapped
        _, info = env.reset()

        def step(command, env=env):
            obs, *_, info = env.step(command)
            return obs, info["look"]

        assert shape(load_layout(explore(info["look"], step))) == shape(load_layout(path))


def shape(house):
    """A house without the items hidden inside furniture, its rooms by name."""
    return (
        house.start,
        house.open_doors,
        sorted(
            (r.name, [(f.name, f.kind, f.items) for f in r.furniture], r.loose, dict(r.exits))
            for r in house.rooms
        ),
    )


@needs_twx
def test_paper_game_i_of_size_n_is_textworld_express_train_seed_i():
    """Under --paper, CoinCollector instance i of size N is TextWorld Express's train seed
    i at the authors' parameters: the first observation, valid actions and task are the
    real package's, and its gold path wins."""
    from textworld_express import TextWorldExpressEnv

    study = pddlego_study
    twx = TextWorldExpressEnv(envStepLimit=100)
    try:
        for size in sorted({size for size, _ in PAPER_GAMES}):
            args = study_args(study, ["--paper", "-o", f"num_locations={size}"])
            kwargs = study.paper_games(args, paper=True)
            assert kwargs == {**TWX_COIN, "num_locations": size}
            env = make_env("CoinCollector-v0", kwargs)
            twx.load(
                gameName="coin",
                gameParams=f"numLocations={size},numDistractorItems=0,includeDoors=1,"
                "limitInventorySize=0",
            )
            for seed in range(ENVIRONMENTS["CoinCollector"].instances):
                theirs, infos = twx.reset(seed=seed, gameFold="train", generateGoldPath=True)
                obs, info = env.reset(options={"instance": seed})
                assert obs == theirs
                assert info["admissible_actions"] == infos["validActions"]
                assert info["task"] == infos["taskDescription"]
                assert info["inventory"] == infos["inventory"]  # no inventory limit
                for command in twx.getGoldActionSequence():
                    *_, terminated, _, info = env.step(command)
                assert terminated and info["won"]
            env.close()
    finally:
        twx.close()


def study_args(study, argv):
    """``pddlego.py``'s parsed and resolved arguments for ``argv``, as ``main`` has them."""
    captured = {}

    def stop(args, paper):
        captured["args"] = args
        raise SystemExit(0)

    real, study.paper_games = study.paper_games, stop
    try:
        with pytest.raises(SystemExit):
            study.main([*argv, "--llm", "groundtruth", "--out", "/nonexistent"], show=False)
    finally:
        study.paper_games = real
    return captured["args"]


@needs_twx
@pytest.mark.slow
def test_the_explorer_reads_textworld_express_s_own_houses():
    """Walking the real game gives every recorded house (49 games, all sizes, doors on and
    off, distractors): the hidden world behind backend="twx" is TextWorld Express's."""
    from textworld_express import TextWorldExpressEnv

    twx = TextWorldExpressEnv(envStepLimit=1000)
    try:
        for path in TWX_COIN_GAMES:
            game = json.loads(path.read_text())
            twx.load(gameName="coin", gameParams=game["game_params"]["string"])
            _, infos = twx.reset(seed=game["seed"], gameFold=game["fold"])

            def step(command):
                obs, _, _, infos = twx.step(command)
                return obs, infos["look"]

            assert shape(load_layout(explore(infos["look"], step))) == shape(load_layout(path))
    finally:
        twx.close()


@needs_twx
def test_the_real_game_refuses_with_errors_and_shows_its_hidden_world():
    env = gym.make("CoinCollector-v0", **{**TWX_COIN, "num_locations": 3})
    try:
        env.reset(options={"instance": 0})  # the kitchen's east door is closed
        _, _, _, _, info = env.step("move east")
        assert info["action_error"]["kind"] == "inapplicable"
        assert info["action_error"]["cause"] == "The plain door to the east is closed."
        assert "(player-at kitchen)" in env.unwrapped.observed_facts()
        *_, info = env.step("open door to east")
        assert info["action_error"]["kind"] == ""
        *_, info = env.step("open door to east")
        assert info["action_error"]["kind"] == "inapplicable"
        domain, problem = env.unwrapped.world_pddl()
        assert "(:goal (holding coin))" in problem and "coin-collector" in domain
    finally:
        env.close()


def test_without_java_paper_stops_in_one_line_or_plays_generated_houses_when_asked(
    tmp_path, capsys, monkeypatch
):
    study = load_experiment("pddlego")
    monkeypatch.setattr(shutil, "which", lambda name: None)
    argv = ["--llm", "groundtruth", "--paper", "-o", "num_locations=3", "--instances", "0:1"]
    assert study.main([*argv, "--out", str(tmp_path / "a")], show=False) == 2
    error = capsys.readouterr().err.strip()
    assert error == (
        "pddlego.py: error: --paper plays TextWorld Express's CoinCollector games, which "
        "need java on PATH; or play planloop's generated houses with --coin-games generated "
        "(named in the caption)"
    )
    assert not (tmp_path / "a" / "episodes.jsonl").exists()
    out = tmp_path / "b"
    assert study.main([*argv, "--coin-games", "generated", "--out", str(out)], show=False) == 0
    [record] = records_of(out)
    assert record["provenance"]["env_kwargs"] == {"num_locations": 3}
    assert record["provenance"]["settings"]["overrides"] == {"coin_games": "generated"}
    assert "; overridden: coin_games=generated" in (out / "results.md").read_text()


# -- the paper's n, from the protocol ----------------------------------------------------
def scheduled(monkeypatch, tmp_path, *argv):
    """The studies ``reproduce.py pddlego-plus ARGV`` would run: (script, flags) each."""
    reproduce = load_experiment("reproduce")
    runs = []

    def run(self, name, out, flags, model=True):
        runs.append((name, flags))
        out.mkdir(parents=True, exist_ok=True)
        return []

    monkeypatch.setattr(reproduce.Runner, "run", run)
    monkeypatch.setattr(reproduce, "reproduce", lambda paper, records, tables: {})
    model = ScriptedModel(lambda messages: "No.")
    assert reproduce.main(["pddlego-plus", "--llm", "x", "--out", str(tmp_path), *argv], model) == 0
    return runs


def cells(runs, env_id, extra=None):
    """(policy, options, instances, trials) of each run on ``env_id``: the main table's
    (``extra`` None) or the extra runs given the flag ``extra`` (Figures 10 and 12)."""
    found = []
    for _, flags in runs:
        extras = [flag for flag in ("--prompt", "--domain-file") if flag in flags]
        if flags[flags.index("--env") + 1] == env_id and extras == ([extra] if extra else []):
            options = tuple(flags[i + 1] for i, flag in enumerate(flags) if flag == "-o")
            found.append(
                (
                    flags[flags.index("--policy") + 1],
                    options,
                    flags[flags.index("--instances") + 1],
                    int(flags[flags.index("--trials") + 1]),
                )
            )
    return found


@needs_twx
def test_reproduce_schedules_the_paper_s_n_from_the_protocol(tmp_path, monkeypatch):
    monkeypatch.delenv("ALFWORLD_DATA", raising=False)
    runs = scheduled(monkeypatch, tmp_path)
    coin = cells(runs, "CoinCollector-v0")
    assert coin == [
        (policy, (f"num_locations={size}",), "0:4", 5)
        for policy in ("pddlego", "plangen")
        for size in (3, 5, 7, 9, 11)
    ]
    alfworld = cells(runs, "ALFWorld-v0")
    assert [(p, o) for p, o, *_ in alfworld] == [
        (policy, (f"task_types={json.dumps(cell['task_types'])}",))
        for policy in ("pddlego", "plangen")
        for cell in ENVIRONMENTS["ALFWorld"].cells
    ]
    assert {(i, t) for *_, i, t in alfworld} == {("0:20", 1)}
    total = sum(int(i.split(":")[1]) * t for *_, i, t in coin + alfworld)
    assert total == 2 * (ENVIRONMENTS["CoinCollector"].episodes + ENVIRONMENTS["ALFWorld"].episodes)
    assert total == 400  # 100 per cell: 2 rows x 2 columns
    # Figure 12's extra runs: PDDLego+ on the same ALFWorld games with the simple prompt;
    # Figure 10's need a won episode's DF, and none won here
    simple = cells(runs, "ALFWorld-v0", "--prompt")
    assert [(p, o) for p, o, *_ in simple] == [(p, o) for p, o, *_ in alfworld[:5]]
    assert {(i, t) for *_, i, t in simple} == {("0:20", 1)}
    assert all("simple" == f[f.index("--prompt") + 1] for _, f in runs if "--prompt" in f)
    assert not any("--domain-file" in flags for _, flags in runs)
    assert "100 episodes per cell" in PDDLEGO_PLUS.n
    # released games when ALFWORLD_DATA holds them; --limit caps instances and trials
    (tmp_path / "data" / "json_2.1.1").mkdir(parents=True)
    monkeypatch.setenv("ALFWORLD_DATA", str(tmp_path / "data"))
    runs = scheduled(monkeypatch, tmp_path, "--limit", "2")
    assert {o[-1] for _, o, *_ in cells(runs, "ALFWorld-v0")} == {"split=train"}
    assert {(i, t) for *_, i, t in cells(runs, "CoinCollector-v0")} == {("0:2", 2)}


def test_reproduce_without_java_stops_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    reproduce = load_experiment("reproduce")
    model = ScriptedModel(lambda messages: "No.")
    argv = ["pddlego-plus", "--llm", "x", "--limit", "1", "--out", str(tmp_path)]
    assert reproduce.main(argv, model=model) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "reproduce.py: error: pddlego-plus plays TextWorld Express's CoinCollector games, "
        "which need java on PATH; or play planloop's generated houses with -- --coin-games "
        "generated (said in the caption)"
    ]
    assert model.calls == 0


@pytest.mark.slow
def test_reproduce_plays_the_generated_houses_when_asked_and_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv("ALFWORLD_DATA", raising=False)
    reproduce = load_experiment("reproduce")
    argv = ["pddlego-plus", "--llm", "groundtruth", "--limit", "1", "--out", str(tmp_path)]
    assert reproduce.main([*argv, "--", "--coin-games", "generated"]) == 0
    table = (tmp_path / "pddlego-plus-success.md").read_text()
    assert "overridden: coin_games=generated" in table
    assert "CoinCollector: planloop's generated houses (--coin-games generated)" in table
    assert "ALFWorld: generated games of each task type" in table


# -- 3. ALFWorld without a command cap ---------------------------------------------------
def test_alfworld_under_paper_has_no_command_cap_and_the_record_says_so(tmp_path):
    study = load_experiment("pddlego")
    argv = ["--llm", "groundtruth", "--env", "ALFWorld-v0", "--instances", "0:1"]
    for paper, steps in ((True, ALFWORLD_MAX_EPISODE_STEPS), (False, 50)):
        out = tmp_path / str(paper)
        flags = [*argv, "--out", str(out)] + (["--paper"] if paper else [])
        assert study.main(flags, show=False) == 0
        [record] = records_of(out)
        assert record["won"] and record["max_episode_steps"] == steps
        kwargs = record["provenance"]["env_kwargs"]
        assert kwargs == ({"max_episode_steps": steps} if paper else {})  # keys as before
        env = make_env("ALFWorld-v0", kwargs)
        env.reset(options={"instance": 0})
        truncated = [env.step("look")[3] for _ in range(60)]
        assert any(truncated) == (not paper)  # the registered cap truncates at 50
        env.close()
