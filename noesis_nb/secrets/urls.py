"""A URL the package will name (in a frame's ``run_dir``, an error, a batch record) may hold no password."""

from __future__ import annotations

from urllib.parse import urlsplit

from ..errors import InvalidOptionError
from .display import shown_cut
from .names import REDACTED_VALUE

__all__ = ["refuse_password"]

# object stores whose bucket (or container) names hold no ``:``: one before the first ``/`` is ``key:secret@``,
# whose secret may itself hold a ``/`` (AWS secrets do), so a URL parser would split it in two
_OBJECT_STORES = frozenset({"s3", "s3a", "s3n", "gs", "gcs", "az", "abfs", "abfss", "adl", "oss"})
# ``github://org:repo@ref/path`` is fsspec's documented form: no password in it
_NO_USERINFO = frozenset({"github"})


def _password_in(link: str) -> bool:
    """Whether one link of an fsspec URL (``a::b``: each link) holds a password before its host."""
    scheme, sep, rest = link.strip().partition("://")
    scheme = scheme.lower()
    if not sep or scheme in _NO_USERINFO:
        return False
    if scheme in _OBJECT_STORES:
        authority = rest.split("/", 1)[0]
        return ":" in authority or ("@" in rest and ":" in rest.split("@", 1)[0])
    try:
        return urlsplit(f"{scheme}://{rest}").password is not None  # the authority stops at / ? #: a port is no password
    except ValueError:  # a malformed authority (an unclosed IPv6 bracket): no password read from it
        return False


def refuse_password(url: str, what: str) -> None:
    """Refuse ``url`` when it holds a password before its host: it would be shown wherever the URL is
    named (s3fs even reads it as part of the bucket's name, and botocore's error quotes it). The error
    names the URL without its user part, and where credentials go instead. Each link of a chained URL
    (``simplecache::s3://…``) is judged."""
    for link in url.split("::"):
        if _password_in(link):
            scheme, _, rest = link.strip().partition("://")
            named = f"{scheme}://{REDACTED_VALUE}@{rest.split('@', 1)[1] if '@' in rest else ''}"
            raise InvalidOptionError(
                f"{what}={shown_cut(named, 120)!r} holds a password before its host, which would be shown wherever "
                f"the URL is named; write it without ('{scheme}://host-or-bucket/…') and pass the credentials in "
                "storage_options= (s3: {'key': …, 'secret': …}; http: {'client_kwargs': {'auth': …}})"
            )
