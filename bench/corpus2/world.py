"""The second corpus's projects and the things their turns name: files, identifiers, dotted
paths, error lines and commands, all drawn from the standard-library lexicon.

Each project centres on a few standard-library packages (its topics: a mail relay leans on
`email` and `smtplib`, a crawler on `urllib` and `html`), has a tree of Python, C, JavaScript,
shell, YAML and docs files named after those topics' words, and identifiers taken from the
topics' own names and from the whole standard library's.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache

from bench.corpus2.law import cumulative
from bench.corpus2.lexicon import lexicon

PROJECTS = 20
OWNERS = ("ana", "ben", "chloe", "dev", "eitan", "farah", "gus", "hana")
FOLDERS = ("src", "code", "work", "repos", "projects")
FIXED_FILES = ("pyproject.toml", "setup.cfg", "Makefile", "README.rst", "tox.ini",
               ".github/workflows/ci.yml", "CHANGES.rst", "Dockerfile")  # fmt: skip


@dataclass(frozen=True)
class Project:
    name: str  # the workspace path, as an agent reports it
    package: str
    topics: tuple[str, ...]  # standard-library packages it leans on
    paths: tuple[str, ...]
    identifiers: tuple[str, ...]
    identifier_weights: tuple[float, ...]  # cumulative, Zipf-Mandelbrot over `identifiers`
    dotted: tuple[str, ...]  # dotted paths of the standard library it calls
    exceptions: tuple[str, ...]


def _snake(name: str) -> str:
    out = "".join(f"_{c.lower()}" if c.isupper() else c for c in name).strip("_")
    return out.replace("__", "_")


def _path(rng: random.Random, package: str, words: list[str]) -> str:
    module = rng.choice(words)
    if rng.random() < 0.4:
        module = f"{module}_{rng.choice(words)}"
    module = _snake(module)
    kind = rng.random()
    if kind < 0.45:
        sub = rng.choice(words)
        return (
            f"src/{package}/{sub}/{module}.py"
            if rng.random() < 0.5
            else f"src/{package}/{module}.py"
        )
    if kind < 0.7:
        return f"tests/test_{module}.py"
    if kind < 0.78:
        return f"native/{module}.c" if rng.random() < 0.6 else f"native/include/{module}.h"
    if kind < 0.85:
        return f"web/static/js/{module.replace('_', '-')}.js"
    if kind < 0.9:
        return f"scripts/{module}.sh"
    if kind < 0.95:
        return f"deploy/{module.replace('_', '-')}.yaml"
    return f"docs/{module}.rst"


def _project(rng: random.Random, number: int) -> Project:
    data = lexicon()
    topics = tuple(rng.sample(sorted(data["topics"]), rng.randint(2, 4)))
    words = [w for topic in topics for w in data["topics"][topic]["words"]]
    package = _snake(rng.choice(words))
    paths = set(FIXED_FILES[: rng.randint(3, len(FIXED_FILES))])
    wanted = rng.randint(60, 320)
    while len(paths) < wanted:
        paths.add(_path(rng, package, words))
    own = [n for topic in topics for n in data["topics"][topic]["names"]]
    everywhere = data["identifiers"]
    names = dict.fromkeys(own + rng.sample(everywhere[:4000], 300))
    dotted = [d for d in data["dotted"] if d.split(".")[0] in topics]
    exceptions = [n for n in everywhere if n.endswith(("Error", "Exception", "Warning"))]
    owner, folder = OWNERS[number % len(OWNERS)], rng.choice(FOLDERS)
    return Project(
        name=f"/home/{owner}/{folder}/{package.replace('_', '-')}-{number}",
        package=package,
        topics=topics,
        paths=tuple(sorted(paths)),
        identifiers=tuple(names),
        identifier_weights=tuple(cumulative(len(names))),
        dotted=tuple(dotted or data["dotted"][:50]),
        exceptions=tuple(rng.sample(exceptions, min(12, len(exceptions)))),
    )


@cache
def projects(seed: int) -> tuple[Project, ...]:
    rng = random.Random(f"corpus2-projects-{seed}")
    return tuple(_project(rng, number) for number in range(PROJECTS))


def error_lines(rng: random.Random, project: Project, words: list[str]) -> list[str]:
    """What a failure prints: a Python traceback, a compiler's or a type checker's lines."""
    path = rng.choice(project.paths)
    line, column = rng.randint(1, 900), rng.randint(1, 80)
    message = " ".join(rng.choices(words, k=rng.randint(3, 9)))
    exception = rng.choice(project.exceptions)
    kind = rng.random()
    if kind < 0.5:
        frames = []
        for _ in range(rng.randint(1, 4)):
            function = rng.choice(project.identifiers)
            frames.append(f'  File "{project.name}/{rng.choice(project.paths)}", line '
                          f"{rng.randint(1, 900)}, in {function}")  # fmt: skip
            frames.append(f"    {rng.choice(project.dotted)}({rng.choice(project.identifiers)})")
        return ["Traceback (most recent call last):", *frames, f"{exception}: {message}"]
    if kind < 0.7:
        return [f"{path}:{line}:{column}: error: {message} [-Werror]"]
    if kind < 0.9:
        code = rng.choice(("arg-type", "attr-defined", "return-value", "union-attr", "call-arg"))
        return [f'{path}:{line}: error: {message} "{rng.choice(project.identifiers)}" [{code}]']
    return [f"FAILED {path}::test_{_snake(rng.choice(project.identifiers))} - {exception}"]


def command(rng: random.Random, project: Project) -> str:
    """A command a turn ran or suggests."""
    path, name = rng.choice(project.paths), rng.choice(project.identifiers)
    module = f"{project.package}.{_snake(name)}"
    return rng.choice(
        (
            f"pytest -q {path} -k {_snake(name)}",
            f"python -m {module} --verbose",
            "git diff --stat",
            f"git log --oneline -- {path}",
            f"ruff check {path}",
            f"mypy --strict src/{project.package}",
            "make lint test",
            f"grep -rn {name} src",
            f"python -c 'import {project.topics[0]}; help({rng.choice(project.dotted)})'",
            "tox -e py311",
        )
    )
