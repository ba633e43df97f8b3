"""Open-loop and closed-loop planning with a language model.

The model first names the next actions (names only), then grounds each one's arguments
from the task's objects. Closed loop with horizon H executes up to H actions, looks at
the new state and asks again; when an action fails, the model explains the failure and
the episode starts over (``RESTART``) with the explanation in context. Open loop asks
once for the whole sequence and executes it with no feedback.

Six switches choose between today's richer defaults and the horizon study's workflow
(Feng 2024, "A Study on Planning with LLMs in Relational Domains"; its settings are
``planloop.protocols.baking``), whose templates the ``PAPER_*`` and ``STUDY_*`` prompts
follow word for word:

- ``feedback``: ``cause`` shows the failed action, the state and the environment's words
  on why it failed; ``state`` only the executed actions, the state before the failure and
  the failed action (the study's explanation prompt).
- ``grounding``: ``per_action`` asks for all of an action's arguments at once;
  ``per_variable`` introduces the step, then asks one question per parameter with the
  parameter's description and the objects, read after ``Answer:`` (the study).
- ``conversation``: ``rebuild`` builds each prompt afresh (task, explanations, progress,
  question); ``accumulate`` keeps one growing conversation with every reply (the study).
- ``ask``: ``next`` asks for the next H action names (the whole plan at H = None);
  ``sequence`` asks for the whole sequence each time and executes its first H (the study).
- ``opening``: ``brief`` states the domain and the task in a system and a user message;
  ``study`` opens the conversation as the study does: the role (a household robot, for
  Baking), the kinds of objects with a summary of the domain, the starting state, then
  the goal with the actions, each turn answered (needs ``conversation="accumulate"``).
- ``max_restarts``: the cap on explained restarts; None for none.

Each of the first five is a strategy object with one job (``feedback.py``,
``grounding.py``, ``conversation.py``, ``asking.py``, ``opening.py``); the policy takes
a choice's name or a strategy object, so a protocol can assemble its own.

With ``ask="sequence"`` a step is introduced by the model's own line for it; each
parameter's question lists the objects of its type.
"""

from .asking import ASKS, Ask, AskName, AskNext, AskSequence
from .conversation import (
    CONVERSATIONS,
    AccumulatedConversation,
    Conversation,
    ConversationName,
    RebuiltConversation,
)
from .feedback import FEEDBACKS, CauseFeedback, Feedback, FeedbackName, StateFeedback
from .grounding import (
    GROUNDINGS,
    Grounding,
    GroundingName,
    PerActionGrounding,
    PerVariableGrounding,
)
from .opening import OPENINGS, BriefOpening, Opening, OpeningName, StudyOpening
from .policy import (
    CHOICES,
    DEFAULT,
    DEFAULTS,
    PROMPT_VERSION,
    ClosedLoopPolicy,
    OpenLoopPolicy,
    describe_actions,
)
from .prompts import GENERIC_OPENING, STUDY_OPENINGS, STUDY_START, OpeningText

__all__ = [
    "ASKS",
    "AccumulatedConversation",
    "Ask",
    "AskName",
    "AskNext",
    "AskSequence",
    "BriefOpening",
    "CHOICES",
    "CONVERSATIONS",
    "CauseFeedback",
    "ClosedLoopPolicy",
    "Conversation",
    "ConversationName",
    "DEFAULT",
    "DEFAULTS",
    "FEEDBACKS",
    "Feedback",
    "FeedbackName",
    "GENERIC_OPENING",
    "GROUNDINGS",
    "Grounding",
    "GroundingName",
    "OPENINGS",
    "OpenLoopPolicy",
    "Opening",
    "OpeningName",
    "OpeningText",
    "PROMPT_VERSION",
    "PerActionGrounding",
    "PerVariableGrounding",
    "RebuiltConversation",
    "STUDY_OPENINGS",
    "STUDY_START",
    "StateFeedback",
    "StudyOpening",
    "describe_actions",
]
