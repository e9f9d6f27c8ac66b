"""What is read as invisible or as another character around and inside a secret: the marker replaces the secret
alone, not the ESC of a colour code or another control character after it (nor ``\\x1b`` written in source code beside it);
NEL between a word's characters is read as nothing; the ASCII field separators (FS, GS, RS, US) part words."""

from __future__ import annotations

import time

from noesis_nb.secrets import RunSecrets, find_in_text
from noesis_nb.secrets.names import REDACTED_VALUE
from noesis_nb.secrets.scan import redact

KEY = "ghp_Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"


def _guard() -> RunSecrets:
    guard = RunSecrets()
    guard.learn(["hunter2xyz"])
    return guard


def test_the_marker_replaces_a_learned_value_alone() -> None:
    guard = _guard()
    for before, after in (
        ("\x1b[32mconnected as ", "\x1b[0m rest"),  # a colour code's ESC after it
        ("a\x1b", "\x1b[0m"),
        ("said ", "\x00next"),
        ("said \u200b", "\x7f\u2060 next"),
        ("said ", "\u0085next"),
        ("argv ['echo', '", "\\x1b[0m']"),  # a draft's argv: the four characters \x1b, as source code writes ESC
        ("argv ['echo', '\\x1b[1m", "\\u200b']"),
    ):
        assert guard.scrub_text(f"{before}hunter2xyz{after}") == f"{before}{REDACTED_VALUE}{after}", ascii(after)
    # inside the value, they are part of it
    assert guard.scrub_text("x hunt\x1ber2xyz\x1b[0m") == f"x {REDACTED_VALUE}\x1b[0m"
    assert guard.scrub_text("x hunt\\x1ber2xyz\\x1b[0m") == f"x {REDACTED_VALUE}\\x1b[0m"


def test_the_marker_replaces_a_found_key_alone() -> None:
    for written in (KEY[:9] + "\x01" + KEY[9:], KEY[:9] + "\u200b" + KEY[9:]):
        text = f"\x1b[1mkey:\x1b[0m {written}\x1b[0m done\u200b"  # (a joiner or a mark on its end is redacted with it)
        shown, hits = redact({"stdout": text})
        assert hits, ascii(text)
        assert shown["stdout"] == f"\x1b[1mkey:\x1b[0m {REDACTED_VALUE}\x1b[0m done\u200b", ascii(shown)
        assert written in find_in_text(text)


def test_nel_inside_a_word_is_read_as_nothing() -> None:
    guard = _guard()
    assert guard.scrub_text("login hunt\x85er2xyz ok") == f"login {REDACTED_VALUE} ok"
    learned = RunSecrets()
    learned.learn(["hunt\x85er2xyz"])  # learned so, shown later without it
    assert learned.scrub_text("login hunter2xyz ok") == f"login {REDACTED_VALUE} ok"
    written = KEY[:12] + "\x85" + KEY[12:]
    assert redact({"stdout": f"use {written} now"})[0] == {"stdout": f"use {REDACTED_VALUE} now"}
    # between words or after a sentence, it is the line break it is
    assert find_in_text("Done.\x85Next line\x85 and more") == set()


def test_the_field_separators_part_words() -> None:
    for text in (
        "user_8H2K\x1f9QX7ZP\x1fRT5M\x1fWN3V\x1fAB12CD",
        "alpha\x1cbeta\x1dgamma\x1edelta\x1fepsilon\x1fzeta\x1eTheta\x1dIota",
        "\x1e{'id':'8H2K9QXR'}\x1e{'id':'RT5MWN3V'}",
    ):
        assert find_in_text(text) == set(), ascii(text)
        assert redact({"row": text}) == ({"row": text}, []), ascii(text)
    shown, _ = redact({"row": f"token\x1f{KEY}\x1fnext"})
    assert shown == {"row": f"token\x1f{REDACTED_VALUE}\x1fnext"}


def test_a_learned_value_split_by_control_characters_in_long_output_is_scrubbed() -> None:
    guard = _guard()
    guard.learn(["correct horse battery"])
    line = "\x1b[32mtests/test_mod.py::test_case PASSED\x1b[0m [ 42%]\n"
    for written in ("hunt\x1ber2xyz", "h\x00u\x00n\x00t\x00e\x00r\x002\x00x\x00y\x00z", "correct\x7f horse\x1b\x1b battery"):
        for at in (0, 5000, 9999):  # at the start, inside, at the end of the output
            lines = [line] * 10000
            lines[at] = f"{written}\n" if at else written
            text = "".join(lines)
            scrubbed = guard.scrub_text(text)
            lines[at] = f"{REDACTED_VALUE}\n" if at else REDACTED_VALUE
            assert scrubbed == "".join(lines), (ascii(written), at)


def _costs(run: object, text: str, other: str, rounds: int = 5) -> tuple[float, float]:
    """The least CPU time of ``run`` on ``text`` and on ``other``, measured in turn: CPU, not wall time, which a busy
    machine stretches (an 8 ms scrub read 80 ms at load 9 on two cores), and in turn, so a burst falls on both."""
    spent: tuple[list[float], list[float]] = ([], [])
    for _ in range(rounds):
        for which, read in enumerate((text, other)):
            start = time.process_time()
            run(read)  # type: ignore[operator]
            spent[which].append(time.process_time() - start)
    return min(spent[0]), min(spent[1])


def test_coloured_output_is_scrubbed_about_as_fast_as_plain_output() -> None:
    guard = _guard()
    line = "tests/test_mod.py::test_case_number PASSED                          [ 42%]\n"
    plain = line * 14000
    coloured = "".join(f"\x1b[32m{line[:-1]}\x1b[0m\n" for _ in range(14000))
    assert guard.scrub_text(coloured) == coloured
    # read as written, each run of ESC beside a [ (read through, it cost 0.30 s CPU against 2.5 ms plain, where this
    # bound is 0.055 s; about 8 ms against 2 ms now, at load 10 on two cores too)
    coloured_cpu, plain_cpu = _costs(guard.scrub_text, coloured, plain)
    assert coloured_cpu < 20 * plain_cpu + 0.005, f"coloured {coloured_cpu:.4f} s CPU, plain {plain_cpu:.4f} s"
