"""Which changes wait for the person: decided from effects, declared writes and what the run made."""

from __future__ import annotations

from podium.desktop.host.capability import Hold, HoldKind, Lines, auto_granted, covered, holds
from podium.desktop.host.decide import made_parts
from podium.desktop.wire.messages import ActionResult, CallFacts, EffectView


def change(path: str, kind: str = "add", function: str = "write", sensitive: bool = False) -> CallFacts:
    return CallFacts(function=function, effects=(EffectView(path=path, change=kind),), sensitive=sensitive)


def kinds(found: tuple[Hold, ...]) -> dict[HoldKind, tuple[str, ...]]:
    return {h.kind: h.paths for h in found}


def test_covered_by_path_folder_pattern_or_the_whole_workspace() -> None:
    assert covered("budget.xlsx", ["budget.xlsx"]) and covered("backup/a.xlsx", ["backup"])
    assert covered("backup/a.xlsx", ["backup/*.xlsx"]) and not covered("backup/a.docx", ["backup/*.xlsx"])
    assert covered("anything/at/all", ["."]) and not covered("budget.xlsx", ["budget"])
    assert not covered("backups/a.xlsx", ["backup"])


def test_a_declared_addition_runs_and_an_undeclared_one_waits() -> None:
    assert holds([change("budget.xlsx")], writes=["budget.xlsx"]) == ()
    assert kinds(holds([change("salaries.xlsx")], writes=["budget.xlsx"])) == {
        HoldKind.UNDECLARED: ("salaries.xlsx",)}


def test_destroying_what_the_person_had_waits_even_when_declared() -> None:
    for kind in ("edit", "replace", "delete"):
        assert kinds(holds([change("budget.xlsx", kind)], writes=["budget.xlsx"])) == {
            HoldKind.DESTRUCTIVE: ("budget.xlsx",)}, kind
    # a move keeps the content (at its new path): declared, it runs
    assert holds([change("a.txt", "move"), change("notes/a.txt", "create")], writes=["a.txt", "notes"]) == ()


def test_a_part_the_run_added_to_the_persons_file_is_the_runs_own() -> None:
    def edit(part: str) -> CallFacts:
        return CallFacts(function="sort_rows", effects=(EffectView(path="scores.xlsx", change="edit", part=part),))

    made = [("scores.xlsx", "Ranking")]
    # a sort in place of the sheet the run added (and filled) loses nothing the person had: it runs
    assert holds([edit("Ranking")], writes=["scores.xlsx"], made=made) == ()
    # the person's own sheet of that file, a change of the whole file, or the sheet before the run made it: asked
    for facts, parts in (([edit("Scores")], made), ([edit("")], made), ([edit("Ranking")], [])):
        assert kinds(holds(facts, writes=["scores.xlsx"], made=parts)) == {HoldKind.DESTRUCTIVE: ("scores.xlsx",)}
    # the sheet of another file of the same name is not that one
    assert kinds(holds([edit("Ranking")], writes=["scores.xlsx"], made=[("old/scores.xlsx", "Ranking")])) == {
        HoldKind.DESTRUCTIVE: ("scores.xlsx",)}
    # and what the run owns is still not the protected paths' way round
    assert kinds(holds([edit("Ranking")], writes=["scores.xlsx"], made=made, protected=["scores.xlsx"])) == {
        HoldKind.PROTECTED: ("scores.xlsx",)}



def test_a_part_stays_the_runs_own_until_a_change_of_the_whole_file() -> None:
    def result(*changes: EffectView, ok: bool = True) -> ActionResult:
        return ActionResult(function="tool", arguments={}, ok=ok, changes=changes)

    added = result(EffectView(path="scores.xlsx", change="add", makes="Ranking"))
    filled = result(EffectView(path="scores.xlsx", change="edit", part="Ranking"))
    assert made_parts((), [added, filled]) == (("scores.xlsx", "Ranking"),)
    # a sheet renamed or deleted, the file replaced: the person's sheet may now bear the added one's name
    renamed = result(EffectView(path="scores.xlsx", change="edit"))
    assert made_parts((("scores.xlsx", "Ranking"), ("other.xlsx", "Sum")), [renamed]) == (("other.xlsx", "Sum"),)
    # added again after it, it is the run's again; a failed call or a change that loses nothing ends nothing
    assert made_parts((), [added, renamed, added]) == (("scores.xlsx", "Ranking"),)
    for kept in (result(EffectView(path="scores.xlsx", change="edit"), ok=False),
                 result(EffectView(path="scores.xlsx", change="add"))):
        assert made_parts((("scores.xlsx", "Ranking"),), [kept]) == (("scores.xlsx", "Ranking"),)


