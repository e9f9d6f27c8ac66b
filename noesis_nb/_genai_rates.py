"""genai-prices' bundled price data (offline) read for ``noesis_nb.cost``: which model, which price at which time.

genai-prices keeps, per model, either one price or a list of conditional prices (from a start
date on, or within a daily window: off-peak rates), and a rate may be tiered by the call's
input tokens. ``find_model`` turns a model's entry into ``ModelRates``: each option's window
and its ``noesis_nb.cost.Price`` fields; ``choose`` replays genai-prices' selection rule on
arrays of call times.

Importing genai-prices and building its snapshot costs ~0.15 s, all of a first ``runs_df`` on a
small root. So the rates of every model looked up are also kept in a small JSON file per
genai-prices version (``NOESIS_NB_CACHE_DIR``, else ``$XDG_CACHE_HOME/noesis_nb``, else
``~/.cache/noesis_nb``): a later process prices those models without importing genai-prices.
The file is only a copy of the bundled data; anything unreadable in it is ignored and rebuilt.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import threading
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from ._cachedir import cache_root, read_cached, write_cached
from ._sealkey import seal_key

__all__ = [
    "GENAI_SOURCE",
    "ModelRates",
    "genai_version",
    "find_model",
    "billing_provider",
    "provider_unknown",
    "price_fields",
    "micros",
    "choose",
    "rates_cache_path",
]

GENAI_SOURCE = "genai-prices"
_DAY_US = 86_400_000_000

# When an option applies: None (always), ("start", first UTC day since the epoch),
# ("daily", start µs, end µs after UTC midnight), or ("ask", genai-prices' own constraint object).
Window = tuple[Any, ...] | None


@dataclass(frozen=True)
class ModelRates:
    """A model's prices as genai-prices gives them: ``options`` of (window, Price fields or None)."""

    key: str  # "provider/model" as genai-prices names them
    options: tuple[tuple[Window, dict[str, Any] | None], ...]
    conditional: bool  # genai-prices lists conditional prices (its rule: the last active, else the first)

    @property
    def varies_within_day(self) -> bool:
        """Rates that depend on the time of day (off-peak prices), or on a rule only genai-prices can answer."""
        return any(w is not None and w[0] != "start" for w, _ in self.options)

    @property
    def portable(self) -> bool:
        return all(w is None or w[0] != "ask" for w, _ in self.options)


@cache
def genai_version() -> str:
    """The installed genai-prices version, read from its metadata (importing it costs ~0.1 s)."""
    from importlib import metadata

    try:
        return metadata.version("genai-prices")
    except metadata.PackageNotFoundError:  # pragma: no cover - a dependency
        return "missing"


def find_model(model: str, provider: str | None) -> ModelRates | None:
    """``model``'s rates as genai-prices finds them for the provider that billed the call (``_asks``); None when
    genai-prices does not know it there."""
    key = f"{provider or ''}|{model}"
    store = _store()
    if key in store.entries:
        return store.entries[key]
    found = _from_snapshot(model, provider)
    store.add(key, found)
    return found


def _from_snapshot(model: str, provider: str | None) -> ModelRates | None:
    try:
        from genai_prices import data_snapshot
    except ImportError:  # pragma: no cover
        return None
    snapshot = data_snapshot.get_snapshot()
    provider = billing_provider(provider)
    known = bool(provider) and data_snapshot.find_provider_by_id(snapshot.providers, provider or "") is not None
    for provider_id, api_url in _asks(model, provider, known):
        try:
            prov, info = snapshot.find_provider_model(model, None, provider_id, api_url)
        except LookupError:
            continue
        key = f"{prov.id}/{info.id}"
        if not isinstance(info.prices, list):
            return ModelRates(key, ((None, price_fields(info.prices)),), False)
        options = tuple((_window(c.constraint), price_fields(c.prices)) for c in info.prices)
        return ModelRates(key, options, True)
    return None


