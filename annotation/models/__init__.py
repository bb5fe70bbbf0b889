from annotation.models.campaigns import (
    Campaign,
    Document,
    Membership,
    Output,
    PendingUpload,
    PendingUploadFile,
    Reference,
    ReferenceSegment,
    Role,
    Segment,
    System,
    SystemRun,
)
from annotation.models.jobs import Job
from annotation.models.logins import LoginFailure
from annotation.models.results import AnnotatorExclusion
from annotation.models.scores import PairSignificance, RunScore, RunStatistics
from annotation.models.tasks import (
    LIKERT_TYPES,
    Invitation,
    Item,
    ItemType,
    Judgment,
    Scale,
    Slot,
    Task,
    TaskType,
)

__all__ = [
    "LIKERT_TYPES",
    "AnnotatorExclusion",
    "Campaign",
    "Document",
    "Invitation",
    "Item",
    "ItemType",
    "Job",
    "Judgment",
    "LoginFailure",
    "Membership",
    "Output",
    "PairSignificance",
    "PendingUpload",
    "PendingUploadFile",
    "Reference",
    "ReferenceSegment",
    "Role",
    "RunScore",
    "RunStatistics",
    "Scale",
    "Segment",
    "Slot",
    "System",
    "SystemRun",
    "Task",
    "TaskType",
]
