"""Set-of-marks: a screenshot of the desktop with each listed control's box and number drawn on it, for
models that see (the number in the picture is the number in the control list).

The screenshot comes from `podium.apps.display.screenshot` (ImageMagick's import), the drawing from
Pillow. The picture is bounded: at most the observation's listed controls are marked, and it is scaled
down to `max_width` pixels.
"""

from __future__ import annotations

from pathlib import Path

from podium.apps import display
from podium.apps.accessible.controls import Observation

MAX_WIDTH = 1600
COLOURS = ("#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#008080", "#9a6324", "#800000")


def annotate(observation: Observation, path: Path, *,
             max_width: int = MAX_WIDTH) -> display.Screenshot | display.ScreenshotSkipped:
    """Take a screenshot at `path` and draw the observation's controls on it."""
    shot = display.screenshot(path)
    if isinstance(shot, display.ScreenshotSkipped):
        return shot
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        return display.ScreenshotSkipped("marking controls on a screenshot needs Pillow: pip install 'podium[gui]'")
    with Image.open(path) as opened:
        image = opened.convert("RGB")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=14)
    for number, control in enumerate(observation.controls):
        if control.node.bounds is None:
            continue
        x, y, width, height = control.node.bounds
        if width <= 0 or height <= 0 or x + width < 0 or y + height < 0:
            continue
        colour = COLOURS[number % len(COLOURS)]
        draw.rectangle((x, y, x + width - 1, y + height - 1), outline=colour, width=2)
        label = str(control.id)
        left, top = max(x, 0), max(y, 0)
        box = draw.textbbox((left, top), label, font=font)
        draw.rectangle((box[0] - 2, box[1] - 1, box[2] + 2, box[3] + 1), fill=colour)
        draw.text((left, top), label, fill="white", font=font)
    if image.width > max_width:
        image = image.resize((max_width, round(image.height * max_width / image.width)))
    image.save(path, format="PNG")
    return display.Screenshot(path, image.width, image.height)
