"""The benchmark's projects: each a workspace with a language, repository paths and identifiers.

Everything is drawn from one seeded `random.Random`, so a seed always builds the same world.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from functools import cache

from bench.vocabulary import OTHER, nouns, verbs, vocabulary

PROJECTS = 20
LANGUAGES = ("python", "typescript", "rust", "go")
_SUBPACKAGES = """api core db models services utils cli web auth jobs storage parsing config
events cache search billing admin sync"""
_DOC_TOPICS = "setup architecture usage deploy testing changelog design faq api contributing"
SUBPACKAGES, DOC_TOPICS = _SUBPACKAGES.split(), _DOC_TOPICS.split()
ADJECTIVES = [w for w in OTHER.split()[:160] if len(w) > 2]
# UPPER_SNAKE names with these words look like secrets to `redact`; constants avoid them.
SECRET_WORDS = ("KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD")


@dataclass(frozen=True)
class Project:
    name: str  # the workspace path, as an agent reports it
    language: str
    paths: tuple[str, ...]
    identifiers: tuple[str, ...]
    identifier_weights: tuple[float, ...]  # cumulative, Zipf over `identifiers`


def zipf_cumulative(count: int, exponent: float = 1.0) -> list[float]:
    return list(itertools.accumulate(1.0 / (rank**exponent) for rank in range(1, count + 1)))


def _camel(parts: list[str]) -> str:
    return parts[0] + "".join(part.capitalize() for part in parts[1:])


def _identifier(rng: random.Random, language: str) -> str:
    verb, noun, other = rng.choice(verbs()), rng.choice(nouns()), rng.choice(nouns())
    adjective = rng.choice(ADJECTIVES)
    parts = rng.choice([[verb, noun], [verb, adjective, noun], [noun, other], [verb, noun, other]])
    style = rng.random()
    if style < 0.25:  # a class or type name
        return "".join(part.capitalize() for part in [noun, other])
    if style < 0.3:
        constant = "_".join(part.upper() for part in ["max", noun] if part)
        return constant if not any(w in constant for w in SECRET_WORDS) else "MAX_RETRIES"
    if language in ("typescript", "go"):
        return _camel(parts)
    return "_".join(parts)


def _module(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(nouns())
    return f"{rng.choice(verbs())}_{rng.choice(nouns())}"


def _path(rng: random.Random, language: str, package: str) -> str:
    sub, module = rng.choice(SUBPACKAGES), _module(rng)
    kind = rng.random()
    if kind < 0.1:
        return f"docs/{rng.choice(DOC_TOPICS)}.md"
    test = kind < 0.35
    if language == "python":
        return f"tests/{sub}/test_{module}.py" if test else f"src/{package}/{sub}/{module}.py"
    if language == "typescript":
        name = _camel(module.split("_"))
        if test:
            return f"tests/{sub}/{name}.test.ts"
        return (
            f"src/{sub}/{name[0].upper()}{name[1:]}.tsx" if kind > 0.8 else f"src/{sub}/{name}.ts"
        )
    if language == "rust":
        return f"tests/{module}.rs" if test else f"src/{sub}/{module}.rs"
    return f"internal/{sub}/{module}_test.go" if test else f"internal/{sub}/{module}.go"


def _project(rng: random.Random, number: int) -> Project:
    language = LANGUAGES[number % len(LANGUAGES)]
    package = rng.choice(nouns())
    paths = {"README.md", "Makefile"}
    wanted = rng.randint(120, 400)
    while len(paths) < wanted:
        paths.add(_path(rng, language, package))
    identifiers = dict.fromkeys(_identifier(rng, language) for _ in range(600))
    return Project(
        name=f"/home/dev/proj-{number:02d}",
        language=language,
        paths=tuple(sorted(paths)),
        identifiers=tuple(identifiers),
        identifier_weights=tuple(zipf_cumulative(len(identifiers))),
    )


@cache
def projects(seed: int) -> tuple[Project, ...]:
    rng = random.Random(f"projects-{seed}")
    return tuple(_project(rng, number) for number in range(PROJECTS))


@cache
def word_weights() -> tuple[float, ...]:
    """Cumulative Zipf weights over `vocabulary()` (exponent 1, like natural text)."""
    return tuple(zipf_cumulative(len(vocabulary())))
