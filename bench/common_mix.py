"""The second query mix: queries made only of words common in the history (issue 21).

A user's real queries are often words frequent in their own history ("login function password
hash" in a web shop's conversations). This mix builds that case on purpose:

- turns: 20 projects, sessions of ~30 turns; asked 8-40 and answered 40-250 words drawn from a
  Zipf law (s = 1) over a 6,000-word coding vocabulary (the standard mix's ~2,800 words plus
  snake_case and camelCase identifiers, all ranked in one fixed shuffled order, so the most
  frequent words are often coding words and identifiers); 0-5 file paths of the project;
- queries: 1-4 search terms, each word drawn uniformly from the 3,000 most frequent words (after
  `history.query.terms` drops function words), so a query's rarest word is typically in 0.5-5% of
  the turns and its commonest in 5-60%.

Seeded and streamed like `bench.corpus`: the same seed gives the same turns and queries.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime, timedelta
from functools import cache

from bench.corpus import TOOLS, YEAR_SECONDS, GeneratedTurn, Query, _uuid, default_end
from bench.vocabulary import nouns, verbs, vocabulary
from bench.world import ADJECTIVES, Project, projects, zipf_cumulative

VOCABULARY_SIZE = 6_000
QUERY_POOL = 3_000  # queries draw from this many of the most frequent words
TAINTED_SHARE = 0.03


def _identifier(rng: random.Random) -> str:
    verb, noun, other = rng.choice(verbs()), rng.choice(nouns()), rng.choice(nouns())
    parts = rng.choice([[verb, noun], [verb, rng.choice(ADJECTIVES), noun], [noun, other]])
    if rng.random() < 0.5:
        return "_".join(parts)
    return parts[0] + "".join(part.capitalize() for part in parts[1:])


@cache
def common_vocabulary() -> tuple[str, ...]:
    """6,000 words, most frequent first: function words, prose, programming terms and
    identifiers in one fixed shuffled order."""
    rng = random.Random("common-vocabulary")
    words = dict.fromkeys(vocabulary())
    while len(words) < VOCABULARY_SIZE:
        words.setdefault(_identifier(rng), None)
    ranked = list(words)
    rng.shuffle(ranked)
    return tuple(ranked)


@cache
def _weights() -> tuple[float, ...]:
    return tuple(zipf_cumulative(VOCABULARY_SIZE))


def _text(rng: random.Random, count: int, question: bool) -> str:
    words = rng.choices(common_vocabulary(), cum_weights=_weights(), k=count)
    sentences, start = [], 0
    while start < len(words):
        end = start + rng.randint(5, 16)
        sentence = words[start:end]
        sentence[0] = sentence[0][0].upper() + sentence[0][1:]
        sentences.append(" ".join(sentence) + ("?" if question else "."))
        start = end
    return " ".join(sentences)


def _turn(
    rng: random.Random, session_id: str, project: Project, working: list[str], when: datetime
) -> GeneratedTurn:
    files = tuple(rng.sample(working, rng.randint(0, 5)))
    edited = files[: rng.randint(1, min(3, len(files)))] if files and rng.random() < 0.4 else ()
    tools = set(rng.sample(TOOLS, rng.randint(0, 3))) | ({"edit_file"} if edited else set())
    tainted = rng.random() < TAINTED_SHARE
    return GeneratedTurn(
        turn_id=_uuid(rng),
        session_id=session_id,
        project=project.name,
        asked=_text(rng, rng.randint(8, 40), question=True),
        answered=_text(rng, rng.randint(40, 250), question=False),
        files=files,
        edited=edited,
        tools=tuple(sorted(tools | ({"web_fetch"} if tainted else set()))),
        tainted=tainted,
        asked_at=when,
    )


def turns(seed: int = 7, end: datetime | None = None) -> Iterator[GeneratedTurn]:
    """Endless turns of the common mix, session after session."""
    rng = random.Random(f"common-{seed}")
    world = projects(seed)
    project_weights = zipf_cumulative(len(world), exponent=0.5)
    last = end or default_end()
    while True:
        project = rng.choices(world, cum_weights=project_weights)[0]
        working = rng.sample(project.paths, min(len(project.paths), rng.randint(5, 16)))
        session_id = _uuid(rng)
        when = last - timedelta(seconds=rng.uniform(86_400, YEAR_SECONDS))
        for _ in range(max(2, int(rng.gauss(30, 8)))):
            when += timedelta(seconds=rng.uniform(20, 900))
            yield _turn(rng, session_id, project, working, when)


def queries(count: int, seed: int = 7) -> list[Query]:
    """`count` queries of 1-4 terms, each word uniform over the 3,000 most frequent words that
    are not function words, each with a project for the scoped search."""
    from history.query import terms  # here: an import-only process never loads the project

    rng = random.Random(f"common-queries-{seed}")
    world = projects(seed)
    pool = [word for word in common_vocabulary() if terms(word)][:QUERY_POOL]
    found: list[Query] = []
    while len(found) < count:
        wanted = rng.randint(1, 4)
        parts: list[str] = []
        while len(terms(" ".join(parts))) < wanted:
            word = rng.choice(pool)
            if len(terms(" ".join([*parts, word]))) <= wanted:
                parts.append(word)
        text = " ".join(parts)
        found.append(Query(text, tuple(terms(text)), rng.choice(world).name))
    return found
