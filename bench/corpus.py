"""A deterministic, streamed corpus of coding-agent turns, and benchmark queries over it.

`turns(seed)` is an endless generator (take what you need with `itertools.islice`): sessions of
about 30 turns in one of 20 projects, asked over the year before `end`, with Zipf-distributed
words, each session's own topic words, identifiers and working set of files. Nothing is kept
between turns but the current session, so a million turns cost no more memory than ten.
"""

from __future__ import annotations

import itertools
import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bench.vocabulary import vocabulary
from bench.world import Project, projects, word_weights, zipf_cumulative

TOOLS = ("read_file", "edit_file", "write_file", "run_shell", "grep", "glob", "list_dir",
         "web_search", "apply_patch", "run_tests")  # fmt: skip
TAINTED_SHARE = 0.03
YEAR_SECONDS = 365 * 24 * 3600


@dataclass(frozen=True, slots=True)
class GeneratedTurn:
    """A turn as an agent reports it; has every field `HistoryIndex.record_many` reads."""

    turn_id: str
    session_id: str
    project: str
    asked: str
    answered: str
    files: tuple[str, ...]  # every file the turn touched: read or edited
    edited: tuple[str, ...]
    tools: tuple[str, ...]
    tainted: bool
    asked_at: datetime
    work: str = ""  # the work log (history/importers/whole.py); bench.work_mix fills it


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    terms: tuple[str, ...]
    project: str  # the workspace of a project-scoped search


@dataclass(frozen=True, slots=True)
class _Session:
    session_id: str
    project: Project
    working_set: list[str]
    words: list[str]  # the vocabulary, then the session's topic words and identifiers
    weights: list[float]  # cumulative


# Shares of a session's text: its topic words, its identifiers (bare or as a call); the rest is
# drawn from the whole vocabulary.
TOPIC_SHARE, IDENTIFIER_SHARE = 0.12, 0.06


def default_end() -> datetime:
    """The start of today (UTC): the corpus's turns fall in the year before it."""
    return datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _session(rng: random.Random, world: tuple[Project, ...], weights: list[float]) -> _Session:
    project = rng.choices(world, cum_weights=weights)[0]
    words, zipf = vocabulary(), word_weights()
    topic = rng.choices(words[80:], cum_weights=zipf[: len(words) - 80], k=8)
    names = rng.choices(project.identifiers, cum_weights=project.identifier_weights, k=12)
    calls = [f"`{name}()`" for name in names[:4]]
    working_set = rng.sample(project.paths, min(len(project.paths), rng.randint(4, 16)))
    total = zipf[-1] / (1 - TOPIC_SHARE - IDENTIFIER_SHARE)
    extra = [TOPIC_SHARE * total / len(topic)] * len(topic)
    extra += [IDENTIFIER_SHARE * total / (len(names) + len(calls))] * (len(names) + len(calls))
    cumulative = list(zipf) + list(itertools.accumulate(extra, initial=zipf[-1]))[1:]
    population = [*words, *topic, *names, *calls]
    return _Session(_uuid(rng), project, working_set, population, cumulative)


def _text(rng: random.Random, count: int, session: _Session, question: bool) -> str:
    """`count` words in sentences: Zipf vocabulary, the session's topic words and identifiers."""
    words = rng.choices(session.words, cum_weights=session.weights, k=count)
    if not question and rng.random() < 0.5:
        words.insert(rng.randrange(count), f"`{rng.choice(session.working_set)}`")
    sentences, start = [], 0
    while start < len(words):
        end = start + rng.randint(5, 16)
        sentence = words[start:end]
        first = sentence[0]
        sentence[0] = first[0].upper() + first[1:]
        sentences.append(" ".join(sentence) + ("?" if question else "."))
        start = end
    return " ".join(sentences)


def _turn(rng: random.Random, session: _Session, asked_at: datetime) -> GeneratedTurn:
    asked_words = rng.randint(10, 40)
    answered_words = int(rng.triangular(30, 200, 60))
    touched = min(8, int(rng.expovariate(0.45)))
    files = tuple(rng.sample(session.working_set, min(touched, len(session.working_set))))
    tools = set(rng.sample(TOOLS, rng.randint(0, 3)))
    edited = files[: rng.randint(1, min(3, len(files)))] if files and rng.random() < 0.4 else ()
    if edited:
        tools.add("edit_file")
    tainted = rng.random() < TAINTED_SHARE
    if tainted:
        tools.add("web_fetch")
    return GeneratedTurn(
        turn_id=_uuid(rng),
        session_id=session.session_id,
        project=session.project.name,
        asked=_text(rng, asked_words, session, question=True),
        answered=_text(rng, answered_words, session, question=False),
        files=files,
        edited=edited,
        tools=tuple(sorted(tools)),
        tainted=tainted,
        asked_at=asked_at,
    )


def turns(seed: int = 7, end: datetime | None = None) -> Iterator[GeneratedTurn]:
    """Endless turns, session after session; the same seed and `end` give the same turns."""
    rng = random.Random(seed)
    world = projects(seed)
    project_weights = zipf_cumulative(len(world), exponent=0.5)
    last = end or default_end()
    while True:
        session = _session(rng, world, project_weights)
        length = max(2, int(rng.gauss(30, 8)))
        when = last - timedelta(seconds=rng.uniform(86_400, YEAR_SECONDS))
        for _ in range(length):
            when += timedelta(seconds=rng.uniform(20, 900))
            yield _turn(rng, session, when)


def queries(count: int, seed: int = 7) -> list[Query]:
    """`count` queries of 1-4 search terms (after function words are dropped), each with the
    project a scoped search looks in: frequent and rare words and the project's identifiers."""
    from history.query import terms  # here: an import-only process never loads the project

    rng = random.Random(f"queries-{seed}")
    world, words, weights = projects(seed), vocabulary(), word_weights()
    found: list[Query] = []
    while len(found) < count:
        project = rng.choice(world)
        wanted = rng.choices((1, 2, 3, 4), weights=(25, 35, 25, 15))[0]
        parts: list[str] = []
        for _ in range(20):
            draw = rng.random()
            if draw < 0.45:  # frequent: function words too, which the search drops
                part = rng.choices(words, cum_weights=weights)[0]
            elif draw < 0.75:  # rare
                part = rng.choice(words[200:])
            else:
                part = rng.choices(project.identifiers, cum_weights=project.identifier_weights)[0]
            query_terms = terms(" ".join([*parts, part]))
            if len(query_terms) <= wanted:
                parts.append(part)
            if len(query_terms) >= wanted:
                break
        query_terms = terms(" ".join(parts))
        if query_terms:
            found.append(Query(" ".join(parts), tuple(query_terms), project.name))
    return found
