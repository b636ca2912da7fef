"""Redaction: coverage, false positives and speed, for our rules and for rule-set libraries.

    python -m bench.redaction [--engine recall | detect-secrets | detect-secrets-rules]
                              [--corpus ../shared/corpus] [--hostile-limit SECONDS]

- coverage: the secret corpus (tests/helpers/secret_corpus.py): a kind is caught when every
  one of its forms comes out without its secret; a form when its secret is gone.
- false positives: the ordinary lines (tests/helpers/ordinary_lines.py: the table in
  tests/fixtures/redaction/ordinary_lines.txt and the lines made there) and, when the
  transcript corpus is there, every line of it (12 to 200 characters): a line that comes out
  changed is a false positive.
- speed: ms per MB over the transcript files (each redacted as one text), and CPU seconds for
  each hostile megabyte (tests/helpers/hostile_inputs.py), the slowest reported; an input
  still running after `--hostile-limit` seconds is stopped and reported as over it. For our
  rules also the CPU
  time of `prepare` per turn of the bench corpus (p50, p99, max over 20,000 turns): what
  redaction adds to each record.

`detect-secrets` runs whichever `detect_secrets` is installed (Yelp's detect-secrets or its
bc-detect-secrets fork; both install that module, so each needs its own virtualenv), through its
documented ad-hoc API, `scan_line`, one line at a time, each secret it reports replaced in the
line; `detect-secrets-rules` is the same without its two high-entropy plugins (its named rules
and its keyword rule only). Prints one JSON line per measurement.
"""

from __future__ import annotations

import argparse
import itertools
import json
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from importlib import metadata
from pathlib import Path
from types import FrameType

from tests.helpers.hostile_inputs import HOSTILE
from tests.helpers.ordinary_lines import ORDINARY
from tests.helpers.secret_corpus import FORMS

ROOT = Path(__file__).resolve().parent.parent
Redactor = Callable[[str], str]
_SETTINGS = ExitStack()


def recall_engine() -> tuple[str, Redactor]:
    from history.redaction import redact

    return "recall", redact


def detect_secrets_engine(entropy: bool = True) -> tuple[str, Redactor]:
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import default_settings

    names = {dist.metadata["Name"] for dist in metadata.distributions()}
    name: str = next(n for n in ("bc-detect-secrets", "detect-secrets") if n in names)
    version = metadata.version(name)
    settings = _SETTINGS.enter_context(default_settings())  # leaving it resets them: kept
    if not entropy:
        settings.disable_plugins("Base64HighEntropyString", "HexHighEntropyString")
        name += " without its entropy plugins"

    def redact(text: str) -> str:
        lines = []
        for line in text.split("\n"):
            found = {(secret.secret_value or "", secret.type) for secret in scan_line(line)}
            for value, kind in sorted(found, key=lambda pair: -len(pair[0])):
                if value:
                    line = line.replace(value, f"[redacted:{kind}]")
            lines.append(line)
        return "\n".join(lines)

    return f"{name} {version}", redact


ENGINES: dict[str, Callable[[], tuple[str, Redactor]]] = {
    "recall": recall_engine,
    "detect-secrets": detect_secrets_engine,
    "detect-secrets-rules": lambda: detect_secrets_engine(entropy=False),
}


def ordinary_table() -> list[str]:
    return ORDINARY


def transcript_lines(corpus: Path) -> list[str]:
    seen: dict[str, None] = {}

    def walk(value: object) -> Iterator[str]:
        if isinstance(value, str):
            yield from value.splitlines()
        elif isinstance(value, dict):
            for item in value.values():
                yield from walk(item)
        elif isinstance(value, list):
            for item in value:
                yield from walk(item)

    for path in sorted(corpus.rglob("*")):
        if path.suffix == ".jsonl":
            texts: Iterator[str] = (
                line for raw in path.read_text("utf-8").splitlines() for line in _decoded(raw, walk)
            )
        elif path.suffix == ".md" and path.name != "SOURCES.md":
            texts = iter(path.read_text("utf-8").splitlines())
        else:
            continue
        for line in texts:
            line = line.strip()
            if 12 <= len(line) <= 200:
                seen.setdefault(line, None)
    return list(seen)


