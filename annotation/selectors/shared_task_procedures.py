"""The WMT procedures that may rank a shared task's pair, the protocol each ranked task type
publishes, and which systems are human translations (marked in the tables, left out of the
global ranking)."""

from __future__ import annotations

import re

from annotation.models import HUMAN, Task
from annotation.protocols import protocol_for
from metrics.spans.esa_wmt import PROCEDURES as ESA_PROCEDURES

# Human translations ranked among the systems: the campaign's own reference ("Human") and the
# names WMT and the MQM releases give references judged as systems (refA, refB, ref,
# Human-B). They are marked in the tables and take no part in the global ranking.
_HUMAN_NAME = re.compile(r"(human|ref)([-_ ]?[a-z0-9])?", re.IGNORECASE)


# The WMT procedures that may rank a pair, by its protocol, the default first: ESA and cESA
# as WMT24, WMT25 or WMT26 (metrics.spans.esa_wmt); DA and Likert as WMT21 (z-scores,
# Wilcoxon rank-sum); MQM by its own ranking (mean MQM score, bootstrap intervals, paired
# tests: metrics.spans.mqm.rank_mqm), which no WMT script replaces.
PAIR_PROCEDURES: dict[str, tuple[str, ...]] = {
    "esa": tuple(ESA_PROCEDURES),
    "cda": tuple(ESA_PROCEDURES),
    "da": ("wmt21",),
    "mqm": ("mqm",),
}
# What each procedure does, for the page (the ESA ones as metrics.spans.esa_wmt says).
PROCEDURE_LABELS = {
    "wmt21": "WMT21: z-scores per annotator; Wilcoxon rank-sum tests, DA clusters",
    **ESA_PROCEDURES,
    "mqm": "MQM: the mean MQM score with bootstrap intervals; paired tests, clusters",
}


def procedure_name(procedure: str) -> str:
    """How a table's caption names the procedure ("WMT25"; MQM's own ranking: none)."""
    return procedure.upper() if procedure.startswith("wmt") else ""


def task_protocol(task: Task) -> str:
    """The protocol a ranked task publishes (a key of metrics.report.tables.PROTOCOLS), as
    its protocol declares (``ranked_as``)."""
    ranked_as = protocol_for(task.task_type).ranked_as
    if ranked_as is None:
        raise KeyError(f"{task.task_type} tasks are not ranked")
    return ranked_as


def pair_procedure(protocol: str, chosen: str) -> str:
    """The procedure that ranks a pair: the one chosen when it applies to the protocol (a
    choice made before the pair's task changed may not), else the protocol's default."""
    choices = PAIR_PROCEDURES[protocol]
    return chosen if chosen in choices else choices[0]


def is_human_translation(system: str) -> bool:
    return system == HUMAN or _HUMAN_NAME.fullmatch(system.strip()) is not None
