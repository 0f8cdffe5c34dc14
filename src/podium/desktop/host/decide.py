"""The AppAgent's step as a pure machine: from the model's answer and the facts of its calls to what
runs, and from what ran to the step memory.

`decide` takes the answer, the application's facts about each call (podium.desktop.wire.messages
.CallFacts, gathered before anything ran) and the subtask's record, and returns what runs now, what is not
run and why (a repeat of a change already made, a call that cannot run), and what must wait for the
person (podium.desktop.host.capability). `remember` folds a step's results into the record: the changes
made (so none is made twice), the failures since the last change, the paths changed and how (the
verifier's evidence), the tools that worked, and the data read (typed artifacts, by name).

Both are functions of values: the host strategy calls them, so every decision is journaled and a replay
re-derives them without a model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from podium.apps.base import ENDED, OTHER_PARTS, READ_PART, TOOK_COLUMNS, Change
from podium.apps.sheet_cells import identities, identity
from podium.desktop.host import artifacts
from podium.desktop.host.capability import Hold, covered, holds, is_pattern
from podium.desktop.host.state import SubtaskRecord
from podium.desktop.rules import steps as rules
from podium.desktop.wire.messages import ActionResult, CallFacts, EffectView, call_text
from podium.desktop.wire.schemas import AppOutput, AppStatus, normal_path

MAX_FAILED = 16


def call_key(function: str, arguments: Mapping[str, Any]) -> str:
    """Identity of a call: the function and its (resolved) arguments, key order aside."""
    return json.dumps([function, arguments], sort_keys=True, default=str)


@dataclass(frozen=True, slots=True)
class Decision:
    run: tuple[int, ...]  # the actions to run now, in order (indexes into the answer's actions)
    skipped: tuple[tuple[int, str, bool], ...]  # (index, why, counts as done) of those not run
    holds: tuple[Hold, ...] = ()  # not empty: nothing runs before the person approves
    questions: tuple[str, ...] = ()  # the step becomes these questions for the person
    fired: tuple[str, ...] = ()  # the named rules that fired
    failed_again: tuple[str, ...] = ()  # tools whose failed call, or whose read, it proposed again unchanged
    held_alone: tuple[str, ...] = ()  # the tools of the calls to run that wait for the person on their own
    # the calls not run yet because one of them waits for the person while the calls before it run: their facts
    # were gathered before those calls changed what they act on (a sheet the same answer adds)
    deferred: tuple[int, ...] = ()
    # the calls not run because a change before them in the step did not run: never tried, so an answer that
    # came with them has not done what it proposed (a FINISH with them is not one)
    blocked: tuple[int, ...] = ()
    warned: tuple[str, ...] = ()  # the keys of the calls not run for the fields they would leave empty


def decide(output: AppOutput, facts: Sequence[CallFacts], record: SubtaskRecord, *, active: frozenset[str],
           created: Sequence[str], protected: Sequence[str], given: str = "", made: Sequence[tuple[str, str]] = (),
           tools: frozenset[str] = frozenset(), named: Sequence[str] | None = None, data: str = "",
           request: str = "", picks: Sequence[artifacts.NamedRows] = (),
           strays: Mapping[int, tuple[str, ...]] | None = None) -> Decision:
    """What runs of an answer. `given`: the person's words (request, answers), which may give values;
    `request`: the request itself, an instruction as the subtask's description is;
    `tools`: the names of every application's tools; `named`: the subtask's writes those words name; `data`:
    what the run's reads found (its artifacts), which may give values too; `picks`: the rows of its tables that
    the request or its description names by a value (rule rows-as-named); `strays`: by the index of a call that
    copies or moves, the workspace files its source takes that the subtask's declared reads leave out (rule
    sources-as-declared)."""
    run: list[int] = []
    skipped: list[tuple[int, str, bool]] = []
    fired: list[str] = []
    questions: list[str] = []
    again: list[str] = []
    failed = dict(record.failed)
    blocked = False  # a change of this step could not run: the calls after it may depend on it
    unrun: list[int] = []
    warned: list[str] = []
    answered: set[str] = set()  # the calls of this answer so far
    sourced = identities(f"{given}\n{data}")  # the identifiers the person or the files gave

    def skip(index: int, why: str, done: bool = False, blocks: bool = True) -> None:
        nonlocal blocked
        skipped.append((index, why, done))
        blocked = blocked or (blocks and not (done or facts[index].read_only))

    for index, fact in enumerate(facts):
        fired.extend(fact.rewritten)
        if blocked:
            unrun.append(index)
            skip(index, "not run: a change before it in this step did not run, and this call may depend on it")
            continue
        if fact.error:
            skip(index, f"not run: {fact.error}")
            continue
        if not fact.known:
            skip(index, f"not run: there is no tool {fact.function!r}")
            continue
        if fact.absent and normal_path(str(fact.arguments.get("path"))) in record.spec.writes:
            again.append(fact.function)  # proposed again, it is a stuck tool (rule withhold-stuck-tool)
            skip(index, f"not run: {fact.arguments['path']} does not exist yet and your subtask creates it (writes "
                        f"{', '.join(record.spec.writes)}): there is nothing in it to read. Write it with the data "
                        "you were handed or have read, by reference")
            continue
        key = call_key(fact.function, fact.arguments)
        if not fact.read_only and key in record.done:
            # what the program shows in front is what comes next there (a choice made, its dialog's button)
            then = f"; {record.dialog}: if your subtask confirms it, click its button" if record.dialog else ""
            skip(index, f"not run: {fact.function} already succeeded with these same arguments in this subtask; do "
                        f"not repeat it{then}", True)
            continue
        if key in record.corrected:
            skip(index, "not run: it failed before, and a later call on the same file succeeded: the file holds "
                        "the work", True)
            continue
        if fact.effects and key in answered:  # a change of files named twice in one answer is made once
            skip(index, f"not run: the same {fact.function} call is earlier in this answer", True)
            continue
        answered.add(key)
        # A subtask does work, it does not undo it: a file its own calls filled, emptied again, leaves the work
        # undone whatever the call was meant for (a listing of no names written over the names).
        if emptied := [e.path for e in fact.effects or () if e.empties and e.path in record.changed]:
            it = "it holds" if len(emptied) == 1 else "they hold"
            skip(index, f"not run: it would leave {', '.join(emptied)} empty, and {it} what your calls wrote in this "
                        "subtask. If that is what your subtask writes, answer FINISH; to correct it, write it whole "
                        "with what it must hold")
            continue
        # A record's identifier (an address, a number) comes from the person or a file, never from the call: one
        # that neither gives, put into a record's empty place, is asked for, not made up.
        if made_up := [c for c in fact.copies if not c[2] and identity(c[1]) not in sourced]:
            file = fact.arguments.get("path")
            place = f" in {file}" if isinstance(file, str) else ""
            skip(index, "not run: " + "; ".join(f"{where} would get {value!r}" for where, value, _, _ in made_up)
                 + ", which neither the person's words nor any file read gives: a record's value is not made up; "
                   "the person is asked for it")
            questions.extend(q for _, _, _, what in made_up if (q := f"What is the {what}{place}? No file gives "
                                                                      "it.") not in questions)
            continue
        if key in failed:
            again.append(fact.function)
        if rules.READ_AGAIN in active and fact.read_only and key in record.read and record.spec.writes:
            fired.append(rules.READ_AGAIN)
            again.append(fact.function)
            skip(index, f"not run: {fact.function} read this already in this subtask and nothing has changed since; "
                        "its result is above: use it to make what your subtask writes")
            continue
        refusal = rules.refusal(fact, failed.get(key), active, given, tools,
                                instructions=(request, record.spec.description))
        if refusal is not None:
            rule, why, asked = refusal
            fired.append(rule)
            # a failure proposed again changes nothing the model has not seen: the calls after it were proposed
            # knowing it failed, so they do not wait on it
            skip(index, why, blocks=rule != rules.FAILED_CALL)
            questions.extend(q for q in asked if q not in questions)
            continue
        if rules.ROWS_AS_NAMED in active and not fact.read_only and key not in record.warned and (refs := next(
                (p.refs for p in picks if any(p.mixed_in(v) for v in fact.arguments.values())), None)):
            fired.append(rules.ROWS_AS_NAMED)
            warned.append(key)
            named_refs = ", ".join(json.dumps({"ref": r}) for r in refs)
            skip(index, f"not run: its rows are those of every value of a column, where your subtask names some of "
                        f"them: the rows it names are {named_refs}. Write those, by reference; or propose this "
                        "call again to write every row")
            continue
        if rules.SOURCES_AS_DECLARED in active and (left := (strays or {}).get(index)) and key not in record.warned:
            fired.append(rules.SOURCES_AS_DECLARED)
            warned.append(key)
            skip(index, f"not run: it takes {', '.join(left[:5])}, which your subtask does not read (it reads "
                        f"{', '.join(record.spec.reads)}). Take only what it reads; or propose this call again if "
                        f"{'that file belongs' if len(left) == 1 else 'those files belong'} to your work")
            continue
        if rules.EMPTY_FIELDS in active and fact.unfilled and key not in record.warned:
            fired.append(rules.EMPTY_FIELDS)
            warned.append(key)
            fields = ", ".join(repr(f) for f in fact.unfilled)
            skip(index, f"not run: it would confirm the dialog with {fields} left empty. Fill "
                        f"{'it' if len(fact.unfilled) == 1 else 'them'} first with what your subtask gives (set_text "
                        "on the label and the value), or propose this click again to confirm the dialog as it is")
            continue
        if rules.TYPED_OVER in active and fact.erased and key not in record.warned:
            fired.append(rules.TYPED_OVER)
            warned.append(key)
            lines = ", ".join(repr(line) for line in fact.erased[:3]) + (" ..." if len(fact.erased) > 3 else "")
            skip(index, f"not run: it would replace the document's text, and {len(fact.erased)} of its lines "
                        f"({lines}) would be gone. To add to its end, set_text with append: true; or propose this "
                        "call again to replace the whole text")
            continue
        run.append(index)
    writes = tuple(w for w in record.spec.writes if w not in record.untrusted)

    def held(calls: Sequence[CallFacts], asked: bool = False) -> tuple[Hold, ...]:
        return holds([c for c in calls if not c.read_only], writes=writes, untrusted=record.untrusted,
                     created=created, made=made, protected=protected, asked=asked,
                     reads=tuple(r for r in record.spec.reads if r not in record.untrusted), named=named)

    asked = output.status is AppStatus.CONFIRM and bool(run)
    if asked and rules.CONFIRM_CAUSE in active and not held([facts[i] for i in run]):
        asked = False
        fired.append(rules.CONFIRM_CAUSE)
    found = held([facts[i] for i in run], asked)
    # Changes before the first call that waits for the person need no one's approval: they run, and the agent
    # proposes the rest again after seeing what they did (a dialog they opened, a file they made). Only reads
    # before it: the person is asked about the whole step, as they would be asked next step anyway.
    # A change after it on other paths than every held call's does not depend on them: it runs too.
    waiting = [i for i in run if held([facts[i]])] if found and not asked else []
    free = [i for k, i in enumerate(run) if i not in waiting
            and (k < run.index(waiting[0]) or _apart(facts[i], [facts[w] for w in waiting]))] if waiting else []
    deferred: tuple[int, ...] = ()
    if any(not facts[i].read_only for i in free):
        why = "; ".join(h.text() for h in held([facts[waiting[0]]]))
        deferred = tuple(i for i in run if i not in free)
        skipped += [(i, f"not run yet: {facts[i].function} needs the person's approval ({why}) or may depend on a "
                        "call that does; the other calls ran: see what they did, then propose what is still needed",
                     False) for i in deferred]
        run, found = free, ()
    alone = tuple(dict.fromkeys(facts[i].function for i in run if held([facts[i]])))
    return Decision(tuple(run), tuple(sorted(skipped)), found, tuple(questions), tuple(dict.fromkeys(fired)),
                    tuple(dict.fromkeys(again)), alone, deferred, tuple(unrun), tuple(warned))


def _apart(fact: CallFacts, others: Sequence[CallFacts]) -> bool:
    """Whether a call's known effects touch no path (nor a folder around or inside one) that the others touch."""
    if fact.effects is None or any(o.effects is None for o in others):
        return False
    theirs = [e.path for o in others for e in o.effects or ()]
    return not any(covered(e.path, theirs) or covered(t, (e.path,)) for e in fact.effects for t in theirs)


