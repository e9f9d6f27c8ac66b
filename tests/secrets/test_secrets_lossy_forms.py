"""An environment secret holding one non-ASCII letter or a quote, written as mail, HTML templates and ASCII-only
writers write it: quoted-printable (``Kx9#mQ2vL=C3=BCp-Walk77``), its UTF-8 read as Latin-1 (``Kx9#mQ2vLÃ¼p-Walk77``),
``encode("ascii", …)`` with each error handler (``?``, dropped, ``&#252;``, ``\\xfc``), NFD-normalised, and escaped by
markupsafe and a Jinja2 template (``&#39;`` / ``&#34;``). Each was written all but one character in clear: none may be in
any file of a real run, nor in what ``shown`` gives."""

from __future__ import annotations

import json
from pathlib import Path

from noesis_nb.secrets.forms import LEAST, written_forms

from .child import clean_env, run_child

_CHILD = r"""
import html, json, os, quopri, sys, unicodedata
import jinja2, markupsafe
import noesis_nb
from noesis_nb.secrets import shown

names = json.loads(sys.argv[2])
pairs = []  # (the form, the text holding it)
for name in names:
    v = os.environ[name]
    b = v.encode()
    page = jinja2.Environment(autoescape=True).from_string("{{ v }}").render(v=v)
    for form, text in [
        (quopri.encodestring(b).decode(), "Subject: reset\n\nyour password: {}\nbye"),
        (b.decode("latin-1"), "read as latin-1: {}"),
        (b.decode("cp1252"), "read as cp1252: {}"),
        (v.encode("ascii", "replace").decode(), "ascii: {}"),
        (v.encode("ascii", "ignore").decode(), "ascii: {}"),
        (v.encode("ascii", "xmlcharrefreplace").decode(), "sent {} at 9"),
        (v.encode("ascii", "backslashreplace").decode(), "log {}"),
        (unicodedata.normalize("NFD", v), "nfd {}"),
        (str(markupsafe.escape(v)), "<td>{}</td>"),
        (page, "<input value='{}'>"),
        (html.escape(v).replace("&#x27;", "&#39;"), "<b>{}</b>"),
    ]:
        pairs.append((form, text.format(form)))

def agent(task, ctx):
    for _, text in pairs:
        ctx.emit("note", {"text": text})
    return "done"

episode = noesis_nb.solve("plain task", using=agent, runs_dir=sys.argv[1])
print(json.dumps({"episode": episode, "pairs": pairs, "shown": [shown(t) for _, t in pairs]}))
"""

_SECRETS = {"SMTP_PASSWORD": "Kx9#mQ2vLüp-Walk77", "DB_PASSWORD": "O'Neil\"Jürgen-Vault42"}


def test_a_secret_written_lossily_or_re_encoded_is_hidden_in_the_run_and_in_what_is_shown(tmp_path: Path) -> None:
    report = run_child(_CHILD, str(tmp_path / "runs"), json.dumps(list(_SECRETS)), env=clean_env(**_SECRETS))
    files = [p for p in (tmp_path / "runs" / report["episode"]).rglob("*") if p.is_file()]
    assert "events.jsonl" in {p.name for p in files}
    data = "\n".join(p.read_text("utf-8", "replace") for p in files)
    assert len(report["pairs"]) == 11 * len(_SECRETS)
    for (form, text), shown in zip(report["pairs"], report["shown"]):
        assert form in text, form
        core = form[1:-1]  # all but its first and last characters
        assert core not in data and json.dumps(core)[1:-1] not in data, text
        assert core not in shown, (text, shown)


_KEEP = r"""
import json, sys
import noesis_nb
from noesis_nb.secrets import shown

texts = json.loads(sys.argv[2])

def agent(task, ctx):
    for text in texts:
        ctx.emit("note", {"text": text})
    return "done"

episode = noesis_nb.solve("plain task", using=agent, runs_dir=sys.argv[1])
print(json.dumps({"episode": episode, "shown": [shown(t) for t in texts]}))
"""

# a PIN-like password with one umlaut (dropped: a bare number), a password of words (dropped: the words a slug of them
# holds)
_WORDY = {"DB_PASSWORD": "ü20261206", "SMTP_PASSWORD": "Zürich-Office-2024"}
_KEPT = ["order 20261206 shipped", "build 2026-12-06 id 20261206", "see https://x.io/Zrich-Office-2024/agenda"]


def test_a_lossy_or_folded_form_that_is_a_number_or_plain_words_is_no_form_hunted(tmp_path: Path) -> None:
    """What such a form would hide is text written for other reasons (an order number, a slug): it is kept whole, in
    a real run's events and in what ``shown`` gives, while each value written as itself is still hidden."""
    hidden = [f"the password is {value} now" for value in _WORDY.values()]
    texts = _KEPT + hidden
    report = run_child(_KEEP, str(tmp_path / "runs"), json.dumps(texts), env=clean_env(**_WORDY))
    events = (tmp_path / "runs" / report["episode"] / "events.jsonl").read_text("utf-8")
    written = [json.loads(line)["payload"]["text"] for line in events.splitlines() if '"note"' in line]
    assert len(written) == len(texts), events
    for text, got, seen in zip(texts, written, report["shown"]):
        if text in _KEPT:
            assert (got, seen) == (text, text)
        else:
            assert not any(value in got or value in seen for value in _WORDY.values()), (got, seen)


def test_a_compatibility_form_that_is_a_bare_number_is_no_form_hunted() -> None:
    """Fullwidth digits are a value an environment keeps (no ASCII number); their NFKC/NFKD form ``20261206`` is an
    order number's text too, and is no form of it, while the value itself and its escaped forms are."""
    forms = written_forms("２０２６１２０６", LEAST)
    assert "20261206" not in forms
    assert {"２０２６１２０６", "%EF%BC%92%EF%BC%90%EF%BC%92%EF%BC%96%EF%BC%91%EF%BC%92%EF%BC%90%EF%BC%96"} <= forms
