"""CrewAI (extra ``crewai``): a ``Crew`` as an episode, governed tools as approvals.

from noesis_nb.integrations import start
from noesis_nb.integrations.crewai import CrewAIAdapter
handle = start("plan the launch", using=CrewAIAdapter(crew, govern_tools=["send_email"]))
"""

from ._adapter import CrewAIAdapter, default_input_mapper

__all__ = ["CrewAIAdapter", "default_input_mapper"]
