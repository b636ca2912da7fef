"""A second bench corpus, generated independently of the first (bench.corpus, bench.common_mix).

Its words come from the Python standard library's docstrings and names (`lexicon.json`), drawn
by a Zipf-Mandelbrot law fitted to them, with each session dwelling on one topic of its project;
its turn lengths are resampled from real whole turns (`lengths.json`); its 20 projects have
their own files, identifiers, dotted paths, error lines and commands. `turns(seed)` streams the
turns; `queries` and `common_queries` are its two query mixes.
"""

from bench.corpus2.queries import common_queries, queries
from bench.corpus2.turns import turns

__all__ = ["common_queries", "queries", "turns"]
