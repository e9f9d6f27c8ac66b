"""The scripted stand-in for an LLM refuses a script it would misread, naming the value and the fix.

``ScriptedModel("Plan: do it")`` (a str where a list of replies belongs) replied one character per call,
silently; an empty script replied "" forever. Both now fail at once with ``InvalidOptionError``.
"""

import pytest

from noesis_nb.errors import InvalidOptionError
from noesis_nb.scripted import ScriptedModel


def test_a_single_string_is_refused_with_the_list_to_pass_instead():
    with pytest.raises(InvalidOptionError) as caught:
        ScriptedModel("Plan: do it")
    assert "replies='Plan: do it'" in str(caught.value)
    assert "ScriptedModel(['Plan: do it'])" in str(caught.value)


@pytest.mark.parametrize("replies", [[], (), None, {"a": "b"}])
def test_an_empty_or_non_list_script_is_refused(replies):
    with pytest.raises(InvalidOptionError, match="pass a non-empty list of reply strings"):
        ScriptedModel(replies)


def test_a_reply_that_is_not_text_is_named():
    with pytest.raises(InvalidOptionError, match="replies holds 42, not a str"):
        ScriptedModel(["fine", 42])


def test_a_tuple_script_replies_in_order_and_wraps_around():
    model = ScriptedModel(("one", "two"))
    assert [model.complete("p") for _ in range(3)] == ["one", "two", "one"]
