"""``secrets=`` of a resume is checked as an option, before any run is looked up."""

from __future__ import annotations

import pytest

import noesis_nb as nb
from noesis_nb import ns
from noesis_nb.errors import InvalidOptionError

KEY = "sk-proj-" + "Q7x2" * 12


@pytest.mark.parametrize(
    ("secrets", "told"),
    [
        (5, "takes a mapping, got int"),
        ("kwargs.auth=abc", "takes a mapping, got str"),
        ({"": "x"}, "key ''"),
        ({"   ": "x"}, "names no payload path"),
        ({" kwargs.auth": "x"}, "names no payload path"),
        ({5: "x"}, "key 5"),
    ],
)
@pytest.mark.parametrize("call", [nb.resume_run, ns.resume_run])
def test_a_wrong_secrets_option_is_named_before_the_run_is_looked_up(tmp_path, call, secrets, told):
    with pytest.raises(InvalidOptionError) as caught:  # the run does not exist: the option is what is wrong
        call("ep_01K9NOSUCHRUN", runs_dir=tmp_path, secrets=secrets)
    text = str(caught.value)
    assert told in text and "secrets=" in text and "{'kwargs.auth'" in text


def test_a_key_shaped_secrets_path_is_not_quoted_back(tmp_path):
    with pytest.raises(InvalidOptionError) as caught:
        nb.resume_run("ep_01K9NOSUCHRUN", runs_dir=tmp_path, secrets={KEY + " ": "x"})
    assert KEY not in str(caught.value) and KEY[:20] not in str(caught.value)