def test_a_destructive_change_of_text_shows_the_person_what_it_loses() -> None:
    edit = CallFacts(function="replace_text", effects=(
        EffectView(path="plan.txt", change="edit", removes=("due Monday",), adds=("due Friday",)),))
    [hold] = holds([edit], writes=["plan.txt"])
    assert hold.lost == (Lines("plan.txt", ("due Monday",), ("due Friday",)),)
    assert hold.text() == ("it would delete, overwrite or replace what plan.txt already holds; in plan.txt it "
                           "removes 'due Monday' and adds 'due Friday'")
    # a rewrite that leaves less than half of a text in place is not what --yes approves in advance
    rewrite = CallFacts(function="write_file", effects=(
        EffectView(path="server.conf", change="replace", removes=("port = 8080",), adds=("port = 9090",), wipes=True),))
    found = holds([rewrite], writes=["server.conf"])
    assert [h.kind for h in found] == [HoldKind.DESTRUCTIVE, HoldKind.WIPES] and not auto_granted(found)
    assert found[1].text() == ("it would leave less than half of the lines of server.conf where they are: to change "
                               "a part of a file, change that part (replace it), keeping the rest as it is")
    assert auto_granted(holds([edit], writes=["plan.txt"]))
    # nor a rewrite that deletes lines with nothing in their place: they are named
    lossy = CallFacts(function="write_file", effects=(EffectView(
        path="server.conf", change="replace", removes=("# web", "port = 8080"), adds=("port = 9090",),
        drops=("# web",)),))
    found = holds([lossy], writes=["server.conf"])
    assert [h.kind for h in found] == [HoldKind.DESTRUCTIVE, HoldKind.DROPS] and not auto_granted(found)
    assert found[1].text() == ("it would delete '# web' from server.conf and put nothing in their place: to change "
                               "a part of a file, change that part (replace it), keeping every other line as it is")
    assert holds([lossy], writes=["server.conf"], created=["server.conf"]) == ()
    # nor a destructive change of a declared path the person's words do not name (named: those they do)
    found = holds([edit], writes=["plan.txt"], named=())
    assert [h.kind for h in found] == [HoldKind.DESTRUCTIVE, HoldKind.UNNAMED] and not auto_granted(found)
    assert found[1].text() == ("the request does not name plan.txt, and what --yes approves in advance is a change "
                               "of what the person named")
    assert auto_granted(holds([edit], writes=["plan.txt"], named=["plan.txt"]))
    inside = CallFacts(function="replace_text", effects=(EffectView(path="notes/a.txt", change="edit"),))
    assert auto_granted(holds([inside], writes=["notes/*.txt"], named=["notes/*.txt"]))
    # an addition, or a change of what the run made, is no change of what the person had
    assert holds([change("plan.txt")], writes=["plan.txt"], named=()) == ()
    assert holds([edit], writes=["plan.txt"], named=(), created=["plan.txt"]) == ()
    # what the run made is its own to rewrite
    assert holds([rewrite], writes=["server.conf"], created=["server.conf"]) == ()
    many = Lines("a.txt", ("x", "(and 4 more lines)"))
    assert many.text() == "in a.txt it removes 'x' (and 4 more lines)"
    # what the run made is its own: no hold, so nothing to show
    assert holds([edit], writes=["plan.txt"], created=["plan.txt"]) == ()


def move(source: str, target: str, target_kind: str = "create") -> CallFacts:
    return CallFacts(function="move", effects=(EffectView(path=source, change="move"),
                                               EffectView(path=target, change=target_kind)))


