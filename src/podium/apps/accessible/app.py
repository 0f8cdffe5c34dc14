"""A configured desktop program driven through its accessibility tree: UFO²'s AppAgent inside a window.

Its tools observe the program's windows as a numbered control list (`observe`, the application's
`observer`: the desktop's DATA_COLLECTION calls it before each step) and act on one control by its
number: `click`, `set_text`, `select` (an item of a list, a combo box, a tab), `menu` (a menu path),
`read_text`, `wait_for` (a window or dialog), `save` (the document, as a new workspace file or in place, in
one call: saving.py), and `press_keys` as a last resort. It is a
`DesktopApplication` too: `status`, `open_file`, `close`, and `launch()` through the shared Lifecycle,
which here also waits until the program's window is accessible.

Approval is decided from typed facts, never from a control's words:
- a control in an alert (AT-SPI role ALERT: the application asks to confirm a consequence it warned
  about, such as replacing a file or closing without saving) needs approval; Escape dismisses it;
- accepting a file chooser (its default button, or Return) that names an existing file saves over it:
  approval, and the call's effects say so (REPLACE; a new file is CREATE, no approval); a relative
  name typed into a file chooser is a path in the workspace, like every path podium's tools take, and
  one outside it is refused;
- key chords with a modifier, and keys that act rather than type into a focused text field; a key that
  presses a button (Return, space) is judged as a click of the focused window's buttons would be;
- `close` (it may close without saving).
While a workspace file is open in the program (`open_file`), what a click does to it is not known
before it runs (it may save it): the call's effects are then None, which callers treat as sensitive.

The program runs in its sandbox (lifecycle.py), reaching its display and the session and accessibility
buses through a filter (desktop_bus.py): it puts its own tree on the accessibility bus and is called there,
and can neither list nor call another application. Its connection there is its bus proxy's (`Launched.pids`
says which process speaks for it), and its X windows carry its pids inside the sandbox (`Launched.owns`).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from podium.apps import approval, display
from podium.apps.accessible import actions, keys, marks, pointer, saving
from podium.apps.accessible.approvals import Consequences
from podium.apps.accessible.arguments import (
    ControlArgs,
    KeysArgs,
    MenuArgs,
    ObserveArgs,
    SaveArgs,
    SelectArgs,
    TextArgs,
    WaitArgs,
)
from podium.apps.accessible.bus import (
    AccessibilityUnavailable,
    AtspiBus,
    AtspiCallFailed,
    Ref,
    accessibility_address,
)
from podium.apps.accessible.controls import MAX_CONTROLS, Control, ControlIds, Observation, number_ranges
from podium.apps.accessible.roles import (
    CHOOSERS,
    DIALOGS,
    HOLDERS,
    LABELS,
    TEXT_ROLES,
    VALUED,
    Role,
    State,
    states_of,
)
from podium.apps.accessible.tree import Node, Snapshot, read_text, snapshot
from podium.apps.base import ENDED, Change, Effect
from podium.apps.desktop_apps import DesktopApplication, OpenArgs
from podium.apps.lifecycle import DesktopAppConfig, Lifecycle, find_processes
from podium.apps.tooling import NUMBER_TEXT, ToolError, ToolSpec
from podium.apps.workspace import Workspace
from podium.errors import StartFailed

MAX_READ = 100_000  # characters read_text returns
SETTLE = 0.15  # seconds an action's effects get before the windows are listed again
POLL = 0.2
ENDING = 1.0  # seconds a program whose windows are all gone gets to end, for its exit status
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")


class AccessibleApplication(DesktopApplication):
    observer = "observe"

    def __init__(self, config: DesktopAppConfig, lifecycle: Lifecycle, workspace: Workspace | None = None, *,
                 max_controls: int = MAX_CONTROLS, alternatives: Mapping[str, Sequence[str]] | None = None) -> None:
        self.max_controls = max_controls
        # file type -> applications that work on such files directly (documents for .docx...)
        self.alternatives = {k: tuple(v) for k, v in (alternatives or {}).items() if v}
        self.ids = ControlIds()
        self.menu_paths: dict[int, tuple[str, str]] = {}  # a numbered menu item: (its menu, its name)
        self._bus: AtspiBus | None = None
        self._app: Ref | None = None
        self._typed: dict[Ref, str] = {}  # text set since the latest observation
        self.opened: set[str] = set()  # workspace files opened in it
        self.consequences = Consequences(self.ids, self._typed, workspace, self.opened)
        super().__init__(config, lifecycle, workspace)
        self.description = (config.description or f"desktop program {config.name}") + (
            ", driven through its windows' controls (accessibility tree): observe lists them by number, "
            "the other tools act on one by its number")

    # -- tools --------------------------------------------------------------------------------

    def _specs(self) -> list[ToolSpec]:
        prefer = self._prefer()
        # A control's number names no file: what a GUI action changes is found from the window (its effects).
        acting = {"blocking": False, "names_its_writes": False}
        specs = [
            ToolSpec("observe", "List the program's windows and their controls, numbered (role, name, states, "
                     "value). Numbers stay the same while a control exists." + prefer, ObserveArgs, self._observe,
                     True, blocking=False),
            ToolSpec("click", "Press a button, toggle a check box, open a menu or activate an item, by number.",
                     ControlArgs, self._click, effects=self._effects_of_click, **acting),
            ToolSpec("set_text", "Replace the text of a text field (or set a slider's number) by number, or add "
                     "to its end (append). In a file dialog a name is a path in the workspace." + prefer, TextArgs,
                     self._set_text, effects=self._effects_of_text, **acting),
            ToolSpec("select", "Select an item, by its name, in a list, table, combo box or tab list (or the "
                     "control itself).", SelectArgs, self._select, effects=self._effects_of_acting, **acting),
            ToolSpec("menu", "Choose a menu item by its path of names from the menu bar.", MenuArgs, self._menu,
                     effects=self._effects_of_acting, **acting),
            ToolSpec("read_text", "The whole text of a control, by number.", ControlArgs, self._read_text, True,
                     blocking=False),
            ToolSpec("wait_for", "Wait until a window or dialog whose title contains `title` is shown (or gone).",
                     WaitArgs, self._wait_for, True, blocking=False),
            ToolSpec("save", "Save the program's document: as `path`, a new workspace file (its Save As), or, "
                     "without `path`, the workspace file it has open (its Save). One call does the whole dialog.",
                     SaveArgs, self._save, effects=approval.declared(self._effects_of_save), blocking=False),
            ToolSpec("press_keys", "Last resort: press keys in the program's window ('ctrl+s', 'Tab', 'Return'). "
                     "Prefer click, set_text, select and menu: keys act on whatever has the focus.", KeysArgs,
                     self._press_keys, effects=self._effects_of_keys, **acting),
        ]
        if not (self.config.file_types or self.config.opens_files):
            # a program of no document (a dialog, a form) saves no file: offered, `save` made a small model name
            # a form's values as the path it writes
            specs = [spec for spec in specs if spec.name != "save"]
        return specs + super()._specs()

    def _prefer(self) -> str:
        """The hybrid advice: which application to prefer for a file type both can handle, and why."""
        if not self.alternatives:
            return ""
        parts = [f"{', '.join(apps)} for {ext}" for ext, apps in sorted(self.alternatives.items())]
        return (f" For a file's content prefer {'; '.join(parts)}: they read and write the file itself, exactly "
                "and without a window. Use this program for what only its windows do (dialogs, settings, forms).")

    # -- lifecycle ----------------------------------------------------------------------------

    async def is_running(self) -> bool:
        """Its process runs and its accessible application shows a window."""
        if not await super().is_running():
            return False
        try:
            return bool((await self._windows()).windows)
        except (AccessibilityUnavailable, ToolError, AtspiCallFailed):
            return False

    async def launch(self) -> None:
        """Launch it through the Lifecycle unless its accessible application shows a window already (a
        process of its name elsewhere, on another display or bus, does not count), then wait until its
        window is accessible."""
        deadline = time.monotonic() + self.config.startup_timeout
        why = "no accessible application of it on the accessibility bus"
        while True:
            try:
                if (await self._windows()).windows:
                    return
                why = "its accessible application shows no window"
            except AccessibilityUnavailable as exc:
                raise StartFailed(f"{self.name}: {exc}") from exc
            except (ToolError, AtspiCallFailed) as exc:
                why = str(exc)
            # again at each turn: one that ended (or was ending when it was found) is launched anew
            if not any(entry.config.name == self.name for entry in self.lifecycle.launched()):
                await self.lifecycle.launch(self.config, workspace=self.workspace,
                                            accessibility=await self.accessibility())
                continue
            if time.monotonic() > deadline:
                raise StartFailed(f"{self.name}: its window was not accessible within "
                                  f"{self.config.startup_timeout:g} s ({why}); a GTK program exposes it when "
                                  "NO_AT_BRIDGE is not set and the session bus runs at-spi2-core")
            await asyncio.sleep(POLL)

    async def accessibility(self) -> str | None:
        """The accessibility bus, which its sandbox lets it reach through a filter (desktop_bus.py)."""
        wanted = self.config.bus.accessibility and self.config.sandbox.enabled  # unconfined, it finds it itself
        return await accessibility_address() if wanted else None

    async def bus(self) -> AtspiBus:
        if self._bus is None or not self._bus.connected:
            self._bus = await AtspiBus.connect()
        return self._bus

    async def application(self) -> Ref:
        """Its accessible application: the one whose process is its (or that it launched), else the one named
        like its process; the newest when several are."""
        bus = await self.bus()
        roots = await bus.applications()
        program = self.config.process or self.config.program
        pids = {p.pid for p in await asyncio.to_thread(find_processes, program)}
        for entry in self.lifecycle.launched():
            if entry.config.name == self.name:  # a sandboxed one's connections are its bus proxy's
                pids |= await asyncio.to_thread(entry.pids)
        found = await asyncio.gather(*(bus.pid(name) for name, _ in roots))
        ours = [root for root, pid in zip(roots, found, strict=True) if pid is not None and pid in pids]
        if not ours:
            names = await asyncio.gather(*(_name(bus, root) for root in roots))
            ours = [root for root, name in zip(roots, names, strict=True) if name == program]
        if not ours:
            raise ToolError(f"{self.name} has no accessible window: it is not running (it is launched when a "
                            "subtask needs it), or its toolkit does not expose accessibility")
        self._app = ours[-1]
        return self._app

    async def _windows(self) -> Snapshot:
        return await snapshot(await self.bus(), await self.application(), windows_only=True)

    # -- observation --------------------------------------------------------------------------

    async def observation(self, window: str | None = None) -> Observation:
        """A new observation (numbering its controls); what the tools and the set-of-marks use."""
        snap = await snapshot(await self.bus(), await self.application())
        self._typed.clear()
        observed = self.ids.observe(snap, max_controls=self.max_controls, window=window)
        if window is not None and not observed.controls:
            titles = [snap.nodes[i].name for i in snap.windows]
            raise ToolError(f"no shown window's title contains {window!r}; the windows are {titles}")
        return observed

    async def marked_screenshot(self, path: Path) -> display.Screenshot | display.ScreenshotSkipped:
        """The desktop's screenshot with the latest observation's control numbers drawn on it (set-of-marks);
        observes first when nothing was observed yet."""
        observed = self.ids.latest
        if observed is None:
            try:
                observed = await self.observation()
            except (AccessibilityUnavailable, ToolError, AtspiCallFailed) as exc:
                return display.ScreenshotSkipped(f"no controls to mark: {exc}")
        return await asyncio.to_thread(marks.annotate, observed, path)

    async def _observe(self, args: ObserveArgs) -> Mapping[str, Any]:
        observed = await self.observation(args.window)
        content = observed.to_content()
        if not observed.controls:
            content["note"] = "no window of it is shown; wait_for a window, or open_file"
        bar = self._menu_bar(observed)
        if bar is not None:  # what `menu` can reach: a closed menu's entries are in no control list
            menus = await self._menus(bar.ref)
            # before the controls, which a long window cuts short where an observation is shown
            content = {key: value for key, value in content.items() if key != "controls"} | {
                "menus": menus, "controls": content["controls"]}
        return content

    async def _menus(self, bar: Ref) -> list[str]:
        """One line per menu, its items numbered like controls from 1001 on ("View: 1031 Select Font..., Color
        Scheme >, 1032 Line Numbers"; '>' a submenu): a click on such a number opens the menus on the way."""
        lines = []
        for menu, entries in await actions.menu_entries(await self.bus(), bar):
            shown = []
            for ref, role, name in entries:
                if role is Role.MENU:
                    shown.append(f"{name} >")
                    continue
                number = self.ids.number_of(ref, role, name, entry=True)
                self.menu_paths[number] = (menu, name)
                shown.append(f"{number} {name}")
            lines.append(f"{menu}: {', '.join(shown)}")
        return lines

    @staticmethod
    def _menu_bar(observed: Observation) -> Node | None:
        """The shown menu bar of the active window, else the first one shown."""
        bars = [n for n in observed.snapshot.nodes if n.role is Role.MENU_BAR and n.shown]
        if not bars:
            return None
        active = next((i for i in observed.snapshot.windows if State.ACTIVE in observed.snapshot.nodes[i].states), None)
        return next((b for b in bars if b.window == active), bars[0])

    # -- acting -------------------------------------------------------------------------------

    async def _showing(self, number: int) -> bool:
        found = self.ids.lookup(number)
        if found is None:
            return False
        try:
            (words,) = await (await self.bus()).call(found[0], "Accessible", "GetState")
        except AtspiCallFailed:
            return False
        return State.SHOWING in states_of(words)

    async def _resolve(self, number: int) -> tuple[Ref, Role, str]:
        """The live object behind a number, checked to still be there."""
        found = self.ids.lookup(number)
        latest = self.ids.latest
        if found is None:
            shown = [c.id for c in latest.controls] if latest else []
            raise ToolError(f"there is no control {number}" + (f"; the latest observation lists {number_ranges(shown)}"
                                                               if shown else "; call observe first"))
        ref, role, name = found
        what = f"{number} ({role.label}{f' {name!r}' if name.strip() else ''})"
        try:
            (now,) = await (await self.bus()).call(ref, "Accessible", "GetRole")
            (words,) = await (await self.bus()).call(ref, "Accessible", "GetState")
        except AtspiCallFailed as exc:
            if not exc.gone:
                raise
            now, words = None, [0, 0]
        states = states_of(words)
        if now is None or Role.of(int(now)) is not role or State.DEFUNCT in states:
            raise ToolError(f"control {what} is gone: its window closed or changed since it was listed; call "
                            "observe and use the new numbers")
        if State.SHOWING not in states:  # a closed dialog a toolkit keeps for later, a hidden page
            raise ToolError(f"control {what} is not shown now: its window closed or it is hidden; call observe "
                            "and use the numbers it lists")
        return ref, role, name

    async def _after(self, result: Mapping[str, Any], control: int | None = None) -> Mapping[str, Any]:
        """The result of an action, with the windows shown once it had a moment to act."""
        await asyncio.sleep(SETTLE)
        out = dict(result)
        if control is not None:
            found = self.ids.lookup(control)
            out = {"control": control, **({"name": found[2]} if found and found[2] else {}), **out}
        try:
            snap = await self._windows()
            out["windows"] = [snap.nodes[i].name for i in snap.windows if snap.nodes[i].shown]
        except (ToolError, AtspiCallFailed):
            out["windows"] = []
        if not out["windows"] and (status := await self._ended()) is not None:
            out[ENDED] = status
        return out

    async def _ended(self) -> int | None:
        """The program's exit status, where its windows are gone and it ends within a moment (a dialog's
        program prints its answer and exits); None while it runs on (the next dialog of a script)."""
        deadline = time.monotonic() + ENDING
        while (status := await asyncio.to_thread(self.lifecycle.exit_status, self.config)) is None \
                and time.monotonic() < deadline:
            await asyncio.sleep(SETTLE)
        return status

    async def _click(self, args: ControlArgs) -> Mapping[str, Any]:
        if (item := await self._closed_menu_item(args.control)) is not None:  # the menus on the way are opened
            return {"control": args.control, **await self._menu(MenuArgs(path=list(item)))}
        ref, role, _ = await self._resolve(args.control)
        if role in VALUED:  # a click moves it to wherever the pointer lands, a value nobody chose
            raise ToolError(f"control {args.control} is a {role.label}: a click sets it wherever it lands; set its "
                            "value with set_text and a number")
        return await self._after(await self._activate(ref), args.control)

    async def _activate(self, ref: Ref) -> dict[str, object]:
        """A real pointer click at the control when it is on a display (pointer.py says why), else its
        accessible default action."""
        bus = await self.bus()
        bounds = await actions.extents(bus, ref)
        if bounds is not None and pointer.available() and _centre_on_screen(bounds):
            latest = self.ids.latest
            node = None if latest is None else next((n for n in latest.snapshot.nodes if n.ref == ref), None)
            # An open menu's items are in a popup above their window: raising that window would cover them.
            # A control the last observation lacks (an item of a menu just opened) raises nothing either.
            popup = node is not None and node.parent is not None and \
                latest is not None and latest.snapshot.nodes[node.parent].role is Role.MENU
            window = None if popup or latest is None or node is None else latest.snapshot.window_of(node)
            owns = await asyncio.to_thread(self._owns, latest)  # (reads the processes)
            x, y = await pointer.click(bounds, window.name if window else None, owns)
            return {"clicked": [x, y]}
        return await actions.default_action(bus, ref)

    def _owns(self, observed: Observation | None) -> Callable[[display.Window], bool] | None:
        """Which X windows are its, to tell them from others of the same title: its launch's, when it runs
        in a sandbox this session launched it in; else those of its accessible connection's process."""
        pid = None if observed is None else observed.snapshot.pid
        launch = next((entry for entry in self.lifecycle.launched() if entry.config.name == self.name
                       and entry.sandboxed and pid in entry.pids()), None)
        return launch.owns() if launch is not None else None if pid is None else (lambda window: window.pid == pid)

    def choices(self) -> dict[tuple[str, ...], tuple[int, ...]]:
        """The values a tool's argument may take now, for the grammar ((tool, argument) -> values; (tool, argument,
        other) -> values it takes only with `other`): set_text's control is one the latest observation lists that
        takes a text, or a label naming a text field or a combo box (a list or tab list is chosen in by `select`),
        and one that holds a number (a slider) only with the text of a number (NUMBER_TEXT); select's is one
        listed, and a list, table, combo box or tab list (or a label naming one) only with the item meant. A
        number of any other could only fail. None known before the first observation."""
        latest = self.ids.latest
        if latest is None:
            return {}
        numeric = tuple(c.id for c in latest.controls if _holds_number(c.node))
        takers = tuple(c.id for c in latest.controls if c.id not in numeric and (_takes_text(c.node) or (
            (field := self._field_of(c.id)) is not None and field.node.role in {*TEXT_ROLES, Role.COMBO_BOX})))
        holders = tuple(c.id for c in latest.controls if c.node.role in HOLDERS or (
            (field := self._field_of(c.id)) is not None and field.node.role in HOLDERS))
        found: dict[tuple[str, ...], tuple[int, ...]] = {
            ("set_text", "control"): takers,
            ("set_text", "control", "text", NUMBER_TEXT): numeric,
            ("select", "control"): tuple(c.id for c in latest.controls if c.id not in holders),
            ("select", "control", "item"): holders}
        kept = {key: values for key, values in found.items() if values}
        if numeric and not takers:  # only numeric controls take a text: no form that types any text
            kept[("set_text", "control")] = ()
        return kept

    def _field_of(self, number: int) -> Control | None:
        """The field a label names: the control right after it in reading order (a form's label and its
        field share a row), when that is a text field or a chooser."""
        latest = self.ids.latest
        listed = [] if latest is None else list(latest.controls)
        at = next((i for i, c in enumerate(listed) if c.id == number), None)
        if at is None or listed[at].node.role not in LABELS or at + 1 >= len(listed):
            return None
        field = listed[at + 1]
        return field if field.node.role in TEXT_ROLES or field.node.role in CHOOSERS else None

    def unfilled(self, tool: str, arguments: Mapping[str, Any],
                 earlier: Sequence[tuple[str, Mapping[str, Any]]] = ()) -> tuple[str, ...]:
        """The labels of the fields a click on a button of a dialog would leave empty: the text fields and combo
        boxes a label names in that dialog (not in a file chooser, whose fields the toolkit fills), empty in the
        latest observation and set by no call before it in the same answer (`earlier`: (tool, arguments))."""
        latest = self.ids.latest
        control = arguments.get("control")
        if tool != "click" or latest is None or not isinstance(control, int):
            return ()
        listed = list(latest.controls)
        button = next((c for c in listed if c.id == control), None)
        window = None if button is None else latest.snapshot.window_of(button.node)
        if button is None or button.node.role is not Role.PUSH_BUTTON or window is None \
                or window.role not in DIALOGS - {Role.FILE_CHOOSER}:
            return ()
        set_before = {a.get("control") for t, a in earlier if t in ("set_text", "select")}
        found = []
        for label in listed:
            field = self._field_of(label.id)  # the field the label names, as set_text takes it
            if field is None or field.node.window != button.node.window or not label.node.name.strip() \
                    or label.id in set_before or field.id in set_before \
                    or self.consequences.in_file_chooser(field.node.ref):
                continue
            node = field.node
            if (node.role is Role.COMBO_BOX and not node.name.strip()) or (
                    node.role in TEXT_ROLES and State.EDITABLE in node.states and not (node.text or "").strip()):
                found.append(label.node.name.strip())
        return tuple(found)

    def erased(self, tool: str, arguments: Mapping[str, Any]) -> tuple[str, ...]:
        """The lines of a document's text (an editable text of many lines, as last seen or typed since) that a
        set_text replacing it would drop: those of its non-empty lines the new text does not hold. Nothing
        for an append, a one-line field, or a text not known whole."""
        latest = self.ids.latest
        control = arguments.get("control")
        if tool != "set_text" or arguments.get("append") or latest is None or not isinstance(control, int):
            return ()
        field = self._field_of(control)
        target = field.id if field is not None else control
        node = next((c.node for c in latest.controls if c.id == target), None)
        if node is None or node.text is None or State.MULTI_LINE not in node.states \
                or State.EDITABLE not in node.states or node.text_length > len(node.text):
            return ()
        held = self._typed.get(node.ref, node.text)
        kept = {line.strip() for line in str(arguments.get("text") or "").splitlines()}
        return tuple(dict.fromkeys(line.strip() for line in held.splitlines()
                                   if line.strip() and line.strip() not in kept))

    def _menu_item_named(self, name: str) -> str:
        """Where an item of the menus bears the name (an error's end): what was looked for in a control may be
        an entry of a menu."""
        numbers = [n for n, (_, item) in self.menu_paths.items() if actions.normalize(item) == actions.normalize(name)]
        if len(numbers) != 1:
            return ""
        menu, item = self.menu_paths[numbers[0]]
        return f"; the menu item {numbers[0]} ({menu} > {item}) bears that name: click it to choose it"

    async def _closed_menu_item(self, number: int) -> tuple[str, str] | None:
        """(menu, item) when the number is an item of a menu that is closed now."""
        path = self.menu_paths.get(number)
        return None if path is None or await self._showing(number) else path

    async def _set_text(self, args: TextArgs) -> Mapping[str, Any]:
        if (item := await self._closed_menu_item(args.control)) is not None:
            raise ToolError(f"control {args.control} is the item {' > '.join(item)} of a menu, which takes no text: "
                            "click it to choose it")
        field = self._field_of(args.control)
        if field is not None:  # typing "into Name" means into the field the label Name names
            label = {"label": args.control}
            if field.node.role in CHOOSERS:
                return {**await self._select(SelectArgs(control=field.id, item=args.text)), **label}
            return {**await self._set_text(args.model_copy(update={"control": field.id})), **label}
        ref, role, _ = await self._resolve(args.control)
        bus = await self.bus()
        interfaces = set(await _interfaces(bus, ref))
        if "EditableText" not in interfaces and "Value" in interfaces:
            number = _one_number(args.text)
            if number is None:
                raise ToolError(f"control {args.control} is a {role.label}: give one number, e.g. '50'")
            return await self._after({"value": await actions.set_value(bus, ref, number)}, args.control)
        if "EditableText" not in interfaces:
            latest = self.ids.latest
            # never typed elsewhere on a guess: text put where it was not meant reads as work done
            fields = [c for c in (latest.controls if latest else ()) if c.node.role in TEXT_ROLES
                      and "EditableText" in c.node.interfaces and State.EDITABLE in c.node.states]
            raise ToolError(f"control {args.control} is a {role.label}, which takes no text; the text fields "
                            f"listed are: {number_ranges([c.id for c in fields]) or 'none'}")
        text = args.text
        if self.consequences.in_file_chooser(ref):
            text = self.consequences.chooser_path(args.text)
        elif args.append:
            held, length = await read_text(bus, ref, MAX_READ)
            if length > len(held):
                raise ToolError(f"control {args.control} holds more than {MAX_READ:,} characters: too long to add to")
            # an added line starts on a line of its own in a text of several lines
            joint = "\n" if held and not held.endswith("\n") and State.MULTI_LINE in states_of(
                (await bus.call(ref, "Accessible", "GetState"))[0]) else ""
            text = held + joint + text
        now = await actions.set_text(bus, ref, text)
        self._typed[ref] = now
        typed: dict[str, Any] = {"text": now[-200:] if args.append else now[:200]}
        if named := self._menu_item_named(args.text):  # typed as asked, and what else those words name said
            typed["note"] = f"typed as text{named}"
        return await self._after(typed, args.control)

    async def _select(self, args: SelectArgs) -> Mapping[str, Any]:
        if (item := await self._closed_menu_item(args.control)) is not None:  # selecting a menu's item chooses it
            return {"control": args.control, **await self._menu(MenuArgs(path=list(item)))}
        field = self._field_of(args.control)
        if field is not None and field.node.role in CHOOSERS and args.item is not None:
            return {**await self._select(SelectArgs(control=field.id, item=args.item)), "label": args.control}
        ref, role, name = await self._resolve(args.control)
        bus = await self.bus()
        if args.item is not None and actions.normalize(args.item) == actions.normalize(name):
            args = args.model_copy(update={"item": None})  # the item named is the control itself
        if args.item is None and role in HOLDERS:  # a list or a table is no item of another: one of its is meant
            _, items = await actions.find_item(bus, ref, "")
            raise ToolError(f"control {args.control} is a {role.label}: select one of its "
                            f"items, by its own number or as item; its items are: {list(dict.fromkeys(items))[:40]}")
        if args.item is None:
            parent = tuple(await bus.get(ref, "Accessible", "Parent"))
            (index,) = await bus.call(ref, "Accessible", "GetIndexInParent")
            item = actions.Found(ref, role, name, (str(parent[0]), str(parent[1])), int(index))
        else:
            item, seen = await actions.find_item(bus, ref, args.item)
            if item is None:
                raise ToolError(f"control {args.control} has no item named {args.item!r}; its items are: "
                                f"{list(dict.fromkeys(seen))[:40]}{self._menu_item_named(args.item)}")
        return await self._after(await actions.select(bus, item), args.control)

    async def _menu(self, args: MenuArgs) -> Mapping[str, Any]:
        observed = self.ids.latest or await self.observation()
        bar = self._menu_bar(observed)
        if bar is None:
            raise ToolError("the program shows no menu bar; click a menu button, or use the controls")
        return await self._after(await actions.menu_path(await self.bus(), bar.ref, args.path, self._activate))

    async def _read_text(self, args: ControlArgs) -> Mapping[str, Any]:
        ref, _, name = await self._resolve(args.control)
        bus = await self.bus()
        if "Text" in set(await _interfaces(bus, ref)):
            text, length = await read_text(bus, ref, MAX_READ)
            out: dict[str, Any] = {"control": args.control, "text": text}
            if length > len(text):
                out["cut"] = f"the first {len(text)} of {length} characters"
            return out
        description = await bus.get(ref, "Accessible", "Description")
        return {"control": args.control, "text": name, **({"description": description} if description else {})}

    async def _wait_for(self, args: WaitArgs) -> Mapping[str, Any]:
        deadline = time.monotonic() + args.timeout
        key = (args.title or "").casefold()
        while True:
            try:
                snap = await self._windows()
                titles = [snap.nodes[i].name for i in snap.windows if snap.nodes[i].shown]
            except ToolError:
                titles = []  # not running (yet): no window
            present = [t for t in titles if key in t.casefold()]
            if bool(present) != args.gone:
                return {"windows": titles, ("gone" if args.gone else "shown"): args.title or present[0]}
            if time.monotonic() > deadline:
                what = f"a window titled like {args.title!r}" if args.title else "a window"
                state = "still shown" if args.gone else "not shown"
                raise ToolError(f"{what} is {state} after {args.timeout:g} s; the windows are {titles}")
            await asyncio.sleep(POLL)

    async def _press_keys(self, args: KeysArgs) -> Mapping[str, Any]:
        chords = keys.parse(args.keys)
        observed = self.ids.latest or await self.observation()
        title = await keys.press(chords, observed.focus, await asyncio.to_thread(self._owns, observed))
        return await self._after({"pressed": chords, "window": title})

    async def _save(self, args: SaveArgs) -> Mapping[str, Any]:
        if self.workspace is None:
            raise ToolError("save needs a workspace")
        target, opened = self._save_target(args)
        observed = await self.observation()
        owns = await asyncio.to_thread(self._owns, observed)

        async def press(chords: list[str], window: str | None) -> str:
            return await keys.press(chords, window or observed.focus, owns)

        bus, app = await self.bus(), await self.application()
        if opened:
            await saving.save_in_place(bus, app, press, [self.workspace.root / f for f in opened])
        else:
            await saving.save_as(bus, app, press, self._activate, target)
        saved = self.workspace.relative(target) if target is not None else opened[0]
        self.opened.add(saved)  # the document is that file now: what a click does to it is not known
        return await self._after({"saved": saved})

    def _save_target(self, args: SaveArgs) -> tuple[Path | None, list[str]]:
        """(the new file for Save As, or None; the open files a Save in place writes)."""
        assert self.workspace is not None
        opened = sorted(self.opened)
        if args.path is None:
            if not opened:
                raise ToolError("no workspace file is open in it: give `path`, the file to save the document as")
            return None, opened
        target = self.workspace.resolve(args.path)
        name = self.workspace.relative(target)
        if name in self.opened:
            return None, [name]
        if target.exists():
            raise ToolError(f"{name} exists and is not the file open in the program: save under a new name, "
                            "or open_file it first to change it")
        if target.is_dir() or not target.parent.is_dir():
            raise ToolError(f"{name}: its folder does not exist")
        return target, []

    def _effects_of_save(self, args: SaveArgs) -> tuple[Effect, ...]:
        """A new file is a CREATE; the open file saved in place an EDIT, with the lines it removes and adds
        where the program shows one document text (what the person approving it sees it lose)."""
        assert self.workspace is not None
        target, opened = self._save_target(args)
        if target is not None:
            return (Effect(self.workspace.relative(target), Change.CREATE),)
        document = self._document_text()
        effects = []
        for name in opened:
            before = approval.text_of(self.workspace.root / name)
            edit = Effect(name, Change.EDIT)
            effects.append(edit if before is None or document is None else approval.with_text(edit, before, document))
        return tuple(effects)

    def _document_text(self) -> str | None:
        """The text of the one multi-line text field of the window listed first, as typed since observed."""
        latest = self.ids.latest
        if latest is None:
            return None
        first = next((c.node.window for c in latest.controls if c.node.window is not None), None)
        texts = [c.node for c in latest.controls if c.node.window == first and c.node.role in TEXT_ROLES
                 and State.MULTI_LINE in c.node.states and c.node.text is not None]
        if len(texts) != 1 or texts[0].text_length > len(texts[0].text or ""):
            return None  # none, several, or cut short in the snapshot: not known
        return self._typed.get(texts[0].ref, texts[0].text)

    async def _open(self, args: OpenArgs) -> Mapping[str, Any]:
        result = await super()._open(args)
        assert self.workspace is not None
        self.opened.add(self.workspace.relative(self.workspace.resolve(args.path)))
        await self.launch()  # its window accessible before the next step observes it
        return result

    # -- what a call does (approvals.py decides it from the latest observation) ----------------------

    def effects(self, tool: str, arguments: Mapping[str, Any]) -> tuple[Effect, ...] | None:
        """As ToolApplication.effects, where a tool's effects may also be unknown (None) for one call."""
        spec = self._by_name.get(tool)
        if spec is None or spec.read_only or spec.effects is None:
            return super().effects(tool, arguments)
        try:
            args = spec.args.model_validate(dict(arguments))
        except ValidationError:
            return ()
        found = spec.effects(args)
        return None if found is None else tuple(found)

    def _effects_of_acting(self, args: Any) -> tuple[Effect, ...] | None:
        return self.consequences.of_acting()

    def _effects_of_text(self, args: TextArgs) -> tuple[Effect, ...] | None:
        """Typing changes no file; through a label whose field is a list or a combo box it is a selection."""
        return self.consequences.of_acting() if self._chooser_of(args.control) is not None else ()

    def _chooser_of(self, number: int) -> int | None:
        field = self._field_of(number)
        return field.id if field is not None and field.node.role in CHOOSERS else None

    def _effects_of_click(self, args: ControlArgs) -> tuple[Effect, ...] | None:
        return self.consequences.of_click(args.control)

    def _effects_of_keys(self, args: KeysArgs) -> tuple[Effect, ...] | None:
        return self.consequences.of_keys(args.keys)

    def _sensitive(self, tool: str, args: Any) -> bool:
        # a label stands for its field: a selection made through it is judged as one made on the field
        if tool == "set_text" and (chooser := self._chooser_of(args.control)) is not None:
            return self.consequences.click_needs_approval(chooser, accepting=False)
        if tool == "select":
            return self.consequences.click_needs_approval(self._chooser_of(args.control) or args.control,
                                                          accepting=False)
        if tool == "click":
            return self.consequences.click_needs_approval(args.control, accepting=True)
        if tool == "press_keys":
            return self.consequences.keys_need_approval(args.keys)
        return super()._sensitive(tool, args) if tool in ("close", "open_file", "save") else False


def _one_number(text: str) -> float | None:
    """The value a text gives a control that holds a number: the one number it holds, whatever marks it
    ('65', '65%', '{65}'); none where it holds none or several."""
    found = _NUMBER.findall(text)
    return float(found[0]) if len(found) == 1 else None


def _takes_text(node: Node) -> bool:
    """A control set_text can set: a text field one may edit, or one that holds a number (a slider)."""
    return ("EditableText" in node.interfaces and State.EDITABLE in node.states) or _holds_number(node)


def _holds_number(node: Node) -> bool:
    """A control whose value is a number and takes no typed text (a slider, a dial): set to one number."""
    return "EditableText" not in node.interfaces and "Value" in node.interfaces


def _centre_on_screen(bounds: tuple[int, int, int, int]) -> bool:
    x, y, width, height = bounds
    return x + width // 2 >= 0 and y + height // 2 >= 0


async def _name(bus: AtspiBus, ref: Ref) -> str:
    try:
        return str(await bus.get(ref, "Accessible", "Name"))
    except AtspiCallFailed:
        return ""


async def _interfaces(bus: AtspiBus, ref: Ref) -> list[str]:
    (found,) = await bus.call(ref, "Accessible", "GetInterfaces")
    return [str(i).rsplit(".", 1)[-1] for i in found]
