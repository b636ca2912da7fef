"""Measurement plumbing: one JSON line per number, percentiles, peak RSS, database size."""

from __future__ import annotations

import json
import math
import resource
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

RECALL, BASELINE, CORPUS, RATIO = "recall", "baseline", "corpus", "ratio"


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of a non-empty sample."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def peak_rss_mb() -> float:
    """This process's peak resident set size so far, in MiB.

    Linux's `ru_maxrss` carries over, through fork and exec, the parent's peak at the moment it
    forked, so a child of a big parent would report the parent's size. `VmHWM` in
    /proc/self/status is the high-water mark of this program's own memory; `ru_maxrss` (KiB on
    Linux) is the fallback elsewhere."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def database_bytes(path: Path) -> int:
    """The database file and its WAL (the `-shm` index is a memory map, not data)."""
    wal = Path(f"{path}-wal")
    return path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


class Emitter:
    """Prints each measurement as a JSON line (and appends it to `log`, when given); once both
    implementations have a metric, prints their ratio, recall / baseline."""

    def __init__(self, size: int, log: TextIO | None = None) -> None:
        self.size = size
        self.log = log
        self._seen: dict[tuple[str, str], float] = {}

    def emit(self, metric: str, impl: str, value: float, unit: str, **extra: Any) -> None:
        self._line(self._record(metric, impl, value, unit) | extra)
        self._seen[(metric, impl)] = value
        other = {RECALL: BASELINE, BASELINE: RECALL}.get(impl)
        if other is not None and (metric, other) in self._seen:
            recall, baseline = self._seen[(metric, RECALL)], self._seen[(metric, BASELINE)]
            ratio = recall / baseline if baseline else math.inf
            self._line(self._record(metric, RATIO, ratio, "x"))

    def passthrough(self, line: str) -> dict[str, Any]:
        """Re-emit a line a subprocess printed; it counts toward ratios like our own."""
        record: dict[str, Any] = json.loads(line)
        extra = {k: v for k, v in record.items() if k not in ("size", "metric", "impl", "value")}
        unit = extra.pop("unit")
        self.emit(record["metric"], record["impl"], record["value"], unit, **extra)
        return record

    def _record(self, metric: str, impl: str, value: float, unit: str) -> dict[str, Any]:
        return {
            "size": self.size,
            "metric": metric,
            "impl": impl,
            "value": _round(value),
            "unit": unit,
        }

    def _line(self, record: dict[str, Any]) -> None:
        text = json.dumps(record)
        print(text, flush=True)
        if self.log is not None:
            self.log.write(text + "\n")
            self.log.flush()


def _round(value: float) -> float:
    if math.isinf(value) or value == 0:
        return value
    digits = max(0, 4 - math.floor(math.log10(abs(value))))
    return round(value, digits)


def warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr, flush=True)
