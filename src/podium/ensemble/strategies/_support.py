"""What the built-in strategies share: option checks, agent templates, reply building.

Everything here is pure, like the strategies that use it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from podium.agent.backend import Prompt
from podium.agent.events import Event, EventKind, Response, Usage
from podium.ensemble.ops import AgentSpec, Dispatch, Op, ReplyError, Token
from podium.errors import ConfigError, Reason, ReasonKind

T = TypeVar("T")


class Options:
    """Reads a strategy's init options and raises `ConfigError` naming the strategy, the option and
    what is expected. Unknown option names are refused (a typo would otherwise be ignored)."""

    def __init__(self, strategy: str, opts: Mapping[str, Any], allowed: Iterable[str]) -> None:
        self.strategy = strategy
        self.opts = opts
        allowed = tuple(allowed)
        unknown = sorted(set(opts) - set(allowed))
        if unknown:
            raise ConfigError(f"{strategy}: unknown option(s) {', '.join(unknown)}; "
                              f"the options are {', '.join(allowed)}")

    def error(self, message: str) -> ConfigError:
        return ConfigError(f"{self.strategy}: {message}")

    def required(self, key: str, what: str) -> Any:
        if key not in self.opts or self.opts[key] is None:
            raise self.error(f"option {key}= is required ({what})")
        return self.opts[key]

    def spec(self, key: str, *, required: bool = True) -> AgentSpec | None:
        value = self.opts.get(key)
        if value is None and not required:
            return None
        value = self.required(key, "an AgentSpec(name, behaviour, {'backend': ...})")
        return self._check_spec(value, key)

    def specs(self, key: str, *, at_least: int = 1, exactly: int | None = None) -> tuple[AgentSpec, ...]:
        value = self.required(key, "a list of AgentSpec")
        if isinstance(value, AgentSpec) or not isinstance(value, Sequence):
            raise self.error(f"{key}= must be a list of AgentSpec, got {type(value).__name__}")
        specs = tuple(self._check_spec(v, f"{key}[{i}]") for i, v in enumerate(value))
        if exactly is not None and len(specs) != exactly:
            raise self.error(f"{key}= needs exactly {exactly} agents, got {len(specs)}")
        if len(specs) < at_least:
            raise self.error(f"{key}= needs at least {at_least} agent(s), got {len(specs)}")
        names = [s.name for s in specs]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise self.error(f"{key}= has duplicate agent names: {', '.join(duplicates)}")
        return specs

    def integer(self, key: str, default: int, *, minimum: int) -> int:
        value = self.opts.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
            raise self.error(f"{key}= must be an integer >= {minimum}, got {value!r}")
        return value

    def flag(self, key: str, default: bool) -> bool:
        value = self.opts.get(key, default)
        if not isinstance(value, bool):
            raise self.error(f"{key}= must be True or False, got {value!r}")
        return value

    def function(self, key: str, default: Callable[..., Any] | None, what: str) -> Callable[..., Any]:
        value = self.opts.get(key, default)
        if value is None:
            raise self.error(f"option {key}= is required ({what})")
        if not callable(value):
            raise self.error(f"{key}= must be a function ({what}), got {value!r}")
        return value

    def choice(self, key: str, default: T, kind: Callable[[Any], T]) -> T:
        value = self.opts.get(key, default)
        try:
            return kind(value)
        except ValueError:
            choices = ", ".join(repr(c.value) for c in kind)  # type: ignore[attr-defined]
            raise self.error(f"{key}= must be one of {choices}, got {value!r}") from None

    def _check_spec(self, value: Any, where: str) -> AgentSpec:
        if not isinstance(value, AgentSpec):
            raise self.error(f"{where} must be an AgentSpec(name, behaviour, {{'backend': ...}}), "
                             f"got {type(value).__name__}")
        if not isinstance(value.name, str) or not value.name or "/" in value.name:
            raise self.error(f"{where}: agent name {value.name!r} must be a non-empty string without '/'")
        if "backend" not in value.opts:
            raise self.error(f"{where} ({value.name!r}): opts must hold 'backend'")
        return value


def evolve(record: T, **changes: Any) -> T:
    """`dataclasses.replace` for the strategies' state records (frozen, slotted, no __post_init__).

    Why not `replace` itself: it re-inspects the class's fields on every call, and with a dozen
    state updates per request it was the largest single cost of the strategies in bench/peers.py.
    """
    cls = record.__class__
    new = object.__new__(cls)
    put = object.__setattr__
    for name in cls.__slots__:  # type: ignore[attr-defined]
        put(new, name, changes.pop(name) if name in changes else getattr(record, name))
    if changes:
        raise TypeError(f"{cls.__name__} has no field(s) {', '.join(changes)}")
    return new


def from_template(template: AgentSpec, name: str) -> AgentSpec:
    """A worker started from a template: the template's behaviour and options under a new name."""
    return AgentSpec(name, template.behaviour, template.opts)


def dispatches_last(ops: list[Op]) -> list[Op]:
    """Keep the op order but move every Dispatch after the other ops.

    A rejected dispatch abandons the rest of its batch; with replies, starts and stops first, a
    rejection can only abandon other dispatches, which the rejecting callback then accounts for.
    """
    if all(type(op) is not Dispatch for op in ops[:-1]):
        return ops
    return [op for op in ops if type(op) is not Dispatch] + [op for op in ops if type(op) is Dispatch]


def total_usage(responses: Iterable[Response | None]) -> Usage | None:
    """The sum of the responses' usage; None when none reported any."""
    total: Usage | None = None
    for response in responses:
        if response is not None and response.usage is not None:
            total = response.usage if total is None else total + response.usage
    return total


def composed(text: str, responses: Sequence[Response | None], **data: Any) -> Response:
    """A reply a strategy composes from several turns: `text`, the turns' total usage and summed
    duration, and one terminal result event carrying `data` (structured results for the caller).

    The event's timestamp is the latest of the turns' events, never the clock: strategies are pure.
    """
    stamps = [e.timestamp for r in responses if r is not None for e in r.events[-1:]]
    event = Event(EventKind.RESULT, {"text": text, **data}, max(stamps, default=0.0))
    duration = sum(r.duration_ms for r in responses if r is not None)
    return Response(text, (event,), total_usage(responses), duration)


def with_usage(response: Response, responses: Sequence[Response | None]) -> Response:
    """`response` itself, but carrying the total usage of every turn of the run."""
    usage = total_usage(responses)
    return response if usage == response.usage else evolve(response, usage=usage)


def result_data(response: Response, key: str) -> Any:
    """The structured value a strategy attached to its reply under `key` (see `composed`)."""
    for event in reversed(response.events):
        if event.kind is EventKind.RESULT and key in event.data:
            return event.data[key]
    raise KeyError(f"this response carries no {key!r} result (was it produced by the right strategy?)")


def call_user(fn: Callable[..., T], what: str, kind: ReasonKind, *args: Any) -> tuple[T | None, Reason | None]:
    """Call a user-supplied function (decomposer, parser...). Its exception fails the run it served,
    not the whole session: it comes back as a Reason."""
    try:
        return fn(*args), None
    except Exception as exc:
        return None, Reason(kind, f"{what} raised {type(exc).__name__}: {exc}")


def is_prompt(value: Any) -> bool:
    return isinstance(value, str | Prompt)


def fail_all(tokens: Iterable[Token], reason: Reason) -> list[Op]:
    return [ReplyError(t, reason) for t in tokens]
