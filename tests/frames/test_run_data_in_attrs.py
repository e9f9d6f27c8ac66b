"""What a frame's ``attrs`` show of run data is shown as its columns show it. A key in a crafted ``model.call``'s
``provider`` was redacted in ``usage_df.provider`` but written whole in ``runs_df.attrs["price_assumptions"]`` (keyed
``<provider>/<model>``: runs_df prices the calls as read). Every attrs entry of every frame is checked for it."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import noesis_nb

from .runkit import basic_events, model_call, write_run

TOKEN = "ghp_" + "u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"
FRAMES = ("runs_df", "events_df", "tools_df", "usage_df")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    events = basic_events("ep_p")
    # tokens of one part unknown (an assumption noted) and a provider holding a key
    events.insert(3, model_call("ep_p", 9, "2025-03-01T10:00:25.000000+00:00", "gpt-4o", TOKEN, input_tokens=5, output_tokens=1))
    write_run(root, "ep_p", events, summary={"episode_id": "ep_p", "status": "ok"})
    return root


@pytest.mark.parametrize("frame", FRAMES)
def test_no_attrs_entry_shows_the_key(root: Path, frame: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = getattr(noesis_nb, frame)(root, cache=False)
    text = json.dumps(df.attrs, default=str)
    assert TOKEN not in text and TOKEN[4:18] not in text


#: genai-prices knows no provider named by a key, so the call is priced by a table row for any provider
PRICES = {"gpt-4o": {"input": 2.5, "cached_input": 1.25, "output": 10.0}}


def test_the_note_names_the_call_as_usage_df_shows_it(root: Path) -> None:
    usage = noesis_nb.usage_df(root, cache=False, prices=PRICES)
    runs = noesis_nb.runs_df(root, cache=False, prices=PRICES)
    shown = usage.loc[usage.model.eq("gpt-4o") & ~usage.provider.eq("openai"), "provider"].tolist()
    assert shown and TOKEN not in shown[0]
    assert f"{shown[0]}/gpt-4o" in runs.attrs["price_assumptions"]
    assert runs.attrs["price_assumptions"] == usage.attrs["price_assumptions"]
