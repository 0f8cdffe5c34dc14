"""The arguments of an accessible application's tools: their JSON schema for the model and their check."""

from __future__ import annotations

from pydantic import Field

from podium.apps.tooling import Args, Content


class ObserveArgs(Args):
    window: str | None = Field(None, description="list only the window whose title contains this; "
                                                 "default: the dialog or active window first, then the others")


class ControlArgs(Args):
    control: int = Field(description="the control's number in the control list", ge=1)


class TextArgs(ControlArgs):
    text: Content = Field(description="the whole new text (for a slider or spin button: its number)")
    append: bool = Field(False, description="true: add the text at the end of what the field holds (on a line of "
                                            "its own in a text of several lines) instead of replacing it")


class SelectArgs(ControlArgs):
    item: str | None = Field(None, description="the name of the item to select in the control (a list, "
                                               "table, combo box or tab list); omit to select the control itself")


class MenuArgs(Args):
    path: list[str] = Field(description='menu names from the menu bar to the item, e.g. ["File", "Save As"]',
                            min_length=1, max_length=6)


class WaitArgs(Args):
    title: str | None = Field(None, description="part of the window's title; omit to wait for any window")
    gone: bool = Field(False, description="wait until no such window is shown instead")
    timeout: float = Field(10.0, description="seconds to wait at most", gt=0, le=120)


class KeysArgs(Args):
    keys: str = Field(description="X key names, '+' for chords, spaces between presses: 'ctrl+s', 'Tab Return'",
                      min_length=1, max_length=400)


class SaveArgs(Args):
    path: str | None = Field(None, description="the workspace file to save the program's document as (a new "
                                               "name); omit to save the file it has open where it is")
