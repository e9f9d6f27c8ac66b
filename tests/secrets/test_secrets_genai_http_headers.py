"""A secret streamed across google-genai chunks as the client gives them: each ``GenerateContentResponse`` carries
``sdk_http_response``, the HTTP answer's headers (``content-type: application/json; charset=UTF-8``, ``date: Mon, 07
Dec 2026 …``, ``vary: Origin, X-Origin, Referer``), strings with blanks beside the chunk's text. The chunk is built by
the real client's types and dumped with ``model_dump()``, streamed through an episode, and read back from disk."""

from __future__ import annotations

import string
from pathlib import Path
from secrets import choice
from typing import Any

import pytest

import noesis_nb
from tests.secrets.test_secrets_stream_shapes import _unsealed_run
from tests.widgets.test_show_streamed_key import _shown

types = pytest.importorskip("google.genai.types")

# the headers the Gemini API answers a ``streamGenerateContent`` call with (as google-genai keeps them)
_HEADERS = {
    "content-type": "text/event-stream",
    "content-disposition": "attachment",
    "vary": "Origin, X-Origin, Referer",
    "transfer-encoding": "chunked",
    "date": "Mon, 07 Dec 2026 18:40:12 GMT",
    "server": "scaffolding on HTTPServer2",
    "x-xss-protection": "0",
    "x-frame-options": "SAMEORIGIN",
    "x-content-type-options": "nosniff",
    "server-timing": "gfet4t7; dur=612",
    "alt-svc": 'h3=":443"; ma=2592000,h3-29=":443"; ma=2592000',
}


def _chunk(text: str, mode: str) -> dict[str, Any]:
    """One streamed chunk as google-genai gives it, dumped (``mode`` ``python`` or ``json``)."""
    response = types.GenerateContentResponse(
        sdk_http_response=types.HttpResponse(headers=_HEADERS),
        candidates=[
            types.Candidate(
                content=types.Content(role="model", parts=[types.Part(text=text)]),
                index=0,
                safety_ratings=[
                    types.SafetyRating(category=c, probability="NEGLIGIBLE")
                    for c in ("HARM_CATEGORY_HATE_SPEECH", "HARM_CATEGORY_DANGEROUS_CONTENT")
                ],
            )
        ],
        usage_metadata=types.GenerateContentResponseUsageMetadata(
            prompt_token_count=9, candidates_token_count=3, total_token_count=12
        ),
        model_version="gemini-2.5-flash",
        response_id="8zRMaJ2nFqrtnvgP",
    )
    return response.model_dump(mode=mode)


def _key() -> str:
    return "AIza" + "".join(choice(string.ascii_letters + string.digits) for _ in range(35))


_PASSWORD = "Hq8xK2mPw9Tr"


def _streams() -> list[tuple[list[str], list[str]]]:
    """Pieces of a stream, and the parts of its secret they hold."""
    key = _key()
    return [
        (["Use key " + key[:12], key[12:26], key[26:] + " for it."], [key[12:26], key[26:]]),
        (["Connect with password=", f"{_PASSWORD} now"], [_PASSWORD]),
        (["Connect with password=", _PASSWORD[:5], _PASSWORD[5:] + " now"], [_PASSWORD[:5], _PASSWORD[5:]]),
    ]


@pytest.mark.parametrize("mode", ["python", "json"])
def test_a_secret_streamed_across_genai_chunks_with_their_headers_reaches_no_file(mode: str, tmp_path: Path) -> None:
    assert " " in _chunk("x", mode)["sdk_http_response"]["headers"]["date"]  # the shape this test is about
    for pieces, secret_parts in _streams():

        def agent(task: str, ctx: Any, pieces: list[str] = pieces) -> str:
            for piece in (*pieces, " and that was all"):
                ctx.emit("model", _chunk(piece, mode))
            return "ok"

        episode = noesis_nb.solve("t", using=agent, runs_dir=tmp_path, approver="auto")
        log = (tmp_path / episode / "events.jsonl").read_text("utf-8")
        files = sorted(p for p in (tmp_path / episode).rglob("*") if p.is_file())
        written = "\n".join(p.read_text("utf-8", "replace") for p in files)
        frame = noesis_nb.events_df(tmp_path).to_json(default_handler=str, date_format="iso")
        for part in secret_parts:
            assert part not in log and part not in written and part not in frame, (pieces, part)
        assert "and that was all" in log
        assert "Origin, X-Origin, Referer" in log  # the headers are kept as they are


def test_a_key_streamed_across_genai_chunks_read_from_disk_is_hidden(tmp_path: Path) -> None:
    key = _key()
    parts = [key[:13], key[13:26], key[26:]]
    run = _unsealed_run(tmp_path, "ep_genai_headers", [_chunk(p, "json") for p in parts])
    frame = noesis_nb.events_df(tmp_path).to_json(default_handler=str, date_format="iso")
    shown = _shown(run)
    for part in parts[1:]:
        assert part not in frame and part not in shown, part


def test_ordinary_text_in_genai_chunks_is_kept(tmp_path: Path) -> None:
    words = ["The build passed on the first try.", " Deploying to staging now;", " the token budget is 4096 tokens."]

    def agent(task: str, ctx: Any) -> str:
        for piece in words:
            ctx.emit("model", _chunk(piece, "json"))
        return "ok"

    episode = noesis_nb.solve("t", using=agent, runs_dir=tmp_path, approver="auto")
    frame = noesis_nb.events_df(tmp_path).to_json(default_handler=str, date_format="iso")
    log = (tmp_path / episode / "events.jsonl").read_text("utf-8")
    for piece in words:
        assert piece.strip() in log and piece.strip() in frame
