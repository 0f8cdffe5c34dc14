"""AT-SPI's roles and states as values: what a control is and what it can do, from the toolkit itself.

The numbers are AT-SPI's (`AtspiRole`, `AtspiStateType` in at-spi2-core's atspi-constants.h), which
every toolkit bridge (GTK's atk-bridge, Qt, LibreOffice, Firefox) sends over D-Bus. Decisions about a
control (is it one the model may act on, does pressing it confirm a consequence) are made from these
values, never from the words of its label.
"""

from __future__ import annotations

from enum import IntEnum


class Role(IntEnum):
    INVALID = 0
    ACCELERATOR_LABEL = 1
    ALERT = 2
    ANIMATION = 3
    ARROW = 4
    CALENDAR = 5
    CANVAS = 6
    CHECK_BOX = 7
    CHECK_MENU_ITEM = 8
    COLOR_CHOOSER = 9
    COLUMN_HEADER = 10
    COMBO_BOX = 11
    DATE_EDITOR = 12
    DESKTOP_ICON = 13
    DESKTOP_FRAME = 14
    DIAL = 15
    DIALOG = 16
    DIRECTORY_PANE = 17
    DRAWING_AREA = 18
    FILE_CHOOSER = 19
    FILLER = 20
    FOCUS_TRAVERSABLE = 21
    FONT_CHOOSER = 22
    FRAME = 23
    GLASS_PANE = 24
    HTML_CONTAINER = 25
    ICON = 26
    IMAGE = 27
    INTERNAL_FRAME = 28
    LABEL = 29
    LAYERED_PANE = 30
    LIST = 31
    LIST_ITEM = 32
    MENU = 33
    MENU_BAR = 34
    MENU_ITEM = 35
    OPTION_PANE = 36
    PAGE_TAB = 37
    PAGE_TAB_LIST = 38
    PANEL = 39
    PASSWORD_TEXT = 40
    POPUP_MENU = 41
    PROGRESS_BAR = 42
    PUSH_BUTTON = 43
    RADIO_BUTTON = 44
    RADIO_MENU_ITEM = 45
    ROOT_PANE = 46
    ROW_HEADER = 47
    SCROLL_BAR = 48
    SCROLL_PANE = 49
    SEPARATOR = 50
    SLIDER = 51
    SPIN_BUTTON = 52
    SPLIT_PANE = 53
    STATUS_BAR = 54
    TABLE = 55
    TABLE_CELL = 56
    TABLE_COLUMN_HEADER = 57
    TABLE_ROW_HEADER = 58
    TEAROFF_MENU_ITEM = 59
    TERMINAL = 60
    TEXT = 61
    TOGGLE_BUTTON = 62
    TOOL_BAR = 63
    TOOL_TIP = 64
    TREE = 65
    TREE_TABLE = 66
    UNKNOWN = 67
    VIEWPORT = 68
    WINDOW = 69
    EXTENDED = 70
    HEADER = 71
    FOOTER = 72
    PARAGRAPH = 73
    RULER = 74
    APPLICATION = 75
    AUTOCOMPLETE = 76
    EDITBAR = 77
    EMBEDDED = 78
    ENTRY = 79
    CHART = 80
    CAPTION = 81
    DOCUMENT_FRAME = 82
    HEADING = 83
    PAGE = 84
    SECTION = 85
    REDUNDANT_OBJECT = 86
    FORM = 87
    LINK = 88
    INPUT_METHOD_WINDOW = 89
    TABLE_ROW = 90
    TREE_ITEM = 91
    DOCUMENT_SPREADSHEET = 92
    DOCUMENT_PRESENTATION = 93
    DOCUMENT_TEXT = 94
    DOCUMENT_WEB = 95
    DOCUMENT_EMAIL = 96
    COMMENT = 97
    LIST_BOX = 98
    GROUPING = 99
    IMAGE_MAP = 100
    NOTIFICATION = 101
    INFO_BAR = 102
    LEVEL_BAR = 103
    TITLE_BAR = 104
    BLOCK_QUOTE = 105
    AUDIO = 106
    VIDEO = 107
    DEFINITION = 108
    ARTICLE = 109
    LANDMARK = 110
    LOG = 111
    MARQUEE = 112
    MATH = 113
    RATING = 114
    TIMER = 115
    STATIC = 116
    MATH_FRACTION = 117
    MATH_ROOT = 118
    SUBSCRIPT = 119
    SUPERSCRIPT = 120
    DESCRIPTION_LIST = 121
    DESCRIPTION_TERM = 122
    DESCRIPTION_VALUE = 123
    FOOTNOTE = 124
    CONTENT_DELETION = 125
    CONTENT_INSERTION = 126
    MARK = 127
    SUGGESTION = 128
    PUSH_BUTTON_MENU = 129

    @classmethod
    def of(cls, number: int) -> Role:
        """A role a newer toolkit sends that this table does not know is UNKNOWN, not an error."""
        try:
            return cls(number)
        except ValueError:
            return cls.UNKNOWN

    @property
    def label(self) -> str:
        """AT-SPI's own role name ("push button"), what the model is shown."""
        return self.name.lower().replace("_", " ")


