"""The second corpus's two query mixes, drawn from its own vocabulary, 1-4 search terms each:

- standard (as `bench.corpus.queries` builds its mix): each word frequent (drawn by the
  Zipf-Mandelbrot law, function words too, which the search drops), rare (uniform beyond the 200
  commonest) or one of the project's identifiers;
- common (as `bench.common_mix`): each word uniform over the 3,000 commonest words that are not
  function words.

Each query carries the project a one-project search looks in.
"""

from __future__ import annotations

import random

from bench.corpus import Query
from bench.corpus2.law import word_weights, words
from bench.corpus2.world import projects

QUERY_POOL = 3_000
WANTED = ((1, 2, 3, 4), (25, 35, 25, 15))  # how many terms, and how often


def queries(count: int, seed: int = 7) -> list[Query]:
    from history.query import terms  # here: an import-only process never loads the project

    rng = random.Random(f"corpus2-queries-{seed}")
    world, vocabulary, weights = projects(seed), words(), word_weights()
    found: list[Query] = []
    while len(found) < count:
        project = rng.choice(world)
        wanted = rng.choices(*WANTED)[0]
        parts: list[str] = []
        for _ in range(20):
            draw = rng.random()
            if draw < 0.45:
                part = rng.choices(vocabulary, cum_weights=weights)[0]
            elif draw < 0.75:
                part = rng.choice(vocabulary[200:])
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


def common_queries(count: int, seed: int = 7) -> list[Query]:
    from history.query import terms

    rng = random.Random(f"corpus2-common-queries-{seed}")
    world = projects(seed)
    pool = [word for word in words() if terms(word)][:QUERY_POOL]
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
