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
from annotation.models.scores import PairSignificance, RunScore, RunStatistics

__all__ = [
    "Campaign",
    "Document",
    "Job",
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
    "Segment",
    "System",
    "SystemRun",
]
