"""Engine overhead: an episode emitting N events against the same lines written by hand, and sealing time.

Baselines, measured in the same run: a raw append of the episode's own lines (``write()`` only),
and a loop that builds each record (id, timestamp, the same fields), serialises it with orjson
and writes it with one ``write()``. Every side writes one whole line per event, unbuffered (the
durability the run log promises); the ratio is what the runtime adds: screening for secrets,
ids, locking, subscribers, the summary tally and the running hash that make sealing constant.
Sealing (from the adapter's return to the sealed run: act, reflect, terminate, summary, final,
manifest) is timed for runs of 100 to 100,000 events; freeing the episode's in-memory events
afterwards is not part of it. Each side's process CPU time is printed too, and its ratio: on a shared machine the
wall clock also counts the waits for a core, which fall on the sides unevenly.
Usage: python benchmarks/bench_engine.py [--events 10000] [--repeat 3] [--seal-max 100000]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import orjson

import noesis_nb
from noesis_nb.runtime import lifecycle

_SEALED = [0.0]
_seal = lifecycle.seal


def _timed_seal(rec, outcome):  # the moment the run is sealed (manifest written), before the episode is dropped
    _seal(rec, outcome)
    _SEALED[0] = time.perf_counter()


lifecycle.seal = _timed_seal


def run_episode(runs_dir: Path, n: int) -> tuple[float, Path, float, float]:
    """(seconds for the whole episode, its run dir, seconds from the adapter's return to the sealed run, CPU seconds)."""
    returned = [0.0]

    async def chatty(task, ctx):
        for i in range(n):
            ctx.emit("reason", {"step": i, "text": f"thought number {i} about {task}"})
        returned[0] = time.perf_counter()
        return n

    c0, t0 = time.process_time(), time.perf_counter()
    ep = asyncio.run(noesis_nb.solve_async("benchmark", using=chatty, runs_dir=runs_dir))
    return time.perf_counter() - t0, runs_dir / ep, _SEALED[0] - returned[0], time.process_time() - c0


def build_and_append(n: int, path: Path) -> float:
    """The same records built by hand: id, timestamp, fields; orjson; one write() each."""
    t0 = time.perf_counter()
    base = uuid.uuid4().hex[:24]  # ids as the engine makes them: a random base and a counter
    with open(path, "ab", buffering=0) as fh:
        for i in range(n):
            record = {
                "id": f"{base}{i:012x}",
                "episode_id": "ep_benchmark",
                "agent_id": "system",
                "phase": "reason",
                "payload": {"step": i, "text": f"thought number {i} about benchmark"},
                "evidence_ids": [],
                "timestamp": datetime.now(UTC).isoformat(),
            }
            fh.write(orjson.dumps(record, option=orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE))
    return time.perf_counter() - t0


def raw_append(lines: list[bytes], path: Path) -> float:
    t0 = time.perf_counter()
    with open(path, "ab", buffering=0) as fh:
        for line in lines:
            fh.write(line)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seal-max", type=int, default=100_000, help="longest run whose sealing is timed")
    args = parser.parse_args()
    episode_times, raw_times, built_times, episode_cpu, built_cpu = [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        run_episode(Path(tmp) / "warmup", 10)  # imports and first-call costs stay out of the timing
        for r in range(args.repeat):
            seconds, run_dir, _, cpu = run_episode(Path(tmp) / f"runs{r}", args.events)
            lines = (run_dir / "events.jsonl").read_bytes().splitlines(keepends=True)
            episode_times.append(seconds)
            episode_cpu.append(cpu)
            raw_times.append(raw_append(lines, Path(tmp) / f"raw{r}.jsonl"))
            c0 = time.process_time()
            built_times.append(build_and_append(args.events, Path(tmp) / f"built{r}.jsonl"))
            built_cpu.append(time.process_time() - c0)
        episode, raw, built = (statistics.median(t) for t in (episode_times, raw_times, built_times))
        print(f"episode with {args.events} events: {episode * 1000:.1f} ms (median of {args.repeat})")
        print(f"raw append of the same {len(lines)} lines: {raw * 1000:.1f} ms")
        print(f"build + orjson + write of {args.events} records: {built * 1000:.1f} ms")
        print(f"ratio episode / raw append: {episode / raw:.2f}x")
        print(f"ratio episode / build-and-append loop: {episode / built:.2f}x (target <= 1.5x)")
        cpu_ratios = sorted(e / b for e, b in zip(episode_cpu, built_cpu))
        print(
            f"by process CPU time: episode {statistics.median(episode_cpu) * 1000:.1f} ms, loop "
            f"{statistics.median(built_cpu) * 1000:.1f} ms; ratio median {statistics.median(cpu_ratios):.2f}x "
            f"(range {cpu_ratios[0]:.2f}-{cpu_ratios[-1]:.2f}x), best {min(episode_cpu) / min(built_cpu):.2f}x"
        )
        print("sealing time (adapter returned -> act, reflect, terminate, summary, final, manifest written), median of 3:")
        sizes = [n for n in (100, 1_000, 10_000, 100_000) if n <= args.seal_max]
        for n in sizes:
            seals = [run_episode(Path(tmp) / f"seal{n}-{k}", n)[2] for k in range(3)]
            print(f"  {n:>7,} events: {statistics.median(seals) * 1000:6.2f} ms")


if __name__ == "__main__":
    main()
