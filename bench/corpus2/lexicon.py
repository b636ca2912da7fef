"""The second corpus's word stock, taken from text this machine has: the standard library's source.

`python -m bench.corpus2.lexicon` parses every module of the running Python's standard library
(tests, IDLE, tkinter and the like left out) with `ast`, never importing one, and writes
`lexicon.json` beside this file: the words of the docstrings ranked by how often they occur,
the public identifiers (functions, methods, classes, constants, as written: snake_case,
camelCase, CamelCase, UPPER_SNAKE) and dotted paths (`email.message.Message`), and for each
module its own words, a topic a session can dwell on. The parameters of a Zipf-Mandelbrot law,
fitted to the measured counts, rank the words (`bench.corpus2.law`).

The file is committed, so the corpus is the same on every machine and Python version; the
builder is deterministic for a given standard library.
"""

from __future__ import annotations

import ast
import json
import math
import re
import sysconfig
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
LEXICON = HERE / "lexicon.json"
SKIPPED = {"test", "tests", "idlelib", "lib2to3", "site-packages", "tkinter", "turtledemo",
           "ensurepip", "__pycache__", "pydoc_data", "encodings", "__phello__"}  # fmt: skip
WORD = re.compile(r"[A-Za-z]{2,24}")
# Names `redact` takes for secrets: no identifier holding one is kept.
SECRETISH = ("key", "secret", "token", "passw", "credential", "auth")
MAX_WORDS, MAX_IDENTIFIERS, TOPIC_WORDS, TOPIC_NAMES = 9_000, 12_000, 40, 30


def _modules(root: Path) -> list[tuple[str, Path]]:
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        hidden = SKIPPED & set(relative.parts) or relative.name.startswith("_")
        if hidden and relative.name != "__init__.py":
            continue
        parts = list(relative.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if parts and not any(part.startswith("_") for part in parts):
            found.append((".".join(parts), path))
    return found


def _public(name: str) -> bool:
    lowered = name.lower()
    return not name.startswith("_") and len(name) > 3 and not any(s in lowered for s in SECRETISH)


def _read(path: Path) -> tuple[list[str], list[str], list[str]]:
    """The docstrings' words, the public names and the module-level public names of a file."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return [], [], []
    words: list[str] = []
    names: list[str] = []
    top = [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and _public(node.name)
    ]
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            docstring = ast.get_docstring(node)
            if docstring:
                words += [word.lower() for word in WORD.findall(docstring)]
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Attribute):
            names.append(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.append(node.id)
    return words, [name for name in names if _public(name) and name.isascii()], top


def fit_zipf_mandelbrot(counts: list[int]) -> tuple[float, float]:
    """(s, q) of f(r) ~ 1 / (r + q)^s fitted to `counts` (most frequent first) by least squares
    on the logarithms: q over a grid, s by regression for each q."""
    ys = [math.log(count) for count in counts]
    best: tuple[float, float, float] = (math.inf, 1.0, 0.0)
    for q in (0.0, 0.5, 1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128):
        xs = [math.log(rank + q) for rank in range(1, len(counts) + 1)]
        mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
        slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
        slope /= sum((x - mean_x) ** 2 for x in xs)
        error = sum((y - mean_y - slope * (x - mean_x)) ** 2 for x, y in zip(xs, ys, strict=True))
        if error < best[0]:
            best = (error, -slope, float(q))
    return round(best[1], 4), best[2]


def _distinctive(own: Counter[str], every: dict[str, Counter[str]], count: int) -> list[str]:
    """The words of one package that set it apart: its count times log(packages / packages
    using the word), the way tf-idf weighs a word in a document."""
    spread = Counter(word for counts in every.values() for word in counts)
    scored = {
        word: c * math.log(len(every) / spread[word])
        for word, c in own.items()
        if c > 1 and len(word) > 3 and _public(word)
    }
    return sorted(scored, key=lambda word: (-scored[word], word))[:count]


def build(root: Path) -> dict[str, Any]:
    word_counts: Counter[str] = Counter()
    name_counts: Counter[str] = Counter()
    package_words: dict[str, Counter[str]] = {}
    package_names: dict[str, Counter[str]] = {}
    dotted: list[str] = []
    for module, path in _modules(root):
        words, names, top = _read(path)
        word_counts.update(words)
        name_counts.update(names)
        dotted += [f"{module}.{name}" for name in top]
        package = module.split(".")[0]
        package_words.setdefault(package, Counter()).update(words)
        package_names.setdefault(package, Counter()).update(names)
    topics = {
        package: {
            "words": _distinctive(own, package_words, TOPIC_WORDS),
            "names": _distinctive(package_names[package], package_names, TOPIC_NAMES),
        }
        for package, own in sorted(package_words.items())
        if own.total() >= 200
    }
    ranked = [(w, c) for w, c in word_counts.most_common() if c >= 3][:MAX_WORDS]
    s, q = fit_zipf_mandelbrot([c for _, c in ranked])
    identifiers = [n for n, c in name_counts.most_common() if c >= 2][:MAX_IDENTIFIERS]
    return {
        "source": "docstrings and names of the Python standard library, parsed with ast",
        "zipf_mandelbrot": {"s": s, "q": q},
        "words": [w for w, _ in ranked],
        "counts": [c for _, c in ranked],
        "identifiers": identifiers,
        "dotted": sorted(set(dotted)),
        "topics": topics,
    }


@cache
def lexicon() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(LEXICON.read_text(encoding="utf-8"))
    return loaded


def main() -> None:
    data = build(Path(sysconfig.get_paths()["stdlib"]))
    LEXICON.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    law = data["zipf_mandelbrot"]
    print(f"{len(data['words'])} words, {len(data['identifiers'])} identifiers, "
          f"{len(data['dotted'])} dotted paths, {len(data['topics'])} topics; "
          f"Zipf-Mandelbrot s = {law['s']}, q = {law['q']}")  # fmt: skip


if __name__ == "__main__":
    main()