class State(IntEnum):
    """Bit positions in the two 32-bit words of `Accessible.GetState`."""

    INVALID = 0
    ACTIVE = 1
    ARMED = 2
    BUSY = 3
    CHECKED = 4
    COLLAPSED = 5
    DEFUNCT = 6
    EDITABLE = 7
    ENABLED = 8
    EXPANDABLE = 9
    EXPANDED = 10
    FOCUSABLE = 11
    FOCUSED = 12
    HAS_TOOLTIP = 13
    HORIZONTAL = 14
    ICONIFIED = 15
    MODAL = 16
    MULTI_LINE = 17
    MULTISELECTABLE = 18
    OPAQUE = 19
    PRESSED = 20
    RESIZABLE = 21
    SELECTABLE = 22
    SELECTED = 23
    SENSITIVE = 24
    SHOWING = 25
    SINGLE_LINE = 26
    STALE = 27
    TRANSIENT = 28
    VERTICAL = 29
    VISIBLE = 30
    MANAGES_DESCENDANTS = 31
    INDETERMINATE = 32
    REQUIRED = 33
    TRUNCATED = 34
    ANIMATED = 35
    INVALID_ENTRY = 36
    SUPPORTS_AUTOCOMPLETION = 37
    SELECTABLE_TEXT = 38
    IS_DEFAULT = 39
    VISITED = 40
    CHECKABLE = 41
    HAS_POPUP = 42
    READ_ONLY = 43

    @property
    def label(self) -> str:
        return self.name.lower()


def states_of(words: list[int] | tuple[int, ...]) -> frozenset[State]:
    """The states set in GetState's bit words (low word first); bits this table does not know are left out."""
    bits = 0
    for index, word in enumerate(words):
        bits |= int(word) << (32 * index)
    return frozenset(state for state in State if bits >> state & 1)


# Windows the model works in: the application's top-level accessibles of these roles.
WINDOWS = frozenset({Role.FRAME, Role.DIALOG, Role.ALERT, Role.FILE_CHOOSER, Role.WINDOW, Role.COLOR_CHOOSER,
                     Role.FONT_CHOOSER})
# A window whose controls confirm a consequence the application warned about (replace a file, close without
# saving, delete): pressing any of its buttons needs the person's approval (Escape dismisses it without).
CONFIRMING = frozenset({Role.ALERT})
DIALOGS = frozenset({Role.DIALOG, Role.ALERT, Role.FILE_CHOOSER, Role.COLOR_CHOOSER})  # windows that end by a button
# Controls the model acts on or reads, whatever their interfaces say: they are listed even without a name.
CONTROLS = frozenset({
    Role.PUSH_BUTTON, Role.PUSH_BUTTON_MENU, Role.TOGGLE_BUTTON, Role.CHECK_BOX, Role.RADIO_BUTTON,
    Role.COMBO_BOX, Role.MENU, Role.MENU_ITEM, Role.CHECK_MENU_ITEM, Role.RADIO_MENU_ITEM, Role.PAGE_TAB,
    Role.LIST_ITEM, Role.TREE_ITEM, Role.TABLE_CELL, Role.LINK, Role.TEXT, Role.ENTRY, Role.PASSWORD_TEXT,
    Role.SPIN_BUTTON, Role.SLIDER, Role.DIAL, Role.SCROLL_BAR, Role.CALENDAR, Role.DATE_EDITOR,
    Role.DOCUMENT_TEXT, Role.DOCUMENT_SPREADSHEET, Role.DOCUMENT_FRAME, Role.TERMINAL, Role.EDITBAR,
    Role.AUTOCOMPLETE, Role.LIST, Role.LIST_BOX, Role.TREE, Role.TREE_TABLE, Role.TABLE, Role.PAGE_TAB_LIST,
})
# Read, not acted on: listed when they have a name (a form's field labels, a dialog's message).
READABLE = frozenset({Role.LABEL, Role.HEADING, Role.STATUS_BAR, Role.PARAGRAPH, Role.CAPTION, Role.STATIC,
                      Role.NOTIFICATION, Role.INFO_BAR, Role.PROGRESS_BAR, Role.LEVEL_BAR, Role.TOOL_TIP})
# Containers whose items `select` picks by name.
CHOOSERS = frozenset({Role.COMBO_BOX, Role.LIST, Role.LIST_BOX, Role.TREE, Role.TREE_TABLE, Role.TABLE,
                      Role.PAGE_TAB_LIST, Role.MENU, Role.MENU_BAR, Role.POPUP_MENU})
MENUS = frozenset({Role.MENU, Role.MENU_ITEM, Role.CHECK_MENU_ITEM, Role.RADIO_MENU_ITEM, Role.TEAROFF_MENU_ITEM})
# Labels whose text names the nameless control they sit in (a GTK list row, tab or button).
LABELS = frozenset({Role.LABEL, Role.STATIC, Role.ACCELERATOR_LABEL})
# Controls whose text is their content, not their name.
TEXT_ROLES = frozenset({Role.TEXT, Role.ENTRY, Role.PASSWORD_TEXT, Role.SPIN_BUTTON, Role.DOCUMENT_TEXT,
                        Role.TERMINAL, Role.EDITBAR, Role.AUTOCOMPLETE})
# The items of a list, table or tree, and those containers: a long one is listed in part.
ITEMS = frozenset({Role.LIST_ITEM, Role.TREE_ITEM, Role.TABLE_CELL, Role.TABLE_ROW})
CONTAINERS = frozenset({Role.LIST, Role.LIST_BOX, Role.TABLE, Role.TREE, Role.TREE_TABLE})
# Choosers that are no item of another: `select` of one means one of its items, which it must name.
HOLDERS = CONTAINERS | {Role.COMBO_BOX, Role.PAGE_TAB_LIST}
VALUED = frozenset({Role.SLIDER, Role.SCROLL_BAR, Role.DIAL})  # a value set by a position: given as a number
