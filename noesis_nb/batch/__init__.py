"""Batches: many episodes in one call — on the notebook's loop or an executor (Dask), resumable, scored.

Modules: ``spec`` (checking the arguments), ``record`` (the batch's record on disk), ``differ`` (where a call parts
from its record), ``plan`` (where each entry stands on disk), ``runner`` (on the loop), ``remote`` / ``worker`` (on an
executor), ``follow`` (following runs through their directories), ``upload`` (copying sealed runs to an fsspec URL),
``handle``.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from .api import batch
from .handle import BatchEntry, BatchHandle
from .upload import UploadError, upload_run, upload_run_async

__all__ = ["batch", "BatchHandle", "BatchEntry", "upload_run", "upload_run_async", "UploadError"]


class _CallableModule(types.ModuleType):
    """``noesis_nb.batch`` is this package once anything imports it, and still calls ``batch(...)``."""

    def __call__(self, *args: Any, **kwargs: Any) -> BatchHandle:
        return batch(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
