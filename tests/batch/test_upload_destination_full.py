"""A copy to a local destination that fills up mid-way leaves no torn file there, and says what to do.

Each file of a local copy was written in place: when the destination's disk filled, ``manifest.json`` was left
empty (a copy that read as sealed with a broken manifest) and other files cut short, and the error was a bare
``OSError: [Errno 28]`` naming no file. Now each file is written whole or not at all, the error names the file and
the fix, and the same call once there is room completes the copy. A real, small tmpfs fills here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import noesis_nb
from noesis_nb.store.artifacts import verify_manifest

from ..conftest import REPO
from ..hardening.privatefs import private_tmpfs

# in its own tmpfs ($0 is the mount point): fill it but for a few KB, copy the run, note what the copy holds,
# make room, copy again
CHILD = r"""
import json, os, sys
from pathlib import Path
from noesis_nb.batch.upload import UploadError, upload_run
mount, run = Path(sys.argv[1]), Path(sys.argv[2])
with open(mount / "ballast", "wb") as fh:
    free = os.statvfs(mount).f_bavail * os.statvfs(mount).f_frsize
    fh.write(b"\0" * max(0, free - 12 * 1024))
try:
    upload_run(run, f"file://{mount}/copies")
    first = None
except UploadError as exc:
    first = str(exc)
copy = mount / "copies" / run.name
held = {str(p.relative_to(copy)): p.stat().st_size for p in copy.rglob("*") if p.is_file()} if copy.exists() else {}
os.unlink(mount / "ballast")
second = upload_run(run, f"file://{mount}/copies")
import shutil
shutil.copytree(copy, sys.argv[3])
print(json.dumps({"first": first, "held": held, "second": second}))
"""


def test_a_copy_to_a_full_destination_leaves_no_torn_file_and_the_same_call_completes_it(tmp_path: Path) -> None:
    prefix = private_tmpfs("256k", "fills up while a run is copied")
    runs = tmp_path / "runs"

    def agent(task, ctx):
        for i in range(40):  # ~60 KB of events: more than the room left
            ctx.emit("note", {"i": i, "text": "x" * 1500})
        return "done"

    run = runs / noesis_nb.solve("fill", using=agent, runs_dir=runs)
    mnt, out = tmp_path / "mnt", tmp_path / "copy"
    mnt.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [*prefix, str(mnt), sys.executable, "-c", CHILD, str(mnt), str(run), str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])

    listed = {f["name"]: f["size_bytes"] for f in json.loads((run / "manifest.json").read_bytes())["files"]}
    assert seen["first"] is not None, "the copy fitted: the test did not fill the destination"
    assert "events.jsonl" in seen["first"] and "free space" in seen["first"] and "again" in seen["first"], seen["first"]
    assert "manifest.json" not in seen["held"], f"a manifest vouches for a half copy: {seen['held']}"
    torn = {name: size for name, size in seen["held"].items() if listed.get(name) != size}
    assert not torn, f"files cut short or left over in the copy: {torn} (manifest lists {listed})"
    assert seen["second"].endswith(run.name)
    assert verify_manifest(out).ok and (out / "manifest.json").read_bytes() == (run / "manifest.json").read_bytes()
