"""``secret_corpus.leaks``, the check the secret tests rest on: a piece of a hex secret that a run's own UUIDs or
digests hold by chance is no leak (it failed a test about once per hundred suites); the same piece written
anywhere else, and the whole secret anywhere, still are."""

from __future__ import annotations

from .secret_corpus import corpus, leaks

SHAPES = {s.name: s for s in corpus(20261205)}


def _event_id(head: str) -> str:
    """A UUID as the runtime writes event ids, its first 8 hex digits given."""
    return f"{head}-1234-4abc-8def-0123456789ab"


def test_a_hex_secrets_piece_inside_an_event_id_or_a_digest_is_chance() -> None:
    for name in ("token_flag", "hex_entropy", "twilio"):
        shape = SHAPES[name]
        piece = sorted(shape.fragments())[0]
        in_id = f'{{"id": "{_event_id(piece)}", "phase": "act"}}\n'.encode()
        in_digest = f'{{"seal": "{piece}{"0" * 56}"}}'.encode()
        assert leaks([shape], [("events.jsonl", in_id), ("manifest.json", in_digest)]) == []


def test_the_same_piece_elsewhere_and_the_whole_secret_are_leaks() -> None:
    for name in ("token_flag", "hex_entropy", "twilio"):
        shape = SHAPES[name]
        piece = sorted(shape.fragments())[0]
        blobs = [
            ("cut", f'{{"argv": ["deploy", "--token={piece}…"]}}'.encode()),
            ("word", f"key {piece} kept".encode()),
            ("whole", f'{{"x": "{shape.value}"}}'.encode()),
            ("whole as a digest", f'{{"seal": "{shape.value[-64:]}"}}'.encode()),
        ]
        # (the hex_entropy secret is 64 digits, a digest's shape: written whole, it is still a leak)
        assert leaks([shape], blobs) == [(where, name) for where, _ in blobs]


def test_pieces_that_are_not_hex_are_leaks_inside_ids_too() -> None:
    shape = SHAPES["github_pat"]
    piece = next(f for f in shape.fragments() if not all(c in "0123456789abcdef" for c in f))
    assert leaks([shape], [("events.jsonl", f'{{"id": "{piece}-0000"}}'.encode())]) == [("events.jsonl", shape.name)]
