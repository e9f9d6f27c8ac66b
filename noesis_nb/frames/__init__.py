"""Run directories as pandas DataFrames: ``runs_df``, ``events_df``, ``tools_df``, ``usage_df``.

Every frame takes ``source`` (runs root, run dir, list, episode id, glob or fsspec URL), extra
``columns=[Column(...)]``, and ``strict`` (raise on the first bad file) or not (collect problems in
``df.attrs["errors"]``, said by one ``LoadProblemsWarning`` per load, not again for the same problems).
Loads are cached per run by the size, mtime and ctime of its files.
"""

from .batches import batch_summary, compare_batches
from .cache import clear_cache
from .columns import EVENT_COLUMNS, RUN_COLUMNS, TOOL_COLUMNS, USAGE_COLUMNS, Column
from .ddf import events_ddf, runs_ddf
from .events import events_df
from .loadwarning import LoadProblemsWarning
from .problems import LoadProblem, RunLoadError
from .runs import runs_df
from .tools import tools_df
from .usage import usage_df

__all__ = [
    "Column",
    "batch_summary",
    "compare_batches",
    "EVENT_COLUMNS",
    "LoadProblem",
    "LoadProblemsWarning",
    "RUN_COLUMNS",
    "RunLoadError",
    "TOOL_COLUMNS",
    "USAGE_COLUMNS",
    "clear_cache",
    "events_ddf",
    "events_df",
    "runs_ddf",
    "runs_df",
    "tools_df",
    "usage_df",
]
