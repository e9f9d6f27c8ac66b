"""The store: finding, reading and writing Noēsis run directories (no pandas, no widgets)."""

from .artifacts import (
    ManifestCheck,
    is_sealed,
    read_final,
    read_json,
    read_manifest,
    read_state,
    read_summary,
    verify_manifest,
    write_manifest,
)
from .eventlog import EventWriter, iter_events, now_iso, read_events, read_events_to_continue
from .listing import list_runs, run_info
from .roots import candidate_roots, find_run_dir, is_run_dir, iter_run_dirs
from .status import run_status

__all__ = [
    "EventWriter",
    "ManifestCheck",
    "candidate_roots",
    "find_run_dir",
    "is_run_dir",
    "is_sealed",
    "iter_events",
    "iter_run_dirs",
    "list_runs",
    "now_iso",
    "read_events",
    "read_events_to_continue",
    "read_final",
    "read_json",
    "read_manifest",
    "read_state",
    "read_summary",
    "run_info",
    "run_status",
    "verify_manifest",
    "write_manifest",
]