def remember(record: SubtaskRecord, facts: Sequence[CallFacts], results: Sequence[ActionResult]) -> SubtaskRecord:
    """The record after a step's calls ran (`results`, one per call that ran)."""
    done, called, tried, read = list(record.done), list(record.called), list(record.tried), list(record.read)
    failed = list(record.failed)
    corrected = list(record.corrected)
    inert = list(record.inert)
    changed = dict(record.changed)
    states = list(record.states)
    reverted: set[str] = set()
    found = dict(record.artifacts)
    names = dict(record.names)
    by_call = {call_key(f.function, f.arguments): f for f in facts}
    ended = record.ended
    took = dict(record.took)
    parts = dict(record.parts)
    for result in results:
        key = call_key(result.function, result.arguments)
        if result.ok and isinstance(result.content, dict):
            if isinstance(status := result.content.get(ENDED), int):
                ended = status
            if isinstance(columns := result.content.get(TOOK_COLUMNS), list):
                given = tuple(v for k, v in result.arguments.items() if isinstance(v, str) and k != "path")
                took[f"{result.function} {result.arguments.get('path', '')}"] = (tuple(map(str, columns)), given)
            if result.read_only and isinstance(part := result.content.get(READ_PART), str) \
                    and isinstance(path := result.arguments.get("path"), str):
                others = result.content.get(OTHER_PARTS)
                taken = (*parts.get(path, ((), ()))[0], part)
                parts[path] = (tuple(dict.fromkeys(taken)), tuple(map(str, others)) if isinstance(others, list) else ())
        if not result.ok:
            if result.error and result.ran:
                failed.append((key, result.error))
                tried.append(result.function)
                if (fact := by_call.get(key)) is not None and fact.taken:
                    inert.append(key)
            continue
        called.append(result.function)
        if result.read_only:
            read.append(key)
        else:
            done.append(key)
            fact = by_call.get(key)
            evidence = result.changes or (fact.effects if fact is not None and fact.effects else ())
            corrected += [k for k, error in failed if _instead(k, key, evidence, error)
                          or (k in inert and any(_names(k, e.path, holding=False) for e in evidence))]
            if changed_nothing(result):
                # a change found already made in its file is the agent standing by what the file holds: a failed
                # call there of a tool its plan did not declare no longer has the last word (reaffirmed's case)
                corrected += _undeclared_on(failed, record.spec.tools, [e.path for e in evidence])
            else:
                failed.clear()  # the files changed: a call that failed may work now,
                read.clear()  # and a read may find something new
            for effect in evidence:
                if effect.change == Change.REPLACE.value:
                    # written whole again: what earlier calls put in it is gone, and making it again is new work
                    # (a call that named only the folder it went into made other files there too: still done)
                    done = [k for k in done if k == key or not _names(k, effect.path, holding=False)]
                earlier = changed.get(effect.path)
                changed[effect.path] = effect if earlier is None else earlier.model_copy(
                    update={"after": effect.after, "change": effect.change, "hollow": effect.hollow})
                if effect.after is not None:
                    # back to what an earlier change left (measured equal): the changes since are undone (a table
                    # written again, unsorted, over its sort), and their work is to be made again
                    mine = [(i, k) for i, (p, k, after) in enumerate(states) if p == effect.path]
                    back = next((n for n, (i, _) in enumerate(mine) if states[i][2] == effect.after), None)
                    undone = {k for _, k in mine[back + 1:]} - {key} if back is not None else set()
                    reverted |= undone
                    done = [k for k in done if k not in undone]
                    states = [s for s in states if s[1] not in undone]
                    states.append((effect.path, key, effect.after))
        base = artifacts.base_name(record.spec.id, result.function, names, key)
        names[base] = key
        for item in artifacts.extract(base, result.content, call_text(result.function, result.arguments)):
            found[item.name] = item
    # a changing tool none of whose changes stands (undone since) did none of its work
    gone = {json.loads(k)[0] for k in reverted} - {json.loads(k)[0] for k in done}
    called = [c for c in called if c not in gone]
    return replace(record, done=tuple(dict.fromkeys(done)), called=tuple(dict.fromkeys(called)), states=tuple(states),
                   tried=tuple(dict.fromkeys(tried)), read=tuple(dict.fromkeys(read)),
                   failed=tuple(failed)[-MAX_FAILED:], corrected=tuple(dict.fromkeys(corrected)),
                   inert=tuple(dict.fromkeys(inert))[-MAX_FAILED:], changed=changed,
                   artifacts=found, names=names, ended=ended, took=took, parts=parts)


