"""The second corpus's turns: sessions of lognormal length, each dwelling on one topic of its
project (bursty words), with lengths resampled from real whole turns.

A turn's asked and answered texts are filled, piece by piece, up to word counts (as the index
splits words: `history.query.words`) taken together from one real turn (`lengths.json`): prose
drawn from the session's mixture (the Zipf-Mandelbrot vocabulary, the session topic's words,
the project's identifiers), identifiers in backticks, dotted paths, file paths, commands and
pasted error lines; its work log (commands, failures, edits: work.py) up to the same real
turn's work length.
"""

from __future__ import annotations

import itertools
import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bench.corpus import GeneratedTurn
from bench.corpus2.law import word_weights, words
from bench.corpus2.lengths import resample
from bench.corpus2.lexicon import lexicon
from bench.corpus2.work import work_log
from bench.corpus2.world import Project, command, error_lines, projects
from history.query import words as index_words

TOOLS = ("Read", "Edit", "Write", "Bash", "Grep", "Glob", "TodoWrite", "Task", "NotebookEdit")
TAINTED_SHARE = 0.03
YEAR_SECONDS = 365 * 24 * 3600
# Shares of a session's prose: its topic's words and its identifiers; the rest is drawn from
# the whole vocabulary.
TOPIC_SHARE, IDENTIFIER_SHARE = 0.25, 0.08
SESSION_MEDIAN, SESSION_SIGMA, SESSION_MAX = 14, 0.9, 400


@dataclass(frozen=True, slots=True)
class Session:
    session_id: str
    project: Project
    working_set: list[str]
    names: list[str]  # the identifiers the session keeps coming back to
    population: list[str]
    weights: list[float]  # cumulative


def default_end() -> datetime:
    return datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _session(
    rng: random.Random, world: tuple[Project, ...], project_weights: list[float]
) -> Session:
    project = rng.choices(world, cum_weights=project_weights)[0]
    topic = lexicon()["topics"][rng.choice(project.topics)]
    topic_words = rng.sample(topic["words"], min(12, len(topic["words"])))
    names = rng.choices(project.identifiers, cum_weights=project.identifier_weights, k=10)
    base = word_weights()
    total = base[-1] / (1 - TOPIC_SHARE - IDENTIFIER_SHARE)
    extra = [TOPIC_SHARE * total / len(topic_words)] * len(topic_words)
    extra += [IDENTIFIER_SHARE * total / len(names)] * len(names)
    weights = list(base) + list(itertools.accumulate(extra, initial=base[-1]))[1:]
    working = rng.sample(project.paths, min(len(project.paths), rng.randint(3, 24)))
    population = [*words(), *topic_words, *names]
    return Session(_uuid(rng), project, working, names, population, weights)


def _piece(rng: random.Random, session: Session, question: bool) -> str:
    """One piece of text: mostly a sentence of prose, else a thing a coding turn names."""
    draw = rng.random()
    project = session.project
    if draw < 0.72:
        sentence = rng.choices(
            session.population, cum_weights=session.weights, k=rng.randint(4, 22)
        )
        sentence[0] = sentence[0].capitalize()
        return " ".join(sentence) + ("?" if question and rng.random() < 0.5 else ".")
    if draw < 0.8:
        return f"`{rng.choice(session.names)}`"
    if draw < 0.86:
        return f"`{rng.choice(project.dotted)}()`"
    if draw < 0.92:
        return f"`{rng.choice(session.working_set)}`"
    if draw < 0.96:
        return f"`{command(rng, project)}`"
    return "\n".join(error_lines(rng, project, list(session.population[-22:])))


def _text(rng: random.Random, wanted: int, session: Session, question: bool) -> str:
    """Pieces until `wanted` words; the last one cut to fit."""
    pieces: list[str] = []
    count = 0
    while count < wanted:
        piece = _piece(rng, session, question)
        size = len(index_words(piece))
        if count + size > wanted:
            if size and piece[0].isalpha() and "\n" not in piece:
                kept = piece.split()[: wanted - count]
                piece = " ".join(kept)
                size = len(index_words(piece))
            else:
                continue
        pieces.append(piece)
        count += size
    return " ".join(pieces)


def _turn(
    rng: random.Random, work_rng: random.Random, session: Session, asked_at: datetime
) -> GeneratedTurn:
    lengths = resample(rng)
    touched = min(len(session.working_set), int(rng.expovariate(0.35)))
    files = tuple(rng.sample(session.working_set, touched))
    edited = files[: rng.randint(1, min(4, len(files)))] if files and rng.random() < 0.45 else ()
    tools = set(rng.sample(TOOLS, rng.randint(0, 4))) | ({"Edit"} if edited else set())
    tainted = rng.random() < TAINTED_SHARE
    worked_on = edited or session.working_set
    prose = session.population[-22:]  # the session topic's words and its identifiers
    work = work_log(work_rng, lengths.work, session.project, worked_on, session.names, list(prose))
    return GeneratedTurn(
        turn_id=_uuid(rng),
        session_id=session.session_id,
        project=session.project.name,
        asked=_text(rng, lengths.asked, session, question=True),
        answered=_text(rng, lengths.answered, session, question=False),
        files=files,
        edited=edited,
        tools=tuple(sorted(tools | ({"WebFetch"} if tainted else set()))),
        tainted=tainted,
        asked_at=asked_at,
        work=work,
    )


def session_length(rng: random.Random) -> int:
    return min(SESSION_MAX, max(1, round(rng.lognormvariate(0, SESSION_SIGMA) * SESSION_MEDIAN)))


def turns(seed: int = 7, end: datetime | None = None) -> Iterator[GeneratedTurn]:
    """Endless turns, session after session; the same seed and `end` give the same turns."""
    rng = random.Random(f"corpus2-{seed}")
    work_rng = random.Random(f"corpus2-work-{seed}")
    world = projects(seed)
    # Some projects far busier than others, but flatter than a Zipf law over them.
    project_weights = list(itertools.accumulate(1 / (rank + 2) for rank in range(len(world))))
    last = end or default_end()
    while True:
        session = _session(rng, world, project_weights)
        when = last - timedelta(seconds=rng.uniform(3_600, YEAR_SECONDS))
        for _ in range(session_length(rng)):
            when += timedelta(seconds=min(6 * 3600, rng.lognormvariate(4.5, 1.2)))
            yield _turn(rng, work_rng, session, when)
