"""The `podium` command line: `podium run`, `podium apps`, `podium sessions`, `podium show`.

Entry point: `podium = "podium.cli:main"`. Importing this package imports Typer and Rich; the
applications, the models and the journal are imported by the commands that need them.
"""

from __future__ import annotations

from podium.cli.app import app, main

__all__ = ["app", "main"]
