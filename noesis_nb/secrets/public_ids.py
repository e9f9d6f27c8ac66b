"""Public ids a checksum or a fixed header proves: wallet addresses and content ids, no keys.

An Ethereum address (``0x`` and 40 hex digits, EIP-55's mixed-case checksum), a Bitcoin address (base58check
``1…``/``3…``, bech32/bech32m ``bc1…``) and an IPFS content id (``Qm…``, ``bafy…``/``bafk…``) read as random words,
and are public: an agent returns and logs them. Each is kept only when its checksum or its fixed header holds, which
a random key of that length does as good as never (the odds are by each check). A private key keeps no such shape:
an Ethereum private key is 64 hex digits; a WIF key (base58check ``5…``/``K…``/``L…``) has a checksum too, but its
version byte (0x80) and length are a key's, so it is judged as any word. Ids shaped like random keys with nothing to
check (nanoid, KSUID, Google Drive ids) are judged as any word.
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["public_id", "keccak256", "new_text", "CHECKS_PER_TEXT"]

# -- Keccak-256 (Ethereum's hash: SHA-3's permutation with its first padding, which hashlib lacks) ---------------
_RC = (
    0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000, 0x000000000000808B,
    0x0000000080000001, 0x8000000080008081, 0x8000000000008009, 0x000000000000008A, 0x0000000000000088,
    0x0000000080008009, 0x000000008000000A, 0x000000008000808B, 0x800000000000008B, 0x8000000000008089,
    0x8000000000008003, 0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
    0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
)  # fmt: skip
# each lane's rotation and where it goes (rho and pi), lane i = x + 5y; chi's two neighbours of each lane
_ROT = (0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14)
_STEPS = tuple((i, y + 5 * ((2 * x + 3 * y) % 5), _ROT[i], x) for i, (x, y) in enumerate((i % 5, i // 5) for i in range(25)))
_CHI = tuple((i, i - i % 5 + (i + 1) % 5, i - i % 5 + (i + 2) % 5) for i in range(25))
_MASK = (1 << 64) - 1


def _permute(a: list[int]) -> list[int]:
    b = [0] * 25
    for rc in _RC:
        c = [a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20] for x in range(5)]
        d = [c[x - 1] ^ (((c[x - 4] << 1) | (c[x - 4] >> 63)) & _MASK) for x in range(5)]
        for i, to, r, x in _STEPS:
            v = a[i] ^ d[x]
            b[to] = ((v << r) | (v >> (64 - r))) & _MASK
        a = [b[i] ^ (~b[j] & b[k]) for i, j, k in _CHI]
        a[0] ^= rc
    return a


def keccak256(data: bytes, pad: int = 0x01) -> bytes:
    """Keccak-256 of ``data`` (``pad=0x06`` gives SHA3-256, the check against hashlib)."""
    rate = 136
    padded = bytearray(data + bytes([pad]) + bytes(-(len(data) + 1) % rate))
    padded[-1] |= 0x80
    state = [0] * 25
    for at in range(0, len(padded), rate):
        for i in range(rate // 8):
            state[i] ^= int.from_bytes(padded[at + 8 * i : at + 8 * i + 8], "little")
        state = _permute(state)
    return b"".join(lane.to_bytes(8, "little") for lane in state[:4])


# -- the checks --------------------------------------------------------------------------------------------------
_ETH = re.compile(r"0x[0-9a-fA-F]{40}")


# Keccak in Python costs some 0.2 ms an address: a text is given this many hashes of addresses not seen lately (a
# text of distinct address-shaped words cost 8 times what it did); past them an address is judged as any word
CHECKS_PER_TEXT = 32
_LEFT = [CHECKS_PER_TEXT]
_SEEN: dict[str, bool] = {}


def new_text() -> None:
    """A new text is screened: its budget of address hashes starts again."""
    _LEFT[0] = CHECKS_PER_TEXT


def _eth_address(word: str) -> bool:
    """EIP-55: a hex letter is capital where the same place of keccak256(the address in small letters) is 8+. A
    random mixed-case hex word passes with odds 2^-(its letters); a random key is written in one case, and a base62
    key of 42 characters is a ``0x``-and-hex word with odds 62^-2·(22/62)^40 ≈ 3·10^-22. One case proves nothing."""
    digits = word[2:]
    if digits.islower() or digits.isupper() or digits.isdigit():
        return False
    known = _SEEN.get(word)
    if known is not None:
        return known
    if _LEFT[0] <= 0:
        return False
    _LEFT[0] -= 1
    hashed = keccak256(digits.lower().encode()).hex()
    ok = all(c.isupper() == (h >= "8") for c, h in zip(digits, hashed) if c.isalpha())
    if len(_SEEN) >= 1024:
        _SEEN.clear()
    _SEEN[word] = ok
    return ok


_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_B58_INDEX = {c: i for i, c in enumerate(_B58)}
_BASE58 = re.compile(r"[1-9A-HJ-NP-Za-km-z]+")


def _base58(word: str) -> bytes | None:
    if _BASE58.fullmatch(word) is None:
        return None
    n = 0
    for c in word:
        n = n * 58 + _B58_INDEX[c]
    ones = len(word) - len(word.lstrip("1"))
    return b"\0" * ones + n.to_bytes((n.bit_length() + 7) // 8, "big")


# base58check address versions: P2PKH (0x00, ``1…``) and P2SH (0x05, ``3…``), and testnet's (0x6f ``m…``/``n…``,
# 0xc4 ``2…``). A WIF private key's version is 0x80 (0xef on testnet) and its payload 33-34 bytes: never kept
_ADDRESS_VERSIONS = frozenset({0x00, 0x05, 0x6F, 0xC4})


def _base58check_address(word: str) -> bool:
    """A version byte of an address, a 20-byte hash and 4 bytes of double SHA-256: a random base58 word of 25-34
    characters passes with odds 2^-32 (≈ 2·10^-10) times those of starting with an address's version."""
    raw = _base58(word)
    if raw is None or len(raw) != 25 or raw[0] not in _ADDRESS_VERSIONS:
        return False
    return hashlib.sha256(hashlib.sha256(raw[:21]).digest()).digest()[:4] == raw[21:]


