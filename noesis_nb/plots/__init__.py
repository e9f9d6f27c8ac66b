"""Plotly figures from noesis_nb frames: DataFrame in, ``go.Figure`` out (never shown, no global settings).

- ``episode_timeline(events_df, episode_id)``: phases over time, approvals and pauses marked
- ``cost_over_time(usage_df, by=…)``, ``tokens_by(usage_df, by=…)``, ``tokens_over_time(usage_df, freq)``
- ``success_by_adapter(runs_df)``, ``duration_by_adapter(runs_df)``
- ``approval_waits(tools_df)``
- ``compare_episodes(events_df, a, b, usage_df)`` (+ ``compare_steps`` for the table, ``aligned_steps``
  for it with where each run is at each step: what a side-by-side replay follows)
- ``batch_summary_plot(batch_summary(runs))``, ``compare_batches_plot(compare_batches(a, b))``
"""

from .adapters import duration_by_adapter, success_by_adapter
from .approvals import approval_waits
from .batches import batch_summary_plot, compare_batches_plot
from .compare import aligned_steps, compare_episodes, compare_steps
from .timeline import episode_timeline
from .usage import cost_over_time, token_parts, tokens_by, tokens_over_time

__all__ = [
    "aligned_steps",
    "approval_waits",
    "batch_summary_plot",
    "compare_batches_plot",
    "compare_episodes",
    "compare_steps",
    "cost_over_time",
    "duration_by_adapter",
    "episode_timeline",
    "success_by_adapter",
    "token_parts",
    "tokens_by",
    "tokens_over_time",
]