#: a model id in Amazon Bedrock's form: an optional ARN up to its last ``/``, an optional geography (``us.``,
#: ``eu.``, ``apac.``, ``us-gov.``, ``global.``), then ``vendor.model`` (``anthropic.claude-3-5-sonnet-20240620-v1:0``)
_BEDROCK = re.compile(r"^(?:arn:aws[a-z-]*:bedrock:[^/]*/)?(?:[a-z]{2,6}(?:-gov)?\.)?[a-z]+\.[a-z][^/\s]*$")
#: a model id in Vertex AI's form: a ``publishers/{vendor}/models/{model}`` resource name, or ``model@version``
#: (``claude-3-5-sonnet-v2@20241022``)
_VERTEX = re.compile(r"(?:^|/)publishers/[^/]+/models/[^/]+$|^[a-z0-9][a-z0-9._-]*@[a-z0-9._-]+$")
#: LiteLLM's names of those platforms' models (``bedrock/anthropic.claude-…``, ``vertex_ai/gemini-…``): genai-prices
#: reads the platform from the prefix itself when asked as provider ``litellm``
_LITELLM = re.compile(r"^(?:bedrock|vertex_ai)[a-z_]*/")


def platform(model: str) -> str | None:
    """The cloud platform a model id's own form names (``aws-bedrock``, ``google-vertex``, or ``litellm`` for
    LiteLLM's prefixed names of theirs), as the provider to ask genai-prices with; else None.

    Bedrock and Vertex bill their own rates, and genai-prices keeps them under those providers, whose model
    matchers know the platform's ids; the id's form alone chooses the platform (the provider a call names is
    often the SDK's, ``anthropic`` for ``AnthropicBedrock``), and genai-prices then chooses the model and its price.
    """
    ref = model.strip().lower()
    if _LITELLM.match(ref):
        return "litellm"
    if _BEDROCK.match(ref):
        return "aws-bedrock"
    if _VERTEX.search(ref):
        return "google-vertex"
    return None


#: provider names that may say which SDK made a call rather than who billed it (events captured before the provider
#: was read from the client, other tools' records): asked as a label is (``_asks``). A captured call names one only
#: when its client called that provider's own host.
_SDK_NAMES = frozenset({"openai", "anthropic", "litellm"})


#: OpenTelemetry's ``gen_ai.provider.name`` values (GenAI semantic conventions), and other tools' provider labels,
#: whose genai-prices provider is not found by the name itself: ``azure.ai.openai`` would be read as ``openai`` (a
#: name containing it), ``x_ai`` and ``azure.ai.inference`` as none. Azure bills both of its services.
_SEMCONV_PROVIDERS = {
    "azure.ai.openai": "azure",
    "azure.ai.inference": "azure",
    "aws.bedrock": "aws-bedrock",
    "gcp.vertex_ai": "google-vertex",
    "gcp.gemini": "google",
    "gcp.gen_ai": "google",
    "x_ai": "x-ai",
    "mistral_ai": "mistral",
    # other tools' labels of providers genai-prices has under another id: LiteLLM's fireworks_ai, azure_ai,
    # azure_text and codestral (Mistral's endpoint), Hugging Face's fireworks-ai, pydantic-ai's grok
    "fireworks_ai": "fireworks",
    "fireworks-ai": "fireworks",
    "azure_ai": "azure",
    "azure_text": "azure",
    "codestral": "mistral",
    "grok": "x-ai",
}


def billing_provider(provider: str | None) -> str | None:
    """The provider to ask genai-prices for: an OpenTelemetry provider name or another tool's label
    (``_SEMCONV_PROVIDERS``) as genai-prices' id, any other as given."""
    if not provider:
        return provider
    return _SEMCONV_PROVIDERS.get(provider.strip().lower(), provider)


