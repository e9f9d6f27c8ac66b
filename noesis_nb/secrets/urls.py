"""A URL the package will name (in a frame's ``run_dir``, an error, a batch record) may hold no password."""

from __future__ import annotations

import re

from ..errors import InvalidOptionError
from .display import shown_cut
from .names import REDACTED_VALUE

__all__ = ["refuse_password"]

# ``scheme://user:password@…``: the user part stops at the first ``/``, the password may hold one (AWS secrets do)
_USERINFO = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#@:]*:[^@]*@")


def refuse_password(url: str, what: str) -> None:
    """Refuse ``url`` when it holds a password before its host: it would be shown wherever the URL is
    named (s3fs even reads it as part of the bucket's name, and botocore's error quotes it). The error
    names the URL without its user part, and where credentials go instead."""
    found = _USERINFO.match(url)
    if found:
        scheme = url.split("://", 1)[0]
        named = f"{scheme}://{REDACTED_VALUE}@{url[found.end() :]}"  # the user and password, whatever they hold
        raise InvalidOptionError(
            f"{what}={shown_cut(named, 120)!r} holds a password before its host, which would be shown wherever "
            f"the URL is named; write it without ('{scheme}://host-or-bucket/…') and pass the credentials in "
            "storage_options= (s3: {'key': …, 'secret': …}; http: {'client_kwargs': {'auth': …}})"
        )
