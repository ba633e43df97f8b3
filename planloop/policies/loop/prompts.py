"""The loop policies' prompts: today's defaults, and the horizon study's templates (Feng
2024) word for word (``PAPER_*``, ``STUDY_*``, the openings)."""

from __future__ import annotations

from dataclasses import dataclass

SYSTEM = (
    "You control an agent that acts in a world described below. You choose actions "
    "to reach a goal.\n\n{intro}"
)
TASK = "Objects: {objects}\n\nGoal: {goal}"
LESSONS = "What went wrong in earlier attempts:\n{lessons}"
PROGRESS = "Actions executed so far in this attempt:\n{trace}"
ASK_NEXT = (
    "Current situation:\n{situation}\n\nWhat are the next {count} actions to take? "
    "Answer with action names only, one per line, in order. If the goal already "
    "holds, answer DONE."
)
ASK_ALL = (
    "Current situation:\n{situation}\n\nWrite the whole sequence of actions that "
    "reaches the goal. Answer with action names only, one per line, in order."
)
ASK_ARGS = (
    "The next action is {name}, with parameters {params}.\nActions chosen before it "
    "in this step: {before}\nSituation when the step began:\n{situation}\n\n"
    "Which objects are its arguments? Answer with the action only, as "
    "({name} {placeholders})."
)
ASK_WHY = (
    "The action {action} failed.\nThe situation when it was tried:\n{situation}\n"
    "The environment said: {feedback}\n\nExplain in one or two sentences why it "
    "failed and what must hold before it can succeed."
)

PAPER_ASK = (
    "These are the names of the atomic actions that we can perform, along with their "
    "descriptions:\n{actions}\n\nCan you please give a sequence of these phrases that will "
    "get us to the goal? Include the exact phrase in each step of your answer. Format it "
    'using a numbered list with one line per step, starting with "1.". Give a little '
    "explanation of each step underneath each bullet point. Mark the end of the plan with "
    "'***' in your response. Please avoid {avoid} past planning mistakes."
)
PAPER_SEQUENCE = (
    "{lead}Currently, these facts are true:\n\n{situation}\n\nWe want these "
    "things to be true:\n\n{goal}\n\n" + PAPER_ASK
)
PAPER_REPLAN = (
    "Ok, thanks for the explanation. Now, let's replan to the goal from the "
    "beginning and avoid this mistake and all previous mistakes.\n\n"
)
PAPER_RECAP = (
    "Thanks. Let's think step by step what objects are associated with each of "
    "these actions.\nLet's recap what we've talked about. Currently, the following "
    "facts are true:\n\n{situation}\n\nWe want to make these facts true:\n{goal}\n\n"
    "We're thinking through a plan step-by-step to our goal. \n\n"
)
PAPER_STEP = (
    "We are about to do the next step in the plan:\n\n{instruction}\nWe need to "
    "identify the names of the specific objects involved in this action. Here are "
    "more details about how the objects involved need to relate to the action.\n"
    "{variables}"
)
PAPER_VARIABLE = (
    "We are going to {action}. Given knowledge of the current state and our "
    "planned actions, which of the following objects fits the description, "
    "{variable}?\n{objects}\nPlease explain your answer, and then answer with "
    'the object name on the last line after "Answer:".'
)
BEFORE = "Actions chosen before it in this step: {before}\n\n"
PAPER_WHY = (
    "Based on your plan, we've just executed these actions:{executed}However, the "
    "last action failed to execute properly. Before we executed the last action, the "
    "following facts were true in the environment:\n\n{state}\n\nThen, we tried "
    "executing this action:\n\n{action}\n\nHowever, executing this action failed. "
    "Please explain what happened."
)

STUDY_START = "The following things are true at this moment:\n\n{state}\n\n{reminder}"
STUDY_GOAL = (
    "These are the things that you would like to become true:\n{goal}\n\nThis "
    "state is your goal.\n\n" + PAPER_ASK
)
_GUIDANCE = (
    "More specifically, you will be given a set of facts that are currently true in "
    "the world, and a set of facts that is your goal to make true in the world. With "
    "my step-by-step guidance, you will think through how to act to achieve the goal."
)


@dataclass(frozen=True)
class OpeningText:
    """The study's introduction of a domain: the ``role`` turn, the ``world`` turn (over
    ``{kinds}``, the domain's types one per line, and ``{summary}``) and the ``reminder``
    after the starting state."""

    role: str
    world: str
    reminder: str


STUDY_OPENINGS = {
    "baking": OpeningText(
        role=(
            "You are a household robot in a kitchen. You are in front of the kitchen counter, "
            "where there are some prepared ingredients. \n\n" + _GUIDANCE
        ),
        world=(
            "In the kitchen, there different kinds of objects that you can interact with. "
            "The different kind of objects that you see are categorized into the following:"
            "\n\n{kinds}\n\nRight now, you see the some of these ingredients and items on "
            "the counter. You also see some appliances in the kitchen. \n\nTo start making a "
            "mixture for a souffle, you need to mix together egg yolk, sugar, butter, and a "
            "little bit of flour. To make a mixture for a cake, you need to mix together a "
            "whole egg, sugar, butter, more flour, and baking powder."
        ),
        reminder=(
            "As a reminder, in the kitchen, the pans, measuring cups, and bowls are on the "
            "counter, and the oven(s) is (are) behind the counter. If you are baking "
            "desserts, please rationalize what are the essential ingredients and their "
            "amounts to make those desserts and use only those. Once an ingredient is used "
            "once, it can't be reused.\n\nYou should have all of the ingredients that you "
            "need on the counter prepared for you. I'll let you know what desserts you will "
            "make shortly."
        ),
    )
}
GENERIC_OPENING = OpeningText(
    role="You are a robot that acts in a world of objects.\n\n" + _GUIDANCE,
    world=(
        "In this world, there are different kinds of objects that you can interact with. "
        "They are categorized into the following:\n\n{kinds}{summary}"
    ),
    reminder="I'll let you know what the goal is shortly.",
)