def provider_unknown(provider: str | None) -> bool:
    """Whether genai-prices has no provider named ``provider`` (a gateway's or a proxy's label, an OpenTelemetry name
    of a provider it does not price) or serving at that address (a local server's): its calls are unpriced (``_asks``),
    whatever their model. No provider, or an SDK's name, is not unknown (the model then says whose it is). The answer
    is kept in the rates file with the models' rates, so a later process need not import genai-prices for it."""
    provider = billing_provider(provider)
    if not provider or provider.lower() in _SDK_NAMES:
        return False
    store = _store()
    known = store.providers.get(provider)
    if known is None:
        known = _provider_known(provider)
        store.add_provider(provider, known)
    return not known


def _provider_known(provider: str) -> bool:
    """Whether genai-prices has a provider of that id (or matching it) or serving at that address."""
    try:
        from genai_prices import data_snapshot
    except ImportError:  # pragma: no cover
        return True
    url = provider.startswith(("http://", "https://"))
    try:
        data_snapshot.get_snapshot().find_provider(None, None if url else provider, provider if url else None)
    except LookupError:
        return False
    return True


def _asks(model: str, provider: str | None, known: bool) -> list[tuple[str | None, str | None]]:
    """The (provider id, API address) pairs to ask genai-prices, in order; ``known``: genai-prices has ``provider``
    (``billing_provider``'s: an OpenTelemetry name read as genai-prices' id).

    A provider genai-prices has (other than an SDK's name: ``aws-bedrock``, ``azure``, ``openrouter`` …) is the one
    that billed the call: only it is asked, so a model it does not list leaves the price unknown, never another
    provider's. A provider given as an address (``https://openrouter.ai/api/v1``: a captured call's endpoint) is
    matched against genai-prices' providers' API addresses alone; a local server's matches none. A label it does not
    have (``my-gateway``, ``ibm.watsonx.ai``) asks nothing: whoever billed the call, its rate is unknown. No
    provider, or an SDK's name: the platform the id's form names, then the provider, then any provider that lists
    the model.
    """
    if provider and provider.startswith(("http://", "https://")):
        return [(None, provider)]
    if provider and provider.lower() not in _SDK_NAMES:
        return [(provider, None)] if known else []
    asked = [p for p in (platform(model), provider) if p]
    return [(p, None) for p in dict.fromkeys((*asked, None))]


def _window(constraint: Any) -> Window:
    if constraint is None:
        return None
    kind = type(constraint).__name__
    if kind == "StartDateConstraint":
        return ("start", (constraint.start_date - date(1970, 1, 1)).days)
    if kind == "TimeOfDateConstraint":
        return ("daily", _utc_time_us(constraint.start_time), _utc_time_us(constraint.end_time))
    return ("ask", constraint)  # a constraint kind this module does not know: ask it per call time


# genai-prices price key -> (our field, factor to USD per million tokens, or to USD per call for requests)
_GENAI_FIELDS = {
    "input_mtok": ("input", 1.0),
    "output_mtok": ("output", 1.0),
    "cache_read_mtok": ("cached_input", 1.0),
    "cache_write_mtok": ("cache_write", 1.0),
    "output_reasoning_mtok": ("reasoning", 1.0),
    "requests_kcount": ("per_call", 1e-3),
    "cache_write_1h_mtok": ("cache_write_1h", 1.0),
    "web_searches_kcount": ("web_search", 1e-3),
}


def price_fields(prices: Any) -> dict[str, Any] | None:
    """genai-prices' ``ModelPrice`` as ``Price`` fields (tiers kept); None without an input price.

    A model priced for its input alone (an embedding model: it writes no tokens) bills no output: its output
    rate is 0, as genai-prices itself prices it. The hour-long cache writes and the web searches a call reports
    (``store.vocab.BILLED_COUNTS``) have their rates here; other keys (audio, images, code executions, …) price
    usage that model calls here do not report.
    """
    rates: dict[str, float | None] = {}
    tiers: list[tuple[str, int, float]] = []
    for key, (name, factor) in _GENAI_FIELDS.items():
        value = getattr(prices, key, None)
        if value is None:
            continue
        base = getattr(value, "base", value)
        rates[name] = float(base) * factor
        for tier in getattr(value, "tiers", ()):
            tiers.append((name, int(tier.start), float(tier.price) * factor))
    if rates.get("input") is None:
        return None
    if rates.get("output") is None and rates.get("reasoning") is None:
        rates["output"] = 0.0
    elif rates.get("output") is None:
        return None
    tiers.sort(key=lambda t: (t[0], t[1]))
    return {
        "input": rates["input"],
        "output": rates["output"],
        "cached_input": rates.get("cached_input"),
        "cache_write": rates.get("cache_write"),
        "reasoning": rates.get("reasoning"),
        "per_call": rates.get("per_call") or 0.0,
        "tiers": tuple(tiers),
        "cache_write_1h": rates.get("cache_write_1h"),
        "web_search": rates.get("web_search") or 0.0,
    }


