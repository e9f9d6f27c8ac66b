"""``str`` subclasses whose methods lie about the characters they hold (the JSON writers write those)."""

from __future__ import annotations

from typing import Any

KEY = "sk-proj-" + "Qw7Er4Ty1Ui8Op5As2Df9Gh6Jk3Lz0Xc7Vb4Nm1Qw8Er5Ty"
AWS = "AKIA" + "QX7RT2WZ5YB3NC6V"
GITHUB = "ghp_" + "Zx8Cv5Bn2Mq9Wr6Et3Yu0Io7Pa4Sd1Fg8Hj5K"
TOKENS = (KEY, AWS, GITHUB)


class LiesAscii(str):
    def isascii(self) -> bool:
        return not str.isascii(self)


class LiesEncode(str):
    def encode(self, *args: Any, **kwargs: Any) -> bytes:
        return b"nothing here"


class LiesFind(str):
    def find(self, *args: Any, **kwargs: Any) -> int:
        return -1

    def __contains__(self, other: object) -> bool:
        return False

    def split(self, *args: Any, **kwargs: Any) -> list[str]:
        return ["nothing"]


class LiesIter(str):
    def __iter__(self) -> Any:
        return iter("plain")


class LiesGetitem(str):
    def __getitem__(self, index: Any) -> str:
        return "plain"


class LiesStr(str):
    def __str__(self) -> str:
        return "plain"

    def __repr__(self) -> str:
        return "'plain'"


class LiesEq(str):
    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    def __hash__(self) -> int:
        return hash("text")


class LiesLower(str):
    def lower(self) -> str:
        return "plain"

    def upper(self) -> str:
        return "PLAIN"


class LiesLen(str):
    def __len__(self) -> int:
        return 0


class LiesAll(LiesAscii, LiesEncode, LiesFind, LiesIter, LiesGetitem, LiesStr, LiesEq, LiesLower, LiesLen):
    __hash__ = LiesEq.__hash__


HOSTILE = [LiesAscii, LiesEncode, LiesFind, LiesIter, LiesGetitem, LiesStr, LiesEq, LiesLower, LiesLen, LiesAll]
IDS = [cls.__name__ for cls in HOSTILE]


def hostile_text(cls: type[str], token: str) -> str:
    return cls(f"deploy with {token} now")
