"""Shared by the judging tests: real PDDLego+ rounds (ground-truth runs, each round
recording the true PF as experiments/pddlego.py does), and a model's files for
CoinCollector instance 0 after its first move, in the prompt's vocabulary."""

from functools import cache

import gymnasium as gym

import planloop  # noqa: F401
from planloop.formalizer import Draft, Files, Request, ground_truth_writer
from planloop.policies import PDDLegoPolicy, run_episode

PLANNER = "auto"
ENVS = {"coin": ("CoinCollector-v0", {"num_locations": 5}), "alfworld": ("ALFWorld-v0", {})}


class Edited:
    """The ground-truth formalizer with its files edited, as a model might write them."""

    name = prompt_version = "edited"

    def __init__(self, env, family: str, df=lambda text: text, pf=lambda text: text):
        self.inner = ground_truth_writer(env, family, planner=PLANNER)
        self.df, self.pf = df, pf

    def write(self, request: Request) -> Draft:
        files = self.inner.write(request).files
        return Draft(Files(self.df(files.df), self.pf(files.pf)))


def play(family: str, **edits) -> list[dict]:
    """The rounds of instance 0, each with its ``truth``."""
    env_id, kwargs = ENVS[family]
    env = gym.make(env_id, **kwargs)
    truth = ground_truth_writer(env, family, planner=PLANNER)
    policy = PDDLegoPolicy(
        Edited(env, family, **edits),
        planner=PLANNER,
        truth=lambda: truth.write(Request("", "start", (), ())).files.pf,
    )
    return run_episode(env, policy, options={"instance": 0}).details["rounds"]


@cache
def true_rounds(family: str) -> tuple[dict, ...]:
    return tuple(play(family))


# CoinCollector instance 0 after "move west": the player is in the corridor, east of it
# the kitchen (visited), closed doors north and south of the corridor and east of the
# kitchen. The true PF (true_rounds("coin")[1]["truth"]) has 19 facts.
MODEL_DF = """(define (domain house)
  (:requirements :strips :typing :negative-preconditions)
  (:types location item direction)
  (:constants north south east west - direction)
  (:predicates (at ?l - location) (visited ?l - location)
    (connected ?from - location ?to - location ?dir - direction)
    (closed-door ?from - location ?to - location)
    (located ?o - item ?l - location) (holding ?o - item))
  (:action move
    :parameters (?from - location ?to - location ?dir - direction)
    :precondition (and (at ?from) (connected ?from ?to ?dir) (not (closed-door ?from ?to)))
    :effect (and (not (at ?from)) (at ?to) (visited ?to)))
  (:action open-door
    :parameters (?loc1 - location ?loc2 - location ?dir - direction)
    :precondition (and (at ?loc1) (connected ?loc1 ?loc2 ?dir) (closed-door ?loc1 ?loc2))
    :effect (not (closed-door ?loc1 ?loc2)))
  (:action take
    :parameters (?o - item ?loc - location)
    :precondition (and (at ?loc) (located ?o ?loc))
    :effect (and (holding ?o) (not (located ?o ?loc)))))
"""
MODEL_FACTS = (
    "(at corridor)",
    "(visited kitchen)",
    "(visited corridor)",
    "(connected kitchen corridor west)",
    "(connected corridor kitchen east)",
    "(connected kitchen room_east east)",
    "(connected corridor room_north north)",
    "(connected corridor room_south south)",
    "(closed-door kitchen room_east)",
    "(closed-door corridor room_north)",
    "(closed-door corridor room_south)",
)
MODEL_ROOMS = "kitchen corridor room_east room_north room_south"


def model_pf(
    facts=MODEL_FACTS, objects: str = MODEL_ROOMS + " - location", goal: str = "(at room_north)"
) -> str:
    return (
        "(define (problem house-1)\n  (:domain house)\n"
        f"  (:objects {objects})\n  (:init\n    "
        + "\n    ".join(facts)
        + f"\n  )\n  (:goal {goal})\n)\n"
    )


def model_round(pf: str | None = None, df: str = MODEL_DF, **fields) -> dict:
    """A round of the model's files, judged against the true PF of that moment."""
    return {
        "df": df,
        "pf": model_pf() if pf is None else pf,
        "check": None,
        "steps": [],
        "truth": true_rounds("coin")[1]["truth"],
    } | fields
