"""A remote runs source its storage refuses to list is one noesis_nb error naming the URL and what to check.

A newcomer's first ``runs_df("s3://…")`` met botocore's ``NoCredentialsError: Unable to locate credentials``, a
bare ``FileNotFoundError: The specified bucket does not exist`` or ``TypeError: AioSession.__init__() got an
unexpected keyword argument`` as a traceback through s3fs and aiobotocore, none naming the source or the fix.
"""

from __future__ import annotations

import pytest

from noesis_nb import runs_df
from noesis_nb.errors import InvalidOptionError, NoesisNbError, RunNotFoundError, RunsDirError


def _options(url: str, **more) -> dict:
    # skip_instance_cache: fsspec would hand back a file system made earlier with other credentials
    return {"key": "testing", "secret": "testing", "client_kwargs": {"endpoint_url": url}, "skip_instance_cache": True, **more}


def test_a_bucket_that_does_not_exist_is_named(s3_endpoint):
    with pytest.raises(RunNotFoundError) as caught:
        runs_df("s3://no-such-bucket/runs", storage_options=_options(s3_endpoint))
    assert "'s3://no-such-bucket/runs' cannot be listed" in str(caught.value)
    assert "bucket" in str(caught.value)


def test_an_option_the_file_system_does_not_take_names_storage_options(s3_endpoint):
    with pytest.raises(InvalidOptionError) as caught:
        runs_df("s3://some-bucket/runs", storage_options=_options(s3_endpoint, endpoint=s3_endpoint))
    message = str(caught.value)
    assert "'s3://some-bucket/runs'" in message and "storage_options" in message and "endpoint" in message


def test_no_credentials_is_said_with_where_to_give_them(s3_endpoint, monkeypatch, tmp_path):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    options = {"client_kwargs": {"endpoint_url": s3_endpoint}, "skip_instance_cache": True}
    with pytest.raises(RunsDirError) as caught:
        runs_df("s3://some-bucket/runs", storage_options=options)
    message = str(caught.value)
    assert isinstance(caught.value, NoesisNbError)
    assert "'s3://some-bucket/runs' could not be listed" in message and "NoCredentialsError" in message
    assert "storage_options=" in message and "AWS_ACCESS_KEY_ID" in message
