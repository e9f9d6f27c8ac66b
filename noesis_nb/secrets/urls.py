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
# schemes whose user part is sent as Basic credentials: any user part there is refused (a token, a user name)
_WEB = frozenset({"http", "https"})


def _password_in(link: str) -> bool:
    """Whether one link of an fsspec URL (``a::b``: each link) holds credentials before its host."""
    scheme, sep, rest = link.strip().partition("://")
    scheme = scheme.lower()
    if not sep or scheme in _NO_USERINFO:
        return False
    if scheme in _OBJECT_STORES:
        authority = rest.split("/", 1)[0]
        return ":" in authority or ("@" in rest and ":" in rest.split("@", 1)[0])
    try:
        parts = urlsplit(f"{scheme}://{rest}")  # the authority stops at / ? #: a port is no password
        # on the web a user part alone is a credential too (``https://<token>@host/``: the token as user name)
        return parts.password is not None or (scheme in _WEB and parts.username is not None)
    except ValueError:  # a malformed authority (an unclosed IPv6 bracket): no password read from it
        return False


def refuse_password(url: str, what: str) -> None:
    """Refuse ``url`` when it holds a password before its host, or any user part in an http(s) URL (a token as the
    user name, ``https://<token>@host/``): it would be shown wherever the URL is named (a frame's ``run_dir``; s3fs
    even reads it as part of the bucket's name, and botocore's error quotes it). The error names the URL without its
    user part, and where credentials go instead. Each link of a chained URL (``simplecache::s3://…``) is judged."""
    for link in url.split("::"):
        if _password_in(link):
            scheme, _, rest = link.strip().partition("://")
            named = f"{scheme}://{REDACTED_VALUE}@{rest.split('@', 1)[1] if '@' in rest else ''}"
            raise InvalidOptionError(
                f"{what}={shown_cut(named, 120)!r} holds credentials before its host (a password, or on the web a "
                "token or user name), which would be shown wherever the URL is named; write it without "
                f"('{scheme}://host-or-bucket/…') and pass the credentials in storage_options= (s3: {{'key': …, "
                "'secret': …}; http(s): {'headers': {'Authorization': 'Bearer …'}} or "
                "{'client_kwargs': {'auth': aiohttp.BasicAuth(…)}})"
            )