def micros(when: datetime) -> int:
    when = when if when.tzinfo else when.replace(tzinfo=UTC)
    return int(when.timestamp()) * 1_000_000 + when.microsecond


def choose(rates: ModelRates, stamps: np.ndarray) -> np.ndarray:
    """Per call, the index of the option genai-prices uses at that time (its rule: the last active, else the first).

    Start dates compare UTC days, time-of-day windows the UTC time of day, all on arrays.
    """
    chosen = np.zeros(len(stamps), dtype=np.int64)
    if not rates.conditional:
        return chosen
    open_ = np.ones(len(stamps), dtype=bool)
    for index in range(len(rates.options) - 1, -1, -1):
        hit = open_ & _active(rates.options[index][0], stamps)
        chosen[hit] = index
        open_ &= ~hit
    return chosen


def _active(window: Window, stamps: np.ndarray) -> np.ndarray:
    if window is None:
        return np.ones(len(stamps), dtype=bool)
    if window[0] == "start":
        started: np.ndarray = stamps // _DAY_US >= window[1]
        return started
    if window[0] == "daily":
        tod = stamps % _DAY_US
        start, end = int(window[1]), int(window[2])
        inside: np.ndarray = (tod >= start) | (tod < end) if end < start else (tod >= start) & (tod < end)
        return inside
    constraint = window[1]
    uniques, inverse = np.unique(stamps, return_inverse=True)
    answers = np.array([bool(constraint.active(datetime.fromtimestamp(u / 1e6, UTC))) for u in uniques.tolist()])
    return answers[inverse] if len(uniques) else np.zeros(0, dtype=bool)


def _utc_time_us(value: time) -> int:
    """A time of day (naive: UTC) as microseconds after midnight UTC."""
    if value.tzinfo is not None:
        value = datetime.combine(date(1970, 1, 1), value).astimezone(UTC).time()
    return ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond


# ---- the rates file --------------------------------------------------------------------------------


def rates_cache_path() -> Path:
    """Where this genai-prices version's looked-up rates are kept (one small JSON file)."""
    version = "".join(c if c.isalnum() or c in ".-_" else "_" for c in genai_version())
    return cache_root() / f"genai-prices-{version}.json"


class _Store:
    """The rates looked up so far in this process, seeded from the file and written back when it grew."""

    def __init__(self, path: Path):
        self.path = path
        #: the models' rates, and whether genai-prices has each provider label asked about (``provider_unknown``)
        self.entries, self.providers = _read(path)
        self._lock = threading.Lock()

    def add(self, key: str, rates: ModelRates | None) -> None:
        with self._lock:
            self.entries[key] = rates
            if rates is not None and not rates.portable:
                return  # kept for this process only: its rule lives in genai-prices
            self._write()

    def add_provider(self, provider: str, known: bool) -> None:
        with self._lock:
            self.providers[provider] = known
            self._write()

    def _write(self) -> None:
        """Write the file (under the lock)."""
        doc = {k: _encode(v) for k, v in self.entries.items() if v is None or v.portable}
        body = {"genai_prices": genai_version(), "models": doc, "providers": self.providers}
        try:  # this user's alone (0600 in a 0700 folder), as the runs index: which models a user prices is theirs
            write_cached(self.path, _signed(orjson.dumps(body)))
        except OSError:  # a read-only home: prices still come from genai-prices each time
            pass