def scalars(value: Any) -> list[Any]:
    """The scalar values inside a call's arguments (None and booleans left out)."""
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in scalars(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in scalars(v)]
    return [] if value is None or isinstance(value, bool) else [value]


def reaffirmed(record: SubtaskRecord, facts: Sequence[CallFacts], decision: Decision) -> SubtaskRecord:
    """The record once an answer proposed again a change that had succeeded (skipped as done): the calls of
    tools its plan did not declare that failed since on a file that change wrote are settled (corrected); the
    agent stands by what the file holds. A declared tool's failure stays the work it was declared for."""
    paths = [e.path for index, _, done in decision.skipped if done
             and not (fact := facts[index]).read_only and call_key(fact.function, fact.arguments) in record.done
             for e in fact.effects or ()]
    settled = _undeclared_on(record.failed, record.spec.tools, paths)
    if not settled:
        return record
    return replace(record, corrected=tuple(dict.fromkeys((*record.corrected, *settled))))


def _undeclared_on(failed: Sequence[tuple[str, str]], tools: Sequence[str], paths: Sequence[str]) -> list[str]:
    """The failed calls (keys) of tools the plan did not declare that name one of `paths`."""
    return [key for key, _ in failed if json.loads(key)[0] not in tools
            and any(_names(key, path, holding=False) for path in paths)]


