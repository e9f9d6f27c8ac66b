"""Wallet addresses and content ids are public: kept where a checksum or a fixed header proves them, keys still hidden.

An Ethereum address (EIP-55), a Bitcoin address (base58check ``1…``/``3…``, bech32 ``bc1q…``, bech32m ``bc1p…``)
and an IPFS content id (``Qm…``, ``bafy…``/``bafk…``) read as random words and were redacted from what a run writes.
The ids here are made in the test from random bytes, their checksums computed with hashlib (Keccak-256 is SHA-3's
permutation with another padding: the test's own Keccak is held to hashlib's SHA3-256). One character changed
breaks the check: such a word is judged as any word again. Private keys (64 hex digits, WIF) stay hidden.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.secrets.public_ids import CHECKS_PER_TEXT
from noesis_nb.secrets.quoted import quoted
from noesis_nb.secrets.randomness import entropy_ok
from noesis_nb.secrets.scan import redact

_RNG = random.Random(20261205)

# -- the test's own encoders ----------------------------------------------------------------------------------------
_RC = [1, 0x8082, 0x800000000000808A, 0x8000000080008000, 0x808B, 0x80000001, 0x8000000080008081, 0x8000000000008009]
_RC += [0x8A, 0x88, 0x80008009, 0x8000000A, 0x8000808B, 0x800000000000008B, 0x8000000000008089, 0x8000000000008003]
_RC += [0x8000000000008002, 0x8000000000000080, 0x800A, 0x800000008000000A, 0x8000000080008081, 0x8000000000008080]
_RC += [0x80000001, 0x8000000080008008]
_R = [[0, 36, 3, 41, 18], [1, 44, 10, 45, 2], [62, 6, 43, 15, 61], [28, 55, 25, 21, 56], [27, 20, 39, 8, 14]]
_M = 2**64 - 1


def _rol(v: int, n: int) -> int:
    return ((v << n) | (v >> (64 - n))) & _M if n else v


def _sponge(data: bytes, pad: int) -> bytes:
    """Keccak[512] as FIPS 202 draws it, lanes A[x][y]; ``pad`` 0x06 is SHA3-256, 0x01 Ethereum's Keccak-256."""
    msg = bytearray(data) + bytes([pad]) + bytes(-(len(data) + 1) % 136)
    msg[-1] |= 0x80
    a = [[0] * 5 for _ in range(5)]
    for block in range(0, len(msg), 136):
        for i in range(17):
            a[i % 5][i // 5] ^= int.from_bytes(msg[block + 8 * i : block + 8 * i + 8], "little")
        for rc in _RC:
            c = [a[x][0] ^ a[x][1] ^ a[x][2] ^ a[x][3] ^ a[x][4] for x in range(5)]
            a = [[a[x][y] ^ c[(x - 1) % 5] ^ _rol(c[(x + 1) % 5], 1) for y in range(5)] for x in range(5)]
            b = [[0] * 5 for _ in range(5)]
            for x in range(5):
                for y in range(5):
                    b[y][(2 * x + 3 * y) % 5] = _rol(a[x][y], _R[x][y])
            a = [[b[x][y] ^ (~b[(x + 1) % 5][y] & b[(x + 2) % 5][y]) for y in range(5)] for x in range(5)]
            a[0][0] ^= rc
    return b"".join(a[i % 5][i // 5].to_bytes(8, "little") for i in range(4))


def test_the_tests_keccak_is_sha3s_permutation() -> None:
    for size in (0, 3, 135, 136, 300):
        data = _RNG.randbytes(size)
        assert _sponge(data, 0x06) == hashlib.sha3_256(data).digest()


def _eth(raw: bytes) -> str:
    digits = raw.hex()
    hashed = _sponge(digits.encode(), 0x01).hex()
    return "0x" + "".join(c.upper() if int(h, 16) >= 8 else c for c, h in zip(digits, hashed))


_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _b58(raw: bytes) -> str:
    n, out = int.from_bytes(raw, "big"), ""
    while n:
        n, r = divmod(n, 58)
        out = _B58[r] + out
    return "1" * (len(raw) - len(raw.lstrip(b"\0"))) + out


def _b58check(payload: bytes) -> str:
    return _b58(payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4])


_B32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _polymod(values: list[int]) -> int:
    chk = 1
    for v in values:
        b = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ v
        for i, g in enumerate([0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3]):
            chk ^= g if (b >> i) & 1 else 0
    return chk


def _segwit(version: int, program: bytes, hrp: str = "bc") -> str:
    bits = "".join(format(b, "08b") for b in program)
    bits += "0" * (-len(bits) % 5)
    data = [version] + [int(bits[i : i + 5], 2) for i in range(0, len(bits), 5)]
    const = 1 if version == 0 else 0x2BC830A3
    expanded = [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]
    pm = _polymod(expanded + data + [0] * 6) ^ const
    return hrp + "1" + "".join(_B32[v] for v in data + [(pm >> 5 * (5 - i)) & 31 for i in range(6)])


def _cid_v1(codec: bytes, content: bytes) -> str:
    raw = b"\x01" + codec + b"\x12\x20" + hashlib.sha256(content).digest()
    bits = "".join(format(b, "08b") for b in raw)
    bits += "0" * (-len(bits) % 5)
    return "b" + "".join("abcdefghijklmnopqrstuvwxyz234567"[int(bits[i : i + 5], 2)] for i in range(0, len(bits), 5))


def _ids() -> list[str]:
    made = []
    for _ in range(6):
        made += [
            _eth(_RNG.randbytes(20)),
            _b58check(b"\x00" + _RNG.randbytes(20)),  # P2PKH, 1…
            _b58check(b"\x05" + _RNG.randbytes(20)),  # P2SH, 3…
            _segwit(0, _RNG.randbytes(20)),  # bc1q…, bech32
            _segwit(0, _RNG.randbytes(32)),
            _segwit(1, _RNG.randbytes(32)),  # bc1p…, bech32m (taproot)
            _b58(b"\x12\x20" + hashlib.sha256(_RNG.randbytes(40)).digest()),  # CIDv0, Qm…
            _cid_v1(b"\x70", _RNG.randbytes(40)),  # dag-pb, bafy…
            _cid_v1(b"\x55", _RNG.randbytes(40)),  # raw, bafk…
        ]
    return made


IDS = _ids()
FORMS = ["{id}", "sent 0.1 to {id}.", '{{"to": "{id}", "ok": true}}', "https://ipfs.io/ipfs/{id}", "ipfs://{id}/a.png"]


def test_the_generated_ids_have_their_formats_shapes() -> None:
    starts = {i[:2] if i[0] in "0Q" else i[:4] if i[0] == "b" else i[0] for i in IDS}
    assert starts >= {"0x", "1", "3", "bc1q", "bc1p", "Qm", "bafy", "bafk"}, starts


@pytest.mark.parametrize("form", FORMS)
def test_checksummed_public_ids_are_kept_in_text_and_json(form: str) -> None:
    texts = [form.format(id=i) for i in IDS]
    lost = [t for t in texts if redact({"result": t}) != ({"result": t}, [])]
    assert lost == [], lost


def _broken(word: str) -> list[str]:
    """The id with one character changed: an address's checksum fails (its letter's case or another of its
    alphabet anywhere); a content id has no checksum (any digest makes one), its header fails (``Qm``'s ``m``, a
    letter of ``bafkrei``/``bafybei`` after the ``b``, or one more or one fewer letter)."""
    if word[0] in "Qb" and not word.startswith("bc1"):
        alphabet, heads = (_B58, [1]) if word[0] == "Q" else ("abcdefghijklmnopqrstuvwxyz234567", range(1, 7))
        changed = [word[:at] + alphabet[(alphabet.index(word[at]) + 1) % len(alphabet)] + word[at + 1 :] for at in heads]
        return [*changed, word[:-1], word + word[-1]]
    out = []
    for at in range(4, len(word), 3):
        c = word[at]
        if word.startswith("0x"):
            other = c.swapcase() if c.isalpha() else "0123456789"[(int(c) + 1) % 10]
        else:
            alphabet = _B58 if word[0] in "13" else _B32
            other = alphabet[(alphabet.index(c) + 1) % len(alphabet)]
        out.append(word[:at] + other + word[at + 1 :])
    return out


def test_an_id_with_one_character_changed_is_judged_as_any_word() -> None:
    """Past its check, a broken id is a random word: hidden whenever the randomness rule (ids aside) reads it so."""
    judged = kept = 0
    for word in (b for i in IDS for b in _broken(i)):
        if entropy_ok(word, ids=False):
            judged += 1
            kept += redact({"result": f"sent to {word}."})[1] == []
    assert judged > 300 and kept == 0, (judged, kept)


def _wif(compressed: bool, testnet: bool = False) -> str:
    return _b58check((b"\xef" if testnet else b"\x80") + _RNG.randbytes(32) + (b"\x01" if compressed else b""))


@pytest.mark.parametrize(
    "make",
    [
        lambda: _RNG.randbytes(32).hex(),  # an Ethereum private key
        lambda: "0x" + _RNG.randbytes(32).hex(),
        lambda: _wif(False),  # 5…
        lambda: _wif(True),  # K… / L…
        lambda: _wif(True, testnet=True),  # c…
    ],
)
def test_private_keys_stay_hidden_though_checksummed(make: Any) -> None:
    for _ in range(20):
        key = make()
        for text in (f"wallet {key}", f'{{"k": "{key}"}}', f"trace {key}"):
            shown, hits = redact({"result": text})
            assert hits and key not in json.dumps(shown), shown


@pytest.mark.parametrize(
    "form", ["trace {t}", "trace: {t}", "trace={t}", '{{"trace": "{t}"}}', "see http://jaeger:16686/trace/{t}", "trace id {t}"]
)
def test_a_trace_id_after_the_word_trace_is_kept_as_after_trace_id(form: str) -> None:
    for _ in range(20):
        text = form.format(t=_RNG.randbytes(16).hex())
        assert redact({"result": text}) == ({"result": text}, []), text


def test_a_longer_hex_word_after_trace_is_still_hidden() -> None:
    for digits in (40, 48, 64):
        value = _RNG.randbytes(digits // 2).hex()
        shown, hits = redact({"result": f"trace {value}"})
        assert hits and value not in str(shown), shown


def test_a_run_writing_wallet_addresses_and_cids_keeps_them_in_files_and_frames(runs_dir: Path) -> None:
    ids = IDS[:9]

    def agent(task: str, ctx: Any) -> str:
        ctx.emit("note", {"text": f"paid {ids[0]} and {ids[1]}; pinned https://ipfs.io/ipfs/{ids[6]}", "ids": ids})
        return " ".join(ids)

    episode = noesis_nb.solve("pay", using=agent, runs_dir=runs_dir)
    for name in ("events.jsonl", "summary.json", "state.json", "final.json"):
        written = (runs_dir / episode / name).read_text()
        assert "[REDACTED]" not in written and all(i in written for i in ids if name == "events.jsonl"), name
    shown = noesis_nb.events_df(runs_dir).to_json(date_format="iso")
    assert "[REDACTED]" not in shown and all(json.dumps(i)[1:-1] in shown for i in ids)


@pytest.mark.parametrize("form", FORMS)
def test_an_error_quoting_a_public_id_shows_it_and_hides_a_key_beside_it(form: str) -> None:
    """Messages read words in windows too (a key cut short): a proven id's windows are the id's."""
    lost = [i for i in IDS if quoted(f"no such address {form.format(id=i)}") != repr(f"no such address {form.format(id=i)}")]
    assert lost == [], lost
    key = "Xq7Lm2pQ9zAbCdEfGhIjKlMnOp"
    shown = quoted(f"x/{key}/{IDS[6]} and {key} {IDS[0]}")
    assert key not in shown and IDS[6] in shown and IDS[0] in shown, shown


def test_each_text_gets_its_own_address_checks_and_a_repeated_address_costs_one() -> None:
    """Keccak in Python is dear: a text is given a budget of address hashes (past it an address is judged as any
    word); each text starts one anew, and an address seen lately is not hashed again."""
    for _ in range(3):
        addresses = [_eth(_RNG.randbytes(20)) for _ in range(CHECKS_PER_TEXT)]
        text = " ".join(addresses * 3)
        assert redact({"result": text}) == ({"result": text}, [])
