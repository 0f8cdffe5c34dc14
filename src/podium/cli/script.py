"""Scripted models from a JSON file: `--model scripted:PATH.json` plays the HostAgent, the AppAgents
and the judge from replies written in advance (demos, tests, and checkers that need a known run).

    {
      "usage": [900, 120],                    # optional: tokens reported for every reply
      "planner": [ <reply>, <reply>, ... ],   # the HostAgent's answers, in order
      "apps": {"documents": [ ... ], "spreadsheets": [ ... ]},   # each AppAgent's, in order
      "app": [ ... ],                         # optional: for any application not named in "apps"
      "judge": [ ... ],                       # optional: the judge's (when evaluation is on)
      "note": "..."                           # optional: for people (where the script came from); not played
    }

A reply is a JSON object (sent as JSON text: the agent's output), a string (sent as it is), or one of
    {"$say": <object or string>, "usage": [in, out], "delay": SECONDS}
    {"$fail": "detail"}         the model call fails
    {"$hang": true}             the model never answers (until the run is stopped)

A script moves real data it does not know in advance (a table read from a document) the way a model
does: by reference, `{"ref": "1.read_table.rows"}` (podium.desktop.host.artifacts).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from podium.backends.scripted import Fail, Hang, Say, ScriptedBackend, Step
from podium.errors import ConfigError, ReasonKind

ROLES = ("planner", "apps", "app", "judge", "usage")
KEYS = (*ROLES, "note")


@dataclass(frozen=True, slots=True)
class Script:
    """A parsed script file: the replies of each role."""

    path: Path
    planner: tuple[Any, ...]
    apps: Mapping[str, tuple[Any, ...]]
    app: tuple[Any, ...] | None
    judge: tuple[Any, ...]
    usage: tuple[int, int] | None

    def backend(self, role: str, application: str | None = None) -> ScriptedBackend:
        """A fresh backend playing `role` ("planner", "app" with its application, or "judge")."""
        if role == "planner":
            replies, who = self.planner, "the HostAgent (planner)"
        elif role == "judge":
            replies, who = self.judge, "the judge"
        else:
            named = self.apps.get(application or "")
            replies = named if named is not None else (self.app or ())
            who = f"the AppAgent of {application}"
        return ScriptedBackend(_Player(self, replies, who))


def load_script(path: str | Path) -> Script:
    """Read and check a script file; ConfigError names the file and the part that is wrong."""
    path = Path(path).expanduser()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"scripted model: no script file at {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"scripted model: cannot read {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"scripted model: {path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"scripted model: {path} must hold a JSON object with {', '.join(ROLES)}")
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise ConfigError(f"scripted model: {path}: unknown key(s) {unknown}; the keys are {list(KEYS)}")

    def replies(value: Any, where: str) -> tuple[Any, ...]:
        if not isinstance(value, list):
            raise ConfigError(f"scripted model: {path}: {where} must be a list of replies")
        for n, reply in enumerate(value):
            _check_reply(reply, f"{where}[{n}]", path)
        return tuple(value)

    apps = data.get("apps", {})
    if not isinstance(apps, dict):
        raise ConfigError(f"scripted model: {path}: apps must map application names to lists of replies")
    usage = data.get("usage")
    return Script(path, replies(data.get("planner", []), "planner"),
                  {str(k): replies(v, f"apps.{k}") for k, v in apps.items()},
                  replies(data["app"], "app") if "app" in data else None,
                  replies(data.get("judge", []), "judge"), _usage(usage, "usage", path) if usage else None)


def _usage(value: Any, where: str, path: Path) -> tuple[int, int]:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)):
        raise ConfigError(f"scripted model: {path}: {where} must be [input_tokens, output_tokens]")
    return value[0], value[1]


def _check_reply(reply: Any, where: str, path: Path) -> None:
    if isinstance(reply, str):
        return
    if not isinstance(reply, dict):
        raise ConfigError(f"scripted model: {path}: {where} must be an object or a string")
    if "$say" in reply:
        extra = set(reply) - {"$say", "usage", "delay"}
        if extra:
            raise ConfigError(f"scripted model: {path}: {where}: unknown key(s) {sorted(extra)} next to $say")
        if "usage" in reply:
            _usage(reply["usage"], f"{where}.usage", path)
    elif "$fail" in reply and not isinstance(reply["$fail"], str):
        raise ConfigError(f"scripted model: {path}: {where}: $fail takes the failure's detail as a string")


class _Player:
    """The ScriptedBackend's function: the next reply of one role, rendered against the prompt."""

    def __init__(self, script: Script, replies: tuple[Any, ...], who: str) -> None:
        self.script = script
        self.replies = replies
        self.who = who
        self.used = 0

    def __call__(self, prompt: str) -> Step:
        if self.used >= len(self.replies):
            return Fail(f"the script {self.script.path} has no reply left for {self.who} "
                        f"(it has {len(self.replies)})", ReasonKind.INVALID_REQUEST)
        reply = self.replies[self.used]
        self.used += 1
        usage = self.script.usage
        if isinstance(reply, dict):
            if "$fail" in reply:
                return Fail(reply["$fail"])
            if reply.get("$hang"):
                return Hang()
            if "$say" in reply:
                usage = tuple(reply["usage"]) if "usage" in reply else usage  # type: ignore[assignment]
                delay = float(reply.get("delay", 0.0))
                reply = reply["$say"]
            else:
                delay = 0.0
        else:
            delay = 0.0
        text = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
        return Say(text, usage=usage, delay=delay)