def _decoded(raw: str, walk: Callable[[object], Iterator[str]]) -> Iterator[str]:
    try:
        yield from walk(json.loads(raw))
    except json.JSONDecodeError:
        return


class _Stopped(Exception):
    pass


def _stop(signum: int, frame: FrameType | None) -> None:
    raise _Stopped


def cpu_seconds(redact: Redactor, text: str, limit: float) -> float | None:
    """CPU seconds to redact `text`, or None when it ran past `limit` (wall) seconds."""
    previous = signal.signal(signal.SIGALRM, _stop)
    signal.setitimer(signal.ITIMER_REAL, limit)
    started = time.process_time()
    try:
        redact(text)
    except _Stopped:
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return time.process_time() - started


def prepare_cost(count: int = 20_000) -> dict[str, float]:
    """CPU ms of `prepare` (every field redacted, ids and project masked) per generated turn."""
    from bench.corpus import turns
    from history.prepare import as_turn, prepare
    from history.redaction.ids import IdMask

    ids = IdMask()
    spent = []
    for turn in itertools.islice(turns(seed=7), count):
        started = time.thread_time()
        prepare(as_turn(turn), ids)
        spent.append((time.thread_time() - started) * 1000)
    spent.sort()
    return {
        "p50": round(spent[len(spent) // 2], 3),
        "p99": round(spent[int(len(spent) * 0.99)], 3),
        "max": round(spent[-1], 3),
    }


def measure(engine: str, corpus: Path | None, hostile_limit: float) -> dict[str, object]:
    name, redact = ENGINES[engine]()
    found: dict[str, object] = {"engine": name}
    caught_forms = [form for form in FORMS if form.secret not in redact(form.text)]
    kinds = sorted({form.kind for form in FORMS})
    missed_kinds = sorted({form.kind for form in FORMS if form not in caught_forms})
    found["forms"] = (len(caught_forms), len(FORMS))
    found["kinds"] = (len(kinds) - len(missed_kinds), len(kinds))
    found["missed_kinds"] = missed_kinds
    table = ordinary_table()
    changed = [line for line in table if redact(line) != line]
    found["false_positives_table"] = (len(changed), len(table))
    found["false_positive_examples"] = changed[:12]
    if corpus is not None and corpus.is_dir():
        lines = transcript_lines(corpus)
        found["false_positives_corpus"] = (sum(redact(line) != line for line in lines), len(lines))
        texts = [path.read_text("utf-8") for path in sorted(corpus.rglob("*.json*"))]
        texts += [path.read_text("utf-8") for path in sorted(corpus.rglob("*.md"))]
        size = sum(len(text.encode()) for text in texts) / 1e6
        started = time.process_time()
        for text in texts:
            redact(text)
        found["ms_per_mb"] = round((time.process_time() - started) * 1000 / size, 1)
    hostile = {key: cpu_seconds(redact, text, hostile_limit) for key, text in HOSTILE.items()}
    timed = {key: value for key, value in hostile.items() if value is not None}
    slowest = max(timed, key=lambda key: timed[key]) if timed else None
    found["hostile_inputs"] = len(HOSTILE)
    found["hostile_over_0.25s"] = sorted(
        key for key, value in hostile.items() if value is None or value > 0.25
    )
    found["hostile_slowest"] = (slowest, round(timed[slowest], 3)) if slowest else None
    found["hostile_stopped"] = sorted(key for key, value in hostile.items() if value is None)
    if engine == "recall":
        found["prepare_cpu_ms_per_turn"] = prepare_cost()
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.redaction", description=__doc__)
    parser.add_argument("--engine", choices=sorted(ENGINES), default="recall")
    corpus = ROOT / "tests" / "fixtures" / "corpus"
    parser.add_argument("--corpus", type=Path, default=corpus, help="the transcript corpus")
    parser.add_argument("--hostile-limit", type=float, default=10.0)
    args = parser.parse_args(argv)
    found = measure(args.engine, args.corpus, args.hostile_limit)
    for metric, value in found.items():
        print(json.dumps({"engine": found["engine"], "metric": metric, "value": value}))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
