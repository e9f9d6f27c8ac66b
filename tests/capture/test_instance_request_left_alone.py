"""A ``request`` set on one client instance is left exactly as set, in and out of an episode that captures.

``client.request = MagicMock()`` (or ``mock.patch.object(client, "request")``) is a common test idiom: the mock
read back must be the mock (its ``return_value``, ``assert_called_once``), and it answers by itself, so no model
call is recorded. A wrapper saved from ``client.request`` once capture was installed calls on the class's captured
``request``: that call is recorded, once.
"""

from __future__ import annotations

from unittest import mock

import pytest

import noesis_nb

from .recorded_calls import calls

openai = pytest.importorskip("openai")

MSG = [{"role": "user", "content": "hi"}]


def test_a_mock_set_on_the_instance_stays_the_mock(stub, runs_dir):
    client = openai.OpenAI(base_url=stub.url + "/v1", api_key="sk-test", max_retries=0)
    seen = {}

    def agent(task, ctx):
        client.chat.completions.create(model="gpt-4o-mini", messages=MSG)  # captured: capture is installed now
        fake = mock.MagicMock()
        client.request = fake
        client.request.return_value = "canned"
        seen["answer"] = client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
        client.request.assert_called_once()
        seen["same"] = client.request is fake
        with mock.patch.object(client, "request", return_value="patched") as patched:
            seen["patched"] = client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
            patched.assert_called_once()
        return "ok"

    ep = noesis_nb.solve("mocks", using=agent, runs_dir=runs_dir)
    assert seen == {"answer": "canned", "same": True, "patched": "patched"}
    assert len(calls(runs_dir, ep)) == 1  # the real call alone: a mock's answer is no model call


def test_a_wrapper_saved_after_capture_is_recorded_once(stub, runs_dir):
    client = openai.OpenAI(base_url=stub.url + "/v1", api_key="sk-test", max_retries=0)
    wrapped = []

    def agent(task, ctx):
        client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
        original = client.request

        def traced(*args, **kwargs):
            wrapped.append(1)
            return original(*args, **kwargs)

        client.request = traced
        client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
        return "ok"

    ep = noesis_nb.solve("tracer", using=agent, runs_dir=runs_dir)
    assert wrapped == [1]
    assert len(calls(runs_dir, ep)) == 2
