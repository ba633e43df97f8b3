"""TextWorld Express's CoinCollector vocabulary: rooms, furniture, doors and items."""

from typing import Literal

FurnitureKind = Literal["surface", "closed_container", "thing"]
"""How a piece of furniture holds items: on it, hidden inside until opened, or not at all."""

ROOM_ORDER = (
    "kitchen",
    "pantry",
    "corridor",
    "bedroom",
    "backyard",
    "living room",
    "bathroom",
    "laundry room",
    "driveway",
    "street",
    "supermarket",
)

DIRECTIONS = ("north", "south", "east", "west")
DIRECTION_VERBS = ("move", "open door to", "close door to")  # the commands with a direction
OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}
STEP = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0)}

CONTAINERS = frozenset(
    {
        "fridge",
        "kitchen cupboard",
        "cutlery drawer",
        "trash can",
        "dishwasher",
        "shoe cabinet",
        "chest of drawers",
        "wardrobe",
        "bathroom cabinet",
        "washing machine",
        "clothes drier",
        "wastepaper basket",
    }
)
THINGS = frozenset({"stove", "oven", "barbeque", "bath mat", "toilet"})

# Furniture per room in description order; "kitchen" slot 4 is one of KITCHEN_CHOICE.
FURNITURE = {
    "kitchen": (
        "stove",
        "oven",
        "fridge",
        "counter",
        None,
        "cutlery drawer",
        "trash can",
        "dishwasher",
        "dining chair",
    ),
    "pantry": ("folding chair", "shelf"),
    "corridor": ("key holder", "shoe cabinet", "umbrella stand", "hat rack", "coat hanger"),
    "bedroom": (
        "dressing table",
        "desk chair",
        "desk",
        "chest of drawers",
        "wardrobe",
        "night stand",
        "bed",
    ),
    "backyard": ("barbeque", "workbench", "patio chair", "patio table", "clothes line", "garden"),
    "living room": (
        "wastepaper basket",
        "book case",
        "TV stand",
        "arm chair",
        "side table",
        "coffee table",
        "end table",
        "sofa",
    ),
    "bathroom": (
        "dressing table",
        "sink",
        "wall hook",
        "bath mat",
        "toilet roll holder",
        "towel rack",
        "bath tub",
        "shower",
        "trash can",
        "bathroom cabinet",
        "toilet",
    ),
    "laundry room": ("bench", "work table", "clothes drier", "laundry basket", "washing machine"),
    "driveway": (),
    "street": (),
    "supermarket": ("showcase",),
}
KITCHEN_CHOICE = ("dining table", "kitchen cupboard")

# Room pairs that may be connected; the value lists the door names (empty: never a door).
_PATIO = ("sliding patio door", "patio door", "screen door")
LINKS = {
    frozenset(pair): doors
    for pair, doors in (
        (("kitchen", "pantry"), ("frosted-glass door", "plain door")),
        (("kitchen", "corridor"), ()),
        (("kitchen", "living room"), ()),
        (("kitchen", "backyard"), _PATIO),
        (("kitchen", "bathroom"), ("wood door",)),
        (("kitchen", "laundry room"), ("wood door",)),
        (("corridor", "bedroom"), ("wood door",)),
        (("corridor", "backyard"), _PATIO),
        (("corridor", "living room"), ()),
        (("corridor", "bathroom"), ("wood door",)),
        (("corridor", "laundry room"), ("wood door",)),
        (("corridor", "driveway"), ()),
        (("bedroom", "living room"), ("wood door",)),
        (("bedroom", "bathroom"), ()),
        (("backyard", "living room"), _PATIO),
        (("backyard", "driveway"), ()),
        (("backyard", "street"), ()),
        (("living room", "bathroom"), ("wood door",)),
        (("bathroom", "laundry room"), ("wood door",)),
        (("driveway", "street"), ()),
        (("street", "supermarket"), ("sliding door", "commercial glass door")),
    )
}

# Distractor items seen in each fold of TextWorld Express 1.1.0.
ITEMS = {
    "train": (
        "beret",
        "black cap",
        "black pepper",
        "blue gloves",
        "brown belt",
        "brown coat",
        "chicken wing",
        "chopping board",
        "clean brown dress",
        "clean cake slicer",
        "copybook",
        "dirty brown shirt",
        "fleece jacket",
        "flour",
        "gray cap",
        "kettle",
        "picture",
        "plaid bed sheet",
        "platform heels",
        "scarf",
        "spice container",
        "table lamp",
        "toilet paper",
        "used tissue",
        "vegetable oil",
        "white onion",
        "yellow onion",
    ),
    "dev": (
        "blue duvet",
        "brown golf shoes",
        "brown pillow",
        "checkered blanket",
        "checkered duvet",
        "clean cleaver",
        "clean fork",
        "clean glass",
        "clean gray knickers",
        "corkscrew",
        "dirty orange T-shirt",
        "dirty roasting tray",
        "eggs",
        "key",
        "magazine",
        "mixer",
        "nail polish",
        "peanut oil",
        "pen",
        "raincoat",
        "red hot pepper",
        "salt",
        "used plastic cup",
        "white golf shoes",
    ),
    "test": (
        "black pillow",
        "blender",
        "brown bed sheet",
        "brown cap",
        "can opener",
        "clean whisk",
        "dirty bowl",
        "dirty knife",
        "face cream",
        "green hot pepper",
        "lip gloss",
        "notebook",
        "olive oil",
        "red onion",
        "rotten red potato",
        "sugar",
        "umbrella",
        "used Q-tip",
        "white sneakers",
    ),
}


def furniture_kind(name: str) -> FurnitureKind:
    """``closed_container``, ``thing`` or ``surface``, as TextWorld Express shows it."""
    if name in CONTAINERS:
        return "closed_container"
    return "thing" if name in THINGS else "surface"