def _instead(failed: str, succeeded: str, evidence: Sequence[EffectView], error: str = "") -> bool:
    """Whether the successful call `succeeded` did what the failed call `failed` was for (call keys), on a path
    the failed one names: the same tool with one argument given otherwise (the sheet named right the second
    time; two or more differ: other work), or the tool the failed call's refusal named for that work
    (set_formula refused a formula by headers and named add_formula_column)."""
    (tool, args), (function, arguments) = json.loads(failed), json.loads(succeeded)
    if not any(_names(failed, e.path) for e in evidence):
        return False
    if tool != function:
        return re.search(rf"(?<!\w){re.escape(function)}(?!\w)", error) is not None
    return sum(args.get(name) != arguments.get(name) for name in {*args, *arguments}) <= 1


def _names(key: str, path: str, *, holding: bool = True) -> bool:
    """Whether the call `key` names `path` among its arguments, itself or by a pattern its name matches, or
    (`holding`) by a folder that holds it."""
    named = [normal_path(v) for v in scalars(json.loads(key)[1]) if isinstance(v, str) and v.strip()]
    return any(n == path or ((holding or is_pattern(n)) and covered(path, (n,))) for n in named)


def changed_nothing(result: ActionResult) -> bool:
    """A changing call that succeeded and left every path it names as it was (digests measured equal): its
    work was done already. Not progress."""
    return result.ok and not result.read_only and bool(result.changes) and all(
        e.before is not None and e.before == e.after for e in result.changes)


