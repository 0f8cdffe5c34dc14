"""Crash recovery: an agent that goes down is replaced by a fresh one, and the request goes on.

Fault isolation is per agent. An AppAgent that goes down mid-step is replaced by a new generation
(`app-<application>-<n>`) and the interrupted step is retried on it, at most
`HostConfig.max_agent_restarts` times per subtask; the subtasks queued for that application run on the
fresh agent afterwards, and subtasks on other AppAgents never notice. Nothing of the subtask is lost:
its step memory, its data and what its calls changed are the host's, not the agent's. An interrupted
PROPOSE is asked again; an interrupted EXECUTE is sent again under the same intent, which the executor
runs at most once (what already ran is reported, not repeated). When the restarts are spent the subtask fails with
`agent_down`, naming the agent and the subtask, and the request takes its usual failure path
(dependants skipped, re-plan or give up).

An agent that goes down while no step of it is out (its subtask waits for the person; the planner
while the subtasks run) costs no restart: a fresh agent starts with its next step. So does the
planner, which is re-asked the same question after a crash (its restarts counted per request).
"""

from __future__ import annotations

from dataclasses import replace

from podium.desktop.host.flow import (
    Result,
    dispatch_execute,
    dispatch_planner,
    dispatch_propose,
    end_subtask,
    finish_run,
    in_flight,
    reserve_agent,
    settle,
)
from podium.desktop.host.fsm import HostEvent, SubtaskEvent, SubtaskState
from podium.desktop.host.run import active, record_step, run_of, update_subtask, with_run
from podium.desktop.host.state import PLANNER, HostState
from podium.desktop.wire.schemas import HostStatus
from podium.errors import Reason, ReasonKind


def _why(reason: Reason) -> str:
    return reason.detail or reason.kind.value


def on_app_down(s: HostState, agent: str, reason: Reason) -> Result:
    """An AppAgent went down: it leaves the cache; the subtask it served goes on with a fresh one."""
    s = replace(s, agents={app: name for app, name in s.agents.items() if name != agent})
    if not active(s):
        return [], s
    run = run_of(s)
    sid = run.busy.get(agent)
    if sid is None:  # idle: the next subtask on its application starts a fresh one
        return [], s
    record = run.subtasks[sid]
    interrupted = record.state is SubtaskState.CONTINUE  # its step was out on the dead agent
    limit = s.config.max_agent_restarts
    what = f"AppAgent {agent} went down during subtask {sid} ({record.spec.description}): {_why(reason)}"
    if interrupted and record.restarts >= limit:
        return _give_up(s, agent, sid, reason, Reason(
            ReasonKind.AGENT_DOWN, f"{what}; no restart left (max_agent_restarts={limit})", agent, reason))

    s, fresh = reserve_agent(s, record.spec.application)
    s = with_run(s, busy={**{a: t for a, t in run.busy.items() if a != agent}, fresh: sid})
    restarts = record.restarts + (1 if interrupted else 0)
    note = (f"The AppAgent that worked on this subtask before you ({agent}) went down ({_why(reason)}). You are a "
            f"fresh AppAgent; your previous steps below are what it did. Look at the files before you act.")
    s = update_subtask(s, sid, SubtaskEvent.RESTARTED, restarts=restarts, note=note)
    then = (f"retrying its interrupted step (restart {restarts} of max_agent_restarts={limit})" if interrupted
            else "the fresh agent starts when the person has replied")
    s = record_step(s, agent, "ERROR", subtask=sid, action="agent down", error=str(reason),
                    outcome=f"replaced by {fresh}; {then}")
    if not interrupted:
        return [], s
    proposal = run_of(s).subtasks[sid].proposal
    if proposal is not None and proposal.intent:  # its calls were out: the same intent, run at most once
        return dispatch_execute(s, sid, proposal)
    return dispatch_propose(s, sid)


def _give_up(s: HostState, agent: str, sid: str, down: Reason, why: Reason) -> Result:
    s = record_step(s, agent, "ERROR", subtask=sid, action="agent down", error=str(down),
                    outcome="no restart left: the subtask fails")
    s = end_subtask(s, sid, agent, SubtaskEvent.CRASHED, reason=why)
    ops, s = settle(s)
    if active(s) and not in_flight(s):
        # Everything else waits for the person: the session ends a run that a crash leaves with no step
        # out (it cannot tell waiting from hanging), so it ends here, with its record and the reason.
        more, s = finish_run(s, HostEvent.BROKEN, why)
        ops += more
    return ops, s


def on_planner_down(s: HostState, reason: Reason) -> Result:
    """The planner went down: a fresh one is asked the same step again (its memory of earlier steps is
    lost; the prompt carries the subtasks, the plan and the blackboard, which is what it needs)."""
    s = replace(s, planner_down=True)
    if not active(s):
        return [], s
    run = run_of(s)
    if run.machine.state is not HostStatus.CONTINUE:  # no step of it was out
        s = record_step(s, PLANNER, "ERROR", action="planner down", error=str(reason),
                        outcome="a fresh planner, without the memory of the earlier steps, starts at the next step")
        return [], s
    limit = s.config.max_agent_restarts
    what = f"the HostAgent's planner went down: {_why(reason)}"
    if run.planner_restarts >= limit:
        return finish_run(s, HostEvent.BROKEN, Reason(
            ReasonKind.AGENT_DOWN, f"{what}; no restart left (max_agent_restarts={limit})", PLANNER, reason))
    restarts = run.planner_restarts + 1
    s = with_run(s, planner_restarts=restarts)
    s = record_step(s, PLANNER, "ERROR", action="planner down", error=str(reason),
                    outcome=f"restarted without the memory of its earlier steps; step asked again "
                            f"(restart {restarts} of max_agent_restarts={limit})")
    note, feedback, retry = run.planner_ask
    return dispatch_planner(s, note=note, feedback=feedback, retry=retry, preface=(
        "You were restarted after a crash during this step: your memory of earlier steps is lost; the request, "
        "subtasks, plan and blackboard here are complete."))
