"""Desktop programs driven through the accessibility tree (AT-SPI over D-Bus).

    bus        the accessibility bus: connection, calls, the registered applications
    roles      AT-SPI roles and states as values, and the role sets decisions are made from
    tree       a bounded snapshot of one application's tree
    controls   the numbered control list (UFO²'s control list) and what a number refers to
    actions    one operation on one object: default action, text, value, item, menu path
    pointer    real pointer clicks (xdotool), where a toolkit does not finish an accessible action
    keys       key presses with xdotool, and when they need approval
    marks      set-of-marks: the control numbers drawn on a screenshot
    arguments  the tools' arguments (schema and check)
    approvals  what a call would do: its effects and whether it needs approval
    app        AccessibleApplication: the tools and the lifecycle
    listing    the accessible applications running and their windows (`podium apps`)
"""