_B32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_BECH32 = re.compile(r"(bc|tb)1([02-9ac-hj-np-z]{8,87})")
_GEN = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)


def _polymod(values: list[int]) -> int:
    chk = 1
    for v in values:
        top = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ v
        for i in range(5):
            chk ^= _GEN[i] if (top >> i) & 1 else 0
    return chk


def _bech32_address(word: str) -> bool:
    """BIP-173/350: a segwit address's 6-character BCH checksum (bech32 for version 0, bech32m from 1), a witness
    version 0-16 and a program of 2-40 bytes (20 or 32 for version 0): a random word of these letters passes with
    odds 2^-30 (≈ 10^-9). One case only, as the BIPs say."""
    if not (word.islower() or word.isupper()):
        return False
    m = _BECH32.fullmatch(word.lower())
    if m is None:
        return False
    hrp, data = m.group(1), [_B32.index(c) for c in m.group(2)]
    version = data[0]
    constant = _polymod([ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp] + data)
    if version > 16 or constant != (1 if version == 0 else 0x2BC830A3):
        return False
    bits = "".join(format(v, "05b") for v in data[1:-6])
    size = len(bits) // 8
    if len(bits) - size * 8 > 4 or "1" in bits[size * 8 :]:  # at most 4 bits of padding, all 0
        return False
    return 2 <= size <= 40 and (version != 0 or size in (20, 32))


_CID_V0 = re.compile(r"Qm[1-9A-HJ-NP-Za-km-z]{44}")
# CIDv1 in base32 (multibase ``b``): version 1, a codec (raw 0x55, dag-pb 0x70, dag-cbor 0x71, dag-json 0x0129) and a
# sha2-256 multihash (0x12 0x20 and 32 bytes): 36 or 37 bytes, 58 or 60 letters after ``b``
_CID_V1_HEADS = (b"\x01\x55\x12\x20", b"\x01\x70\x12\x20", b"\x01\x71\x12\x20", b"\x01\xa9\x02\x12\x20")
_CID_V1 = re.compile(r"b[a-z2-7]{58,60}")


def _cid(word: str) -> bool:
    """An IPFS content id. CIDv0 (``Qm`` and 44 base58 letters) is a sha2-256 multihash, 0x12 0x20 and the digest:
    a random base58 word of 46 characters decodes so with odds ≈ 3·10^-4·0.3 (1 in 11,000; a base62 one, which must
    also miss ``0OIl``, 1 in 240,000: fewer than the randomness rule's own misses, 1 in 20,000 keys of 32+). CIDv1's
    header fixes its first 32 bits or more: a random base32 word passes with odds ≈ 4·2^-32 (≈ 10^-9)."""
    if _CID_V0.fullmatch(word) is not None:
        raw = _base58(word)
        return raw is not None and len(raw) == 34 and raw[:2] == b"\x12\x20"
    if _CID_V1.fullmatch(word) is None:
        return False
    bits = "".join(format("abcdefghijklmnopqrstuvwxyz234567".index(c), "05b") for c in word[1:])
    size = len(bits) // 8
    if len(bits) - size * 8 > 4 or "1" in bits[size * 8 :]:  # a real encoding's spare bits: fewer than 5, all 0
        return False
    raw = int(bits[: size * 8], 2).to_bytes(size, "big")
    return any(raw.startswith(head) and len(raw) == len(head) + 32 for head in _CID_V1_HEADS)


_LENGTHS = {"0": (42, 42), "1": (25, 34), "3": (25, 34), "m": (25, 34), "n": (25, 34), "2": (25, 35)}


def public_id(word: str) -> bool:
    """Whether ``word`` (a whole word of 20+ characters) is a public id its checksum or header proves. Cheap for
    every other word: its first letters and length rule it out before anything is decoded."""
    first, n = word[:1], len(word)
    if first == "0":
        return n == 42 and _ETH.fullmatch(word) is not None and _eth_address(word)
    if first == "Q":
        return n == 46 and _cid(word)
    if first in "bBtT":
        if word[:3].lower() in ("bc1", "tb1"):
            return _bech32_address(word)
        return first == "b" and 59 <= n <= 61 and _cid(word)
    if first in _LENGTHS:
        lo, hi = _LENGTHS[first]
        return lo <= n <= hi and _base58check_address(word)
    return False
