"""CoinCollector: word-for-word replays of TextWorld Express, generated houses, hidden PDDL."""

import json

import pytest
from gymnasium.utils.env_checker import check_env

from planloop.envs.coin import CoinCollectorEnv, generate_house, load_layout
from planloop.pddl import parse_domain, parse_problem, solve

from conftest import DATA

GAMES = sorted((DATA / "twx_coin").glob("coin_*.json"))
TASK = "Your task is to search the environment and find the coin.  Once you find the coin, take it."
UNKNOWN = "Unknown action: I'm not sure what you mean."


def game(name):
    return json.loads((DATA / "twx_coin" / name).read_text())


def snapshot(obs, info, reward, done):
    return {
        "obs": obs,
        "valid_actions": info["admissible_actions"],
        "look": info["look"],
        "inventory": info["inventory"],
        "score": info["score"],
        "reward": reward,
        "done": done,
        "num_moves": info["moves"],
    }


def test_all_recorded_games_are_here():
    assert len(GAMES) == 49


@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_replay_matches_textworld_express(path):
    data = json.loads(path.read_text())
    env = CoinCollectorEnv(layout=data)
    for episode in data["episodes"]:
        obs, info = env.reset()
        for i, step in enumerate(episode["steps"]):
            if i == 0:
                got = snapshot(obs, info, 0, False)
            else:
                obs, reward, terminated, truncated, info = env.step(step["action"])
                assert not truncated
                got = snapshot(obs, info, reward, terminated)
            expected = {key: step[key] for key in got}
            assert got == expected, f"{episode['name']} step {i}: {step['action']!r}"
            assert info["task"] == data["task"] == TASK
            assert info["won"] == step["tasksuccess"]


def test_layout_from_path_dict_or_map_is_the_same_house():
    path = DATA / "twx_coin" / "coin_L5_D1_X3_dev_s3.json"
    data = json.loads(path.read_text())
    assert load_layout(path) == load_layout(data) == load_layout(data["map"])
    assert load_layout(path).coin_room == data["map"]["coin_room"]


@pytest.mark.parametrize(
    "command,kind,unmet",
    [
        ("fly to the moon", "unknown", []),
        ("", "unknown", []),
        ("take sword", "unknown", []),
        ("LOOK AROUND", "malformed", []),
        ("look  around", "malformed", []),
        ("move north", "inapplicable", []),
        ("take beret", "inapplicable", ["(in-room beret kitchen)"]),
        ("move west", "inapplicable", ["(not (blocked kitchen pantry))"]),
        ("close door to west", "inapplicable", ["(not (closed plain_door_kitchen_pantry))"]),
    ],
)
def test_invalid_commands_keep_the_state_and_explain(command, kind, unmet):
    env = CoinCollectorEnv(layout=game("coin_L6_D1_X10_train_s13.json"))
    obs0, info0 = env.reset()
    obs, reward, terminated, truncated, info = env.step(command)
    error = dict(info["action_error"])
    assert error.pop("cause")  # its sentences: test_detailed_feedback.py
    assert error == {"kind": kind, "message": obs, "unmet": unmet}
    assert info["feedback"] == obs and reward == 0 and not terminated
    assert info["look"] == info0["look"] and info["inventory"] == info0["inventory"]
    if obs == UNKNOWN:
        assert info["admissible_actions"] == info0["admissible_actions"]


def test_full_inventory_refuses_the_coin_and_the_game_is_lost():
    env = CoinCollectorEnv(layout=game("coin_L6_D1_X10_train_s13.json"))
    env.reset()
    for command in ("move south", "take picture", "take table lamp", "move north"):
        *_, info = env.step(command)
        assert not info["action_error"]["kind"]
    obs, reward, terminated, truncated, info = env.step("take coin")
    assert info["action_error"]["kind"] == "inapplicable"
    assert info["action_error"]["unmet"] == ["(free slot1)", "(free slot2)"]
    assert not terminated and env.unwrapped.gold_path() is None


def test_help_answers_the_task_and_changes_nothing():
    env = CoinCollectorEnv(layout=game("coin_L3_D0_X0_test_s20002.json"))
    _, info0 = env.reset()
    obs, reward, terminated, truncated, info = env.step("help")
    assert obs == info["feedback"] == TASK and reward == 0 and not terminated
    assert info["moves"] == 0 and info["admissible_actions"] == info0["admissible_actions"]