def test_a_move_is_declared_by_its_two_ends() -> None:
    # a declared file moved into a declared folder
    assert holds([move("a.txt", "notes/a.txt")], writes=["*.txt", "notes"]) == ()
    # a declared file renamed to a new name in its folder, never carried elsewhere; a file read, to a declared name
    assert holds([move("draft_a.txt", "final_a.txt")], writes=["draft_*"]) == ()
    assert holds([move("draft_a.txt", "final_a.txt")], writes=["final_*"], reads=["draft_*"]) == ()
    assert kinds(holds([move("draft_a.txt", "final_a.txt")], writes=["notes"], reads=["draft_*"])) == {
        HoldKind.UNDECLARED: ("draft_a.txt", "final_a.txt")}
    assert holds([move("docs/a.txt", "docs/b.txt")], writes=["docs/a.txt"]) == ()
    assert kinds(holds([move("report.docx", "shared/report.docx")], writes=["report.docx"])) == {
        HoldKind.UNDECLARED: ("shared/report.docx",)}
    # a file only read is not taken away: a copy and a move of it into the same folder have the same reads and
    # the same destination, and only the move changes where the person had it
    assert kinds(holds([move("a.txt", "notes/a.txt")], writes=["notes"], reads=["*.txt"])) == {
        HoldKind.UNDECLARED: ("a.txt",)}
    assert kinds(holds([move("secret.txt", "notes/secret.txt")], writes=["notes", "a.txt"])) == {
        HoldKind.UNDECLARED: ("secret.txt",)}
    # nor is a declared file moved over one that exists, nor into an undeclared place that exists
    assert kinds(holds([move("a.txt", "b.txt", "replace")], writes=["a.txt"])) == {
        HoldKind.UNDECLARED: ("b.txt",), HoldKind.DESTRUCTIVE: ("b.txt",)}
    assert kinds(holds([move("a.txt", "elsewhere/a.txt")], writes=["notes"])) == {
        HoldKind.UNDECLARED: ("a.txt", "elsewhere/a.txt")}
    # the protected stay protected, whichever end they are (a configuration file is one wherever it lies)
    assert kinds(holds([move("podium.toml", "notes/podium.toml")], writes=["notes", "podium.toml"],
                       protected=["podium.toml"])) == {HoldKind.PROTECTED: ("podium.toml", "notes/podium.toml")}


def test_what_the_run_made_is_its_own() -> None:
    assert holds([change("notes.txt", "replace")], writes=[], created=["notes.txt"]) == ()
    assert holds([change("backup/x.xlsx", "delete")], writes=[], created=["backup"]) == ()


def test_protected_paths_always_wait_whatever_was_declared_or_made() -> None:
    assert kinds(holds([change("podium.toml", "replace")], writes=["."], created=["podium.toml"],
                       protected=["podium.toml"])) == {HoldKind.PROTECTED: ("podium.toml",)}


def test_writes_only_data_named_wait_with_that_reason() -> None:
    found = holds([change("public/salaries.xlsx", "create")], writes=["report.txt"], untrusted=["public"])
    assert kinds(found) == {HoldKind.BY_DATA: ("public/salaries.xlsx",)}
    assert "not the person's instruction" in found[0].text()


def test_unknown_effects_and_an_agents_own_asking_wait() -> None:
    unknown = CallFacts(function="send", effects=None)
    assert kinds(holds([unknown], writes=["."])) == {HoldKind.UNKNOWN: ()}
    assert kinds(holds([change("a.txt")], writes=["a.txt"], asked=True)) == {HoldKind.ASKED: ()}
    assert holds([CallFacts(function="read", read_only=True, effects=None)], writes=[]) == ()
    closing = CallFacts(function="close", sensitive=True, effects=())
    assert kinds(holds([closing], writes=[])) == {HoldKind.DESTRUCTIVE: ()}


def test_yes_grants_only_what_the_plan_declared() -> None:
    assert auto_granted([Hold(HoldKind.DESTRUCTIVE, ("a.xlsx",)), Hold(HoldKind.ASKED)])
    for kind in (HoldKind.UNDECLARED, HoldKind.BY_DATA, HoldKind.PROTECTED):
        assert not auto_granted([Hold(kind, ("x",))]), kind
