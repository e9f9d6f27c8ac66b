"""Manifest and seal: ``noesis artifacts verify`` (``runtime/artifacts/verify.py``), the manifest writer and schema
(``runtime/artifacts/manifest.py``, manifest 1.0.0), and Noēsis' sealing order (``noesis/core.py``, its sealing tests):
summary.json, then final.json, then manifest.json, after which nothing is written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import Any

from .rundata import Run, Violation, sha256_file

KINDS = frozenset({"summary", "state", "events", "learn", "attachment", "custom"})
DEFAULT_KINDS = {"summary.json": "summary", "state.json": "state", "events.jsonl": "events", "learn.jsonl": "learn"}
_SHA = re.compile(r"^sha256:[0-9a-f]{64}$")
_MTIME_SLACK_S = 1.0


def check(run: Run) -> Iterator[Violation]:
    manifest = run.docs.get("manifest.json")
    if run.exists("final.json"):
        for name in ("summary.json", "state.json", "manifest.json"):
            if not run.exists(name):
                yield Violation(
                    "seal.complete",
                    name,
                    "missing although final.json exists (Noēsis writes summary and state before "
                    "final.json, and removes final.json when the manifest cannot be written)",
                )
    if not isinstance(manifest, dict):
        return
    yield from _seal_order(run, manifest)
    files = manifest.get("files")
    yield from _shape(run, manifest)
    if not isinstance(files, list):
        return
    listed: set[str] = set()
    for entry in files:
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            listed.add(entry["name"])
            yield from _entry(run, entry)
    for path in sorted(p for p in run.path.rglob("*") if p.is_file() and p.name != "manifest.json"):
        name = path.relative_to(run.path).as_posix()
        if name not in listed:
            yield Violation(
                "manifest.complete",
                name,
                "not listed in manifest.json: written after the run was sealed, or left out "
                "(the manifest lists every file, and nothing is added after it)",
            )


def _seal_order(run: Run, manifest: dict[str, Any]) -> Iterator[Violation]:
    final = run.path / "final.json"
    if not final.is_file():
        if not run.legacy:
            yield Violation(
                "seal.final_before_manifest",
                "manifest.json",
                "manifest.json exists without final.json: the seal check "
                "fails (Noēsis writes final.json first and treats it as the seal)",
            )
        return
    if not any(isinstance(f, dict) and f.get("name") == "final.json" for f in manifest.get("files") or []):
        yield Violation(
            "seal.final_before_manifest",
            "manifest.json",
            "final.json is not listed: it must exist before the manifest is written",
        )
    # Order on disk, as far as mtimes show it: copying a run may reorder them within a moment, a rewrite does not.
    late = final.stat().st_mtime - (run.path / "manifest.json").stat().st_mtime
    if late > _MTIME_SLACK_S:
        yield Violation("seal.final_before_manifest", "final.json", f"final.json was modified {late:.1f} s after manifest.json")


def _shape(run: Run, manifest: dict[str, Any]) -> Iterator[Violation]:
    def fail(message: str) -> Violation:
        return Violation("manifest.shape", "manifest.json", message + " (manifest schema 1.0.0)")

    if manifest.get("schema_version") != "manifest/1.0":
        yield fail(f"schema_version is {manifest.get('schema_version')!r}, expected 'manifest/1.0'")
    if manifest.get("episode_id") != run.episode_id:
        yield fail(f"episode_id {manifest.get('episode_id')!r} is not this run's ({run.episode_id!r})")
    files = manifest.get("files")
    if not isinstance(files, list):
        yield fail("files must be a list")
        return
    names = [entry.get("name") for entry in files if isinstance(entry, dict) and isinstance(entry.get("name"), str)]
    if names != sorted(names):
        first = next(b for a, b in zip(names, names[1:], strict=False) if b < a)
        yield fail(f"files are not sorted by name ({first!r} comes after a name that sorts later)")
    for n, entry in enumerate(files):
        if not isinstance(entry, dict):
            yield fail(f"files[{n}] must be an object")
            continue
        problems = [k for k in ("name", "sha256", "kind") if not isinstance(entry.get(k), str)]
        size = entry.get("size_bytes")
        if not (isinstance(size, int) and not isinstance(size, bool) and size >= 0):
            problems.append("size_bytes")
        if problems:
            yield fail(f"files[{n}] ({entry.get('name')!r}) has missing or mistyped {problems}")
        elif entry["kind"] not in KINDS:
            yield fail(f"files[{n}] kind {entry['kind']!r} is not one of {sorted(KINDS)}")
        elif entry["name"] in DEFAULT_KINDS and entry["kind"] != DEFAULT_KINDS[entry["name"]]:
            yield fail(f"{entry['name']} is listed as {entry['kind']!r}, Noēsis lists it as {DEFAULT_KINDS[entry['name']]!r}")


def _entry(run: Run, entry: dict[str, Any]) -> Iterator[Violation]:
    name = entry["name"]
    pure = PurePosixPath(name)
    if pure.is_absolute() or ".." in pure.parts or "\\" in name:
        yield Violation("manifest.files", "manifest.json", f"file name {name!r} is not a relative path inside the run")
        return
    path = run.path / name
    if not path.is_file():
        yield Violation("manifest.files", name, "listed in manifest.json but missing")
        return
    actual = sha256_file(path)
    if not _SHA.match(str(entry.get("sha256"))) or actual != entry.get("sha256"):
        yield Violation("manifest.files", name, f"sha256 {actual} != manifest {entry.get('sha256')!r}: changed after sealing")
    elif path.stat().st_size != entry.get("size_bytes"):
        yield Violation("manifest.files", name, f"size {path.stat().st_size} != manifest {entry.get('size_bytes')!r}")
