"""Exactly-once effects: a batch of changing calls is journaled as an intent before it runs and as done after,
with a copy of every file it will change; the run's change log follows (podium undo reads it).

A batch sent again after the process died (podium resume re-sends what was in flight) is reconciled from the
files: one whose results were recorded is reported, not run again; one that had begun is put back as it was
(each path it names restored from its copy, or removed if the batch was to create it) and then run, so the
files end as one run of it would leave them, never with a row appended twice.

Recording never fails a call: a journal that cannot keep a copy (full, unreadable) is logged, and the call
runs without the guarantee.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from podium.desktop.wire.messages import ActionResult, Call
from podium.journal.files import FOLDER

log = logging.getLogger("podium.desktop.intents")
PREFIX = "intent:"


class JournalIntents:
    """The IntentLog of one run over a journal (podium.journal.Journal) and the run's workspace."""

    def __init__(self, journal: Any, workspace: Path, session: str | None = None) -> None:
        self.journal = journal
        self.workspace = Path(workspace)
        self.session = session
        self.reconciled: list[str] = []  # what was put back, for the person resuming the run

    def bind(self, session: str) -> None:
        self.session = session

    def begin(self, intent: str, calls: Sequence[Call]) -> Sequence[ActionResult] | None:
        if self.session is None:
            return None
        key = f"{PREFIX}{intent}"
        try:
            earlier = self.journal.store.get(self.session, key)
        except Exception:
            log.exception("intent %s: the journal could not be read; the calls run", intent)
            return None
        if isinstance(earlier, Mapping) and earlier.get("state") == "done":
            self.reconciled.append(f"{intent}: its calls had run; their results are reported, not run again")
            return [ActionResult.model_validate(r) for r in earlier.get("results", ())]
        if isinstance(earlier, Mapping) and earlier.get("state") == "begun":
            self._put_back(intent, earlier.get("before", {}))
            before = earlier.get("before", {})
        else:
            before = self._copies(calls)
        self._keep(key, {"state": "begun", "before": before})
        return None

    def done(self, intent: str, results: Sequence[ActionResult]) -> None:
        if self.session is None:
            return
        key = f"{PREFIX}{intent}"
        try:
            before = (self.journal.store.get(self.session, key) or {}).get("before", {})
        except Exception:
            before = {}
        for path, was in before.items():
            try:
                now = self._save(path)
                if now != was:
                    self.journal.record_change(self.session, self.workspace, path, was, now)
            except Exception:
                log.exception("intent %s: the change of %s could not be logged", intent, path)
        self._keep(key, {"state": "done", "before": before,
                         "results": [r.model_dump(mode="json") for r in results]})

    # -- the files ---------------------------------------------------------------------------------------

    def _copies(self, calls: Sequence[Call]) -> dict[str, str | None]:
        """A copy of every file the calls name, as it is now (None: absent), by workspace path; and the
        folders on their way that do not exist yet (a call that makes backup/q1.xlsx makes backup too),
        so that undo removes them with the files."""
        found: dict[str, str | None] = {}
        for call in calls:
            for effect in call.effects:
                path = effect.path
                if path in found or path.startswith("/") or path in (".", ""):
                    continue
                for folder in PurePosixPath(path).parents:
                    name = folder.as_posix()
                    if name not in (".", "") and name not in found and not os.path.lexists(self.workspace / name):
                        found[name] = None
                try:
                    found[path] = self._save(path)
                except Exception:
                    log.exception("no copy of %s was kept: its change cannot be undone", path)
        return found

    def _save(self, path: str) -> str | None:
        full = self.workspace / path
        if full.is_dir() and not full.is_symlink():
            return FOLDER
        return self.journal.save_file(self.session, full)

    def _put_back(self, intent: str, before: Mapping[str, str | None]) -> None:
        """Each path the begun batch names, as it was before the batch."""
        for path, was in before.items():
            full = self.workspace / path
            try:
                if was == FOLDER:
                    continue  # a folder that was there stays; what the batch put in it is named on its own
                current = None if not os.path.lexists(full) else self._save(path)
                if current == was:
                    continue
                if was is None:
                    if full.is_dir() and not full.is_symlink():
                        shutil.rmtree(full)
                    else:
                        full.unlink(missing_ok=True)
                    self.reconciled.append(f"{intent}: {path} removed (the batch had begun to make it)")
                else:
                    data = self.journal.store.load_bytes(was)
                    partial = full.with_name(f".{full.name}.podium-restore")
                    partial.write_bytes(data)
                    os.replace(partial, full)
                    self.reconciled.append(f"{intent}: {path} put back as it was before the batch")
            except Exception:
                log.exception("intent %s: %s could not be put back; the batch runs on it as it is", intent, path)

    def _keep(self, key: str, value: Mapping[str, Any]) -> None:
        try:
            self.journal.keep(self.session, key, dict(value))
        except Exception:
            log.exception("%s: the journal could not record it", key)
