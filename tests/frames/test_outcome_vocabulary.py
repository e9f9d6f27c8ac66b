"""``runs_df`` reports an outcome field holding a value Noēsis never writes (final.json's ``outcome`` and
``verification_status``, summary.json's ``outcome`` and ``adapter_result``): one problem per field naming the value
and the allowed ones, the value kept as read; ``strict=True`` raises. The runs the package writes report none."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.frames import RunLoadError, runs_df
from noesis_nb.scripted import researcher


def _reseal(run: Path) -> None:
    """The manifest's hashes and sizes made those of the files as they are now (as if sealed so)."""
    manifest = json.loads((run / "manifest.json").read_bytes())
    for entry in manifest["files"]:
        data = (run / entry["name"]).read_bytes()
        entry["sha256"], entry["size_bytes"] = "sha256:" + hashlib.sha256(data).hexdigest(), len(data)
    (run / "manifest.json").write_text(json.dumps(manifest, indent=2))


def _runs(runs_dir: Path) -> list[str]:
    return [
        noesis_nb.solve("look up the weather", using=researcher(), runs_dir=runs_dir),
        noesis_nb.solve("please destroy x", using=researcher(), runs_dir=runs_dir, governance="enforce"),
    ]


def test_the_packages_runs_hold_only_noesis_values(runs_dir: Path) -> None:
    _runs(runs_dir)
    df = runs_df(runs_dir, verify="hash", strict=True, cache=False)
    assert set(df["outcome"]) == {"success", "vetoed"} and df.attrs["errors"] == []


def test_values_outside_the_vocabulary_are_reported_and_kept(runs_dir: Path) -> None:
    ep, _ = _runs(runs_dir)
    run = runs_dir / ep
    final = json.loads((run / "final.json").read_bytes())
    final.update(outcome="bogus", verification_status="maybe")
    (run / "final.json").write_text(json.dumps(final, indent=2))
    summary = json.loads((run / "summary.json").read_bytes())
    summary.update(outcome="weird", adapter_result="nah")
    (run / "summary.json").write_text(json.dumps(summary))
    _reseal(run)
    for cache in (False, True, True):
        df = runs_df(runs_dir, verify="hash", cache=cache).set_index("episode_id")
        assert df.loc[ep, "outcome"] == "bogus" and bool(df.loc[ep, "manifest_ok"])
        reasons = sorted((Path(e["path"]).name, e["reason"]) for e in df.attrs["errors"])
        assert [r[0] for r in reasons] == ["final.json", "final.json", "summary.json", "summary.json"], reasons
        for (_, reason), (field, value, allowed) in zip(
            reasons,
            [
                ("outcome", "bogus", "success, failed, vetoed, cancelled, interrupted, error"),
                ("verification_status", "maybe", "verified, unverified, not_applicable"),
                ("adapter_result", "nah", "success, error, skipped"),
                ("outcome", "weird", "success, goal_not_achieved, success_unverified, error"),
            ],
            strict=True,
        ):
            assert f"{field} {value!r}" in reason and allowed in reason, reason
    with pytest.raises(RunLoadError, match="outcome 'bogus' is not one of"):
        runs_df(runs_dir, strict=True, cache=False)
