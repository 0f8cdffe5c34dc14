"""The built-in strategies, one module each."""

from podium.ensemble.strategies.solo import Solo

__all__ = ["Solo"]