_STORE: _Store | None = None
_STORE_LOCK = threading.Lock()


def _store() -> _Store:
    global _STORE
    path = rates_cache_path()
    with _STORE_LOCK:
        if _STORE is None or _STORE.path != path:
            _STORE = _Store(path)
        return _STORE


def _encode(rates: ModelRates | None) -> Any:
    if rates is None:
        return None
    return {"key": rates.key, "conditional": rates.conditional, "options": [[w, f] for w, f in rates.options]}


#: the rates file's first line is the HMAC of the rest under this user's seal key (``store.seal``), as the runs
#: index's is: a rates file written by anyone else (a shared or crafted cache folder) prices nothing
# /2: input-only models priced; /3: Bedrock and Vertex ids priced; /4: LiteLLM's names of them (older files hold
# them unpriced, or priced at another provider's rate: rebuilt); /5: a provider given is the only one asked;
# /6: the hour-long cache-write and web-search rates kept; /7: a provider label genai-prices does not have, and
# OpenTelemetry's names of providers, no longer priced at another provider's rate (a file may also keep, under
# "providers", whether genai-prices has each provider label asked about)
_FORM = b"noesis_nb.genai-rates/7"


def _tag(body: bytes) -> bytes:
    mac = hmac.new(seal_key(), _FORM, hashlib.sha256)
    mac.update(body)
    return mac.hexdigest().encode()


def _signed(body: bytes) -> bytes:
    return _tag(body) + b"\n" + body


def _read(path: Path) -> tuple[dict[str, ModelRates | None], dict[str, bool]]:
    """The file's model entries and provider answers; empty when it is absent, unreadable, not signed by this user's
    key or not in this shape (it is rebuilt from genai-prices)."""
    try:
        head, _, body = _file_bytes(path).partition(b"\n")
        if not hmac.compare_digest(head, _tag(body)):
            return {}, {}
        doc = orjson.loads(body)
        if doc.get("genai_prices") != genai_version():
            return {}, {}
        models = {str(k): None if v is None else _decode(v) for k, v in doc["models"].items()}
        providers = doc.get("providers", {})
        if not all(isinstance(k, str) and type(v) is bool for k, v in providers.items()):
            raise ValueError(providers)
        return models, dict(providers)
    except (OSError, orjson.JSONDecodeError, AttributeError, LookupError, TypeError, ValueError, OverflowError):
        return {}, {}


#: far above any rates file (a few hundred KB): a larger one is not this file and is not read into memory
_MAX_FILE_BYTES = 64 << 20


def _file_bytes(path: Path) -> bytes:
    return read_cached(path, _MAX_FILE_BYTES)


_FIELD_NAMES = ("input", "output", "cached_input", "cache_write", "reasoning", "per_call", "cache_write_1h", "web_search")


def _price(value: Any) -> float:
    """A price from the file: a finite number, at least 0 (a negative or huge one is no genai-prices rate)."""
    if type(value) not in (int, float) or not 0 <= value < 1e12:
        raise ValueError(value)
    return float(value)


def _decode(value: dict[str, Any]) -> ModelRates:
    options = []
    for window, fields in value["options"]:
        if window is not None:
            if window[0] not in ("start", "daily") or not all(type(x) is int for x in window[1:]):
                raise ValueError(window)
            window = tuple(window)
        if fields is not None:
            rates = {k: None if fields[k] is None else _price(fields[k]) for k in _FIELD_NAMES}
            if rates["input"] is None or rates["output"] is None or rates["per_call"] is None or rates["web_search"] is None:
                raise ValueError(fields)
            tiers = tuple((str(n), int(s), _price(p)) for n, s, p in fields["tiers"])
            fields = {**rates, "tiers": tiers}
        options.append((window, fields))
    if not options or type(value["conditional"]) is not bool:
        raise ValueError(value)
    return ModelRates(str(value["key"]), tuple(options), value["conditional"])
