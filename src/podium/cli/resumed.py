"""`podium resume RUN`: what the record of a run whose process died says about it, and how to go on.

The run's applications are built again from what `podium run` kept (the workspace and [apps]), the
HostConfig is the recorded one (only who answers changes: --batch, --yes), the strategy's state is
derived again from the record by `podium.journal.resume`, and the work that was in flight is sent again.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from podium.cli.records import resolve
from podium.cli.summary import failed_before_result
from podium.errors import ConfigError, PodiumError, RunFailed
from podium.journal import InFlight, Liveness, in_flight, liveness
from podium.journal import resume as resume_session

if TYPE_CHECKING:
    from podium.cli.run import RunOptions
    from podium.desktop import HostConfig, HostSession, RunResult


@dataclass(frozen=True)
class Resumed:
    name: str
    request: str
    token: str
    workspace: Path
    model: str | None
    apps_config: Mapping[str, Any]
    strategy_record: Mapping[str, Any]
    work: InFlight

    @classmethod
    def load(cls, store: Any, ident: str) -> Resumed:
        from podium.desktop import HostStrategy
        from podium.desktop.shell.records import STRATEGY_RECORD, strategy_options

        record = resolve(store, ident)
        state = liveness(record)
        if state is Liveness.RUNNING:
            raise PodiumError(f"run {record.name} is still running (pid {record.process.pid}); "  # type: ignore[union-attr]
                              "only a run whose process is gone can be resumed")
        if state in (Liveness.STOPPED, Liveness.HALTED):
            raise PodiumError(f"run {record.name} ended ({record.status.value}); there is nothing to resume")
        if state is Liveness.UNKNOWN and record.process is not None:
            raise PodiumError(f"run {record.name} was started on {record.process.host}: resume it there, where "
                              "podium can tell whether its process is gone")
        run, options = store.get(record.name, "run"), store.get(record.name, STRATEGY_RECORD)
        if run is None or options is None:
            raise ConfigError(f"run {record.name} did not keep what a resume needs (its workspace, applications "
                              "and strategy options): it was not started by `podium run`")
        work = in_flight(HostStrategy(), strategy_options(options), store.entries(record.name))
        if not work.pending:
            raise PodiumError(f"run {record.name} has no request left waiting for its answer; nothing to resume")
        workspace = Path(run["workspace"])
        if not workspace.is_dir():
            raise ConfigError(f"run {record.name} worked in {workspace}, which is no longer a folder")
        return cls(record.name, str(run["request"]), work.pending[0], workspace, run.get("model"),
                   dict(run.get("apps") or {}), options, work)

    def build_apps(self, options: RunOptions) -> Any:
        from podium.apps import build_applications

        try:
            return build_applications({**self.apps_config, "workspace": str(self.workspace)}, base="/")
        except ConfigError as exc:
            raise ConfigError(f"the applications run {self.name} used: {exc}") from None

    def host_config(self, current: HostConfig) -> HostConfig:
        """The recorded HostConfig (the strategy's state is derived again with it), answered by whoever
        answers now."""
        from podium.desktop.shell.records import strategy_options

        recorded = strategy_options(self.strategy_record)["config"]
        return replace(recorded, interactive=current.interactive, auto_approve=current.auto_approve)

    def resume_with(self, store: Any) -> Any:
        async def resume(strategy: Any, **opts: Any) -> Any:
            return await resume_session(strategy, store, self.name, **opts)

        return resume

    async def wait(self, host: HostSession) -> RunResult:
        from podium.desktop import RunResult

        with contextlib.suppress(RunFailed):  # a failed request's outcome is in the host's status, as for a run
            await host.session.result(self.token)
        last = host.status().get("host", {}).get("last")
        if last is not None and last.get("token") == self.token:
            return RunResult.from_outcome(last)
        return failed_before_result(self.request, "the resumed run ended without an outcome")

    def describe(self) -> list[str]:
        lines = [f"resuming run {self.name}: {self.request}"]
        if not self.work.dispatches:
            return [*lines, "nothing was in flight when its process died: the HostAgent takes the next step"]
        lines.append("in flight when its process died (sent again):")
        lines += [f"  {_step(d.agent, d.prompt)}" for d in self.work.dispatches]
        return lines


def _step(agent: str, prompt: Any) -> str:
    """`subtask 2 step 1 on app-spreadsheets`, from a step's prompt (the host strategy's JSON)."""
    text = getattr(prompt, "text", prompt)
    try:
        body = json.loads(text) if isinstance(text, str) else {}
    except ValueError:
        body = {}
    if isinstance(body, dict) and body.get("kind") == "propose":
        return f"subtask {body.get('subtask_id')} step {body.get('step')} on {agent}: {body.get('description', '')}"
    if isinstance(body, dict) and body.get("kind") == "execute":
        calls = ", ".join(str(c.get("function")) for c in body.get("calls", ()) if isinstance(c, dict))
        return f"subtask {body.get('subtask_id')} step {body.get('step')} on {agent}: running {calls}"
    if isinstance(body, dict) and "step" in body:
        return f"the HostAgent's step {body['step']} ({agent})"
    return f"a step of {agent}"
