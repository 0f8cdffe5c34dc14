"""The desktop orchestrator: a HostAgent that turns a request into a subtask graph and drives one
AppAgent per application, on the ensemble runtime (the UFO² model).

Public surface: `HostSession` / `run_request` (entry points), `HostConfig`, `RunResult`, the events
the caller sees and sends (`Progress`, `Question`, `ApprovalRequest`, `RunFinished`, `Answer`,
`Approval`, `Elapsed`, `Cancel`), the pure `HostStrategy`, the output schemas, the `Blackboard`.
"""

from __future__ import annotations

from podium.desktop.blackboard import Blackboard
from podium.desktop.events import (
    Answer,
    Approval,
    ApprovalRequest,
    Cancel,
    Elapsed,
    Progress,
    Question,
    RunFinished,
    SubtaskProgress,
)
from podium.desktop.fsm import HostEvent, HostMachine, HostState, SubtaskMachine, SubtaskState
from podium.desktop.host import Evaluation, HostStrategy
from podium.desktop.host_session import HostSession, RunResult, batch, run_request
from podium.desktop.host_state import HostConfig
from podium.desktop.lifecycle import AppsLifecycle, Lifecycle
from podium.desktop.pipeline import Middleware, Phase
from podium.desktop.schemas import Action, AppOutput, AppStatus, HostOutput, HostStatus, SubtaskSpec

__all__ = [
    "Action",
    "Answer",
    "AppOutput",
    "AppStatus",
    "Approval",
    "ApprovalRequest",
    "AppsLifecycle",
    "Blackboard",
    "Cancel",
    "Elapsed",
    "Evaluation",
    "HostConfig",
    "HostEvent",
    "HostMachine",
    "HostOutput",
    "HostSession",
    "HostState",
    "HostStatus",
    "HostStrategy",
    "Lifecycle",
    "Middleware",
    "Phase",
    "Progress",
    "Question",
    "RunFinished",
    "RunResult",
    "SubtaskMachine",
    "SubtaskProgress",
    "SubtaskSpec",
    "SubtaskState",
    "batch",
    "run_request",
]
