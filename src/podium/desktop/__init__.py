"""The desktop orchestrator: a HostAgent that turns a request into a typed subtask graph and drives one
AppAgent per application, on the ensemble runtime (the UFO² model).

The package has four rooms:
- `host`: the pure host strategy: its state, both state machines, the typed plan's checks, the
  capabilities that bound each subtask's changes, the AppAgent step's decisions, the verifier;
- `wire`: what travels between the strategy, the step runners and the models: output schemas, the
  grammars, the prompts, the step messages;
- `shell`: the step runners and the session, the only code that touches applications, files and models;
- `rules`: the named model-compensation rules, chosen per run by profile.

Public surface: `HostSession` / `run_request` (entry points), `HostConfig`, `RunResult`, the events the
caller sees and sends (`Progress`, `Question`, `ApprovalRequest`, `RunFinished`, `Answer`, `Approval`,
`Elapsed`, `Cancel`), the pure `HostStrategy`, the output schemas, the `Blackboard`.
"""

from __future__ import annotations

from podium.desktop.blackboard import Blackboard
from podium.desktop.host.fsm import HostEvent, HostMachine, SubtaskMachine, SubtaskState
from podium.desktop.host.state import HostConfig, HostState
from podium.desktop.host.strategy import Evaluation, HostStrategy
from podium.desktop.person import (
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
from podium.desktop.rules import RULES, Rule
from podium.desktop.shell.heads import Warmed, warm
from podium.desktop.shell.launch import AppsLifecycle, Lifecycle
from podium.desktop.shell.phases import Middleware, Phase
from podium.desktop.shell.session import HostSession, RunResult, batch, run_request
from podium.desktop.wire.schemas import Action, AppOutput, AppStatus, HandsOn, HostOutput, HostStatus, SubtaskSpec

__all__ = [
    "RULES",
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
    "HandsOn",
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
    "Rule",
    "RunFinished",
    "RunResult",
    "SubtaskMachine",
    "SubtaskProgress",
    "SubtaskSpec",
    "SubtaskState",
    "Warmed",
    "batch",
    "run_request",
    "warm",
]