def progressed(results: Sequence[ActionResult], before: SubtaskRecord) -> bool:
    """Whether a step's calls moved its subtask on (`before`: its record before them): a read not made
    before, or a change that changed something."""
    return any(r.ok and (call_key(r.function, r.arguments) not in before.read if r.read_only
                         else not changed_nothing(r)) for r in results)


def met_new_error(results: Sequence[ActionResult], before: SubtaskRecord) -> bool:
    """Whether a step's calls failed with an error its subtask had not met since its last change: a tool's
    error says what to change, so an agent meeting new ones is being steered, not repeating itself (its
    step limit still bounds it)."""
    seen = {error for _, error in before.failed}
    return any(not r.ok and r.error and r.error not in seen for r in results)


def observed(record: SubtaskRecord, seen: Sequence[ActionResult]) -> SubtaskRecord:
    """The record with what DATA_COLLECTION read of its files as data it may refer to (a reading
    subtask often has what it hands on before its first call)."""
    return remember(record, (), [r for r in seen if r.ok and r.read_only])


def made(results: Sequence[ActionResult]) -> tuple[str, ...]:
    """The paths these results created (the run's own from now on)."""
    return tuple(e.path for r in results if r.ok for e in r.changes if e.before is None and e.after is not None)


def made_parts(made: Sequence[tuple[str, str]], results: Sequence[ActionResult]) -> tuple[tuple[str, str], ...]:
    """(path, part) of the parts the run added to files (a sheet), the run's own, after these results: those
    they added are, in their order; a change of a whole file that may lose what it held (a sheet renamed or
    deleted, the file replaced) ends the file's: another sheet may now bear an added one's name."""
    owned = list(made)
    for e in (e for r in results if r.ok for e in r.changes):
        if e.makes:
            owned.append((e.path, e.makes))
        elif not e.part and Change(e.change).destructive:
            owned = [pair for pair in owned if pair[0] != e.path]
    return tuple(dict.fromkeys(owned))
