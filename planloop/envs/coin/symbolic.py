"""The hidden world of a CoinCollector game as PDDL, and what the player has seen of it."""

from __future__ import annotations

from .names import SLOTS, door_object, fact, pddl_name
from .world import World

DOMAIN = """(define (domain coin-collector)
  (:requirements :strips :typing :negative-preconditions)
  (:types room door item slot direction)
  (:constants north south east west - direction)
  (:predicates
    (player-at ?r - room)
    (visited ?r - room)
    (connected ?from - room ?to - room ?d - direction)
    (door-between ?dr - door ?from - room ?to - room)
    (closed ?dr - door)
    (blocked ?from - room ?to - room)
    (in-room ?i - item ?r - room)
    (holding ?i - item)
    (free ?s - slot))
  (:action move
    :parameters (?from - room ?to - room ?d - direction)
    :precondition (and (player-at ?from) (connected ?from ?to ?d) (not (blocked ?from ?to)))
    :effect (and (not (player-at ?from)) (player-at ?to) (visited ?to)))
  (:action open-door
    :parameters (?dr - door ?from - room ?to - room ?d - direction)
    :precondition (and (player-at ?from) (connected ?from ?to ?d) (door-between ?dr ?from ?to)
                       (closed ?dr))
    :effect (and (not (closed ?dr)) (not (blocked ?from ?to)) (not (blocked ?to ?from))))
  (:action close-door
    :parameters (?dr - door ?from - room ?to - room ?d - direction)
    :precondition (and (player-at ?from) (connected ?from ?to ?d) (door-between ?dr ?from ?to)
                       (not (closed ?dr)))
    :effect (and (closed ?dr) (blocked ?from ?to) (blocked ?to ?from)))
  (:action take
    :parameters (?i - item ?r - room ?s - slot)
    :precondition (and (player-at ?r) (in-room ?i ?r) (free ?s))
    :effect (and (not (in-room ?i ?r)) (holding ?i) (not (free ?s))))
)
"""


def true_facts(world: World, observed_only: bool = False) -> list[str]:
    """The facts true now (items hidden inside furniture are out of play and left out);
    with ``observed_only``, those the player's texts have shown: the rooms visited, the
    passages whose far room was named, the doors on them, the items lying in visited
    rooms and the inventory."""
    facts = [fact("player-at", world.room)]
    facts += [fact("visited", room) for room in sorted(world.visited)]
    for room in world.house.rooms:
        for d, x in room.exits.items():
            if observed_only and (room.name, d) not in world.known_links:
                continue
            facts.append(fact("connected", room.name, x.to, d))
            if x.door is not None:
                door = door_object(x.door, room.name, x.to)
                facts.append(fact("door-between", door, room.name, x.to))
                if not world.passable[room.name][d]:
                    facts += [fact("closed", door), fact("blocked", room.name, x.to)]
        if not observed_only or room.name in world.visited:
            facts += [fact("in-room", item, room.name) for item in world.visible_items(room.name)]
    facts += [fact("holding", item) for item in world.inventory]
    facts += [fact("free", slot) for slot in SLOTS[len(world.inventory) :]]
    return sorted(set(facts))


def problem_text(world: World, name: str = "coin-game") -> str:
    """The true state as a PDDL problem whose goal is holding the coin."""
    house = world.house
    rooms = sorted(pddl_name(room.name) for room in house.rooms)
    doors = sorted(
        {
            door_object(x.door, room.name, x.to)
            for room in house.rooms
            for x in room.exits.values()
            if x.door is not None
        }
    )
    items = sorted(
        {
            pddl_name(item)
            for room in house.rooms
            for item in (*room.loose, *(i for f in room.furniture for i in f.items))
        }
    )
    objects = [(rooms, "room"), (doors, "door"), (items, "item"), (list(SLOTS), "slot")]
    lines = [f"(define (problem {name})", "  (:domain coin-collector)", "  (:objects"]
    lines += [f"    {' '.join(names)} - {kind}" for names, kind in objects if names]
    lines += ["  )", "  (:init"] + [f"    {f}" for f in true_facts(world)] + ["  )"]
    lines += ["  (:goal (holding coin))", ")", ""]
    return "\n".join(lines)


def plan_commands(world: World, plan) -> list[str]:
    """A plan's ``(action args)`` steps as game commands (for the state ``world`` is in)."""
    items = {
        pddl_name(item): item
        for room in world.house.rooms
        for item in (*room.loose, *(i for f in room.furniture for i in f.items))
    }
    commands = []
    for step in plan:
        name, *args = str(step).strip("()").lower().split()
        if name == "take":
            commands.append(f"take {items[args[0]]}")
        elif name == "move":
            commands.append(f"move {args[2]}")
        else:
            commands.append(f"{name.split('-')[0]} door to {args[3]}")
    return commands


__all__ = ["DOMAIN", "plan_commands", "problem_text", "true_facts"]
