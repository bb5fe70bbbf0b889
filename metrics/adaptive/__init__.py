"""Adaptive collection: a stopping rule that survives peeking, a budget planner, allocation
policies and a simulator that replays finished campaigns (issue 23, sections 2 and 3).

Plain functions over lists and NumPy arrays, no Django:

- ``ranking_status`` (status.py): the stopping rule on one task's scores -- the order, and each
  adjacent pair resolved / equivalent within delta / open (normal-mixture confidence sequence,
  confidence.py, references there);
- ``judgments_needed`` / ``detectable_difference`` (planner.py): the budget planner;
- ``system_priorities`` (priorities.py): what a live adaptive task should judge next, one
  number per system, for a job that refreshes a priorities table;
- ``POLICIES`` / ``SCREEN_POLICIES`` (policies.py): uniform, pearmut, racing, adaptive, one
  output or one contrastive screen a draw;
- ``build_campaign`` (campaign.py) / ``replay`` / ``summary`` (simulate.py): the simulator
  behind ``python -m metrics simulate``, one replay core (``replay_draws``) for one-output
  draws and for screens (``screens.replay_screens``).
"""

from metrics.adaptive.planner import TaskBudget, detectable_difference, judgments_needed
from metrics.adaptive.priorities import system_priorities
from metrics.adaptive.status import PairStatus, RankingStatus, ranking_status

__all__ = [
    "PairStatus",
    "RankingStatus",
    "TaskBudget",
    "detectable_difference",
    "judgments_needed",
    "ranking_status",
    "system_priorities",
]
