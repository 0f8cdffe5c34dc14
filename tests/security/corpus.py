"""The attack corpus: every probe, registered in harness.PROBES by importing its module."""

from __future__ import annotations

from tests.security import (  # noqa: F401  (each module registers its probes)
    probes_approval,
    probes_boundary,
    probes_bypass,
    probes_files,
    probes_mcp,
    probes_shell,
)
from tests.security.harness import PROBES

__all__ = ["PROBES"]
