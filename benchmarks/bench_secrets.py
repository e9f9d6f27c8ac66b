"""What secret screening costs on hostile input: MB/s, and ratios that show linear growth.

    python benchmarks/bench_secrets.py              # 1 MB texts, up to 5,000 learned values
    python benchmarks/bench_secrets.py --mb 0.25 --values 1000

Rows of these kinds, each measured in this run against its own baseline:

- scrubbing known values (``RunSecrets.scrub_text``): a text of ``--mb`` MB holding a few of the values, with
  1 value learned (the baseline), then 1,000 and ``--values``; plain prose and prose full of zero-width spaces.
  Linear in the values would make the ratio grow with them; one pass keeps it near 1.
- screening long texts (``--screen-mb``, 5 MB; ``--big-mb 50`` adds a 50 MB one): random base64, hex and letters
  with punctuation, and hostile classes (one character, ``=``/``:``/``%`` runs, near-miss key names, URL-ish text,
  a payload nested 100 deep), by the screen and by the whole suite without its cheap tests (``gates.unfiltered``),
  in this run: the ratio is how much faster the screen is.
- line-broken text (``--only-wrapped``): per event, the screen of prose lines, code lines, JSON with escaped breaks and
  a key folded at 64 columns, against the same texts with spaces for line breaks (the baseline, ratio 1).
- prose in French, Polish and Russian and a coloured log (``--mb`` MB each, built from sentences of drawn words, a fixed
  seed): ``find_in_text`` and scrubbing one learned value, each against English prose of the same length (the
  baseline, ratio 1; ``--only-scripts`` runs these rows alone). Their accented and Cyrillic letters, read as the
  ASCII ones they show, are judged again only where that may show a secret.
- many short strings (``--only-small``): a tool's arguments of 500 and 5,000 short distinct rows redacted as the tool
  path does, against the same rows screened as one event (``ctx.emit``'s path, ratio 1), plain and with one secret.
- detecting (``find_in_text`` / ``redact``) hostile shapes at 100 KB and 400 KB: linear is a ratio of 4,
  quadratic 16. Tokens split by zero-width spaces, many tokens to replace, keyword starts without values
  (``token`` repeated, ``password=`` repeated), a name of n characters ending in ``_token``.

Each figure is the best of ``--repeat`` runs (CPU time of this process).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import string
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _timing import timings  # noqa: E402

from noesis_nb.secrets import RunSecrets, find_in_text, redact  # noqa: E402

_PROSE = "The agent read the build log, found the failing test and wrote a short summary of the fix. "


def best(call: Callable[[], Any], repeat: int) -> float:
    """The least CPU time of ``repeat`` calls (the run least disturbed by other work on the machine)."""
    return min(timings(call, repeat, time.process_time))


def tokens(n: int, size: int = 24, seed: int = 1) -> list[str]:
    rnd = random.Random(seed)
    return ["".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(size)) for _ in range(n)]


def scrub_rows(mb: float, most: int, repeat: int) -> None:
    values = tokens(most)
    size = int(mb * 1_000_000)
    texts = {
        "prose": (_PROSE * (size // len(_PROSE) + 1))[:size],
        "zero-width": ("ab\u200bcd " * (size // 6 + 1))[:size],
    }
    print(f"scrubbing known values, {mb:g} MB texts (ratio: to 1 learned value, same text)")
    for name, filler in texts.items():
        text = f"{filler} {values[0]} {values[-1]} {filler[:1000]}"
        base = None
        for count in sorted({1, min(1_000, most), most}):
            guard = RunSecrets()
            guard.learn([values[0], *values[most - count + 1 :]] if count > 1 else [values[0]])
            spent = best(lambda g=guard, t=text: g.scrub_text(t), repeat)
            base = base or spent
            rate = len(text) / 1e6 / spent
            print(f"  {name:<11} {count:>6} values: {spent * 1000:8.1f} ms  {rate:8.1f} MB/s  x{spent / base:5.2f}")


# sentences drawn from these parts (subject, verb, object, when), a fixed seed: prose whose letters fold (``é``, ``ś``,
# Cyrillic ``а``, ``о``) into no key and no name
_WORDS = {
    "French": (
        "L'équipe|Le développeur|La modératrice|Un élève|Notre hôte|Le lycée|La société|Ce réseau".split("|"),
        "a vérifié|a créé|préfère|a lu|décrit|a réparé|présente|étudie|a complété|a reçu".split("|"),
        "le fichier journal|la requête échouée|les données reçues|un modèle français|la bibliothèque|"
        "les tâches planifiées|le délai prévu|la fenêtre de dialogue|les résultats détaillés|la mémoire".split("|"),
        "hier soir|à midi|dès l'aube|après la réunion|sans problème|avec précaution|très vite|en été".split("|"),
    ),
    "Polish": (
        "Zespół|Programistka|Użytkownik|Nasz serwer|Ta usługa|Każdy moduł|Właściciel|Gość".split("|"),
        "sprawdził|zapisał|przeczytał|naprawiła|wysłał|pobrał|ocenił|zmienił|odświeżył|przyjął".split("|"),
        "dziennik zdarzeń|błędną odpowiedź|żądanie użytkownika|ostatnią wiadomość|treść książki|"
        "ważny plik|źródło danych|wyniki pomiarów|szczegółowy raport|kolejkę zadań".split("|"),
        "wczoraj wieczorem|przed południem|bez żadnych kłopotów|po spotkaniu|bardzo szybko|"
        "zgodnie z planem|w środę|jeszcze raz".split("|"),
    ),
    "Russian": (
        "Команда|Разработчик|Пользователь|Наш сервер|Эта служба|Каждый модуль|Владелец|Гость".split("|"),
        "проверил|записал|прочитал|исправила|отправил|загрузил|оценил|изменил|обновил|принял".split("|"),
        "журнал событий|ошибочный ответ|запрос пользователя|последнее сообщение|текст книги|"
        "важный файл|источник данных|результаты измерений|подробный отчёт|очередь задач".split("|"),
        "вчера вечером|до полудня|без всяких проблем|после встречи|очень быстро|по плану|в среду|ещё раз".split("|"),
    ),
}


def prose(language: str, size: int, seed: int = 7) -> str:
    """``size`` characters of sentences in ``language``, each drawn from a few words per part (deterministic)."""
    rnd = random.Random(seed)
    parts = _WORDS[language]
    out: list[str] = []
    total = 0
    while total < size:
        sentence = " ".join(rnd.choice(part) for part in parts) + rnd.choice((". ", ". ", "; ", ".\n"))
        out.append(sentence)
        total += len(sentence)
    return "".join(out)[:size]


def ansi_log(size: int, seed: int = 9) -> str:
    """``size`` characters of a coloured build log (``\\x1b[32m…\\x1b[0m`` around its levels and steps)."""
    rnd = random.Random(seed)
    levels = ("\x1b[32mINFO\x1b[0m", "\x1b[33mWARN\x1b[0m", "\x1b[1;31mERROR\x1b[0m", "\x1b[2mDEBUG\x1b[0m")
    events = ("compiled module", "ran 42 tests", "cache miss for", "fetched artifact", "linked target", "retrying step")
    out, total = [], 0
    for n in itertools.count():
        if total >= size:
            break
        clock = f"12:{n // 60 % 60:02d}:{n % 60:02d}"
        line = f"2026-12-05 {clock} {rnd.choice(levels)} {rnd.choice(events)} \x1b[36mstep-{n}\x1b[0m\n"
        out.append(line)
        total += len(line)
    return "".join(out)[:size]


def script_rows(mb: float, repeat: int) -> None:
    """Prose of other scripts and a coloured log: the screen and a scrub of one learned value, against English prose
    of the same length in the same run (a new text each call: no cache answers)."""
    size = int(mb * 1_000_000)
    learned = tokens(1, seed=4)[0]
    guard = RunSecrets()
    guard.learn([learned])
    texts = {"English": (_PROSE * (size // len(_PROSE) + 1))[:size]}
    texts.update((language, prose(language, size)) for language in _WORDS)
    texts["ANSI log"] = ansi_log(size)
    find_in_text(texts["French"][:1000])  # (the folding tables built)
    print(f"prose of other scripts, {mb:g} MB texts with one learned value in them (ratio: to English prose, same run)")
    base: dict[str, float] = {}
    for name, filler in texts.items():
        text = f"{filler} {learned} "
        variants = iter([text + str(i) for i in range(repeat)])
        found = best(lambda v=variants: find_in_text(next(v)), repeat)
        scrubbed = best(lambda t=text: guard.scrub_text(t), repeat)
        base = base or {"find": found, "scrub": scrubbed}
        print(
            f"  {name:<9} find_in_text {found * 1000:8.1f} ms  x{found / base['find']:5.2f}"
            f"   scrub {scrubbed * 1000:7.1f} ms  x{scrubbed / base['scrub']:6.2f}"
        )


def growth_rows(repeat: int) -> None:
    print("detecting hostile shapes (ratio: 4n to n; linear is 4, quadratic 16)")

    def split(n: int, seed: int) -> str:
        return " ".join("\u200b".join("ghp_" + t) for t in tokens(n // 75, size=36, seed=seed))

    def listed(n: int, seed: int) -> str:
        return " ".join("ghp_" + t for t in tokens(n // 41, size=36, seed=seed))

    # each run reads new tokens: the caches of short texts would flatter a repeated one
    shapes: dict[str, tuple[Callable[..., Any], Callable[[int, int], str]]] = {
        "tokens split by U+200B": (find_in_text, split),
        "many tokens redacted": (redact, listed),
        '"token" repeated': (find_in_text, lambda n, seed: "token" * (n // 5)),
        '"password=" repeated': (find_in_text, lambda n, seed: "password=" * (n // 9)),
        '"FOO_TOKEN=" lines': (find_in_text, lambda n, seed: "FOO_TOKEN=\n" * (n // 11)),
        "long name, _token=": (find_in_text, lambda n, seed: "a" * n + "_token=abc123xyz"),
    }
    find_in_text(split(2_000, 0) + listed(2_000, 0))  # the detectors loaded
    for name, (call, make) in shapes.items():
        spent = []
        for n in (100_000, 400_000):  # below some 100 KB fixed costs and thresholds (64 values widened one by one) blur it
            texts = iter([make(n, seed) for seed in range(1, repeat + 1)])
            spent.append(best(lambda c=call, t=texts: c(next(t)), repeat))
        print(f"  {name:<24} {spent[0] * 1000:8.1f} ms -> {spent[1] * 1000:8.1f} ms  x{spent[1] / spent[0]:5.2f}")


def blob_rows(mb: float, repeat: int) -> None:
    """A base64 blob (a file a tool printed): the labelled-value search against the plain pattern, and the whole
    screening, on the same text."""
    from noesis_nb.secrets.text import _ASSIGN, _assign_matches

    rnd = random.Random(5)
    blob = "".join(rnd.choices(string.ascii_letters + string.digits + "+/", k=int(mb * 1_000_000)))
    plain = best(lambda: list(_ASSIGN.finditer(blob)), repeat)
    spent = best(lambda: list(_assign_matches(blob)), repeat)
    print(f"a {mb:g} MB base64 blob (ratio: to the plain labelled-value pattern, same text)")
    print(f"  labelled values    {spent * 1000:8.1f} ms  (plain pattern {plain * 1000:8.1f} ms)  x{spent / plain:5.2f}")
    texts = iter([blob + str(i) for i in range(repeat)])  # a new text each time: no cache answers
    print(f"  whole screening    {best(lambda: find_in_text(next(texts)), repeat) * 1000:8.1f} ms")


def long_word_rows(mb: float, repeat: int) -> None:
    """One unbroken word of ``mb`` MB (one character repeated, hex, base64) with a keyword or a key in its middle,
    against prose of the same length holding the same (a new text each time: no cache answers)."""
    rnd = random.Random(6)
    vocab = "the of and to in is was for on that with as by at from this be are or an it not have".split()
    half = int(mb * 500_000)
    runs = {"one char": "A" * half, "hex": "".join(rnd.choices("0123456789abcdef", k=half))}
    runs["base64"] = "".join(rnd.choices(string.ascii_letters + string.digits + "+/", k=half))
    print(f"one {mb:g} MB word with a keyword or a key inside (ratio: to prose of its length holding the same)")
    for middle in ("key", "api_key", "AKIAIOSFODNN7EXAMPLQ"):
        for name, run in runs.items():
            words = iter([f'{{"x":"{run}{middle}{run}","n":{i}}}' for i in range(repeat)])
            prose = " ".join(rnd.choice(vocab) for _ in range(half // 3))[:half]
            plain = iter([f'{{"x":"{prose} {middle} {prose}","n":{i}}}' for i in range(repeat)])
            spent = best(lambda texts=words: find_in_text(next(texts)), repeat)
            usual = best(lambda texts=plain: find_in_text(next(texts)), repeat)
            label = f"{name}, {middle[:10]}"
            print(f"  {label:<22} {spent * 1000:8.1f} ms  (prose {usual * 1000:8.1f} ms)  x{spent / usual:5.2f}")


def dense_rows(mb: float, repeat: int) -> None:
    """Learned values sharing one head at many lengths (``sk-live-…``) are read by an automaton: a long text, and
    many short ones (a run's events), each against one learned value in the same run."""
    rnd = random.Random(3)
    dense = [f"sk-live-{''.join(rnd.choice(string.ascii_letters) for _ in range(n))}" for n in range(10, 40)]
    size = int(mb * 1_000_000)
    filler = (_PROSE * (size // len(_PROSE) + 1))[:size]
    text = f"{filler} {dense[3]} {filler[:1000]}"
    shorts = [f"event {i}: called the tool with sk-live-abc and got {i * 7} rows" for i in range(2_000)]
    print("learned values of one head and 30 lengths (ratio: to 1 learned value, same texts)")
    for name, texts in ((f"{mb:g} MB text", [text]), ("2,000 events", shorts)):
        spent = []
        for values in ([dense[3]], dense):
            guard = RunSecrets()
            guard.learn(values)
            spent.append(best(lambda g=guard, ts=texts: [g.scrub_text(t) for t in ts], repeat))
        print(f"  {name:<14} {spent[0] * 1000:8.1f} ms -> {spent[1] * 1000:8.1f} ms  x{spent[1] / spent[0]:5.2f}")


def long_value_rows(repeat: int) -> None:
    """A learned value repeating itself up to a change in its middle (``a…ab a…a``), found twice and cut once: its
    period and the places its head recurs inside the values found were read per character of it."""
    print("a long learned value that repeats itself (ratio: 4n to n; linear is 4, quadratic 16)")
    spent = []
    for m in (100_000, 400_000):
        value = "a" * m + "b" + "a" * m
        text = f"x {value} y {value} and {value[:50]}…"
        guard = RunSecrets()
        guard.learn([value])
        spent.append(best(lambda g=guard, t=text: g.scrub_text(t), repeat))
    print(f"  {'a…ab a…a':<24} {spent[0] * 1000:8.1f} ms -> {spent[1] * 1000:8.1f} ms  x{spent[1] / spent[0]:5.2f}")


def _random_text(alphabet: str, size: int, seed: int) -> str:
    return "".join(random.Random(seed).choices(alphabet, k=size))


_ALPHABETS = {
    "base64": string.ascii_letters + string.digits + "+/",
    "hex": "0123456789abcdef",
    "letters+punct": string.ascii_letters + string.digits + string.punctuation + " ",
}


def _against_unfiltered(name: str, call: Callable[[], Any], size: int, repeat: int) -> None:
    """One row: the screen (its cheap tests in front of the detectors) and the whole suite (``unfiltered``) on the
    same input, in this run."""
    from noesis_nb.secrets.gates import unfiltered

    new = best(call, repeat)
    with unfiltered():
        old = best(call, repeat)
    rate = size / 1e6 / new
    print(f"  {name:<26} {new:8.2f} s  ({rate:5.1f} MB/s)  whole suite {old:8.2f} s  x{old / new:5.1f} faster")


def screen_rows(mb: float, big_mb: float, repeat: int) -> None:
    """Random texts (a blob a tool printed) and hostile classes, screened with and without the cheap tests."""
    size = int(mb * 1_000_000)
    print("screening long texts: the screen vs the whole suite (every pattern over every text), same run")
    for name, alphabet in _ALPHABETS.items():
        text = _random_text(alphabet, size, 11)
        _against_unfiltered(f"{mb:g} MB random {name}", lambda t=text: find_in_text(t), size, repeat)
    hostile = {
        "one character": "a" * size,
        "'=' signs": "a=" * (size // 2),
        "':' signs": "a: " * (size // 3),
        "'%' escapes": "%41" * (size // 3),
        "near-miss key names": "passw0rd_secre api_ke token_ sk- AKIA pw cl_ " * (size // 45),
        "URL-ish text": "https://u:p@h.example/p?x=1&sig=abc#frag " * (size // 41),
        "keywords and signs": "password=:key=secret: " * (size // 22),
    }
    for name, text in hostile.items():
        _against_unfiltered(f"{mb:g} MB {name}", lambda t=text: find_in_text(t), len(text), repeat)
    nested: Any = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    for _ in range(100):  # deep JSON nesting, with a long random text beside it: the engine's write path
        nested = {"k": [nested, "x"]}
    payload = {"output": _random_text(_ALPHABETS["base64"], size, 12), "nested": nested}
    _against_unfiltered(f"redact(): {mb:g} MB + depth 100", lambda: redact(payload), size, repeat)
    if big_mb:
        big = int(big_mb * 1_000_000)
        text = _random_text(_ALPHABETS["base64"], big, 13)
        _against_unfiltered(f"{big_mb:g} MB random base64", lambda: find_in_text(text), big, 1)


def _lines(kind: str, i: int, rnd: random.Random) -> str:
    """An event's text of ``kind``: prose cut at 72 columns, code lines ending in long names, JSON holding both with
    its line breaks escaped, or a key folded at 64 columns."""
    words = "the agent read build log found failing test wrote short summary of fix and ran again".split()
    prose = textwrap.fill(" ".join(rnd.choice(words) for _ in range(60)) + f" step {i}", width=72)
    code = "\n".join(f"    result_{j} = compute_value(items[{j}], configuration_manager)" for j in range(12))
    if kind == "JSON, escaped breaks":
        return json.dumps({"rows": [prose, code[:200]]})
    if kind == "a folded key":
        return "key:\n" + textwrap.fill("sk-proj-" + "".join(rnd.choice(string.ascii_letters) for _ in range(156)), 64)
    return prose if kind == "prose lines" else code


def wrapped_rows(repeat: int) -> None:
    """The screen of events whose text has many line breaks (a key may be wrapped across one): per event, against the
    same texts with each line break a space (the baseline, same run). A break is read further only after a key's lead."""
    print("screening line-broken text, per event (ratio: to the same texts with spaces for line breaks)")
    for kind in ("prose lines", "code lines", "JSON, escaped breaks", "a folded key"):
        rnd = random.Random(5)
        texts = [_lines(kind, i, rnd) for i in range(200)]
        spent = []
        for variant in (texts, [t.replace("\\n", " ").replace("\n", " ") for t in texts]):
            payloads = [{"stream": "stdout", "text": t} for t in variant]
            guard = RunSecrets("")
            spent.append(best(lambda g=guard, ps=payloads: [g.screen(p) for p in ps], repeat) / len(payloads))
        print(f"  {kind:<22} {spent[0] * 1e6:8.1f} us  (one line {spent[1] * 1e6:8.1f} us)  x{spent[0] / spent[1]:5.2f}")


def small_string_rows(repeat: int) -> None:
    """A tool's arguments made of many short distinct strings (a table's rows), redacted as the tool path redacts them
    (``RunSecrets.redact``), against the same rows screened as one event (``RunSecrets.screen``, ``ctx.emit``'s path)."""
    print("many short strings: a tool's arguments redacted vs the same rows emitted (ratio: to the event, same run)")
    tables = itertools.count()

    def rows(n: int, secret: bool) -> dict[str, Any]:
        t = next(tables)  # distinct texts each call: no verdict kept from the call before
        table = {f"user{i}t{t}": f"row number {i} of table {t}" for i in range(n)}
        if secret:
            table[f"user0t{t}"] = f"password=Zq{t}xk7Wv-hunter for row 0"
        return {"args": [table]}

    find_in_text("warm the detectors up: password=Zq0xk7Wv-hunter")
    for secret in (False, True):
        spent = {}
        for n in (500, 5000):
            spent[n] = best(lambda n=n, s=secret: RunSecrets().redact(rows(n, s)), repeat)
            emitted = best(lambda n=n, s=secret: RunSecrets().screen({"rows": rows(n, s)}), repeat)
            label = f"{n} rows{', one secret' if secret else ''}"
            print(f"  {label:<22} {spent[n] * 1000:8.1f} ms  (emitted {emitted * 1000:8.1f} ms)  x{spent[n] / emitted:5.2f}")
        print(f"  {'5000 to 500 rows':<22} x{spent[5000] / spent[500]:5.2f}  (linear is 10)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=1.0, help="size of the scrubbed texts")
    parser.add_argument("--values", type=int, default=5_000, help="most learned values")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--screen-mb", type=float, default=5.0, help="size of the random and hostile screened texts")
    parser.add_argument("--big-mb", type=float, default=0.0, help="also a random text this large (50: minutes)")
    parser.add_argument("--only-screen", action="store_true", help="only the screening rows")
    parser.add_argument("--only-scripts", action="store_true", help="only the rows of prose of other scripts")
    parser.add_argument("--only-wrapped", action="store_true", help="only the rows of line-broken text")
    parser.add_argument("--only-small", action="store_true", help="only the rows of many short strings")
    args = parser.parse_args()
    if args.only_small:
        small_string_rows(args.repeat)
        return
    if args.only_wrapped:
        wrapped_rows(args.repeat)
        return
    if args.only_scripts:
        script_rows(args.mb, args.repeat)
        return
    screen_rows(args.screen_mb, args.big_mb, args.repeat)
    if args.only_screen:
        return
    wrapped_rows(args.repeat)
    scrub_rows(args.mb, args.values, args.repeat)
    script_rows(args.mb, args.repeat)
    growth_rows(args.repeat)
    blob_rows(args.mb, args.repeat)
    long_word_rows(args.mb, args.repeat)
    dense_rows(args.mb, args.repeat)
    long_value_rows(args.repeat)
    small_string_rows(args.repeat)


if __name__ == "__main__":
    main()
