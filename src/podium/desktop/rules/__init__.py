"""Named rules: what is still compensation for a model's known weaknesses, in its own room.

Everything that decides safety or success is a mechanism of the host (typed plans, capabilities on
paths, references, the verifier) and holds for every model. What remains is compensation for how a
small model goes wrong: each such rule has an id, a one-line why, and the profiles it belongs to. A run
chooses a profile (`HostConfig(rules=...)`, by default from the model: the embedded small model gets
"small-local", a model behind an API gets "none"); the trajectory records which rule fired at each step,
and `podium show` counts them. The README's table of rules is generated from `RULES` (`table()`).
"""

from __future__ import annotations

from dataclasses import dataclass

from podium.errors import ConfigError

SMALL_LOCAL = "small-local"
NONE = "none"
AUTO = "auto"  # the profile the model asks for (HostSession resolves it; the strategy reads it as none)
PROFILES = (SMALL_LOCAL, NONE, AUTO)


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    why: str
    profiles: tuple[str, ...] = (SMALL_LOCAL,)


RULES: dict[str, Rule] = {rule.id: rule for rule in (
    Rule("offer-typed-apps", "When every file the request names has an application of its type, the planner is "
                             "offered only those applications: a small model plans worse from a longer list."),
    Rule("repeat-is-finish", "In a subtask that declares what it writes, an answer that proposes nothing new (every "
                             "call repeats a change already made, repeats a call that failed, or finds its work "
                             "done) after a change succeeded is read as FINISH, verified against those files: a "
                             "small model that made its change often cannot say so."),
    Rule("confirm-needs-cause", "An AppAgent's CONFIRM on calls none of which the capability checks would hold "
                                "(no undeclared, destructive, protected or unknown change) is read as CONTINUE: "
                                "what needs approval is decided from the calls' effects, and a small model reads "
                                "\"then confirm it\" (a dialog's button) as a request for the person's approval."),
    Rule("failed-call-not-rerun", "A call identical to one that failed since the last successful change is not run "
                                  "again; its earlier error is reported: nothing changed that could fix it."),
    Rule("empty-field-question", "A click on a button of a dialog whose labelled fields would be left empty (its "
                                 "application names them) is not run the first time; the agent is told which, and "
                                 "the same click proposed again runs: a small model confirms a form with a field of "
                                 "the request left out, and a confirmed dialog cannot be taken back."),
    Rule("typed-over-question", "Text set in place of a document's text that leaves out lines it holds (its "
                                "application names them) is not run the first time; the agent is told which and how "
                                "to add to the end instead, and the same call proposed again runs: a small model "
                                "asked to add a line types it over the whole document."),
    Rule("rows-as-named", "A change whose rows hold those of a table the subtask has both of a value the request "
                          "or its description names under a column of a few repeating values and of the column's "
                          "other values is not run the first time; the agent is told the reference to the rows named, "
                          "and the same call proposed again runs: a small model types the whole table where the "
                          "person named a part of it, and rows written into a file cannot be taken back out."),
    Rule("sources-as-declared", "A copy or a move (a tool with a source choice) whose source takes a workspace file "
                                "its subtask's declared reads leave out, where it declares reads, is not run the "
                                "first time; the agent is told which files and what it reads, and the same call "
                                "proposed again runs: a small model copies every file it saw where the person named "
                                "some by their type, and a copy made is a file the person did not ask for."),
    Rule("read-not-reread", "In a subtask that writes, a read identical to one it (or its observation) made since "
                            "its last change is not run again, and its tool is withheld like a stuck one: "
                            "a small model reads the same data again and again instead of writing."),
    Rule("withhold-stuck-tool", "A tool whose failed call was proposed again unchanged, or whose change batch mode "
                                "refused, is left out of the grammar until a change succeeds, a forced choice too (all "
                                "of it stuck: the application's other tools): told to call something else, a small "
                                "model did not."),
    Rule("force-missing-tool", "After a FINISH questioned while a declared write is unchanged or a declared "
                               "changing tool was never called, the next answer must call one of the declared "
                               "tools never called (with the tools that name the file they "
                               "write where those are a program's actions, and then those actions first: a save "
                               "of what the program holds unchanged writes nothing; none: one that names the file it "
                               "writes, "
                               "else any tool that changes files, of those the ones that write data of the kinds it "
                               "read, where it read some into a file; none that opens a file that exists, for one "
                               "yet to be made; for a part its calls left empty, none that only "
                               "adds empty parts, and where those left are all such, with the tools that change "
                               "content) or ask the person, where it may (grammar), and after one questioned for "
                               "data it never read, one of its application's reading tools, after one questioned "
                               "for sources left out where another was taken by its path, one of its declared "
                               "tools that change files, after one questioned for a source none of whose data "
                               "went in, one of the computing tools the question names, and after one questioned "
                               "for a dialog left open, one of its program's actions (those not taken yet): told in "
                               "words (and saying itself that the dialog needs its button), a small "
                               "model did not, and answered FINISH again, which fails work not done."),
    Rule("question-fail-after-error", "A FAIL right after a tool's own error is questioned once with that error: "
                                      "a small model gives up on an error that says how to fix the call."),
    Rule("plan-reads-without-model", "A subtask that writes nothing, hands on a table, names or text, and declares "
                                     "only tools that read and need no argument but the path has them run on the "
                                     "files it reads, without a model call: FINISH when each read returned its "
                                     "file whole (no `left_out`), else they are forgotten and its model makes its "
                                     "first step: a small model spends a call, sometimes a wrong one, on calls its "
                                     "plan already determines."),
    Rule("plan-writes-without-model", "A subtask that writes one file its application opens with the one tool it "
                                      "declares, a tool whose whole call its plan determines, gets that call and "
                                      "FINISH as its first answer instead of a model call: the data it was handed "
                                      "(reading nothing else; one table, from a subtask whose plan hands on a "
                                      "table, for a tool that puts a table in; the one value a subtask whose plan "
                                      "hands on a value named as its result, for one that writes a new text file "
                                      "whole), or the files it reads besides (handing nothing on, for a tool that "
                                      "changes its file from the files one argument lists). Decided on by the "
                                      "call's real effects like any answer, it runs only where nothing waits for "
                                      "the person, else the model makes the step: a small model spends a call, "
                                      "sometimes a wrong one, on a call its plan already determines."),
    Rule("open-choice-asked", "A plan that leaves open a choice only the request can settle (a tool that may take "
                              "sources its subtask only reads away, a move; a new file the request names only by "
                              "its name without the suffix, beside a file of its type it names, whose application "
                              "writes into sheets) is held while the planner answers it from the request alone, "
                              "its words quoted first, under a grammar of the options. A small planner leaves a "
                              "move's sources out of its writes, and plans a new sheet as a new file, however the "
                              "prompt says it; asked that one question it answers it."),
    Rule("verified-graph-is-finish", "When every subtask ended FINISH, each checked against the files, and every "
                                     "file the request names exists, the request ends FINISH without asking the "
                                     "planner to confirm: a small planner confirmed such a run every time and only "
                                     "added a call."),
    Rule("question-fail-when-done", "The planner's FAIL after every subtask ended FINISH, each checked against the "
                                    "files, is questioned once with what each changed, and so is an AppAgent's "
                                    "FAIL whose changes show all of its subtask's declared work (the verifier would "
                                    "ask about nothing): a small model misreads its own results."),
    Rule("question-finish-unplanned", "The planner's FINISH before it planned anything, with nothing read or run, is "
                                      "questioned once: nothing it sees but the files' names can show work done, "
                                      "and a small planner answers a request to change a setting as already "
                                      "done."),
    Rule("question-confirm-unplanned", "The planner's CONFIRM before it planned anything, with no command to run, "
                                       "is questioned once, and its next answer is not offered CONFIRM (grammar) "
                                       "until it plans: approval is for what a plan declares it changes (shown "
                                       "before anything runs) and for any change it did not declare, so nothing is "
                                       "yet there to approve; a small planner read \"then confirm it\" (a dialog's "
                                       "button) as a request for the person's approval."),
    Rule("folder-beside-reads", "A first plan with a subtask that writes a new folder at the workspace's top, by a "
                                "bare name, while every path it reads is inside one folder below the top, is sent "
                                "back once, naming that folder's path for it: a small planner writes the name the "
                                "request gives a subfolder as a folder of its own at the top."),
    Rule("quoted-values-planned", "A first plan none of whose subtasks' descriptions carries a value the request "
                                  "sets in quotation marks is sent back once, naming the values: a small planner "
                                  "drops the person's values and plans other work in their place (a file copied "
                                  "where a cell was to be set), and its AppAgents do what their descriptions say."),
    Rule("result-ref-is-content", "A writer that hands nothing on and declares one write, whose FINISH names by "
                                  "reference data handed to it (not a path its giver's call repeats) while its "
                                  "changes hold none of that data, or hold the whole table it names a part of, "
                                  "gets as its next answer its application's tool "
                                  "that writes a text file whole, on that file with that data, and FINISH (not "
                                  "over a file the person has): a small model points at the data it means to write "
                                  "as its result instead of writing it."),
    Rule("question-fail-untried", "An AppAgent's FAIL before any of its subtask's declared changing tools ran (none "
                                  "called, tried or declined) is questioned once, naming them: a "
                                  "small model gives up on a belief about the files (a .docx is binary, so it cannot "
                                  "be copied) without calling the tool that does the work."),
    Rule("read-result-is-finish", "A subtask that writes nothing and has read what it hands on is done when its "
                                  "answer gives a result, or when it only reads again what it has read: a small "
                                  "model reads the same file again instead."),
    Rule("call-is-not-data", "A change whose text argument is a tool's call written out (`column_totals(data.csv)`) "
                             "or holds a placeholder (`{sum}`) the person did not write is refused: a small model "
                             "writes where a value comes from instead of the value."),
    Rule("instruction-is-not-data", "A change whose text argument is the person's request or its subtask's "
                                    "description written out (or holds one of 24 characters or more) is refused: "
                                    "a small model writes what it was told to do where what that makes goes."),
    Rule("ref-after-call-as-data", "After a change was refused as holding a tool's call written out "
                                   "(call-is-not-data) or its instructions (instruction-is-not-data), each "
                                   "argument of its subtask's next answers that takes data (a text, rows) takes "
                                   "only a reference to data it was handed or read (grammar), until a change "
                                   "succeeds: told to give the data by reference, a small model wrote the same "
                                   "text out again."),
    Rule("ref-after-unwritten", "After a FINISH was questioned because what a computing tool of the subtask worked "
                                "out is in none of its changes (a total computed after the file got its label), "
                                "each argument of its next answers that takes data takes only a reference to data "
                                "it was handed, read or computed (grammar), until a change succeeds: told what it "
                                "left out, a small model wrote the same label again without the figure."),
    Rule("ref-after-nothing-taken", "After a change of a writer whose only source is the data handed to it, that "
                                    "holds none of that data, its next answers call only the tools that take that "
                                    "data, each argument that takes data taking only a reference (grammar), until "
                                    "a change succeeds: handed a sheet's names, a small model wrote the workbook's "
                                    "name, then wrote the names of files instead."),
    Rule("tool-its-error-names", "After a step that changed nothing, in which a call failed with an error that "
                                 "sends it to other tools of its application (ToolError.instead: a formula over a "
                                 "column's header is add_formula_column's, not a cell's), its next answers call "
                                 "only those tools (grammar) until a change succeeds: told so in words, a small "
                                 "model repeated the refused call."),
    Rule("copy-is-question", "A value copied into a record's empty cell from another record of the same column is "
                             "not written; the person is asked for it: a small model fills gaps with a neighbour's."),
    Rule("no-example-copy", "An answer that carries the data of the prompt's worked example is refused: a small "
                            "model with no data at hand copies the example's."),
    Rule("path-from-declaration", "A changing call whose path is no file of its application's type, in a subtask "
                                  "that declares writing exactly one such file, is made on that file (unless the "
                                  "tool opens only a file that exists and that one is yet to be made): a small "
                                  "model puts a sheet's or a table's name where the file's goes."),
    Rule("folder-from-declaration", "A call that reads a folder and leaves it to the workspace's top one, in a "
                                    "subtask every declared read of which is or lies in one other folder, reads "
                                    "that folder: a small model lists the folder it was told to, then writes the "
                                    "names of the top one's files."),
    Rule("reach-declared-reads", "A call of a tool that reads a folder without its subfolders, in a subtask that "
                                 "declares reading files (or a pattern) in one of them, takes the subfolders in "
                                 "(apps.tooling.SUBFOLDERS): asked for every spreadsheet under a folder, a small "
                                 "model listed the top folder's alone, twice."),
    Rule("part-from-description", "A call that names no sheet of a workbook of several, in a subtask whose "
                                  "description names exactly one of them by its whole name (for a read, naming "
                                  "none: the request), is made on that sheet: a small model reads the sheet it was "
                                  "told to and appends to the active one, or reads the active one."),
    Rule("handed-data-first", "A writer of files that declares no tool and no source of its own, only data handed "
                              "to it, is offered only the tools that change files taking that data (grammar) until "
                              "one succeeds, and forced onto them when a FINISH left its file unwritten: a small "
                              "model lists the folder or writes its file names instead."),
    Rule("unhanded-is-failure", "A writer whose only declared source is the data handed to it, and none of whose "
                                "changes holds any of that data, ends FAIL when it answers FINISH again after being "
                                "asked about it: a small model writes something unrelated (the folder's file "
                                "names) and stands by it."),
    Rule("nothing-taken-is-failure", "A writer none of whose changes holds anything of any data it had (every "
                                     "declared source and every subtask's data handed to it unused) and none of "
                                     "whose calls computed anything ends FAIL when it answers FINISH again after "
                                     "being asked about it: a small model writes a listing, a path or a call "
                                     "written out where the data was to go, and stands by it."),
    Rule("whole-is-failure", "A writer of a text that holds every row of a table handed to it, each on a line of its "
                             "own, where parts of that table were offered to it (the rows that repeat, a column's "
                             "cells), ends FAIL when it answers FINISH again after being asked about it: a small "
                             "model types the whole table where the request asks for a part, and stands by it."),
    Rule("dialog-is-failure", "A subtask that declares no file it writes, acted in its program, and leaves the "
                              "program's dialog open ends FAIL when it answers FINISH again after being asked about "
                              "it: what such a subtask does is what the dialog confirms, and a small model sets the "
                              "dialog's values and stands by them without pressing its button."),
    Rule("unsaved-is-failure", "A subtask that declares no file it writes, and that no later subtask of its program "
                               "saves, acted in its program and leaves a document's text changed ends FAIL when it "
                               "answers FINISH again after being asked about it: the change ends with the program "
                               "at the run's end, and a small model types what it was to choose (a menu's item) "
                               "into the document."),
    Rule("unplanned-finish-is-failure", "The planner's FINISH before it planned anything, with nothing read or run "
                                        "and no one's answer to a question, ends FAIL when it comes again after "
                                        "being questioned and names none of the workspace's files (the only thing "
                                        "such an answer can stand on): a small planner stands by a request to "
                                        "change a setting being already done."),
    Rule("open-before-acting", "A subtask on a program that opens files, declaring an existing file of its type "
                               "among what it reads or writes, must first call open_file (grammar): a small model "
                               "types into the empty document the program starts with, then saves that over the file."),
    Rule("columns-as-named", "A FINISH whose change took columns of a table of which its subtask's description "
                             "names some and not the others gets as its next answer that change's call again over "
                             "only the columns named, and FINISH: asked about the columns, a small model repeats "
                             "its call unchanged."),
    Rule("sample-after-no-progress", "A step after one without progress is sampled instead of greedy: greedy "
                                     "decoding gives the same useless answer again."),
    Rule("part-just-added", "A change that names no part of a file (it would take the active sheet), after a call "
                            "of the same answer that adds a part to that file, goes into the part last added: a "
                            "small model adds a sheet and writes its rows without naming it, as into the sheet a "
                            "spreadsheet program shows once it is inserted."),
    Rule("deferred-calls-again", "The calls of an answer not run because one of them waited for the person while "
                                 "the calls before it ran are, once those changed files, its next answer as they "
                                 "were, decided on the files as those calls left them (a write into the sheet "
                                 "the same answer added, its effects first measured on the sheet that was active "
                                 "before); held again, the step is the model's: asked to propose them again, a "
                                 "small model wrote them worse (a region's rows became the whole table)."),
)}


def profile_rules(profile: str) -> frozenset[str]:
    """The ids of the rules of a profile ("none": no rule)."""
    if profile not in PROFILES:
        raise ConfigError(f"unknown rules profile {profile!r}; the profiles are: {', '.join(PROFILES)}")
    if profile == AUTO:
        return frozenset()
    return frozenset(rule.id for rule in RULES.values() if profile in rule.profiles)


def table() -> str:
    """The rules as a Markdown table (the README's)."""
    lines = ["| rule | why | profiles |", "|---|---|---|"]
    lines += [f"| `{r.id}` | {r.why} | {', '.join(r.profiles)} |" for r in RULES.values()]
    return "\n".join(lines)
