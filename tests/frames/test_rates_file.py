"""The rates file: a later process prices without importing genai-prices, and a bad file never changes a cost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from noesis_nb import _genai_rates as genai

from .runkit import basic_events, model_call, write_run

MODELS = [("gpt-4o", "openai"), ("claude-sonnet-4-5", "anthropic"), ("gemini-2.5-pro", "google"), ("no-such-model", "acme")]

_PRICE = """
import json, sys
from noesis_nb.frames import usage_df
df = usage_df(sys.argv[1])
print(json.dumps({"cost": [None if c != c else c for c in df["cost_usd"].tolist()],
                  "imported": "genai_prices" in sys.modules, "version": df.attrs["price_version"]}))
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    events = basic_events("ep_rates")
    ts = "2025-07-01T10:00:00.000000+00:00"
    # tiered models cross their thresholds in one of these calls
    for n, (model, provider) in enumerate(MODELS):
        for k, size in enumerate((1_000, 250_000)):
            events.insert(-1, model_call("ep_rates", 10 + 2 * n + k, ts, model, provider, input_tokens=size, output_tokens=900))
    write_run(root, "ep_rates", events)
    return root


def _price(root: Path, cache: Path) -> dict:
    env = {**os.environ, "NOESIS_NB_CACHE_DIR": str(cache)}
    out = subprocess.run([sys.executable, "-c", _PRICE, str(root)], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_second_process_prices_from_the_file_with_the_same_costs(root: Path, tmp_path: Path):
    cache = tmp_path / "cache"
    first = _price(root, cache)
    assert (
        first["imported"] and sum(c is not None for c in first["cost"]) == 7
    )  # 6 calls of known models here, gpt-4o in basic_events
    assert (cache / genai.rates_cache_path().name).is_file()
    second = _price(root, cache)
    assert not second["imported"], "every model was in the file: genai-prices need not be imported"
    assert second["cost"] == first["cost"] and second["version"] == first["version"]


@pytest.mark.parametrize(
    "content",
    [
        b"not json",
        b"[]",
        b'{"genai_prices": "0.0.0-other", "models": {"openai|gpt-4o": null}}',
        None,  # a directory where the file should be
        "hostile",
    ],
)
def test_a_bad_file_is_ignored_and_rebuilt(root: Path, tmp_path: Path, content):
    truth = _price(root, tmp_path / "clean")["cost"]
    cache = tmp_path / "bad"
    cache.mkdir()
    path = cache / genai.rates_cache_path().name
    if content is None:
        path.mkdir()
    elif content == "hostile":  # the right version, rates someone else wrote: wrong shapes must not price
        models = {
            "openai|gpt-4o": {"key": "x", "conditional": False, "options": [[None, {"input": "1", "output": []}]]},
            "anthropic|claude-sonnet-4-5": {"key": "x", "conditional": "yes", "options": []},
            "google|gemini-2.5-pro": {"key": "x", "conditional": True, "options": [[["ask", 1], None]]},
        }
        path.write_bytes(orjson.dumps({"genai_prices": genai.genai_version(), "models": models}))
    else:
        path.write_bytes(content)
    assert _price(root, cache)["cost"] == truth
    if content is not None:
        assert _price(root, cache)["cost"] == truth and not _price(root, cache)["imported"]


def test_unwritable_cache_dir_still_prices(root: Path, tmp_path: Path):
    cache = tmp_path / "ro"
    cache.write_text("a file, not a folder")
    truth = _price(root, tmp_path / "clean")["cost"]
    assert _price(root, cache)["cost"] == truth


def test_every_bundled_model_survives_the_file():
    """Each genai-prices model whose rules are portable reads back from JSON as the same rates."""
    from genai_prices import data_snapshot

    seen = 0
    for provider in data_snapshot.get_snapshot().providers:
        for model in provider.models:
            rates = genai._from_snapshot(model.id, provider.id)
            if rates is None or not rates.portable:
                continue
            back = genai._decode(orjson.loads(orjson.dumps(genai._encode(rates))))
            assert back == rates, (provider.id, model.id)
            seen += 1
    assert seen > 300


def test_a_well_formed_file_someone_else_wrote_prices_nothing(root: Path, tmp_path: Path):
    """A rates file of the right version and shape whose rates were changed (a shared or crafted cache folder):
    gpt-4o-mini priced at $5,000 a million input tokens, gpt-4o made unknown, with nothing reported. The file is
    trusted only when its first line is this user's HMAC of the rest."""
    truth = _price(root, tmp_path / "clean")["cost"]
    cache = tmp_path / "crafted"
    _price(root, cache)  # the real file, signed
    path = cache / genai.rates_cache_path().name
    data = path.read_bytes()
    head, _, body = data.partition(b"\n")
    doc = orjson.loads(body or data)
    for key, rates in doc["models"].items():
        if rates is None:
            continue
        for _window, fields in rates["options"]:
            if fields is not None:
                fields["input"] = fields["output"] = 5000.0
        doc["models"][key] = rates
    for forged in (orjson.dumps(doc), head + b"\n" + orjson.dumps(doc)):  # unsigned, or under the old signature
        path.write_bytes(forged)
        assert _price(root, cache)["cost"] == truth