SIZES = [(n, doors) for n in range(1, 12) for doors in (False, True)]


@pytest.mark.parametrize("n,doors", SIZES, ids=[f"L{n}-D{int(d)}" for n, d in SIZES])
def test_generated_house_gold_path_and_pddl_plan_win(n, doors):
    for seed in range(3):
        env = CoinCollectorEnv(num_locations=n, include_doors=doors, num_distractor_items=3)
        obs, info = env.reset(seed=seed)
        assert obs.startswith("You are in the kitchen. ")
        assert len(env.world.house.rooms) == n
        domain_text, problem_text = env.world_pddl()
        domain = parse_domain(domain_text)
        parse_problem(problem_text, domain)
        result = solve(domain_text, problem_text, planner="bfs", timeout=30)
        assert result.solved, result.message
        plans = [env.gold_path(), env.plan_commands(result.plan)]
        assert len(plans[0]) == len(plans[1])
        for commands in plans:
            env.reset(seed=seed)
            for i, command in enumerate(commands):
                obs, reward, terminated, truncated, info = env.step(command)
                assert not info["action_error"]["kind"], (command, obs)
                assert terminated == (i == len(commands) - 1)
            assert reward == 1.0 and info["won"] and obs == "You take the coin."


@pytest.mark.parametrize("n", range(3, 12))
def test_generated_doors_follow_the_include_doors_flag(n):
    def doors(include):
        house = generate_house(n, include, 0, seed=n)
        return [x.door for room in house.rooms for x in room.exits.values() if x.door]

    assert doors(False) == []
    assert len(doors(True)) % 2 == 0
    assert {r.name for r in generate_house(n, True, 0, n).rooms} == {
        r.name for r in generate_house(n, False, 0, n).rooms
    }


def test_generated_exits_are_consistent_both_ways():
    opposite = {"north": "south", "south": "north", "east": "west", "west": "east"}
    for seed in range(20):
        house = generate_house(11, True, 10, seed)
        for room in house.rooms:
            for d, x in room.exits.items():
                assert house.room(x.to).exits[opposite[d]].to == room.name
                assert house.room(x.to).exits[opposite[d]].door == x.door
        assert sum(len(room.exits) for room in house.rooms) == 2 * (len(house.rooms) - 1)


def test_same_seed_same_house_and_transcript():
    def transcript(seed):
        env = CoinCollectorEnv(num_locations=8, include_doors=True, num_distractor_items=5)
        obs, info = env.reset(seed=seed)
        lines = [obs]
        for k in range(30):
            actions = info["admissible_actions"]
            obs, *_, info = env.step(actions[(7 * k) % len(actions)])
            lines.append(obs)
        return lines

    assert transcript(5) == transcript(5)
    assert transcript(5) != transcript(6)


def test_distractors_do_not_change_the_layout():
    few, many = generate_house(9, True, 0, 4), generate_house(9, True, 10, 4)
    assert few.coin_room == many.coin_room

    def exits(house):
        return [(room.name, dict(room.exits)) for room in house.rooms]

    assert exits(few) == exits(many)


def test_observed_facts_grow_with_exploration_and_are_true():
    env = CoinCollectorEnv(layout=game("coin_L4_D1_X0_test_s20004.json"))
    env.reset()
    seen = env.observed_facts()
    assert "(player-at kitchen)" in seen and not any("coin" in f for f in seen)
    for command in env.gold_path()[:-1]:
        env.step(command)
        now = env.observed_facts()
        problem = env.world_pddl()[1]
        assert all(fact in problem for fact in now)
        assert len(now) >= len(seen) - 2
        seen = now
    assert f"(in-room coin {env.world.room})" in seen


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError):
        CoinCollectorEnv(num_locations=12)
    with pytest.raises(ValueError):
        CoinCollectorEnv(num_distractor_items=11)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_locations": 7, "include_doors": True, "num_distractor_items": 3},
        {"layout": DATA / "twx_coin" / "coin_L11_D1_X10_dev_s10009.json"},
    ],
)
@pytest.mark.filterwarnings("ignore:.*alternative render modes")
def test_env_checker_passes(kwargs):
    check_env(CoinCollectorEnv(render_mode="ansi", **kwargs), skip_render_check=False)
