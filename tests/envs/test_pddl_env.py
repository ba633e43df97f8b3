"""The step interface of the fully observable environments."""

import subprocess
import sys

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import planloop  # noqa: F401
from planloop.envs import ENVIRONMENTS, FULLY_OBSERVABLE

from conftest import DATA, PLANBENCH

BW_DOMAIN = PLANBENCH / "blocksworld" / "generated_domain.pddl"
BW_FOLDER = PLANBENCH / "blocksworld" / "generated_basic"
CONTINGENT = DATA / "contingent" / "lamps"


def make(env_id, **kwargs):
    if env_id == "PDDL-v0":
        kwargs.setdefault("domain", BW_DOMAIN)
        kwargs.setdefault("problem", BW_FOLDER)
    if env_id == "ALFWorld-v0":
        kwargs.setdefault("data_dir", DATA / "alfworld" / "games")
    if env_id == "ContingentPDDL-v0":
        kwargs.setdefault("domain", CONTINGENT / "domain.pddl")
        kwargs.setdefault("problem", CONTINGENT / "problem.pddl")
    return gym.make(env_id, **kwargs)


@pytest.mark.parametrize("env_id", list(ENVIRONMENTS))
def test_env_checker_passes(env_id):
    check_env(make(env_id).unwrapped, skip_render_check=False)


def test_prefixed_id_works_without_import():
    code = (
        "import gymnasium as gym; env = gym.make('planloop:Mystery-BW-v0'); "
        "obs, info = env.reset(seed=0); print(info['admissible_actions'][0])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().startswith("(")


@pytest.mark.parametrize("env_id", FULLY_OBSERVABLE)
def test_info_contract(env_id):
    env = make(env_id)
    obs, info = env.reset(seed=0)
    assert isinstance(obs, str) and obs
    for key in (
        "admissible_actions",
        "task",
        "won",
        "feedback",
        "action_error",
        "domain_pddl",
        "problem_pddl",
        "instance",
    ):
        assert key in info
    assert not info["action_error"]["kind"] and info["won"] is False
    obs, reward, terminated, truncated, info = env.step(info["admissible_actions"][0])
    assert not info["action_error"]["kind"] and info["feedback"].startswith("Done")


def test_spellings_of_one_action_are_equivalent():
    outcomes = []
    for spelling in ("(attack a)", "attack a", "Attack A", "ATTACK(A)"):
        env = gym.make("Mystery-BW-v0")
        env.reset(options={"instance": 0})
        admissible = env.unwrapped.observe()[1]["admissible_actions"]
        assert "(attack a)" in admissible
        obs, *_, info = env.step(spelling)
        outcomes.append((obs, info["action_error"]))
    assert all(o == outcomes[0] for o in outcomes)
    assert outcomes[0][1]["kind"] == ""


@pytest.mark.parametrize(
    "command,kind",
    [
        ("(feast a b)", "inapplicable"),
        ("(fly a)", "unknown"),
        ("(attack zz)", "unknown"),
        ("(feast a)", "malformed"),
        ("", "malformed"),
        ("((attack a)", "malformed"),
        ("(pick-up a)", "unknown"),
    ],
)
def test_invalid_actions_keep_the_state_and_explain(command, kind):
    env = gym.make("Mystery-BW-v0")
    obs0, info0 = env.reset(options={"instance": 0})
    state = env.unwrapped.state
    obs, reward, terminated, truncated, info = env.step(command)
    assert env.unwrapped.state == state
    assert reward == 0 and not terminated
    assert info["action_error"]["kind"] == kind
    assert info["action_error"]["message"] in obs
    assert info["admissible_actions"] == info0["admissible_actions"]


def test_inapplicable_action_lists_unmet_facts():
    env = gym.make("Mystery-BW-v0", obs_format="pddl")
    env.reset(options={"instance": 0})
    *_, info = env.step("(feast a b)")
    assert info["action_error"]["unmet"] == ["(craves a b)"]
    assert "(craves a b)" in info["action_error"]["message"]


def test_goal_gives_reward_and_terminates():
    env = gym.make("Blocksworld-v0")
    env.reset(options={"instance": 3})
    task = env.unwrapped.task
    from planloop.pddl.search import breadth_first

    plan = breadth_first(task)
    for i, action in enumerate(plan):
        obs, reward, terminated, truncated, info = env.step(action.text)
        assert terminated == (i == len(plan) - 1)
    assert reward == 1.0 and info["won"] and "goal is achieved" in obs


def test_step_limit_truncates():
    env = gym.make("Blocksworld-v0", max_episode_steps=3)
    env.reset(seed=0)
    results = [env.step("(fly)") for _ in range(3)]
    assert [r[3] for r in results] == [False, False, True]


def test_same_seed_same_instance_and_transcript():
    def transcript(seed):
        env = gym.make("Blocksworld-v0")
        obs, info = env.reset(seed=seed)
        lines = [obs]
        for _ in range(10):
            obs, *_, info = env.step(info["admissible_actions"][-1])
            lines.append(obs)
        return info["instance"], lines

    assert transcript(7) == transcript(7)
    assert {transcript(s)[0] for s in range(5)} != {transcript(0)[0]}


def test_pddl_env_takes_text_list_and_folder():
    texts = [p.read_text() for p in sorted(BW_FOLDER.glob("*.pddl"))[:3]]
    from_text = gym.make("PDDL-v0", domain=BW_DOMAIN.read_text(), problem=texts[0])
    from_list = gym.make("PDDL-v0", domain=BW_DOMAIN, problem=texts)
    from_folder = gym.make("PDDL-v0", domain=str(BW_DOMAIN), problem=str(BW_FOLDER))
    assert from_list.unwrapped.num_instances == 3
    assert from_folder.unwrapped.num_instances == len(list(BW_FOLDER.glob("*.pddl")))
    assert from_folder.unwrapped.problems[1].name == "instance-2.pddl"  # natural order
    obs_text, _ = from_text.reset(seed=0)
    obs_list, _ = from_list.reset(options={"instance": 0})
    assert obs_text == obs_list


def test_pddl_observation_format():
    env = gym.make("Blocksworld-v0", obs_format="pddl")
    obs, info = env.reset(options={"instance": 0})
    assert obs.startswith("State: (")
    assert "Goal: (and" in obs
    assert info["task"].startswith("(and")


def test_text_observation_reads_as_planbench():
    env = gym.make("Blocksworld-v0")
    obs, info = env.reset(options={"instance": 0})
    assert "the hand is empty" in obs
    mystery = gym.make("Mystery-BW-v0")
    obs, info = mystery.reset(options={"instance": 0})
    assert "harmony" in obs and "craves" in info["task"]
    assert "block" not in obs + info["domain_pddl"] + info["problem_pddl"]


def test_render_ansi_returns_last_observation():
    env = gym.make("Blocksworld-v0", render_mode="ansi")
    obs, _ = env.reset(seed=0)
    assert env.render() == obs


def test_a_broken_problem_file_is_an_error_at_make(tmp_path):
    from planloop.pddl import PDDLError

    broken = tmp_path / "p.pddl"
    broken.write_text(
        "(define (problem x) (:domain blocks) (:objects a - block) (:init (glued a)) "
        "(:goal (clear a)))"
    )
    domain = DATA / "ipc2000-blocks" / "domain.pddl"
    with pytest.raises(PDDLError, match="glued"):
        gym.make("PDDL-v0", domain=str(domain), problem=str(broken))
