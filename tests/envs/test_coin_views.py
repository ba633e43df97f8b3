"""CoinCollector's kept views (``House.views``, shared by every game in a house) against
views built from scratch, along long random walks with invalid commands and resets."""

import random

import pytest

from planloop.envs.coin import CoinCollectorEnv
from planloop.envs.coin.text import inventory_text
from planloop.envs.coin.view import room_view

from conftest import DATA

JUNK = ["fly", "", "LOOK AROUND", "move up", "take sword", "close door to up", "help"]
HOUSES = [
    {"layout": DATA / "twx_coin" / "coin_L11_D1_X10_dev_s10009.json"},
    {"layout": DATA / "twx_coin" / "coin_L6_D1_X10_train_s13.json"},
    {"num_locations": 9, "include_doors": True, "num_distractor_items": 10},
]


def from_scratch(world, open_doors):
    """The current room's view, built afresh from the world's items and ``open_doors``
    (the rooms each open door joins), which the test keeps itself."""
    room = world.house.room(world.room)
    on = [world.on[room.name, i] for i in range(len(room.furniture))]
    passable = {
        d: x.door is None or frozenset((room.name, x.to)) in open_doors
        for d, x in room.exits.items()
    }
    return room_view(room, on, world.loose[room.name], passable)


@pytest.mark.parametrize("kwargs", HOUSES, ids=["L11", "L6", "generated"])
def test_kept_views_are_the_views_built_from_scratch(kwargs):
    rng = random.Random(3)
    env = CoinCollectorEnv(**kwargs)
    _, info = env.reset(seed=5)
    open_doors = set(env.world.house.open_doors)
    for _ in range(3000):
        valid = info["admissible_actions"]
        command = rng.choice(JUNK) if rng.random() < 0.1 else rng.choice(valid)
        here = env.world.room
        _, _, terminated, _, info = env.step(command)
        if command.startswith(("open door", "close door")) and not info["action_error"]["kind"]:
            door = frozenset((here, env.world.house.room(here).exits[command.split()[-1]].to))
            (open_doors.add if command.startswith("open") else open_doors.discard)(door)
        world = env.world
        view = from_scratch(world, open_doors)
        assert world.view == view
        assert info["look"] == view.description
        assert sorted(info["admissible_actions"]) == sorted(view.actions)
        assert info["inventory"] == inventory_text(world.inventory)
        assert world.known_links >= view.links
        if terminated or rng.random() < 0.02:  # a new game in the same house
            _, info = env.reset(seed=5)
            open_doors = set(env.world.house.open_doors)
    assert len(world.house.views) > len(world.house.rooms)  # states beyond the first
