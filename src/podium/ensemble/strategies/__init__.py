"""The built-in strategies, one module each. All are pure: see `podium.ensemble.strategy.Strategy`."""

from podium.ensemble.strategies.consensus import AtLeast, Consensus, ConsensusOutcome, consensus_outcome
from podium.ensemble.strategies.debate import Debate
from podium.ensemble.strategies.graph import Graph, GraphSchedule, Subtask, graph_outcomes
from podium.ensemble.strategies.pipeline import Pipeline
from podium.ensemble.strategies.pool import Pool
from podium.ensemble.strategies.solo import Solo
from podium.ensemble.strategies.supervisor import Supervisor
from podium.ensemble.strategies.switchboard import Switchboard

__all__ = [
    "AtLeast", "Consensus", "ConsensusOutcome", "Debate", "Graph", "GraphSchedule", "Pipeline", "Pool", "Solo",
    "Subtask", "Supervisor", "Switchboard", "consensus_outcome", "graph_outcomes",
]
